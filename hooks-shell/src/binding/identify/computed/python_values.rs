//! What a Python name holds where a program is started with it
//! (`subprocess.run(cmd)`): the expressions the code assigns to it (`cmd
//! = ["ruff", "check", path]`), or, for a function's parameter (`def
//! run(cmd): subprocess.run(cmd)`), what each call of the function passes.
//! A name bound any other way (a loop, `with … as`, `:=`, several names at
//! once, an import) holds what no reading can name.

use std::sync::LazyLock;

use regex::Regex;

/// The most expressions read for one name.
const MAX_VALUES: usize = 32;

/// Whether `word` is a plain Python name.
pub(super) fn is_name(word: &str) -> bool {
    static NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*$").expect("valid regex"));
    NAME.is_match(word.trim())
}

/// The expressions `code` gives the name `name`: each `name = …` (over
/// lines while brackets are open), and, where it is a function's
/// parameter, the argument each call of that function passes in its
/// place. `None` when the code binds it another way, or gives it nothing
/// a reading finds.
pub(super) fn values(code: &str, name: &str) -> Option<Vec<String>> {
    // The readings of one check ask for the same names of the same code
    // many times (each regex below is built per name): read once.
    thread_local! {
        static READ: std::cell::RefCell<Read> = std::cell::RefCell::new(Read::new());
    }
    let key = (code.to_owned(), name.to_owned());
    if let Some(found) = READ.with(|read| read.borrow().get(&key).cloned()) {
        return found;
    }
    let found = values_read(code, name);
    READ.with(|read| {
        let mut read = read.borrow_mut();
        if read.len() >= 256 {
            read.clear();
        }
        read.insert(key, found.clone());
    });
    found
}

/// What [`values`] read, by code text and name.
type Read = std::collections::HashMap<(String, String), Option<Vec<String>>>;

/// [`values`], read.
fn values_read(code: &str, name: &str) -> Option<Vec<String>> {
    let name = regex::escape(name.trim());
    let other_binding = Regex::new(&format!(
        r"\bfor\s[^:\n]*\b{name}\b[^:\n]*\sin\b|\bas\s+{name}\b|\b{name}\s*:=|\bimport\b[^\n]*\b{name}\b|\b(?:global|nonlocal)\b[^\n]*\b{name}\b|\blambda\b[^:\n]*\b{name}\b|\*\*\s*{name}\b|[:;][ \t]*{name}[ \t]*(?:[-+*/%|&^@]|//|\*\*|>>|<<)?=[^=]"
    ))
    .ok()?;
    // `a, cmd = x`, `(cmd, b) = …`: several names at once.
    static TARGETS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[ \t]*([A-Za-z0-9_ \t,*()\[\]]*,[A-Za-z0-9_ \t,*()\[\]]*?)[ \t]*=[^=]")
            .expect("valid regex")
    });
    static CALLED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z0-9_]\s*\(").expect("valid regex"));
    let word = Regex::new(&format!(r"\b{name}\b")).ok()?;
    // `cmd[1] = …`, `cmd[:0] = …`, `cmd.insert(0, …)`: words changed in place
    // (R47-2); `append`/`extend`/`+=` add at the end (an interpreter's
    // script must be written: `python_commands::is_written`).
    let changed = Regex::new(&format!(
        r"\b{name}\s*\[[^\]]*\]\s*=[^=]|\b{name}\s*\.\s*(?:insert|__setitem__|reverse|sort)\s*\("
    ))
    .ok()?;
    if changed.is_match(code) {
        return None;
    }
    if other_binding.is_match(code)
        || TARGETS
            .captures_iter(code)
            // Not a call's or a definition's arguments (`run(cmd, check=True)`).
            .filter(|targets| !CALLED.is_match(&targets[1]))
            .any(|targets| word.is_match(&targets[1]))
    {
        return None;
    }
    let assigned = Regex::new(&format!(
        r"(?m)^[ \t]*{name}[ \t]*(?::[^=\n]+)?=[ \t]*([^=].*)"
    ))
    .ok()?;
    let mut found: Vec<String> = assigned
        .captures_iter(code)
        .filter_map(|assignment| assignment.get(1))
        .map(|value| expression(&code[value.start()..]))
        .take(MAX_VALUES)
        .collect();
    found.extend(passed_as_parameter(code, &name)?);
    (!found.is_empty() && found.len() <= MAX_VALUES).then_some(found)
}

/// Where `name` (escaped) is a parameter of functions `code` defines, what
/// each call of them passes in its place; `None` when a call passes it in
/// a way not read (by keyword, `*args`) or there is no call.
fn passed_as_parameter(code: &str, name: &str) -> Option<Vec<String>> {
    let defined = Regex::new(r"\bdef\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)").ok()?;
    let parameter = Regex::new(&format!(r"^\s*(\*?){name}\s*(?::.*)?(?:=.*)?$")).ok()?;
    let mut found = Vec::new();
    for function in defined.captures_iter(code) {
        let parameters = super::inline_code::top_level(&function[2], ',');
        let Some(at) = parameters.iter().position(|p| parameter.is_match(p)) else {
            continue;
        };
        // `def run(*args)`: each call's words from there on, as a list.
        let spread = parameters[at].trim_start().starts_with('*');
        // A method's `self` is not passed in the call's parentheses, and
        // is called as `x.name(`; a function never so (`subprocess.run(`
        // calls no `def run`).
        let method = parameters
            .first()
            .is_some_and(|first| matches!(first.trim(), "self" | "cls"));
        let at = if method { at.checked_sub(1)? } else { at };
        let call = Regex::new(&format!(r"\b{}\s*\(", regex::escape(&function[1]))).ok()?;
        let mut calls = 0;
        for started in call.find_iter(code) {
            let before = code[..started.start()].trim_end();
            // The definition itself is no call.
            if before.ends_with("def") || before.ends_with('.') != method {
                continue;
            }
            let inside = expression(&code[started.end() - 1..]);
            let inside = inside
                .strip_prefix('(')
                .and_then(|i| i.strip_suffix(')'))
                .unwrap_or(&inside)
                .to_owned();
            let arguments = super::inline_code::top_level(&inside, ',');
            if spread {
                let given: Vec<&str> = arguments.iter().skip(at).copied().collect();
                if given
                    .iter()
                    .any(|a| a.starts_with('*') || a.contains('=') && !a.contains(['"', '\'']))
                {
                    return None;
                }
                found.push(format!("[{}]", given.join(", ")));
                calls += 1;
                continue;
            }
            let argument = arguments.get(at)?;
            if argument.contains('=') && !argument.contains(['[', '(', '"', '\'']) {
                return None;
            }
            if argument.starts_with('*') {
                return None;
            }
            found.push((*argument).to_owned());
            calls += 1;
        }
        if calls == 0 {
            return None;
        }
    }
    Some(found)
}

/// The names `code` gives the functions `calls` starts programs with:
/// `from subprocess import run as r`, `from os import system`, `f =
/// subprocess.run` (R47-2).
pub(super) fn aliases(code: &str, calls: &[&str]) -> Vec<String> {
    static IMPORTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^\s*from\s+(?:subprocess|os|pty|asyncio|posix)\s+import\s+\(?([^)\n]+)")
            .expect("valid regex")
    });
    static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*[A-Za-z_][A-Za-z0-9_.]*\.([A-Za-z_]+)\s*$",
        )
        .expect("valid regex")
    });
    let mut found = Vec::new();
    for imported in IMPORTED.captures_iter(code) {
        for item in imported[1].split(',') {
            let mut words = item.split_whitespace();
            let (Some(name), alias) = (words.next(), words.nth(1)) else {
                continue;
            };
            if let Some(alias) = alias.filter(|_| calls.contains(&name)) {
                found.push(alias.to_owned());
            }
        }
    }
    for assigned in ASSIGNED.captures_iter(code) {
        if calls.contains(&&assigned[2]) {
            found.push(assigned[1].to_owned());
        }
    }
    found
}

/// How Python `code` (which loads what starts programs) reaches a program
/// no reading follows: `getattr` of such a module, a module imported by a
/// computed name, code run from text (`exec`, `eval`, `compile`) other
/// than a literal, `ctypes`, `globals()` assigned (R47-2).
pub(super) fn reaches_dynamically(code: &str) -> Option<String> {
    if let Some(found) = reaches_module_by_name(code) {
        return Some(found);
    }
    // `exec(text)`: code run from text other than a literal, or than a file
    // read by a written name (`exec(open('check.py').read())`).
    static RUNS_TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^.\w])(?:exec|eval|compile)\s*\(").expect("valid regex")
    });
    static WRITTEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*(?:(?:[rbuRBU]?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*)+|open\s*\(\s*(?:[rbuRBU]?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*)+\)\s*\.\s*read\s*\(\s*\))\s*(?:,.*)?$"#)
            .expect("valid regex")
    });
    let quoted = quoted_spans(code);
    let in_text = |at: usize| quoted.iter().any(|(start, end)| *start <= at && at < *end);
    RUNS_TEXT.find_iter(code).find_map(|found| {
        // `if "eval(" in src:`: a string's text, no call (round 51, v20).
        if in_text(found.end() - 1) {
            return None;
        }
        let arguments = call_arguments(&code[found.end() - 1..]);
        (!WRITTEN.is_match(&arguments))
            .then(|| format!("{}{arguments})", found.as_str().trim_start()))
    })
}

/// `getattr` (or `setattr`) of a module that starts programs, `ctypes`, or
/// `globals()` assigned in Python `code`: a function reached by a name no
/// reading of calls sees.
pub(super) fn reaches_module_by_name(code: &str) -> Option<String> {
    static DYNAMIC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r#"\b(?:get|set)attr\s*\(\s*(?:subprocess|os|pty|asyncio|posix|sys\.modules)\b"#,
            r#"|\bctypes\b|\bglobals\s*\(\s*\)\s*\["#,
        ))
        .expect("valid regex")
    });
    DYNAMIC.find(code).map(|found| found.as_str().to_owned())
}

/// The byte spans of Python `code`'s string literals (single, double and
/// triple quoted) and comments.
fn quoted_spans(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut spans = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'#' => {
                let end = code[at..].find('\n').map_or(code.len(), |n| at + n);
                spans.push((at, end));
                at = end;
            }
            quote @ (b'\'' | b'"') => {
                let triple = bytes.get(at..at + 3) == Some(&[quote, quote, quote][..]);
                let open = if triple { 3 } else { 1 };
                let mut end = at + open;
                while end < bytes.len() {
                    if bytes[end] == b'\\' {
                        end += 2;
                        continue;
                    }
                    let closes = match triple {
                        true => bytes.get(end..end + 3) == Some(&[quote, quote, quote][..]),
                        false => bytes[end] == quote || bytes[end] == b'\n',
                    };
                    if closes {
                        end += open;
                        break;
                    }
                    end += 1;
                }
                let end = end.min(bytes.len());
                spans.push((at, end));
                at = end;
            }
            _ => at += 1,
        }
    }
    spans
}

/// The arguments of the call whose `(` starts `call`, as written.
pub(super) fn call_arguments(call: &str) -> String {
    let whole = expression(call);
    whole
        .strip_prefix('(')
        .and_then(|inside| inside.strip_suffix(')'))
        .unwrap_or(&whole)
        .to_owned()
}

/// The expression `text` starts with: up to the end of its line, or of the
/// line its brackets close on.
fn expression(text: &str) -> String {
    let call = text.starts_with('(');
    let end = super::brackets::scan(text, |_, c, depth| match c {
        // `f(x)` read from its `(`: the call's own parentheses (kept).
        ')' | ']' | '}' => call && depth == 0,
        '#' => depth == 0,
        '\n' => depth <= 0,
        _ => false,
    });
    let end = match end {
        Some(at) if call && text[at..].starts_with([')', ']', '}']) => at + 1,
        Some(at) => at,
        None => text.len(),
    };
    text[..end].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_and_calls_give_a_name_its_values() {
        let code =
            "cmd = [\n  'ruff',\n  'check', path]  # lint\nsubprocess.run(cmd, check=True)\n";
        assert_eq!(
            values(code, "cmd"),
            Some(vec!["[\n  'ruff',\n  'check', path]".to_owned()])
        );
        let code = "def run(cmd, check=True):\n    return subprocess.run(cmd)\n\
                    run(['git', 'diff'])\nrun(['make', '-s'], check=False)\n";
        assert_eq!(
            values(code, "cmd"),
            Some(vec![
                "['git', 'diff']".to_owned(),
                "['make', '-s']".to_owned()
            ])
        );
        let method =
            "class A:\n    def go(self, cmd):\n        subprocess.run(cmd)\nA().go(['ls'])\n";
        assert_eq!(values(method, "cmd"), Some(vec!["['ls']".to_owned()]));
    }

    #[test]
    fn a_name_bound_another_way_holds_what_no_reading_names() {
        for code in [
            "for cmd in cmds:\n    subprocess.run(cmd)\n",
            "with open(f) as cmd:\n    subprocess.run(cmd)\n",
            "if (cmd := get()):\n    subprocess.run(cmd)\n",
            "a, cmd = x\nsubprocess.run(cmd)\n",
            "(cmd, b) = x\nsubprocess.run(cmd, check=True)\n",
            "def run(cmd):\n    subprocess.run(cmd)\n",
            "def run(cmd):\n    subprocess.run(cmd)\nrun(*xs)\n",
            "subprocess.run(cmd)\n",
            // Round 58: given again on a line that starts otherwise.
            "cmd = ['ls']\nif x: cmd = other\nsubprocess.run(cmd)\n",
            "cmd = ['ls']\nn = 0; cmd = other\nsubprocess.run(cmd)\n",
        ] {
            assert_eq!(values(code, "cmd"), None, "{code}");
        }
    }

    #[test]
    fn a_python_scripts_commands_are_read_through_its_names() {
        use super::super::inline_code::spawns_computed;
        let head = "#!/usr/bin/env python3\nimport json, os, subprocess, sys\n\
                    data = json.load(sys.stdin)\npath = data['tool_input'].get('file_path', '')\n";
        for body in [
            "subprocess.run(['ruff', 'format', path], check=False)\n",
            "cmd = ['npx', 'prettier', '--write', path]\nsubprocess.run(cmd, check=True)\n",
            "def run(cmd):\n    return subprocess.run(cmd, capture_output=True)\n\
             run(['git', 'diff', '--name-only'])\nrun(['make', '-s', 'lint'])\n",
            "os.system('make -s lint')\n",
            "files = path.split()\nsubprocess.run(['black', *files])\n",
            "LINT = 'ruff'\nsubprocess.run([LINT, 'check', path])\n",
            "subprocess.run([sys.executable, 'tools/check.py', path])\n",
            // Round 47's realistic hooks (R47-12).
            "import shutil\nexe = shutil.which('ruff')\nif exe:\n    subprocess.run([exe, 'format', path])\n",
            "import shutil\nsubprocess.run([shutil.which('ruff') or 'ruff', 'format', path])\n",
            "py = sys.executable\nsubprocess.run([py, '-m', 'black', path])\n",
            "RUFF = ['ruff', 'format']\nsubprocess.run(RUFF + [path])\n",
            "def run(*args):\n    return subprocess.run(list(args), check=False)\nrun('ruff', 'format', path)\n",
            "FORMATTERS = {'.py': ['ruff', 'format'], '.js': ['prettier', '--write']}\n\
             ext = os.path.splitext(path)[1]\nsubprocess.run(FORMATTERS[ext] + [path])\n",
            "import shlex\nsubprocess.run(f'ruff format {shlex.quote(path)}', shell=True)\n",
            "import re\npattern = re.compile(r'x+')\nsubprocess.run(['git', 'diff'])\n",
            "cmd = ['ruff', 'check']\ncmd.append(path)\nsubprocess.run(cmd)\n",
            "import shutil\nsubprocess.run([shutil.which('ruff'), 'check', path])\n",
            // Round 51, v20: a string holding `eval(`, no call.
            "src = open('src/app.py').read()\nif \"eval(\" in src:\n    print('x')\n",
            "# eval(x) is never called here\nprint('y')\n",
            // Round 50, U2: a script beside it, by its own folder.
            "here = os.path.dirname(os.path.abspath(__file__))\nsubprocess.run([sys.executable, os.path.join(here, 'check.py')])\n",
            "cfg = os.path.expanduser('~/.claude/hooks/check.py')\nsubprocess.run([sys.executable, cfg, path])\n",
            "subprocess.run(['sh', os.path.join(os.path.dirname(__file__), 'g.sh')])\n",
            "cmd = ['sh', os.path.join('tools', 'g.sh')]\nsubprocess.run(cmd)\n",
        ] {
            assert_eq!(
                spawns_computed("python3", &format!("{head}{body}")),
                None,
                "{body}"
            );
        }
        for body in [
            "subprocess.run(['sh', path])\n",
            "os.system('sh ' + path)\n",
            "def run(cmd):\n    subprocess.run(cmd)\nrun(['sh', path])\n",
            "subprocess.run(sys.argv[1:])\n",
            "for c in [['ls'], ['sh', path]]:\n    subprocess.run(c)\n",
            "tool = data['tool']\nsubprocess.run([tool, path])\n",
            // Round 47's other ways to a program (R47-2).
            "getattr(subprocess, 'r' + 'un')(['sh', path])\n",
            "from subprocess import run as r\nr(['sh', path])\n",
            "f = subprocess.run\nf(['sh', path])\n",
            "import importlib\nm = importlib.import_module('sub' + 'process')\nm.run(['sh', path])\n",
            "import asyncio\nasyncio.create_subprocess_exec('sh', path)\n",
            "os.posix_spawn('/bin/sh', ['sh', path, 'a'], os.environ)\n",
            "os.execv('/bin/sh', ['sh', path, 'a'])\n",
            "cmd = ['sh', 'tools/h.sh', 'a']\ncmd[1] = path\nsubprocess.run(cmd)\n",
            "cmd = ['sh']\ncmd.append(path)\nsubprocess.run(cmd)\n",
            "cmd = ['sh', 'tools/h.sh']\ncmd.insert(1, path)\nsubprocess.run(cmd)\n",
            "subprocess.run(args=['sh', path])\n",
            "exec(open('tools/g.' + 'py').read())\n",
            "import ctypes\nctypes.CDLL(None).system(path.encode())\n",
            "subprocess.run([sys.executable, path])\n",
            "import shutil\nsubprocess.run([shutil.which(path), 'x'])\n",
            "here = os.path.dirname(__file__)\nsubprocess.run(['sh', os.path.join(here, path)])\n",
            "subprocess.run(['sh', os.path.join(os.path.dirname(__file__), '..', 'g.sh')])\n",
        ] {
            assert!(
                spawns_computed("python3", &format!("{head}{body}")).is_some(),
                "{body}"
            );
        }
    }
}
