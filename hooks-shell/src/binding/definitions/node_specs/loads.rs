//! The loads of Node code read through [`super::reader`] (red team round
//! 55, H55-9): `require(…)`, `module.require(…)`, `require.resolve(…)`,
//! `import(…)`, a worker made (`new Worker(…)`) and the require
//! `createRequire(…)` makes
//! (called at once, or through the name it is given). A load of a path
//! of the folder the code runs in (`require(p.resolve("m"))` with `p`
//! Node's `path`, `require([process.cwd(), "m"].join("/"))`, `new
//! Worker(process.cwd() + "/tools/w.js")`, `new Worker("./tools/w.js")`,
//! `createRequire(path.join(process.cwd(), "x.js"))("./m")`) gives the
//! name of the file there, as a spec from that folder; one whose name the
//! reading cannot work out but that folder went into makes the code
//! unread: it cannot be approved.

use super::reader::{Code, is_name, names_here};
use super::values::{Function, Value, normal, parent};

/// The most loads of one code read, and of `new`s read for a worker;
/// past them, code whose rest names the folder it runs in is unread.
const MAX_LOADS: usize = 256;

/// What [`read`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Loads {
    /// The specs of files loaded from the folder the code runs in.
    pub(super) specs: Vec<String>,
    /// Why a load's name cannot be worked out, the folder having gone in.
    pub(super) unread: Option<String>,
}

impl Loads {
    fn unread(&mut self, code: &Code, (start, end): (usize, usize)) {
        let from = code.starts.get(start).copied().unwrap_or(0);
        let to = code
            .starts
            .get(end)
            .map_or(code.text.len(), |at| at + code.tokens[end].len());
        let shown: String = code.text[from..to].chars().take(120).collect();
        self.unread.get_or_insert(format!(
            "loads code by a name built from the folder it runs in that no reading works out (`{shown}`)"
        ));
    }
}

/// The loads of `code`; `inline`: a written name is from the folder it
/// runs in too (`node -e 'require("./m")'`).
pub(super) fn read(code: &str, inline: bool) -> Loads {
    let code = Code::new(code);
    let mut loads = Loads::default();
    let (mut seen, mut made) = (0, 0);
    let workers = code.text.contains("Worker");
    for at in 0..code.tokens.len() {
        if seen >= MAX_LOADS || made >= MAX_LOADS {
            if names_here(&code.tokens[at..]) {
                loads.unread(&code, (at, at));
            }
            break;
        }
        let before = at.checked_sub(1).and_then(|before| code.at(before));
        if before == Some("function") {
            continue;
        }
        let method = matches!(before, Some("." | "?."));
        let open = match (code.tokens[at], code.at(at + 1)) {
            ("require", Some("(")) if !method || module_before(&code, at) => at + 1,
            ("import", Some("(")) if !method => at + 1,
            ("require", Some(".")) if code.at(at + 2) == Some("resolve") && !method => at + 3,
            ("new", _) if workers => {
                made += 1;
                match worker(&code, at) {
                    Some(open) => open,
                    None => continue,
                }
            }
            ("createRequire", Some("(")) => {
                seen += 1;
                made_require(&code, at, &mut loads);
                continue;
            }
            _ => continue,
        };
        if code.at(open) != Some("(") {
            continue;
        }
        seen += 1;
        let Some((args, close)) = arguments(&code, open) else {
            continue;
        };
        let Some(&(start, end)) = args.first() else {
            continue;
        };
        let worker = code.tokens[at] == "new";
        for value in code.value(start, end).each() {
            match value {
                Value::Here(path) => loads.specs.extend(folder_specs(&normal(&path))),
                // A worker's relative name is from the folder it runs in.
                Value::Text(name)
                    if worker && (name.starts_with("./") || name.starts_with("../")) =>
                {
                    loads.specs.extend(folder_specs(&normal(&name)));
                }
                Value::Text(name) if inline && !worker => loads.specs.extend(spec_in("", &name)),
                other if other.here() => loads.unread(&code, (at, close)),
                _ => {}
            }
        }
    }
    loads
}

/// Whether the `require` at `at` is `module.require`.
fn module_before(code: &Code, at: usize) -> bool {
    at >= 2 && code.at(at - 2) == Some("module")
}

/// Where the arguments of the `new` at `at` open when what it makes is a
/// worker (`new Worker(`, `new wt.Worker(`, `new (require("worker_threads")
/// .Worker)(`, a name given the class).
fn worker(code: &Code, at: usize) -> Option<usize> {
    let start = at + 1;
    let mut end = match code.at(start)? {
        "(" => arguments(code, start)?.1 + 1,
        name if is_name(name) => start + 1,
        _ => return None,
    };
    while code.at(end) == Some(".") && code.at(end + 1).is_some_and(is_name) {
        end += 2;
    }
    let made = code.value(start, end).each();
    let worker = made.contains(&Value::Function(Function::Worker));
    (worker && code.at(end) == Some("(")).then_some(end)
}

/// The arguments of the call whose `(` is at `open` (each's first token
/// and end) and where its `)` is.
fn arguments(code: &Code, open: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut start = open + 1;
    for at in open..code.tokens.len() {
        match code.tokens[at] {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    if at > start {
                        args.push((start, at));
                    }
                    return Some((args, at));
                }
            }
            "," if depth == 1 => {
                args.push((start, at));
                start = at + 1;
            }
            _ => {}
        }
    }
    None
}

/// Where the `(` of the group whose `)` is at `close` is.
fn opening(code: &Code, close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for at in (0..=close).rev() {
        match code.tokens[at] {
            ")" | "]" | "}" => depth += 1,
            "(" | "[" | "{" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// Reads the require `createRequire(…)` at `at` makes: for a file of the
/// folder the code runs in, what each call of it loads from there.
fn made_require(code: &Code, at: usize, loads: &mut Loads) {
    let Some((args, close)) = arguments(code, at + 1) else {
        return;
    };
    let base = match args.first() {
        Some(&(start, end)) => code.value(start, end),
        None => return,
    };
    let mut folders = Vec::new();
    for value in base.each() {
        match value {
            Value::Here(path) if path.ends_with('/') => folders.push(normal(&path)),
            Value::Here(path) => folders.push(parent(&path)),
            other if other.here() => loads.unread(code, (at, close)),
            _ => {}
        }
    }
    if folders.is_empty() {
        return;
    }
    // Called at once, or given a name (`const r = createRequire(…)`).
    let mut calls = Vec::new();
    if code.at(close + 1) == Some("(") {
        calls.push(close + 1);
    } else if let Some(name) = given_to(code, at) {
        for &place in code.places(name) {
            let after = code.at(place + 1);
            let before = place.checked_sub(1).and_then(|before| code.at(before));
            match after {
                _ if matches!(before, Some("." | "?.")) => {}
                Some("=") => {}
                Some("(") => calls.push(place + 1),
                Some(".") if code.at(place + 2) == Some("resolve") => calls.push(place + 3),
                _ => loads.unread(code, (place, place)),
            }
        }
    } else {
        loads.unread(code, (at, close));
    }
    for open in calls {
        let Some((args, end)) = arguments(code, open) else {
            continue;
        };
        let Some(&(start, stop)) = args.first() else {
            continue;
        };
        for value in code.value(start, stop).each() {
            match value {
                Value::Text(name) => {
                    for folder in &folders {
                        loads.specs.extend(spec_in(folder, &name));
                    }
                }
                Value::Here(path) => loads.specs.extend(folder_specs(&normal(&path))),
                Value::Elsewhere => {}
                _ => loads.unread(code, (open, end)),
            }
        }
    }
}

/// The name the value of the expression ending in the call at `at` is
/// given (`const r = require("module").createRequire(…)`: `r`).
fn given_to<'a>(code: &Code<'a>, at: usize) -> Option<&'a str> {
    let mut back = at;
    loop {
        back = back.checked_sub(1)?;
        match code.tokens[back] {
            ")" => back = opening(code, back)?,
            "." | "?." => {}
            "=" => break,
            token if is_name(token) => {}
            _ => return None,
        }
    }
    let name = back.checked_sub(1)?;
    let member = matches!(
        name.checked_sub(1).and_then(|at| code.at(at)),
        Some("." | "?.")
    );
    code.at(name).filter(|name| is_name(name) && !member)
}

/// The spec Node's require made for `folder` (a path from the folder the
/// code runs in) loads for the written `name`: a relative path, a `#`
/// name of `imports`, a package of `node_modules`; none for Node's own
/// modules or an absolute path.
fn spec_in(folder: &str, name: &str) -> Vec<String> {
    if name.starts_with("./") || name.starts_with("../") || name == "." || name == ".." {
        return folder_specs(&normal(&format!("{folder}/{name}")));
    }
    let joined = |name: &str| match folder.is_empty() {
        true => name.to_owned(),
        false => format!("{folder}/{name}"),
    };
    if name.starts_with('#') {
        return vec![joined(name)];
    }
    super::bare_package(name)
        .map(|package| joined(&format!("node_modules/{package}")))
        .into_iter()
        .collect()
}

/// The specs of the path `path` from the folder the code runs in: that
/// folder's own files when it is empty (`require(process.cwd())`).
fn folder_specs(path: &str) -> Vec<String> {
    match path.is_empty() {
        true => vec!["index".to_owned(), "package.json".to_owned()],
        false => vec![path.to_owned()],
    }
}

#[cfg(test)]
mod tests {
    use super::{Loads, read};

    #[test]
    fn loads_built_from_the_folder_it_runs_in_are_worked_out() {
        for (code, spec) in [
            (
                "const p = require(\"path\");\nrequire(p.resolve(\"m\"));",
                "m",
            ),
            ("require([process.cwd(), \"m\"].join(\"/\"));", "m"),
            (
                "require(path.resolve(process.env.CLAUDE_PROJECT_DIR || \".\", \"m\"));",
                "m",
            ),
            (
                "require(\"module\").createRequire(path.join(process.cwd(), \"x.js\"))(\"./m\");",
                "m",
            ),
            (
                "const { Worker } = require(\"worker_threads\");\nnew Worker(process.cwd() + \"/tools/w.js\");",
                "tools/w.js",
            ),
            ("new Worker(\"./tools/w.js\");", "tools/w.js"),
            (
                "const wt = require(\"worker_threads\");\nnew (wt.Worker)(process.cwd() + \"/w.js\");",
                "w.js",
            ),
            (
                "const { createRequire } = require(\"module\");\nconst r = createRequire(process.cwd() + \"/\");\nr(\"#m\"); r(\"x/m\");",
                "#m",
            ),
            (
                "const r = require(\"module\").createRequire(process.cwd() + \"/sub/\");\nr(\"x/m\");",
                "sub/node_modules/x/m",
            ),
            (
                "import path from \"node:path\";\nawait import(path.resolve(\"m.mjs\"));",
                "m.mjs",
            ),
            ("const { cwd } = input;\nrequire(`${cwd}/lib/x`);", "lib/x"),
            ("for (const d of [process.cwd()]) require(d + \"/m\");", "m"),
            (
                "const root = input.cwd || process.cwd();\nrequire(path.join(root, \"m\"));",
                "m",
            ),
            ("require(process.cwd().concat(\"/m\"));", "m"),
            ("require(input[\"cwd\"] + \"/tools/../m\");", "m"),
            ("require(process.cwd());", "index"),
        ] {
            let loads = read(code, false);
            assert!(loads.specs.iter().any(|s| s == spec), "{code}: {loads:?}");
            assert_eq!(loads.unread, None, "{code}");
        }
    }

    #[test]
    fn a_load_built_from_the_folder_past_working_out_is_unread() {
        for code in [
            "require(path.join(process.cwd(), fs.readFileSync(\"n\", \"utf8\").trim()));",
            "require(process.cwd().replace(\"a\", \"b\") + \"/m\");",
            "require(path.format({ dir: process.cwd(), name: \"m\" }));",
            "const r = createRequire(process.cwd() + \"/\");\nr(name);",
            "const r = createRequire(process.cwd() + \"/\");\nmodule.exports = r;",
            "new Worker(path.resolve(x));",
            "let d = process.cwd();\nd = path.dirname(d);\nrequire(d + \"/m\");",
            "require(require.resolve(\"m\", { paths: [process.cwd()] }));",
            "require(process.cwd() + \"m\");",
        ] {
            assert!(read(code, false).unread.is_some(), "{code}");
        }
    }

    #[test]
    fn loads_of_other_folders_give_nothing() {
        for code in [
            "const path = require(\"path\");\nrequire(path.join(__dirname, \"lib\", \"x\"));",
            "import { createRequire } from \"node:module\";\nconst require = createRequire(import.meta.url);\nrequire(\"./config.json\");",
            "const { Worker } = require(\"worker_threads\");\nnew Worker(new URL(\"./w.js\", import.meta.url));",
            "const r = require.resolve(\"prettier\", { paths: [process.cwd()] });",
            "require(os.homedir() + \"/.config/x.js\");",
            "require(\"./lib/x\"); // require(process.cwd() + x)",
            "const s = \"require(process.cwd() + x)\";",
        ] {
            assert_eq!(read(code, false), Loads::default(), "{code}");
        }
        // Inline code's written names are from the folder it runs in.
        let inline = read("require(\"#m\"); require(\"x/m\"); require(\"fs\")", true);
        assert_eq!(inline.specs, ["#m", "node_modules/x/m"]);
    }
}
