//! Code that moves where it runs, or where the programs it starts look
//! for code, to a folder named when it runs: `os.chdir('to' + 'ols')`,
//! `subprocess.run([...], cwd='to' + 'ols')`, Node's `{cwd: …}` and
//! `process.chdir`, Perl's `chdir`, a search path in the environment it
//! gives a program (`env=dict(os.environ, PYTHONPATH='to' + 'ols')`,
//! `os.environ['PYTHONPATH'] = …`, `$ENV{PERL5LIB} = …`). What it then runs
//! or loads by a relative name is in a folder no reading names (red team
//! round 51, H2: a22–a29, b04–b14, p04–p08, t26–t30): such code cannot be
//! approved. Written out (a literal), the folder it runs in (`os.getcwd()`,
//! `process.cwd()`, `$CLAUDE_PROJECT_DIR`, the hook input's `cwd`) or its
//! own (`__file__`'s, `__dirname`) are read as before.

use std::sync::LazyLock;

use regex::Regex;

use super::code_words::is_string;

/// The variables that choose where programs look for code, or which
/// repository git reads.
const SEARCH_VARIABLES: &str = r"PYTHONPATH|PYTHONHOME|PYTHONSTARTUP|NODE_PATH|NODE_OPTIONS|PERL5LIB|PERLLIB|PERL5OPT|RUBYLIB|RUBYOPT|BASH_ENV|ENV|LD_PRELOAD|LD_LIBRARY_PATH|GIT_DIR|GIT_WORK_TREE|GIT_COMMON_DIR|GIT_CONFIG\w*";

/// Why `code` of `program` moves where it runs, or where what it starts
/// looks for code, to a folder named when it runs.
pub(super) fn moves_to_computed(program: &str, code: &str) -> Option<String> {
    static MOVES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r#"\b(?:os\.chdir|process\.chdir|chdir)\s*\(|\bchdir\s+|\bcwd\s*(?:=[^=]|:)|(?:\b|['"])(?:{SEARCH_VARIABLES})['"]?\s*\]?\s*\}}?\s*(?:=[^=]|:)|\bos\.putenv\s*\("#
        ))
        .expect("valid regex")
    });
    for found in MOVES.find_iter(code) {
        let matched = found.as_str();
        let line_start = code[..found.start()].rfind('\n').map_or(0, |at| at + 1);
        // A `#!` line's `env -S PERL5LIB=lib perl` (read where it runs).
        if code[line_start..].starts_with("#!") {
            continue;
        }
        // The value: after `=`/`:` (a keyword, a key, an assignment), or
        // the call's first argument (`chdir(…)`, `putenv(NAME, …)`).
        let start = match matched.trim_end().chars().last() {
            Some('(') => found.end(),
            Some(':') => found.end(),
            _ if matched.trim_end().ends_with("chdir") => found.end(),
            _ => code[..found.end()]
                .rfind(['=', ':'])
                .map_or(found.end(), |at| at + 1),
        };
        // Shell text (`PYTHONPATH=src exec python3`, a wrapper read as
        // code): a plain word before a blank is written out.
        let rest = &code[start..];
        let word_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_./:~+-".contains(c)))
            .unwrap_or(rest.len());
        let shell_word = word_end > 0
            && matched.trim_end_matches(|c: char| c != '=').ends_with('=')
            && rest[word_end..].starts_with([' ', '\t', '\n'])
            && !matched.contains(['\'', '"', '[', '{']);
        if shell_word {
            continue;
        }
        let value = value_at(&code[start..]);
        let value = match matched.contains("putenv") {
            true => super::inline_code::top_level(value, ',')
                .get(1)
                .copied()
                .unwrap_or(""),
            false => value,
        };
        if !is_written_place(value.trim(), program, code) {
            return Some(format!(
                "its {program} code moves where it runs or looks for code to a folder named when it runs (`{}{}`)",
                matched.trim(),
                value.trim()
            ));
        }
    }
    None
}

/// The expression `text` starts with: up to a comma, a closing bracket or
/// a line's end outside brackets and strings.
fn value_at(text: &str) -> &str {
    let end = super::brackets::scan(text, |_, c, depth| {
        depth < 0 || (depth == 0 && matches!(c, ',' | ';' | '\n'))
    });
    text[..end.unwrap_or(text.len())].trim()
}

/// Whether `value` names a folder written out, or the folder the hook
/// runs in, or its code's own.
fn is_written_place(value: &str, program: &str, code: &str) -> bool {
    static PLACE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"^(?:os\.getcwd\(\)|process\.cwd\(\)|__dirname|Dir\.pwd|getcwd\(\)|\$ENV\{\s*['"]?(?:CLAUDE_PROJECT_DIR|PWD|HOME)['"]?\s*\}|process\.env\.(?:CLAUDE_PROJECT_DIR|PWD|HOME)|process\.env\[['"](?:CLAUDE_PROJECT_DIR|PWD|HOME)['"]\]|os\.environ(?:\.get)?\s*[\[(]\s*['"](?:CLAUDE_PROJECT_DIR|PWD|HOME)['"][^\])]*[\])]|os\.getenv\(\s*['"](?:CLAUDE_PROJECT_DIR|PWD|HOME)['"][^)]*\)|[A-Za-z_$][\w$]*(?:\[['"]cwd['"]\]|\.get\(\s*['"]cwd['"][^)]*\)|\.cwd)|None|null|undefined)$"#,
        )
        .expect("valid regex")
    });
    let value = value.trim();
    if value.is_empty() || PLACE.is_match(value) || is_string(value, program) {
        return true;
    }
    match program {
        "python" | "python3" => super::python_paths::spells_a_folder(value, code),
        // `path.join(__dirname, 'lib')`: each part written out or a place.
        _ => {
            let Some(inner) = ["path.join(", "path.resolve("]
                .iter()
                .find_map(|call| value.strip_prefix(call)?.strip_suffix(')'))
            else {
                return false;
            };
            super::inline_code::top_level(inner, ',')
                .iter()
                .all(|part| PLACE.is_match(part.trim()) || is_string(part.trim(), program))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::moves_to_computed;

    #[test]
    fn code_moving_to_a_folder_named_when_it_runs_is_found() {
        for (program, code) in [
            ("python3", "import os\nos.chdir('to' + 'ols')\n"),
            (
                "python3",
                "subprocess.run(['sh', 'g.sh'], cwd='to' + 'ols')\n",
            ),
            (
                "python3",
                "env = dict(os.environ, PYTHONPATH='to' + 'ols')\n",
            ),
            ("python3", "os.environ['PYTHONPATH'] = 'to' + 'ols'\n"),
            (
                "python3",
                "subprocess.run(['git', 'status'], env=dict(os.environ, GIT_DIR='s' + 'ub/.git'))\n",
            ),
            ("node", "process.chdir('to' + 'ols');\n"),
            ("node", "spawnSync('sh', ['g.sh'], {cwd: 'to' + 'ols'});\n"),
            (
                "node",
                "spawnSync('node', ['-e', 'x'], {env: {...process.env, NODE_PATH: 'to' + 'ols'}});\n",
            ),
            ("perl", "chdir(\"to\" . \"ols\");\n"),
            ("perl", "$ENV{PERL5LIB} = \"to\" . \"ols\";\n"),
        ] {
            assert!(moves_to_computed(program, code).is_some(), "{code}");
        }
        for (program, code) in [
            ("python3", "os.chdir(os.environ['CLAUDE_PROJECT_DIR'])\n"),
            (
                "python3",
                "subprocess.run(['git', 'status'], cwd=data['cwd'])\n",
            ),
            (
                "python3",
                "subprocess.run(['git', 'status'], cwd=os.path.dirname(os.path.abspath(__file__)))\n",
            ),
            (
                "python3",
                "subprocess.run(['ruff', path], cwd='tools', check=True)\n",
            ),
            (
                "python3",
                "if x == y: pass\nsubprocess.run(['ls'], capture_output=True)\n",
            ),
            (
                "node",
                "execFileSync('git', ['status'], {cwd: process.cwd(), stdio: 'inherit'});\n",
            ),
            (
                "node",
                "spawnSync('sh', ['x.sh'], {cwd: path.join(__dirname, 'lib')});\n",
            ),
            ("perl", "chdir($ENV{CLAUDE_PROJECT_DIR});\n"),
            (
                "perl",
                "#!/usr/bin/env -S PERL5LIB=lib perl\nuse File::Temp;\n",
            ),
            ("python3", "PYTHONPATH=src exec python3 -c 'import mypkg'\n"),
        ] {
            assert_eq!(moves_to_computed(program, code), None, "{code}");
        }
    }
}
