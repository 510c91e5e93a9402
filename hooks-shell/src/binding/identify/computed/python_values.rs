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
    let name = regex::escape(name.trim());
    let other_binding = Regex::new(&format!(
        r"\bfor\s[^:\n]*\b{name}\b[^:\n]*\sin\b|\bas\s+{name}\b|\b{name}\s*:=|\bimport\b[^\n]*\b{name}\b|\b(?:global|nonlocal)\b[^\n]*\b{name}\b|\blambda\b[^:\n]*\b{name}\b|\*\s*{name}\b"
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
    let parameter = Regex::new(&format!(r"^\s*{name}\s*(?::.*)?(?:=.*)?$")).ok()?;
    let mut found = Vec::new();
    for function in defined.captures_iter(code) {
        let parameters = super::inline_code::top_level(&function[2], ',');
        let Some(at) = parameters.iter().position(|p| parameter.is_match(p)) else {
            continue;
        };
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
    let (mut depth, mut quote, mut end) = (0i32, None::<char>, text.len());
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            (Some(_), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => {
                depth -= 1;
                // `f(x)` read from its `(`: the call's own parentheses.
                if depth == 0 && text.starts_with('(') {
                    end = at + 1;
                    break;
                }
            }
            (None, '#') if depth == 0 => {
                end = at;
                break;
            }
            (None, '\n') if depth <= 0 => {
                end = at;
                break;
            }
            _ => {}
        }
    }
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
        ] {
            assert_eq!(values(code, "cmd"), None, "{code}");
        }
    }

    #[test]
    fn a_python_scripts_commands_are_read_through_its_names() {
        use super::super::inline_code::python_spawns_computed;
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
            "import shutil\nsubprocess.run([shutil.which('ruff'), 'check', path])\n",
        ] {
            assert_eq!(
                python_spawns_computed(&format!("{head}{body}")),
                None,
                "{body}"
            );
        }
        for body in [
            "subprocess.run(['sh', path])\n",
            "os.system('sh ' + path)\n",
            "cmd = ['sh', os.path.join('tools', 'g.sh')]\nsubprocess.run(cmd)\n",
            "def run(cmd):\n    subprocess.run(cmd)\nrun(['sh', path])\n",
            "subprocess.run(sys.argv[1:])\n",
            "for c in [['ls'], ['sh', path]]:\n    subprocess.run(c)\n",
            "tool = data['tool']\nsubprocess.run([tool, path])\n",
            "subprocess.run([sys.executable, path])\n",
            "import shutil\nsubprocess.run([shutil.which(path), 'x'])\n",
        ] {
            assert!(
                python_spawns_computed(&format!("{head}{body}")).is_some(),
                "{body}"
            );
        }
    }
}
