//! Node and Perl code that reaches a program another way than a call of
//! a program-starting function by its name (R47-3, as
//! [`super::python_values::reaches_dynamically`] reads Python): such code
//! cannot be read for the command it starts. And the calls of those names
//! that start none (`/x/.exec(s)`, a regular expression's method).

use std::sync::LazyLock;

use regex::Regex;

/// Why the Node `code` (which loads `child_process`) reaches a program no
/// call by name shows: a function of it taken as a value (`const run =
/// cp.execSync`, `promisify(exec)`), a computed member (`cp[name](…)`), or
/// text run as code ([`super::node_reach::runs_code`]).
pub(super) fn node(code: &str, calls: &[&str]) -> Option<String> {
    if let Some(why) = super::node_reach::runs_code(code) {
        return Some(why);
    }
    if let Some(why) = module_used_otherwise(code, calls) {
        return Some(why);
    }
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z_$][A-Za-z0-9_$]*").expect("valid regex"));
    for found in WORD.find_iter(code) {
        if !calls.contains(&found.as_str()) {
            continue;
        }
        let after = code[found.end()..].trim_start();
        let before = code[..found.start()].trim_end();
        // A call; a name in `{ exec, spawn } = require(…)` / `import {
        // exec }`, or a key (`exec: true`).
        let destructured = before.ends_with(['{', ','])
            && after.starts_with([',', '}'])
            && !after.starts_with("),");
        if after.starts_with('(') || destructured || in_comment(code, found.start()) {
            continue;
        }
        // Renamed (`{ spawn: run }`, `import { spawn as run }`), or taken
        // as a value (`= cp.execSync`, `promisify(exec)`, `[exec]`): a
        // name no reading follows. Prose (`// spawn a job`) is neither.
        let renamed =
            before.ends_with(['{', ',']) && (after.starts_with(':') || after.starts_with("as "));
        let value = before.ends_with(['.', '=', '(', ',', '[']);
        if renamed || value {
            return Some(format!(
                "it takes `{}` as a value, not a call",
                found.as_str()
            ));
        }
    }
    None
}

/// Why the `child_process` module is used in Node `code` other than by
/// calling its functions by name (`cp.execSync(…)`, `const { spawn } =
/// require(…)`, `import { spawn } from …`): an alias used any other way
/// (`cp[name]`, `const z = cp`, `f(cp)`), a function it exports under a
/// new name, the module as a value (`Object.values(require(…))`, a
/// dynamic `import(…)`), Node's internal bindings.
fn module_used_otherwise(code: &str, calls: &[&str]) -> Option<String> {
    static MODULE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\brequire\s*\(\s*['"`](?:node:)?child_process['"`]\s*\)|\bimport\s*\(\s*['"`](?:node:)?child_process['"`]\s*\)|\bfrom\s*['"](?:node:)?child_process['"]|\bprocess\s*\.\s*(?:binding|_linkedBinding|dlopen)\b"#)
            .expect("valid regex")
    });
    static BOUND: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\b(?:const|let|var)\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*=|\b(?:const|let|var)\s*\{([^{}]*)\}\s*=|\bimport\s+(?:\*\s*as\s+)?([A-Za-z_$][A-Za-z0-9_$]*)\s*|\bimport\s*\{([^{}]*)\}\s*)\s*$")
            .expect("valid regex")
    });
    let other = |what: &str| Some(format!("it uses child_process another way (`{what}`)"));
    let mut aliases = Vec::new();
    for module in MODULE.find_iter(code) {
        let text = module.as_str();
        if text.starts_with("process") || text.starts_with("import") {
            return other(text);
        }
        let after = code[module.end()..].trim_start();
        // `require('child_process').execSync(`: a call by name.
        let called = after.strip_prefix('.').is_some_and(|rest| {
            let rest = rest.trim_start();
            calls.iter().any(|call| {
                rest.strip_prefix(call)
                    .is_some_and(|tail| tail.trim_start().starts_with('('))
            })
        });
        if called {
            continue;
        }
        let head = &code[..module.start()];
        let line = &head[head.rfind(['\n', ';']).map_or(0, |n| n + 1)..];
        let Some(bound) = BOUND.captures(line) else {
            return other(text);
        };
        if let Some(alias) = bound.get(1).or(bound.get(3)) {
            aliases.push(alias.as_str().to_owned());
            continue;
        }
        // `{ exec, spawn }`: only names of its calls, none renamed.
        let names = bound.get(2).or(bound.get(4)).map_or("", |m| m.as_str());
        let plain = names
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .all(|name| calls.contains(&name));
        if !plain {
            return other(&format!("{{{names}}}"));
        }
    }
    for alias in aliases {
        let use_of = Regex::new(&format!(
            r"(?:^|[^A-Za-z0-9_$.])({})\b",
            regex::escape(&alias)
        ))
        .ok()?;
        for found in use_of.captures_iter(code) {
            let at = found.get(1)?;
            let after = code[at.end()..].trim_start();
            let before = code[..at.start()].trim_end();
            let declared = before.ends_with("const")
                || before.ends_with("let")
                || before.ends_with("var")
                || before.ends_with("as")
                || before.ends_with("import");
            let called = after.strip_prefix('.').is_some_and(|rest| {
                let rest = rest.trim_start();
                calls.iter().any(|call| {
                    rest.strip_prefix(call)
                        .is_some_and(|tail| tail.trim_start().starts_with('('))
                })
            });
            let quoted = in_comment(code, at.start()) || in_string(code, at.start());
            if !declared && !called && !quoted {
                return other(&format!("{alias}{}", &after[..after.len().min(12)]));
            }
        }
    }
    None
}

/// Whether the byte at `at` is inside a quoted string of its line (an
/// odd count of one kind of quote before it).
fn in_string(code: &str, at: usize) -> bool {
    let line = &code[code[..at].rfind('\n').map_or(0, |n| n + 1)..at];
    let mut open: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match (open, c) {
            (_, _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(quote), c) if c == quote => open = None,
            (None, '\'' | '"' | '`') => open = Some(c),
            _ => {}
        }
    }
    open.is_some()
}

/// Whether the byte at `at` is in a `//` comment of its line.
fn in_comment(code: &str, at: usize) -> bool {
    let line_start = code[..at].rfind('\n').map_or(0, |n| n + 1);
    code[line_start..at].contains("//")
}

/// Whether a call of `exec` at `at` in Node `code` is a regular
/// expression's method (`/x/.exec(s)`, `re.exec(s)` with `re = /x/` or
/// `new RegExp(…)`), which starts no program.
pub(super) fn is_regex_exec(code: &str, at: usize) -> bool {
    let before = code[..at].trim_end();
    let Some(receiver) = before.strip_suffix('.') else {
        return false;
    };
    let receiver = receiver.trim_end();
    // `/x/g.exec(s)`: a literal, its flags after the last `/`.
    if receiver
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .ends_with('/')
    {
        return true;
    }
    let name_start = receiver
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .map_or(0, |n| n + 1);
    let name = &receiver[name_start..];
    if name.is_empty() {
        return false;
    }
    // One declaration, of a regular expression, and every other use a
    // property of it (`re.exec`, `re.lastIndex`): a parameter or a
    // destructuring of the same name (`function f(re)`) could be anything.
    let name = regex::escape(name);
    let (Ok(declared), Ok(used)) = (
        Regex::new(&format!(
            r"\b(?:const|let|var)\s+{name}\s*=\s*(?:/|new\s+RegExp\(|RegExp\()"
        )),
        Regex::new(&format!(r"(?:^|[^A-Za-z0-9_$.])({name})\b")),
    ) else {
        return false;
    };
    let declarations = declared.find_iter(code).count();
    let uses_ok = used.captures_iter(code).all(|found| {
        let Some(at) = found.get(1) else {
            return false;
        };
        let before = code[..at.start()].trim_end();
        let declaration = ["const", "let", "var"].iter().any(|k| before.ends_with(k));
        declaration
            || code[at.end()..].trim_start().starts_with('.')
            || in_string(code, at.start())
            || in_comment(code, at.start())
    });
    declarations == 1 && uses_ok
}

/// Why the Perl `code` runs text built when it runs as code (`eval $s`,
/// `eval "…$x…"`): a block `eval { … }` and a literal are read as written.
pub(super) fn perl(code: &str) -> Option<String> {
    static EVAL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\beval\b\s*\(?\s*(.)").expect("valid regex"));
    for found in EVAL.captures_iter(code) {
        let first = found.get(1).map_or("", |m| m.as_str());
        let start = found.get(1).map_or(0, |m| m.start());
        let literal = first == "'" || (first == "\"" && !interpolated(&code[start..]));
        if first != "{" && !literal {
            return Some("it runs text built when it runs as code (`eval`)".to_owned());
        }
    }
    None
}

/// Whether the double-quoted string at the start of `text` interpolates.
fn interpolated(text: &str) -> bool {
    let body = text[1..].split('"').next().unwrap_or("");
    body.contains(['$', '@'])
}

#[cfg(test)]
mod tests {
    use super::super::inline_code::NODE_CALLS as CALLS;
    use super::*;

    #[test]
    fn node_reaching_a_program_another_way_is_found() {
        for code in [
            "const cp = require('child_process'); const run = cp.execSync; run('sh ' + n)",
            "const { exec } = require('child_process'); const p = util.promisify(exec);",
            "const cp = require('child_process'); cp[m]('sh x')",
            "require('child_process'); eval(s)",
            "const m = require(name);",
            "require('child_process'); new Function(s)()",
            "const { spawn: run } = require('child_process'); run('sh', [n])",
            "import { execSync as run } from 'child_process'; run('sh ' + n)",
        ] {
            assert!(node(code, &CALLS).is_some(), "{code}");
        }
    }

    #[test]
    fn node_calling_by_name_is_read_as_before() {
        for code in [
            "const { execFileSync, spawn } = require('child_process');\nexecFileSync('git', ['diff']);",
            "import { spawnSync } from 'node:child_process';\n// spawn a job\nspawnSync('true', [])",
            "const cp = require('child_process'); cp.execSync('make -s'); console.log('exec')",
        ] {
            assert_eq!(node(code, &CALLS), None, "{code}");
        }
    }

    #[test]
    fn child_process_used_another_way_is_found() {
        for code in [
            "const x = require('child_process');\nx[m]('sh ' + n);",
            "const y = require('child_process');\nconst z = y;\nz.execSync(c);",
            "Object.values(require('child_process'))[3]('sh ' + n);",
            "import('child_process').then(m => m[k]('sh ' + n));",
            "require('child_process');\nprocess.binding('spawn_sync').spawn(o);",
            "const { ChildProcess } = require('child_process');",
            "import cp, { exec } from 'child_process';",
        ] {
            assert!(node(code, &CALLS).is_some(), "{code}");
        }
        for code in [
            "const cp = require('node:child_process');\ncp.execSync('cp -r a b'); // cp stays\ncp.spawnSync('git', ['log']);",
            "import * as cp from 'child_process';\ncp.execFileSync('git', ['diff']);",
            "import { execFileSync } from 'child_process';\nexecFileSync('git', []);",
            "require('child_process').execSync('make -s');",
        ] {
            assert_eq!(node(code, &CALLS), None, "{code}");
        }
    }

    #[test]
    fn a_regular_expressions_exec_is_no_program() {
        let code =
            "const re = /x(\\d)/g;\nconst m = re.exec(s);\nconst n = /y/.exec(s);\ncp.exec(c);";
        let at = |needle: &str| code.find(needle).expect("present") + needle.len() - 4;
        assert!(is_regex_exec(code, at("re.exec")));
        assert!(is_regex_exec(code, at("/.exec")));
        assert!(!is_regex_exec(code, at("cp.exec")));
        // A parameter of the same name may hold anything.
        let shadowed = "const re = /x/;\nfunction f(re) { return re.exec(c); }\nf(cp);";
        let at = shadowed.find("re.exec").expect("present") + 3;
        assert!(!is_regex_exec(shadowed, at));
    }

    #[test]
    fn script_files_read_whole_keep_their_written_commands() {
        use super::super::inline_code::spawns_computed;
        for (program, code) in [
            (
                "node",
                "const cp = require('child_process');\nconst m = /x(\\d)/.exec(s);\ncp.execFileSync('git', ['diff', m[1]]);",
            ),
            (
                "perl",
                "open(my $f, '-|', 'git', 'diff', $ARGV[0]) or die;\nprint <$f>;",
            ),
            ("perl", "open(my $f, '<', $path) or die;"),
            ("perl", "open(FH, 'git log |');"),
        ] {
            assert_eq!(spawns_computed(program, code), None, "{program} {code}");
        }
        for (program, code) in [
            (
                "node",
                "const cp = require('child_process');\nconst run = cp.execSync;\nrun('sh ' + n);",
            ),
            ("perl", "open(my $f, '-|', 'sh', $script) or die;"),
            ("perl", "open(FH, \"sh $x |\");"),
        ] {
            assert!(spawns_computed(program, code).is_some(), "{program} {code}");
        }
    }

    #[test]
    fn perl_eval_of_built_text_is_found() {
        assert!(perl("my $c = 'sys' . 'tem'; eval \"$c('sh x')\";").is_some());
        assert!(perl("eval $code;").is_some());
        assert_eq!(perl("eval { risky() }; eval 'print 1';"), None);
    }
}
