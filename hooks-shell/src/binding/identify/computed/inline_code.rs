//! Code given inline to another language (`python3 -c`, `perl -e`, `ruby
//! -e`, `node -e`, `php -r`, an `awk` program) that starts a program: the
//! command it starts must be written out, as string literals (`os.system("sh
//! tools/g.sh")`, `system("make -s")`, `["git", "diff"]`), which the sweep
//! binds like the hook's own text. One built when it runs
//! (`os.system("sh " + name)`, `system("sh " sprintf("tools/g.%s", "sh"))`,
//! `exec "sh", sprintf(…)`) names a file no reading can (red team R43-11).

use std::sync::LazyLock;

use regex::Regex;

pub(super) use super::code_words::top_level;
use super::code_words::{BACKQUOTED, KEYWORD, interpolates, is_string, words_of};
use super::code_written::Written;

/// The `child_process` functions that start a program.
pub(super) const NODE_CALLS: [&str; 7] = [
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
    "fork",
];

/// Why `code`, the inline code or a script file of `program` (as
/// [`super::base_name`] gives it, or a script's language:
/// `identify::language`), starts a program named only when it runs.
pub(crate) fn spawns_computed(program: &str, code: &str) -> Option<String> {
    spawns_computed_after(program, code, &Written::default())
}

/// [`spawns_computed`] of code run after what ran before it wrote
/// `prior` (the hook's text copying what a computed name names to
/// `/tmp/y.sh`, then a helper running `sh /tmp/y.sh`: round 50, xf2, y50).
pub(crate) fn spawns_computed_after(program: &str, code: &str, prior: &Written) -> Option<String> {
    // `cwd="/proc/self/cwd/vendor/lib"`: the folder it runs in, spelled so
    // no reading takes it as the project's (round 57, H57-5).
    if let Some(why) = super::through_proc(code) {
        return Some(format!("its {program} code {why}"));
    }
    // `sys.path.insert(0, 'l' + 'ib')`: modules from a folder no reading
    // names (R46-3); code loaded by a computed name, or from data, or a
    // program reached another way (round 49: H6–H8).
    if matches!(program, "python" | "python3")
        && let Some(why) = super::python_paths::computed_folder(code)
    {
        return Some(why);
    }
    // `os.chdir('to' + 'ols')`, `cwd=…`, `PYTHONPATH=…` of a folder named
    // when it runs (round 51, H2).
    if matches!(
        program,
        "python" | "python3" | "node" | "bun" | "deno" | "perl"
    ) && let Some(why) = super::moved_code::moves_to_computed(program, code)
        .or_else(|| super::moved_code::unread_move(program, code))
    {
        return Some(why);
    }
    let loaded = match program {
        "python" | "python3" => super::python_loaders::loads_computed(code),
        "node" | "bun" | "deno" => super::node_reach::runs_code(code),
        "perl" => super::perl_reach::reaches(code),
        _ => None,
    };
    if let Some(why) = loaded {
        return Some(format!("its {program} code {why}"));
    }
    if matches!(program, "awk" | "gawk" | "mawk" | "nawk") {
        return super::awk_code::awk(code);
    }
    let calls = calls_of(program)?;
    let shown =
        |call: &str| format!("its {program} code starts a command built when it runs (`{call}`)");
    // Only code that loads what starts programs: `asyncio.run(main())`,
    // `/x/.exec(s)` start none.
    let loads = match program {
        "python" | "python3" => {
            static MODULES: LazyLock<Regex> = LazyLock::new(|| {
                Regex::new(r"\b(?:subprocess|os|pty|commands)\b|create_subprocess_")
                    .expect("valid regex")
            });
            MODULES.is_match(code)
        }
        "node" | "bun" | "deno" => code.contains("child_process") || code.contains("Deno.Command"),
        _ => true,
    };
    // Python's other ways to a program: aliases (`from subprocess import
    // run as r`, `f = subprocess.run`), and reaching one no reading
    // follows (`getattr(subprocess, …)`, `exec(…)`: R47-2).
    let python = matches!(program, "python" | "python3");
    if python && let Some(why) = super::python_values::reaches_dynamically(code) {
        return Some(shown(&why));
    }
    // Node's and Perl's: a function taken as a value, text run as code.
    let node = matches!(program, "node" | "bun" | "deno");
    let dynamic = match program {
        _ if node && loads => super::dynamic_reach::node(code, calls),
        "perl" => super::dynamic_reach::perl(code),
        _ => None,
    };
    if let Some(why) = dynamic {
        return Some(shown(&why));
    }
    let names = call_names(calls, code, python && loads);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // `open("/tmp/y.sh", "w")` then `run(["sh", "/tmp/y.sh"])` (R47-11),
    // in every language (round 49).
    let written = match loads {
        true => super::code_written::written(code, program),
        false => Ok(Default::default()),
    };
    let mut written = match written {
        Ok(written) => written,
        Err(why) => return Some(format!("its {program} code {why}")),
    };
    written.paths.extend(prior.paths.iter().cloned());
    written.ends.extend(prior.ends.iter().cloned());
    // The commands it starts, in order, as shell text.
    let mut started = match loads {
        true => match started_by(program, code, &names) {
            Ok(started) => started,
            Err(why) => return Some(why),
        },
        false => Vec::new(),
    };
    super::started::project_folders(program, code, &mut started);
    if let Some(why) = super::started::git_in_computed_repository(program, &started) {
        return Some(why);
    }
    if !started.is_empty()
        && let Some(why) = super::started::steering_unread(program, code)
    {
        return Some(why);
    }
    // A file it writes, or one command of it writes, that another runs;
    // a command that runs a computed folder's code (`cd "$(:)" && make`:
    // round 55).
    if !started.is_empty()
        && let Some(why) = super::given::computed_name_after(&started.join("\n"), &written)
    {
        return Some(format!("its {program} code {why}"));
    }
    // A command in backquotes (`` `sh $x` ``, `%x(…)`, `qx(…)`) that
    // interpolates.
    if matches!(program, "perl" | "ruby" | "php")
        && let Some(quoted) = BACKQUOTED
            .find_iter(code)
            .find(|q| interpolates(q.as_str()))
    {
        return Some(shown(quoted.as_str()));
    }
    None
}

/// The commands `code` of `program` starts through `names` (its calls that
/// start programs), in order, as shell lines; `Err` says why one of them
/// is built when it runs.
fn started_by(program: &str, code: &str, names: &[&str]) -> Result<Vec<String>, String> {
    let mut started = Vec::new();
    for lines in each_started(program, code, names) {
        started.extend(lines?);
    }
    Ok(started)
}

/// [`started_by`] call by call: each call's shell lines, or why it is
/// built when it runs.
pub(super) fn each_started(
    program: &str,
    code: &str,
    names: &[&str],
) -> Vec<Result<Vec<String>, String>> {
    let node = matches!(program, "node" | "bun" | "deno");
    let shown =
        |call: &str| format!("its {program} code starts a command built when it runs (`{call}`)");
    let mut each = Vec::new();
    for call in spawn_calls(code, names) {
        // Perl's `open` starts a program only through a pipe: `open(my
        // $f, "-|", "git", "diff")` the words after its mode.
        let mut argument = call.argument.clone();
        if program == "perl" && call.text.starts_with("open(") {
            let parts = top_level(&call.argument, ',');
            if !argument.contains('|') || parts.len() < 2 {
                continue;
            }
            argument = parts[parts.len().min(3) - 1..].join(", ");
        }
        // A regular expression's `exec` starts nothing.
        if node
            && call.text.starts_with("exec(")
            && super::dynamic_reach::is_regex_exec(code, call.start)
        {
            continue;
        }
        if !is_literal(&argument, program, code) {
            each.push(Err(shown(&call.text)));
            continue;
        }
        // `os.system('sh "$(printf tools/g.%s sh)"')`: the shell text it
        // hands a shell, read as the hook's own.
        match shell_text_computed(&argument, program, code) {
            Some(why) => each.push(Err(format!("its {program} code {why}"))),
            None => each.push(Ok(shell_lines(&argument, program, code))),
        }
    }
    each
}

/// The functions of `program`'s language that start a program.
pub(super) fn calls_of(program: &str) -> Option<&'static [&'static str]> {
    let calls: &'static [&'static str] = match program {
        "python" | "python3" => &[
            "system",
            "popen",
            "execl",
            "execle",
            "execlp",
            "execlpe",
            "execv",
            "execve",
            "execvp",
            "execvpe",
            "spawnl",
            "spawnle",
            "spawnlp",
            "spawnlpe",
            "spawnv",
            "spawnve",
            "spawnvp",
            "spawnvpe",
            "posix_spawn",
            "posix_spawnp",
            "run",
            "call",
            "check_call",
            "check_output",
            "Popen",
            "getoutput",
            "getstatusoutput",
            "spawn",
            "create_subprocess_exec",
            "create_subprocess_shell",
        ],
        "perl" => &["system", "exec", "qx", "readpipe", "open"],
        "ruby" => &[
            "system", "exec", "spawn", "popen", "capture2", "capture3", "popen3",
        ],
        "node" | "bun" | "deno" => &NODE_CALLS,
        "php" => &[
            "system",
            "exec",
            "shell_exec",
            "passthru",
            "popen",
            "proc_open",
        ],
        _ => return None,
    };
    Some(calls)
}

/// The names that call `calls` in `code`: themselves and, with
/// `aliases`, the Python aliases code gives them (`from subprocess import
/// run as r`, `f = subprocess.run`).
pub(super) fn call_names(calls: &[&str], code: &str, aliases: bool) -> Vec<String> {
    let given = match aliases {
        true => super::python_values::aliases(code, calls),
        false => Vec::new(),
    };
    calls
        .iter()
        .map(|call| (*call).to_owned())
        .chain(given)
        .collect()
}

/// The inline code among `args` of `program`: the word after its inline
/// option (`-c`, `-e`, `--eval`...), or an `awk` program (its first word
/// that is no option or option value, unless `-f` names a file).
pub(super) fn code_of<'a>(program: &str, args: &'a [String]) -> Option<&'a str> {
    if matches!(program, "awk" | "gawk" | "mawk" | "nawk") {
        return super::awk_code::code_of(args);
    }
    let inline: &[&str] = match program {
        "python" | "python3" => &["-c"],
        "perl" | "ruby" => &["-e", "-E"],
        "node" | "bun" | "deno" => &["-e", "--eval", "-p", "--print"],
        "php" => &["-r"],
        _ => return None,
    };
    let at = args.iter().position(|arg| {
        inline.contains(&arg.as_str())
            // `perl -ne`, `ruby -ne`: bundled letters ending in the option.
            || (matches!(program, "perl" | "ruby")
                && arg.starts_with('-')
                && !arg.starts_with("--")
                && arg.ends_with(['e', 'E']))
    })?;
    args.get(at + 1).map(String::as_str)
}

/// One call of a program-starting function and its argument text.
struct Call {
    text: String,
    argument: String,
    /// Where its name starts in the code.
    start: usize,
}

/// The calls of `names` in `code` (`name(`…`)`, or, without parentheses as
/// Perl and Ruby allow, up to the end of the statement).
fn spawn_calls(code: &str, names: &[&str]) -> Vec<Call> {
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("valid regex"));
    let mut calls = Vec::new();
    for found in WORD.find_iter(code) {
        // `def run(*args):` defines, never calls; `["npm", "run", "lint"]`
        // holds the word in a string (round 53, U53-2).
        let quoted = code[..found.start()].ends_with(['"', '\'', '`'])
            && code[found.end()..].starts_with(['"', '\'', '`']);
        if !names.contains(&found.as_str())
            || code[..found.start()].trim_end().ends_with("def")
            || quoted
        {
            continue;
        }
        let rest = code[found.end()..].trim_start();
        let argument = match rest.strip_prefix('(') {
            Some(inside) => {
                let mut depth = 1usize;
                let end = inside
                    .char_indices()
                    .find(|(_, c)| {
                        match c {
                            '(' => depth += 1,
                            ')' => depth -= 1,
                            _ => {}
                        }
                        depth == 0
                    })
                    .map_or(inside.len(), |(at, _)| at);
                inside[..end].to_owned()
            }
            // `system "sh", "x";` (Perl, Ruby); a bare name (`run`, a
            // variable, an attribute) is no call.
            None if rest.starts_with(['"', '\'']) => {
                rest.split([';', '\n']).next().unwrap_or("").to_owned()
            }
            None => continue,
        };
        let text = format!("{}({argument})", found.as_str());
        let start = found.start();
        calls.push(Call {
            text,
            argument,
            start,
        });
    }
    calls
}

/// Whether the command `argument` starts is written out: a string literal
/// (no interpolation in `program`'s double quotes), or a list whose
/// program, and an interpreter's script or code, are literals
/// (`["npx", "prettier", "--write", path]`, `["sh", "tools/g.sh", x]`);
/// keyword options (`check=True`, `cwd=d`) aside. In Python, a name stands
/// for each value `code` gives it (`cmd = ["ruff", "check", f]`, a
/// function's parameter: what its calls pass), `depth` names deep.
pub(super) fn is_literal(argument: &str, program: &str, code: &str) -> bool {
    let python = matches!(program, "python" | "python3");
    if python {
        // Each command the call may start (R47-12: names, `X + [f]`, dicts).
        return super::python_commands::commands(argument, code).is_some_and(|alternatives| {
            alternatives
                .iter()
                .all(|words| super::python_commands::is_written(words))
        });
    }
    let literal = |word: &str| is_string(word, program);
    let words = words_of(argument);
    let Some((first, rest)) = words.split_first() else {
        return true;
    };
    if !literal(first) {
        return false;
    }
    let name = first.trim_matches(['"', '\'']);
    let runs_code = super::super::INTERPRETERS.contains(&super::base_name(name).as_str());
    // `execvp("sh", ["sh", …])`: the program named again as `argv[0]`.
    let rest = match rest.first() {
        Some(again) if again == first => &rest[1..],
        _ => rest,
    };
    let mut rest = rest.iter();
    while runs_code && let Some(word) = rest.next() {
        if !literal(word) {
            return false;
        }
        let word = word.trim_matches(['"', '\'']);
        if matches!(word, "-c" | "-e" | "-E" | "--eval") {
            return rest.next().is_some_and(|code| literal(code));
        }
        if !word.starts_with('-') {
            break;
        }
    }
    true
}

/// Why a shell text the call with arguments `argument` hands a shell
/// ([`super::shell_strings`]) runs a name computed when it runs.
fn shell_text_computed(argument: &str, program: &str, code: &str) -> Option<String> {
    use super::shell_strings::{computed_in, fed_computed};
    if !matches!(program, "python" | "python3") {
        let words = words_of(argument);
        return computed_in(&words, program).or_else(|| fed_computed(argument, &words, program));
    }
    let alternatives = super::python_commands::commands(argument, code)?;
    alternatives.iter().find_map(|words| {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        computed_in(&words, program).or_else(|| fed_computed(argument, &words, program))
    })
}

/// The commands the call with arguments `argument` may start, as shell
/// lines: a string run by a shell as it stands, a list's words quoted,
/// each word built when it runs as a substitution.
fn shell_lines(argument: &str, program: &str, code: &str) -> Vec<String> {
    static GIT_FOLDER_JOINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*['"](--git-dir=|--work-tree=)['"]\s*\+\s*\S"#).expect("valid regex")
    });
    use super::shell_strings::literal_text;
    let alternatives = match program {
        "python" | "python3" => {
            super::python_commands::commands(argument, code).unwrap_or_default()
        }
        _ => vec![words_of(argument).into_iter().map(str::to_owned).collect()],
    };
    // A literal's text; a template putting values in (`` `--git-dir=${d}`
    // ``, Perl's `"-C$d"`) is computed (round 58).
    let text_of = |word: &str| {
        literal_text(word, program)
            .flatten()
            .filter(|text| !super::code_written::interpolated(text, word, program))
    };
    alternatives
        .iter()
        .map(|words| {
            // `execSync("sh x", { stdio })`: a shell line, options aside.
            if let Some(line) = words.first().and_then(|w| text_of(w))
                && line.contains(char::is_whitespace)
            {
                return line;
            }
            let quoted: Vec<String> = words
                .iter()
                .filter(|word| !KEYWORD.is_match(word))
                .map(|word| match text_of(word) {
                    Some(text) => shlex::try_quote(&text)
                        .map_or_else(|_| "\"$(:)\"".to_owned(), |q| q.into_owned()),
                    // `"--git-dir=" + d`: git's option, its value computed.
                    None => match GIT_FOLDER_JOINED.captures(word) {
                        Some(option) => format!("{}\"$(:)\"", &option[1]),
                        None => "\"$(:)\"".to_owned(),
                    },
                })
                .collect();
            quoted.join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests;
