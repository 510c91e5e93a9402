//! The environment variables a hook's code gives the programs it starts
//! (`env={**os.environ, "PATH": "tools:" + os.environ["PATH"]}`,
//! `os.environ["GIT_EXTERNAL_DIFF"] = "tools/d.sh"`, `os.putenv(…)`,
//! Node's `env: { ...process.env, MAKEFILES: "common.mk" }`), as the shell
//! assignments that start each command (`PATH="tools:${PATH}"`): the rest
//! of the reading then binds what they lead to as it does for the hook's
//! own shell text. Any variable that steers what a program loads or runs
//! is read ([`crate::dialect::code_env::steers_code`]: `PATH`, `HOME`,
//! `GIT_*`, `MAKEFILES`...; red team round 57: `PATH` and
//! `GIT_EXTERNAL_DIFF` given by code ran a project's program unasked). A
//! value built in a way no reading follows, or such a name given another
//! way (`k = "BASH_ENV"; env[k] = …`), makes the code unapprovable.

use std::sync::LazyLock;

use regex::Regex;

use super::brackets::split_outside;
use super::code_words::{interpolates, is_string};

/// The variables `code` gives what it starts, and why some cannot be read.
pub(super) struct GivenVariables {
    /// `NAME=word` for each, the word as a shell reads it.
    pub assignments: Vec<String>,
    /// Why a variable steering what runs is given in a way no reading
    /// follows, if one is.
    pub unread: Option<String>,
}

/// The variables named by the old fixed list: any mention of them that is
/// neither given written out nor read counts (round 56).
const LISTED: &str = "MAKEFILES|MAKEFLAGS|GNUMAKEFLAGS|MFLAGS|NODE_OPTIONS|NODE_PATH|npm_config_[A-Za-z_]+|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|BASH_ENV|ENV|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG";

/// A variable given: a quoted key (`"PATH": v`, `putenv("PATH", v)`), a
/// key or keyword argument (`{ PATH: v }`, `dict(os.environ, PATH=v)`), a
/// store (`os.environ["PATH"] = v`, `process.env.PATH = v`, Perl's
/// `$ENV{PATH} = v`), each followed by its value.
static GIVEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"['"](?P<a>[A-Z_][A-Z0-9_]*|npm_config_\w+)['"]\s*\]?\s*(?::|,|=[^=])\s*|[{,(]\s*(?P<b>[A-Z_][A-Z0-9_]*|npm_config_\w+)\s*(?::|=[^=])\s*|(?:\.|\{\s*)(?P<c>[A-Z_][A-Z0-9_]*|npm_config_\w+)\s*\}?\s*=[^=]\s*"#,
    )
    .expect("valid regex")
});

/// Whether variable `name` steers what a program started loads or runs.
fn steers(name: &str) -> bool {
    static LISTED_NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!("^(?:{LISTED})$")).expect("valid regex"));
    LISTED_NAME.is_match(name) || crate::dialect::code_env::steers_code(name)
}

/// The variables `code` of `program` gives what it starts ([`GIVEN`]).
pub(super) fn given_variables(program: &str, code: &str) -> GivenVariables {
    let mut given = GivenVariables {
        assignments: Vec::new(),
        unread: None,
    };
    let mut covered: Vec<(usize, usize)> = Vec::new();
    for found in GIVEN.captures_iter(code) {
        let Some(name) = ["a", "b", "c"].iter().find_map(|n| found.name(n)) else {
            continue;
        };
        let name = name.as_str();
        let whole = found.get(0).map_or(0..0, |m| m.range());
        if !steers(name) || !gives(code, whole.start, &code[whole.clone()]) {
            continue;
        }
        // `=[^=]` took the value's first character: start at the `=`'s end.
        let from = code[whole.clone()]
            .rfind(['=', ':', ','])
            .map_or(whole.end, |at| whole.start + at + 1);
        let value = super::moved_code::value_at(&code[from..]);
        let end = from + code[from..].find(value).map_or(0, |at| at + value.len());
        covered.push((whole.start, end));
        match shell_word(value, program) {
            Some(word) => given.assignments.push(format!("{name}={word}")),
            None => {
                given.unread.get_or_insert_with(|| {
                    format!(
                        "its {program} code gives what it starts `{name}` a value built in a \
                         way no reading follows (`{}`)",
                        value.chars().take(80).collect::<String>()
                    )
                });
            }
        }
    }
    if given.unread.is_none() {
        given.unread = named_another_way(program, code, &covered);
    }
    given
}

/// Whether the [`GIVEN`] match `matched` at `start` of `code` gives its
/// variable: a quoted name before a comma only as a call's first argument
/// that sets it (`os.putenv("PATH", …)`, not `os.environ.get("PATH", "")`).
fn gives(code: &str, start: usize, matched: &str) -> bool {
    static SETS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:putenv|setenv|setdefault|__setitem__)\s*\(\s*$").expect("valid regex")
    });
    let by_comma = matched.trim_end().ends_with(',');
    !by_comma || SETS.is_match(&code[..start])
}

/// The shell word `value`, an expression of `code` of `program`, stands
/// for: string literals, the variables it reads (`os.environ["PATH"]` is
/// `${PATH}`), the path list separator, joined by `+`. `None` for anything
/// else.
fn shell_word(value: &str, program: &str) -> Option<String> {
    static READS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:os\.environ\[\s*['"](?P<a>\w+)['"]\s*\]|os\.environ\.get\(\s*['"](?P<b>\w+)['"]\s*(?:,\s*['"]['"]\s*)?\)|os\.getenv\(\s*['"](?P<c>\w+)['"]\s*(?:,\s*['"]['"]\s*)?\)|process\.env\.(?P<d>\w+)|process\.env\[\s*['"](?P<e>\w+)['"]\s*\]|\$ENV\{\s*['"]?(?P<f>\w+)['"]?\s*\})$"#)
            .expect("valid regex")
    });
    static HOME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^os\.path\.expanduser\(\s*(['"])~(/[^'"$`\\]*)?['"]\s*\)$"#)
            .expect("valid regex")
    });
    let mut word = String::new();
    let mut literal_only = true;
    for piece in split_outside(value, "+") {
        let piece = piece.trim();
        if is_string(piece, program) && !interpolates(piece) && !piece.contains('\\') {
            word.push_str(&piece[1..piece.len() - 1]);
        } else if let Some(home) = HOME.captures(piece) {
            // `os.path.expanduser("~/.local/bin")`: under the user's home.
            word.push_str(&format!(
                "\u{0}HOME\u{1}{}",
                home.get(2).map_or("", |m| m.as_str())
            ));
            literal_only = false;
        } else if matches!(piece, "os.pathsep" | "path.delimiter") {
            word.push(':');
        } else if let Some(read) = READS.captures(piece) {
            let name = ["a", "b", "c", "d", "e", "f"]
                .iter()
                .find_map(|n| read.name(n))?;
            word.push_str(&format!("\u{0}{}\u{1}", name.as_str()));
            literal_only = false;
        } else {
            return None;
        }
    }
    if literal_only {
        return Some(shlex::try_quote(&word).ok()?.into_owned());
    }
    // Double-quoted, the variables read left to expand.
    let mut quoted = String::from("\"");
    for c in word.chars() {
        match c {
            '\u{0}' => quoted.push_str("${"),
            '\u{1}' => quoted.push('}'),
            '"' | '\\' | '$' | '`' => {
                quoted.push('\\');
                quoted.push(c);
            }
            _ => quoted.push(c),
        }
    }
    quoted.push('"');
    Some(quoted)
}

/// Why `code` names a variable steering what runs in a way no reading
/// follows, outside the places `covered` where it is given: a listed name
/// anywhere but a read (`os.environ.get("NODE_PATH")`), or any such name
/// quoted whole (`k = "PATH"`) but a read.
fn named_another_way(program: &str, code: &str, covered: &[(usize, usize)]) -> Option<String> {
    static LISTED_ANYWHERE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!(r"\b(?:{LISTED})\b")).expect("valid regex"));
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"['"]([A-Z_][A-Z0-9_]*|npm_config_\w+)['"]"#).expect("valid regex")
    });
    static READ: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?:\.get\(|getenv\(|\.pop\(|\bin\s+os\.environ|process\.env\.|process\.env\[|environ\[|\$ENV\{)\s*['"]?$"#,
        )
        .expect("valid regex")
    });
    static IN: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*(?:not\s+)?in\b").expect("valid regex"));
    let listed = LISTED_ANYWHERE
        .find_iter(code)
        .filter(|found| found.as_str() != "ENV")
        .map(|found| (found.start(), found.end(), found.as_str()));
    let quoted = QUOTED.captures_iter(code).filter_map(|found| {
        let name = found.get(1)?;
        steers(name.as_str()).then_some((name.start(), name.end(), name.as_str()))
    });
    for (start, end, name) in listed.chain(quoted) {
        if covered
            .iter()
            .any(|(from, to)| (*from..*to).contains(&start))
        {
            continue;
        }
        let line_start = code[..start].rfind('\n').map_or(0, |at| at + 1);
        let before = &code[line_start..start];
        let after = code[end..].trim_start_matches(['"', '\'', ']', '}']);
        let assigned = after.trim_start().starts_with('=') && !after.trim_start().starts_with("==");
        // `"PATH" in os.environ`, `"PATH" not in env`: a test.
        let tested = IN.is_match(after);
        let read = READ.is_match(before) && !assigned;
        if !tested && !read {
            return Some(format!(
                "its {program} code gives what it starts `{name}` in a way no reading follows"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::given_variables;

    #[test]
    fn variables_given_by_code_are_read_as_shell_assignments() {
        for (code, expected) in [
            (
                "subprocess.run(['git'], env={**os.environ, 'PATH': 'tools:' + os.environ['PATH']})",
                "PATH=\"tools:${PATH}\"",
            ),
            (
                "os.environ[\"GIT_EXTERNAL_DIFF\"] = \"tools/d.sh\"",
                "GIT_EXTERNAL_DIFF=tools/d.sh",
            ),
            ("os.putenv('BASH_ENV', 'tools/e.sh')", "BASH_ENV=tools/e.sh"),
            (
                "spawnSync('make', [], { env: { ...process.env, MAKEFILES: 'common.mk' } })",
                "MAKEFILES=common.mk",
            ),
            (
                "env={**os.environ, 'PATH': os.path.expanduser('~/.local/bin') + os.pathsep + os.environ['PATH']}",
                "PATH=\"${HOME}/.local/bin:${PATH}\"",
            ),
            (
                "env = dict(os.environ, PATH=os.pathsep.join(['tools']))",
                "",
            ),
        ] {
            let given = given_variables("python3", code);
            if expected.is_empty() {
                assert!(given.unread.is_some(), "{code}");
            } else {
                assert_eq!(given.assignments, [expected], "{code}");
                assert_eq!(given.unread, None, "{code}");
            }
        }
    }

    #[test]
    fn names_given_another_way_are_unread_and_reads_are_not() {
        for code in [
            "k = 'PATH'\nenv[k] = 'tools'",
            "k = \"BASH_ENV\"\nsubprocess.run(['bash'], env={**os.environ, k: 'x'})",
            "env = {**os.environ, 'PATH': str(pathlib.Path('tools'))}",
        ] {
            assert!(given_variables("python3", code).unread.is_some(), "{code}");
        }
        for code in [
            "p = os.environ.get('PATH', '')\nh = os.environ['HOME']",
            "print('HOME is not set'); x = NODE_ENV",
            "env = {**os.environ, 'NO_COLOR': '1', 'LANG': 'C'}",
            "PROJECT = os.environ.get('CLAUDE_PROJECT_DIR', '.')",
        ] {
            let given = given_variables("python3", code);
            assert_eq!(given.unread, None, "{code}");
        }
    }
}
