//! The names Node code loads from the folder it runs in ([`cwd_specs`]):
//! inline code's relative requires, and in any code a path built from
//! that folder (`path.resolve("m")`, `process.cwd() + "/m"`, `` `${
//! input.cwd}/m` ``, `createRequire(process.cwd() + "/")("./m")`, a name
//! given such a folder: red team rounds 52 and 53, H52-4, H53-1, H53-2),
//! and what [`loads`] works out of every load (round 55, H55-9: `path`
//! under another name, a list joined, `createRequire` of a file there, a
//! worker), or finds built from that folder past working out.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

mod loads;
mod reader;
mod values;

/// The most names of one code bound; past it, the code is unread.
const MAX_SPECS: usize = 256;

/// A quote, perhaps escaped for the shell it is written in.
const QUOTE: &str = r#"\\?["'`]"#;

/// The folder it runs in, or the project's, as code spells it; `||`
/// between spellings too.
const CWD: &str = r#"(?:(?:process\.cwd\(\)|process\.env\.[A-Z_]*(?:PROJECT_DIR|PWD)\b|\b[A-Za-z_$][\w$]*\.cwd\b|\b[A-Za-z_$][\w$]*\[\s*\\?["']cwd\\?["']\s*\])(?:\s*\|\|\s*(?:process\.cwd\(\)|process\.env\.[A-Z_]*(?:PROJECT_DIR|PWD)\b|\b[A-Za-z_$][\w$]*\.cwd\b))*)"#;

/// What code loads from the folder it runs in ([`cwd_specs`]).
#[derive(Debug, Default)]
pub(crate) struct CwdSpecs {
    /// The names, each a path from that folder (`m`, `./m`, `#m`,
    /// `node_modules/x/m`).
    pub(crate) names: Vec<String>,
    /// Why a load built from that folder cannot be worked out.
    pub(crate) unread: Option<String>,
}

/// The names `code` loads from the folder it runs in: when the code is
/// inline (a file's resolve from its own folder), `require("./m")`,
/// `import("./m")`, a name given such a literal, a package of the folder's
/// `node_modules` (`require("m")`), a `#m` of its `package.json`'s
/// `imports`; in any code, a path built from the folder ([`CWD`], or a
/// name given it) and what [`loads`] works out.
pub(crate) fn cwd_specs(code: &str, inline: bool) -> CwdSpecs {
    if !["require", "import", "Worker"]
        .iter()
        .any(|word| code.contains(word))
    {
        return CwdSpecs::default();
    }
    let code = joined_literals(code);
    let mut names = from_cwd(&code);
    if inline {
        names.extend(relative_and_bare(&code));
    }
    // Inline code as the shell text holding it spells it (`\"./m\"`).
    let unescaped = match inline {
        true => code.replace("\\\"", "\"").replace("\\'", "'"),
        false => code,
    };
    let read = loads::read(&unescaped, inline);
    names.extend(read.specs);
    // `./m` and `m` from the folder are the same files.
    for name in &mut names {
        if let Some(relative) = name.strip_prefix("./") {
            *name = relative.to_owned();
        }
    }
    names.sort();
    names.dedup();
    let unread = match names.len() > MAX_SPECS {
        true => Some(format!(
            "loads more than {MAX_SPECS} names from the folder it runs in"
        )),
        false => read.unread,
    };
    CwdSpecs { names, unread }
}

/// The paths a Node file's `code` loads relative to its own folder by
/// going up out of it (`path.join(__dirname, "..", "..", "project", "m")`,
/// `__dirname + "/../x"`): each as a path from that folder (round 53,
/// e22: the user's hook reaching into a project by such a path).
pub(crate) fn own_folder_specs(code: &str) -> Vec<String> {
    static JOINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r#"(?:\brequire|\bimport)\s*\(\s*(?:path\.(?:join|resolve)\(\s*__dirname((?:\s*,\s*{QUOTE}[^"'`\\]*{QUOTE})+)\s*\)|__dirname\s*\+\s*{QUOTE}/([^"'`\\]+){QUOTE})"#
        ))
        .expect("valid regex")
    });
    static PART: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"["'`]([^"'`\\]*)["'`]"#).expect("valid regex"));
    let code = joined_literals(code);
    JOINED
        .captures_iter(&code)
        .filter_map(|found| match (found.get(1), found.get(2)) {
            (Some(parts), _) => Some(
                PART.captures_iter(parts.as_str())
                    .map(|part| part[1].trim_matches('/').to_owned())
                    .filter(|part| !part.is_empty())
                    .collect::<Vec<_>>()
                    .join("/"),
            ),
            (None, Some(rest)) => Some(rest.as_str().to_owned()),
            _ => None,
        })
        .filter(|spec| spec.starts_with(".."))
        .take(64)
        .collect()
}

/// `"./" + "m"` as `"./m"`.
fn joined_literals(code: &str) -> String {
    static JOINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(["'])([^"'\n]*)["']\s*\+\s*["']([^"'\n]*)["']"#).expect("valid regex")
    });
    let mut text = code.to_owned();
    for _ in 0..8 {
        let next = JOINED.replace_all(&text, "$1$2$3$1").into_owned();
        if next == text {
            break;
        }
        text = next;
    }
    text
}

/// The specs of paths built from the folder it runs in.
fn from_cwd(code: &str) -> Vec<String> {
    static NAMES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*{CWD}\s*(?:;|\n|$)"
        ))
        .expect("valid regex")
    });
    let names: Vec<String> = NAMES
        .captures_iter(code)
        .map(|found| regex::escape(&found[1]))
        .take(16)
        .collect();
    // Built once; with names of its own only for code that gives some.
    static PLAIN: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(&from_cwd_pattern(CWD)).ok());
    let built;
    let from = match names.is_empty() {
        true => PLAIN.as_ref(),
        false => {
            built = Regex::new(&from_cwd_pattern(&format!(
                r"(?:{CWD}|\b(?:{})\b)",
                names.join("|")
            )))
            .ok();
            built.as_ref()
        }
    };
    let Some(from) = from else {
        return Vec::new();
    };
    from.captures_iter(code)
        .filter_map(|found| found.get(1).or(found.get(2)).or(found.get(3)))
        .map(|spec| spec.as_str().to_owned())
        .collect()
}

/// The pattern of a load by a path built from `cwd` (a pattern of the
/// folder's spellings).
fn from_cwd_pattern(cwd: &str) -> String {
    let path_fn = format!(r"(?:path|require\(\s*{QUOTE}path{QUOTE}\s*\))\.(?:resolve|join)");
    format!(
        r#"(?:\brequire|\bimport|\brequire\.resolve)\s*\(\s*(?:{path_fn}\(\s*(?:(?:{cwd}|{QUOTE}\.?{QUOTE})\s*,\s*)?|{cwd}\s*\+\s*){QUOTE}/?([^"'`\\]+){QUOTE}|(?:\brequire|\bimport)\s*\(\s*`\$\{{{cwd}\}}/([^`]+)`|createRequire\(\s*{cwd}[^)]*\)\s*\(\s*{QUOTE}(?:\./)?([^"'`\\]+){QUOTE}"#
    )
}

/// Inline code's relative specs, those given through a name, its `#`
/// names (of `imports`), and the packages it requires by a bare name (as
/// `node_modules/<name>`).
fn relative_and_bare(code: &str) -> Vec<String> {
    static LOADS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:\brequire|\bimport)\s*\(\s*\\?["'`]([^"'`\\]+)\\?["'`]\s*\)|\bfrom\s*\\?["'`]([^"'`\\]+)\\?["'`]|\bimport\s*\\?["'`]([^"'`\\]+)\\?["'`]"#)
            .expect("valid regex")
    });
    static GIVEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*\\?["'`]([^"'`\\]+)\\?["'`]"#)
            .expect("valid regex")
    });
    static BY_NAME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\brequire|\bimport)\s*\(\s*([A-Za-z_$][\w$]*)\s*\)").expect("valid regex")
    });
    let given: BTreeMap<&str, &str> = GIVEN
        .captures_iter(code)
        .filter_map(|found| Some((found.get(1)?.as_str(), found.get(2)?.as_str())))
        .collect();
    let named = BY_NAME
        .captures_iter(code)
        .filter_map(|found| given.get(&found[1]).copied());
    let written = LOADS
        .captures_iter(code)
        .filter_map(|found| found.get(1).or(found.get(2)).or(found.get(3)))
        .map(|spec| spec.as_str());
    written
        .chain(named)
        .filter_map(|spec| {
            match spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('#') {
                true => Some(spec.to_owned()),
                false => bare_package(spec).map(|name| format!("node_modules/{name}")),
            }
        })
        .collect()
}

/// The package a bare spec names (`m`, `@s/m`, `m/sub`), not one of Node's.
pub(super) fn bare_package(spec: &str) -> Option<&str> {
    if spec.starts_with(['/', '.', '#', '$']) || spec.starts_with("node:") || spec.contains("://") {
        return None;
    }
    let top = spec.split('/').next().unwrap_or(spec);
    let valid = spec
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "@/._-".contains(c));
    // `test` is Node's only as `node:test`.
    let built_in = top != "test" && crate::binding::node_chain::BUILT_IN.contains(&top);
    (valid && !built_in).then_some(spec)
}

#[cfg(test)]
mod tests {
    use super::cwd_specs;

    #[test]
    fn code_loading_from_the_folder_it_runs_in_is_read() {
        let code = "process.chdir(input.cwd);\nrequire(path.resolve(\"m\"));\n\
             require(process.cwd() + \"/lib/x\");\nrequire(\"./own\");\n\
             require(input.cwd + \"/a\"); require(path.join(process.env.CLAUDE_PROJECT_DIR, \"b\"));\n\
             require(`${process.cwd()}/c`); import(path.resolve(data[\"cwd\"], \"d\"));\n\
             const root = process.cwd();\nrequire(root + \"/e\");\n\
             require(path.join(process.env.CLAUDE_PROJECT_DIR || process.cwd(), \"f\"));\n\
             require(\"module\").createRequire(process.cwd() + \"/\")(\"./g\");\n\
             require(require(\"path\").resolve(\"h\"));\n";
        assert_eq!(
            cwd_specs(code, false).names,
            ["a", "b", "c", "d", "e", "f", "g", "h", "lib/x", "m"]
        );
    }

    #[test]
    fn a_path_out_of_the_files_own_folder_is_read() {
        let code = "require(path.join(__dirname, \"..\", \"..\", \"project\", \"m\"));\n\
                    require(__dirname + \"/../x\"); require(path.join(__dirname, \"lib\"));";
        assert_eq!(super::own_folder_specs(code), ["../../project/m", "../x"]);
    }

    #[test]
    fn inline_code_loads_relative_given_and_bare_names() {
        let code = "const p = \"./m\"; require(p); require(\"./\" + \"n\"); require(\"fs\");\n\
                    require(\"left-pad\"); import x from \"./o.mjs\"; require(\"node:fs\");";
        assert_eq!(
            cwd_specs(code, true).names,
            ["m", "n", "node_modules/left-pad", "o.mjs"]
        );
    }
}
