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

use std::cell::Cell;
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
            r#"\b(?:os\.f?chdir|process\.chdir|chdir)\s*\(|\bprocess\s*\[\s*['"]chdir['"]\s*\]\s*\(|\bchdir\s+|\bcwd\s*(?:=[^=]|:)|(?:^|[^$\w])\{{\s*cwd\s*[,}}]|,\s*cwd\s*[,}}]|['"]cwd['"]\s*(?::|\]\s*=[^=])|(?:\b|['"])(?:{SEARCH_VARIABLES})['"]?\s*\]?\s*\}}?\s*(?:=[^=]|:)|\bos\.putenv\s*\("#
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
        // JavaScript's `{cwd, stdio}`: the option given the name `cwd`
        // (red team round 58: `function go(cwd) { execSync(…, {cwd}) }`).
        let shorthand = matched.trim_end().ends_with([',', '}']);
        if shorthand && matches!(program, "python" | "python3") {
            continue;
        }
        // The value: after `=`/`:` (a keyword, a key, an assignment), or
        // the call's first argument (`chdir(…)`, `putenv(NAME, …)`).
        let start = match matched.trim_end().chars().last() {
            _ if shorthand => found.end(),
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
        // Not a `cwd=d or None` keyword (round 55, r10).
        let shell_word = word_end > 0
            && !matched.trim_start().starts_with("cwd")
            && matched.trim_end_matches(|c: char| c != '=').ends_with('=')
            && rest[word_end..].starts_with([' ', '\t', '\n'])
            && !matched.contains(['\'', '"', '[', '{']);
        if shell_word && !shorthand {
            continue;
        }
        let value = match shorthand {
            true => "cwd",
            false => value_at(&code[start..]),
        };
        let value = match matched.contains("putenv") {
            true => super::inline_code::top_level(value, ',')
                .get(1)
                .copied()
                .unwrap_or(""),
            false => value,
        };
        let input_path = Cell::new(false);
        if !is_written_place(value.trim(), program, code, &input_path) {
            return Some(format!(
                "its {program} code moves where it runs or looks for code to a folder named when it runs (`{}{}`)",
                code[found.start()..start].trim(),
                if shorthand { "" } else { value.trim() }
            ));
        }
        // The folder of a path the tool call names: any folder of the
        // project, whose Makefile, package.json, conftest.py or tool
        // settings no reading binds (red team round 53).
        // A `cwd=` keyword moves its own call (the line holding it, else
        // all the code); a `chdir` all that follows.
        let line_end = code[found.end()..]
            .find('\n')
            .map_or(code.len(), |at| found.end() + at);
        let own_call = &code[line_start..line_end];
        let keyword = shorthand || matched.trim_start().starts_with("cwd");
        let started = || {
            let loads = LOADS_THERE.find(code).map(|found| {
                let line = code[found.start()..].lines().next().unwrap_or_default();
                line.chars().take(40).collect::<String>().trim().to_owned()
            });
            let in_call = super::started::started_commands(program, own_call);
            let commands = match keyword && !in_call.is_empty() {
                true => in_call,
                false => super::started::started_commands(program, code),
            };
            loads.or_else(|| {
                commands
                    .iter()
                    .flat_map(|line| programs(line))
                    .find(|name| !ANY_FOLDER.contains(&name.as_str()))
            })
        };
        if input_path.get()
            && let Some(started) = started()
        {
            return Some(format!(
                "its {program} code runs {started} in the folder of a path the tool call names (`{}{}`), whose settings and code no reading binds; run it in the project folder with the path as an argument",
                code[found.start()..start].trim(),
                if shorthand { "" } else { value.trim() }
            ));
        }
    }
    None
}

/// The hook input's own `cwd`, read from the parsed input: one key.
pub(super) static INPUT_CWD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^([A-Za-z_]\w*)\s*(?:\[\s*['"]cwd['"]\s*\]|\.get\(\s*['"]cwd['"](?:[^()]*|\s*,\s*(?:os\.getcwd|process\.cwd)\(\)\s*)\)|\.cwd)$"#,
    )
    .expect("valid regex")
});

/// Code loading from the folder it runs in by a relative name: after a
/// move to the folder of a path the tool call names, from that folder.
static LOADS_THERE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\bsys\.path\b|\baddsitedir\b|\brunpy\b|\bimport_module\b|\bspec_from_file_location\b|\bSourceFileLoader\b|\bload_module\b|\bload_source\b|\bexec(?:file)?\s*\(|__import__|\brequire\s*\(\s*(?:[^'"\s)]|['"]\.|`)|\bcreateRequire\b|\bWorker\s*\(|\bimport\s*\(|\brequire_relative\b|\bdo\s+['"]"#)
        .expect("valid regex")
});

/// Programs that read no code from the folder they run in, run in a
/// folder the tool call names. Not git: a repository nested in the project
/// (`vendor/lib/.git`, from an archive) has settings that run commands
/// (`core.fsmonitor`), and one the tool call names is any of them (round
/// 55); git's bare repositories are refused to every hook besides
/// (`crate::git_env`). Not `rustfmt`: rustup's proxy runs the toolchain a
/// `rust-toolchain.toml` there names (round 55, H55-1).
const ANY_FOLDER: [&str; 21] = [
    // What a computed word is read as (`"$(:)"`).
    ":",
    "ruff",
    "black",
    "isort",
    "gofmt",
    "shfmt",
    "shellcheck",
    "clang-format",
    "jq",
    "cat",
    "grep",
    "rg",
    "head",
    "tail",
    "wc",
    "ls",
    "stat",
    "file",
    "diff",
    "echo",
    "true",
];

/// The programs a shell line starts (assignments and wrappers read
/// through), as base names: each of them, not only the first (round 55,
/// H55-4: `git status && make -s lint`, `cat run.sh | sh`).
fn programs(line: &str) -> Vec<String> {
    crate::binding::shell::simple_commands(line)
        .into_iter()
        .map(|words| crate::binding::shell::skip_prefixes(&words))
        .filter_map(|words| {
            words
                .first()
                .map(|first| super::base_name(first.trim_matches(['"', '\''])))
        })
        .collect()
}

/// Whether `value`, an expression of `code`, names a folder written out,
/// the folder the hook runs in or its own: not one named when it runs, nor
/// the folder of a path the tool call names.
pub(super) fn is_project_place(value: &str, program: &str, code: &str) -> bool {
    let input_path = Cell::new(false);
    is_written_place(value.trim(), program, code, &input_path) && !input_path.get()
}

/// The expression `text` starts with: up to a comma, a closing bracket or
/// a line's end outside brackets and strings.
pub(super) fn value_at(text: &str) -> &str {
    let end = super::brackets::scan(text, |_, c, depth| {
        depth < 0 || (depth == 0 && matches!(c, ',' | ';' | '\n'))
    });
    text[..end.unwrap_or(text.len())].trim()
}

/// Whether `value` names a folder written out, or the folder the hook
/// runs in, or its code's own.
/// `input_path` is set when it is (or is the folder of) a path the hook
/// input names other than its `cwd`.
fn is_written_place(value: &str, program: &str, code: &str, input_path: &Cell<bool>) -> bool {
    static PLACE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"^(?:os\.getcwd\(\)|process\.cwd\(\)|__dirname|Dir\.pwd|getcwd\(\)|\$ENV\{\s*['"]?(?:CLAUDE_PROJECT_DIR|PWD|HOME)['"]?\s*\}|process\.env\.(?:CLAUDE_PROJECT_DIR|PWD|HOME)|process\.env\[['"](?:CLAUDE_PROJECT_DIR|PWD|HOME)['"]\]|os\.environ(?:\.get)?\s*[\[(]\s*['"](?:CLAUDE_PROJECT_DIR|PWD|HOME)['"][^\])]*[\])]|os\.getenv\(\s*['"](?:CLAUDE_PROJECT_DIR|PWD|HOME)['"][^)]*\)|[A-Za-z_$][\w$]*(?:\[['"]cwd['"]\]|\.get\(\s*['"]cwd['"](?:[^()]*|\s*,\s*(?:os\.getcwd|process\.cwd)\(\)\s*)\)|\.cwd)|None|null|undefined)$"#,
        )
        .expect("valid regex")
    });
    is_place_at(value, program, code, (&PLACE, input_path), 0)
}

/// [`is_written_place`] `depth` names deep: a wrapper read through
/// (`Path(…)`, `str(…)`, `os.path.abspath(…)`, `.resolve()`), the
/// repository's top (`git rev-parse --show-toplevel`'s output), the hook
/// input's data (`data["tool_input"]["file_path"]`, and the folder of such
/// a path), a Python name whose every value is one (round 52 usability:
/// `cwd=repo_root`, `cwd=Path(data["cwd"])`, `cwd=os.path.dirname(path)`).
fn is_place_at(
    value: &str,
    program: &str,
    code: &str,
    (place, input_path): (&Regex, &Cell<bool>),
    depth: usize,
) -> bool {
    static WRAPPED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:(?:pathlib\.)?Path|PurePath|str|String|os\.fspath|os\.path\.(?:abspath|realpath|normpath|dirname|expanduser)|path\.(?:dirname|resolve|normalize))\((.*)\)$")
            .expect("valid regex")
    });
    static DATA: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^([A-Za-z_]\w*)(?:\s*(?:\[\s*['"][\w-]+['"]\s*\]|\.get\(\s*['"][\w-]+['"][^()]*\)|\.\w+))+$|rev-parse[^)]*--show-toplevel|--show-toplevel[^)]*rev-parse"#)
            .expect("valid regex")
    });
    let parsed_input = |name: &str| super::input_values::is_input_name(name, program, code);
    let values_of = |name: &str| match program {
        "python" | "python3" => super::python_values::values(code, name).unwrap_or_default(),
        _ => assigned_values(code, name).unwrap_or_default(),
    };
    let input_part = |name: &str| {
        let values = values_of(name);
        !values.is_empty()
            && values.iter().all(|value| {
                let plain = value.replace("|| {}", "").replace(['(', ')', ' '], "");
                [value.as_str(), plain.as_str()].iter().any(|value| {
                    DATA.captures(value.trim())
                        .and_then(|found| found.get(1))
                        .is_some_and(|root| root.as_str() != name && parsed_input(root.as_str()))
                })
            })
    };
    let data = |value: &str| {
        // The repository's top, not a folder built on it (`top + "/web"`:
        // round 55, c30).
        let built = super::brackets::split_outside(value, "+").len() > 1;
        DATA.captures(value)
            .filter(|found| found.get(1).is_some() || !built)
            .is_some_and(|found| match found.get(1) {
                Some(name) => {
                    // The hook input's own `cwd` (`data["cwd"]`) is the
                    // project; any other path it holds, a tool call's
                    // `tool_input.cwd` too, is any folder (round 55, q39).
                    let parsed = parsed_input(name.as_str());
                    // A part of the input (`ti = data["tool_input"]`): its
                    // `cwd` is the tool call's, any folder (round 56, a02).
                    let part = !parsed && input_part(name.as_str());
                    if part || (parsed && !INPUT_CWD.is_match(value)) {
                        input_path.set(true);
                    }
                    parsed || part
                }
                None => true,
            })
    };
    let mut value = value.trim();
    // `.resolve()`, `.strip()`, Node's `.toString().trim()`.
    while let Some(inner) = [".resolve()", ".strip()", ".trim()", ".toString()"]
        .iter()
        .find_map(|suffix| value.strip_suffix(suffix))
    {
        value = inner.trim();
    }
    // `(input.tool_input || {}).file_path`: an object read with a default.
    let plain: String = value.replace("|| {}", "").replace(['(', ')', ' '], "");
    if !matches!(program, "python" | "python3") && plain != value && data(plain.trim()) {
        return true;
    }
    // `ti["cwd"]` of `ti = data["tool_input"]`: the tool call's folder;
    // so is `x["cwd"]` of anything but the input as parsed (`x = {**data,
    // "cwd": d}`), or of code that may write into what it parsed
    // (`data.__setitem__("cwd", d)`: round 57, g02).
    if let Some(found) = INPUT_CWD.captures(value)
        && (input_part(&found[1])
            || !parsed_input(&found[1])
            || super::input_values::may_rewrite_input(program, code, &found[1]))
    {
        input_path.set(true);
        return true;
    }
    if value.is_empty() || place.is_match(value) || is_string(value, program) || data(value) {
        return true;
    }
    // `const {cwd} = JSON.parse(raw)` (round 57, U57-3).
    if super::input_values::destructured_input_cwd(value, program, code) {
        return true;
    }
    // `a or "."`, `a || "."`: each side.
    for or in [" or ", "||"] {
        let sides = super::brackets::split_outside(value, or);
        if sides.len() > 1 && depth < 4 {
            return sides
                .iter()
                .all(|side| is_place_at(side, program, code, (place, input_path), depth + 1));
        }
    }
    if depth < 4
        && let Some(inner) = WRAPPED.captures(value).and_then(|found| found.get(1))
    {
        let first = super::inline_code::top_level(inner.as_str(), ',');
        return first.first().is_some_and(|first| {
            is_place_at(first, program, code, (place, input_path), depth + 1)
        });
    }
    let python = matches!(program, "python" | "python3");
    let values = match python {
        true => super::python_values::values(code, value),
        false => assigned_values(code, value),
    };
    if depth < 4
        && super::python_values::is_name(value)
        && let Some(values) = values
        && values
            .iter()
            .all(|given| is_place_at(given, program, code, (place, input_path), depth + 1))
    {
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
                .all(|part| place.is_match(part.trim()) || is_string(part.trim(), program))
        }
    }
}

/// What JavaScript or Perl `code` assigns `name` (`const root = …;`).
pub(super) fn assigned_values(code: &str, name: &str) -> Option<Vec<String>> {
    let pattern = format!(
        r"(?:^|[;{{(\s])(?:(?:const|let|var|my)\s+)?\$?{}\s*=\s*([^;\n]+)",
        regex::escape(name)
    );
    let found: Vec<String> = Regex::new(&pattern)
        .ok()?
        .captures_iter(code)
        .map(|found| found[1].trim().to_owned())
        .collect();
    (!found.is_empty()).then_some(found)
}

/// Why code that reads the tool call's input (`tool_input`, `file_path`)
/// and starts a program that runs the folder's code may send it to a
/// folder named there by a construct no reading above follows (red team
/// round 56: `setattr`, `preexec_fn=partial(os.chdir, d)`, `dict([("cwd",
/// d)])`, `"c" "wd"`, `os.getcwd = …`, `PWD`, `find -execdir`, `Popen`'s
/// tenth argument, a folder option built into a word: `f"-C{d}"`,
/// `"--prefix=" + d`). Such code cannot be approved.
pub(super) fn unread_move(program: &str, code: &str) -> Option<String> {
    static READS_INPUT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"tool_input|file_path|notebook_path|toolInput").expect("valid regex")
    });
    static UNREAD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\bsetattr\s*\(|\bpreexec_fn\b|\bpartial\s*\(\s*os\.f?chdir|\bgetcwd\s*=[^=]|\bPWD\b|["']c["']\s*["']wd["']|[\[,(]\s*\(\s*["']cwd["']\s*,|\bfor\s+\w+\s+in\s*[\[(]\s*["']cwd["']|\bfchdir\b|-execdir\b|-okdir\b|\bprocess\.cwd\s*=[^=]|\b(?:CLAUDE_PROJECT_DIR|PWD)\b['"]?\s*\]?\s*=[^=]|\benviron\.(?:update|setdefault)\b|\+=\s*(?:os\.sep|f?['"][^'"\n]*/)|\b(?:var|let|const)\s+__dirname\b|\b__dirname\s*=[^=]|\[\s*['"]cwd['"]\s*\]\s*:"#)
            .expect("valid regex")
    });
    if !READS_INPUT.is_match(code) {
        return None;
    }
    let started = super::started::started_commands(program, code);
    let runs_code = |line: &String| {
        programs(line)
            .iter()
            .any(|name| !ANY_FOLDER.contains(&name.as_str()))
    };
    let reaching: Vec<&String> = started.iter().filter(|line| runs_code(line)).collect();
    if reaching.is_empty() {
        return None;
    }
    let construct = UNREAD
        .find(code)
        .map(|found| found.as_str().trim().to_owned())
        .or_else(|| popen_tenth_argument(code).then(|| "Popen(…, cwd)".to_owned()))
        .or_else(|| super::hidden_keys::hidden_key(program, code))
        .or_else(|| {
            // `make -s "$(:)"`: a word it computes may be `-C<folder>`.
            reaching.iter().find_map(|line| {
                let word = computed_option_word(line)?;
                Some(format!("{line}` (`{word}"))
            })
        })?;
    Some(format!(
        "its {program} code reads the tool call's input and may send what it starts to a \
         folder named there (`{construct}`), whose settings and code no reading binds; run it \
         in the project folder with the path as an argument"
    ))
}

/// Whether `code` calls `Popen` with ten positional arguments or more (the
/// tenth is the folder it runs in).
fn popen_tenth_argument(code: &str) -> bool {
    code.match_indices("Popen(").any(|(at, _)| {
        let rest = &code[at + "Popen(".len()..];
        let end = super::brackets::scan(rest, |_, _, depth| depth < 0).unwrap_or(rest.len());
        let positional = super::inline_code::top_level(&rest[..end], ',')
            .iter()
            .filter(|part| !KEYWORD_ARGUMENT.is_match(part))
            .count();
        positional >= 10
    })
}

/// A keyword argument (`cwd=d`), not a comparison.
static KEYWORD_ARGUMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\*{0,2}\w+\s*=[^=]|^\s*\*\*").expect("valid regex"));

/// A word of `line`, a command that runs the folder's definitions, that
/// holds text computed when it runs before its `--` (make and npm read
/// options anywhere: `make -s "$(:)"` may be `-C<folder>`); npx's, pnpm
/// dlx's and bunx's only before the tool they run.
fn computed_option_word(line: &str) -> Option<String> {
    for words in crate::binding::shell::simple_commands(line) {
        let words = crate::binding::shell::skip_prefixes(&words);
        let Some((first, args)) = words.split_first() else {
            continue;
        };
        let program = super::base_name(first);
        if !crate::binding::definitions::runs_folder_definitions(&program) {
            continue;
        }
        let runs_a_tool = matches!(program.as_str(), "npx" | "pnpx" | "bunx");
        for word in args {
            if word == "--" || (runs_a_tool && !word.starts_with('-')) {
                break;
            }
            if word.contains("$(:)") {
                return Some(word.clone());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
