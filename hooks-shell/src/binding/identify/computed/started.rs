//! The commands written out in code that the hook starts (round 52,
//! H52-5): `subprocess.run(["make", "-s", "lint"])`, `os.system("npm
//! test")`, Node's `execSync("npx eslint .")`, Perl's backquotes, as shell
//! lines, with the variables the code gives them that steer what they run.
//! What they run of the folder they run in is bound as the hook's own
//! shell text's (`crate::binding::definitions`).

use std::sync::LazyLock;

use regex::Regex;

use super::code_words::{BACKQUOTED, interpolates, is_string};
use super::inline_code::{call_names, calls_of, code_of, each_started};

/// The commands written out in `code` of `program` (a language, as
/// [`super::spawns_computed`] takes it) that it starts, as shell lines
/// (`subprocess.run(["make", "-s", "lint"])` is `make -s lint`): what the
/// programs among them run of the folder they run in is bound as the
/// hook's own shell text's (round 52, H52-5). A call built when it runs is
/// left out here; [`super::spawns_computed`] refuses it.
pub(crate) fn started_commands(program: &str, code: &str) -> Vec<String> {
    let Some(calls) = calls_of(program) else {
        return Vec::new();
    };
    let names = call_names(calls, code, matches!(program, "python" | "python3"));
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut lines: Vec<String> = each_started(program, code, &names)
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    // The variables it gives them that steer what they run
    // (`env={**os.environ, "MAKEFILES": "common.mk"}`: round 53, H53-6;
    // any such variable: round 57), given to each; one whose value the
    // reading cannot work out makes the code unapprovable
    // ([`steering_unread`]).
    let steering = super::given_env::given_variables(program, code).assignments;
    project_folders(program, code, &mut lines);
    if !steering.is_empty() {
        let prefix = steering.join(" ");
        for line in &mut lines {
            *line = format!("{prefix} {line}");
        }
    }
    // Perl's, Ruby's and PHP's commands in backquotes (`` `make -s` ``,
    // `qx{make}`, `%x(make)`), written out (round 53, H53-5).
    if matches!(program, "perl" | "ruby" | "php") {
        lines.extend(
            BACKQUOTED
                .find_iter(code)
                .map(|quoted| quoted.as_str())
                .filter(|quoted| !interpolates(quoted))
                .map(|quoted| {
                    let inner = quoted.trim_start_matches(['q', 'x', '%', ' ']);
                    inner
                        .trim_start_matches(['`', '(', '{', '[', '/'])
                        .trim_end_matches('`')
                        .to_owned()
                }),
        );
    }
    lines
}

/// [`started_commands`] of the code file `file`, in the language the
/// reading takes it in (its ending, its `#!` line).
pub(crate) fn started_by_file(file: &std::path::Path) -> Vec<String> {
    started_by_file_in(file, None)
}

/// [`started_by_file`] of a file its runner hands `interpreter` (`prove`'s
/// `t/a.t`, which Perl runs with or without a `#!` line).
pub(crate) fn started_by_file_in(file: &std::path::Path, interpreter: Option<&str>) -> Vec<String> {
    let Some(text) = crate::binding::peek::small_text(file) else {
        return Vec::new();
    };
    let Some(language) = super::super::language::language_of(file, &text, interpreter)
        .filter(|language| *language != "awk")
    else {
        return Vec::new();
    };
    // One check reads the same code for what it starts several times (the
    // programs it finds, the project it reaches, what it names): read once
    // per text.
    thread_local! {
        static READ: std::cell::RefCell<std::collections::HashMap<(String, String), Vec<String>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    // `const {spawnSync: s} = require("child_process")`, `run =
    // cp.execFileSync`: the calls read by the names they stand for (round
    // 69: a Node git hook's renamed calls started `make` unread).
    let text = match language {
        "node" => node_aliases_read(&text),
        _ => text,
    };
    let key = (language.to_owned(), text);
    if let Some(lines) = READ.with(|read| read.borrow().get(&key).cloned()) {
        return lines;
    }
    let lines = started_commands(language, &key.1);
    READ.with(|read| {
        let mut read = read.borrow_mut();
        if read.len() >= 64 {
            read.clear();
        }
        read.insert(key, lines.clone());
    });
    lines
}

/// Node `text` with each call of a name bound to one of `child_process`'s
/// functions (`{spawnSync: s}`, `import {spawnSync as s}`, `run =
/// cp.execFileSync`, `s = require("child_process").spawnSync`) written as
/// a call of that function.
fn node_aliases_read(text: &str) -> String {
    static RENAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(exec|execSync|execFile|execFileSync|spawn|spawnSync|fork)\s*(?::|\s+as\s)\s*([A-Za-z_$][\w$]*)")
            .expect("valid regex")
    });
    static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\b([A-Za-z_$][\w$]*)\s*=\s*(?:[A-Za-z_$][\w$]*|require\(\s*["'](?:node:)?child_process["']\s*\))\.(exec|execSync|execFile|execFileSync|spawn|spawnSync|fork)\b"#)
            .expect("valid regex")
    });
    let mut aliases: Vec<(String, String)> = Vec::new();
    for found in RENAMED.captures_iter(text) {
        aliases.push((found[2].to_owned(), found[1].to_owned()));
    }
    for found in ASSIGNED.captures_iter(text) {
        aliases.push((found[1].to_owned(), found[2].to_owned()));
    }
    let mut read = text.to_owned();
    for (alias, function) in aliases.iter().take(16) {
        if alias == function {
            continue;
        }
        let Ok(call) = Regex::new(&format!(r"(^|[^\w$.]){}\s*\(", regex::escape(alias))) else {
            continue;
        };
        read = call
            .replace_all(&read, format!("${{1}}require('child_process').{function}("))
            .into_owned();
    }
    read
}

/// [`started_commands`] of the inline code `program` (as [`super::base_name`]
/// gives it) is given among `args` (`python3 -c "…run(['make'])"`).
pub(crate) fn inline_started(program: &str, args: &[String]) -> Vec<String> {
    let language = match program {
        "python" | "python3" => "python3",
        "node" | "nodejs" | "bun" | "deno" => "node",
        other => other,
    };
    code_of(program, args).map_or_else(Vec::new, |code| started_commands(language, code))
}

/// Why `code` of `program`, which starts programs, gives them a variable
/// steering what they run in a way no reading follows: its value built
/// when it runs (`"common" + ".mk"`, `str(Path(…))`), or its name given
/// another way (`k = "BASH_ENV"`; round 56: c06, c26, c27). Reading one
/// (`os.environ.get("NODE_PATH")`) is not giving it.
pub(crate) fn steering_unread(program: &str, code: &str) -> Option<String> {
    super::given_env::given_variables(program, code).unread
}

/// What code computes, as its shell lines show it.
const COMPUTED: &str = "\"$(:)\"";

/// The folder options a command takes its repository or definitions from.
const FOLDER_OPTIONS: [&str; 3] = ["-C", "--git-dir", "--work-tree"];

/// `lines` (what `code` of `program` starts) with each folder option's
/// computed value written `"$PWD"` (a `--git-dir` naming its `.git`,
/// `"$PWD/.git"`) when every such value the code writes (`"-C",
/// data["cwd"]`) names the folder the hook runs in or its own: the rest
/// of the reading then takes it as that folder.
pub(crate) fn project_folders(program: &str, code: &str, lines: &mut [String]) {
    // Each such option the code writes, followed by its value (`["git",
    // "-C"] + [d]` gives none to judge: not the project's).
    // Or joined (`"--git-dir=" + os.path.join(repo, ".git")`: U57-2).
    static GIVEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"['"](-C|--git-dir|--work-tree)(=)?['"]"#).expect("valid regex")
    });
    static COMMA: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*,\s*").expect("valid regex"));
    static PLUS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*\+\s*").expect("valid regex"));
    let place = |value: &str| {
        is_string(value, program) || super::moved_code::is_project_place(value, program, code)
    };
    // What each option names: the folder (`"$PWD"`), or its `.git`
    // (`"--git-dir", os.path.join(repo, ".git")`: round 56, U56-1).
    let mut named: Vec<(&str, &str)> = Vec::new();
    for found in GIVEN.captures_iter(code) {
        let option = found.get(1).map_or("", |m| m.as_str());
        let joined = found.get(2).is_some();
        let whole = found.get(0).map_or(0, |m| m.end());
        let rest = &code[whole..];
        let separator = match joined {
            true if option != "-C" => PLUS.find(rest),
            true => None,
            false => COMMA.find(rest),
        };
        let Some(comma) = separator else {
            return;
        };
        let value = super::moved_code::value_at(&rest[comma.end()..]);
        // A `--git-dir` is the project's only as its `.git` (not a folder
        // named through it: `path.join(input.cwd, ".git", "..", "gd")`,
        // round 58, zj02).
        let target = match git_folder_of(value) {
            Some(folder) if option == "--git-dir" && place(folder) => "\"$PWD/.git\"",
            _ if option != "--git-dir" && place(value) => "\"$PWD\"",
            _ => return,
        };
        if named.iter().any(|(o, t)| *o == option && *t != target) {
            return;
        }
        named.push((option, target));
    }
    for line in lines {
        for (option, target) in &named {
            for between in [" ", "="] {
                *line = line.replace(
                    &format!("{option}{between}{COMPUTED}"),
                    &format!("{option}{between}{target}"),
                );
            }
        }
    }
}

/// The folder whose `.git` expression `value` names (`os.path.join(repo,
/// ".git")`, `path.join(repo, ".git")`, `repo + "/.git"`, `Path(repo) /
/// ".git"`).
fn git_folder_of(value: &str) -> Option<&str> {
    static JOINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:(?:os\.)?path\.join\(\s*(?P<a>[^,]+?)\s*,\s*['"]\.git['"]\s*\)|(?P<b>[^+]+?)\s*\+\s*['"]/\.git['"]|Path\((?P<c>[^)]+)\)\s*/\s*['"]\.git['"])$"#)
            .expect("valid regex")
    });
    // `str(Path(repo) / ".git")`, `os.fspath(…)`: the path it holds.
    let value = value.trim();
    let value = ["str(", "os.fspath("]
        .iter()
        .find_map(|wrapper| value.strip_prefix(wrapper)?.strip_suffix(')'))
        .unwrap_or(value);
    let found = JOINED.captures(value.trim())?;
    ["a", "b", "c"]
        .into_iter()
        .find_map(|name| found.name(name))
        .map(|m| m.as_str().trim())
}

/// Why a command `started` (as [`started_commands`] gives them, after
/// [`project_folders`]) runs git in a repository named when it runs:
/// `-C`, `--git-dir` or `--work-tree` given a value the code computes, or
/// `-c`; as the hook's own shell text's `git -C "$d"` is refused (red team
/// round 50, k25; round 55: `subprocess.run(["git", "-C",
/// os.path.dirname(fp), "status"])` ran a nested repository's
/// `core.fsmonitor`).
pub(crate) fn git_in_computed_repository(program: &str, started: &[String]) -> Option<String> {
    for line in started {
        for words in crate::binding::shell::simple_commands(line) {
            let words = crate::binding::shell::skip_prefixes(&words);
            let Some((first, args)) = words.split_first() else {
                continue;
            };
            if super::base_name(first) != "git" {
                continue;
            }
            let computed = |word: &str| word.contains("$(:)");
            let given = |option: &str, at: usize, word: &str| match word.strip_prefix(option) {
                Some("") => args.get(at + 1).is_some_and(|next| computed(next)),
                Some(joined) => computed(joined),
                None => false,
            };
            // Or a computed word before its subcommand, which may be any
            // option (`git -C "$PWD" "$(:)" "$(:)" status`: round 56, g17).
            let before_subcommand = args
                .iter()
                .take_while(|word| word.starts_with('-') || computed(word) || word.contains("$PWD"))
                .any(|word| computed(word));
            let named_when_run = before_subcommand
                || args.iter().enumerate().any(|(at, word)| {
                    FOLDER_OPTIONS
                        .iter()
                        .chain(["-c"].iter())
                        .any(|option| given(option, at, word))
                });
            if named_when_run {
                return Some(format!(
                    "its {program} code runs git in a repository named when it runs (`{line}`), \
                     whose settings (`core.fsmonitor`, aliases) no reading binds; run git in the \
                     project folder with the path as an argument (`git diff -- PATH`)"
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{project_folders, started_commands};

    /// `lines` of `code` after [`project_folders`].
    fn read(program: &str, code: &str) -> Vec<String> {
        let mut lines = started_commands(program, code);
        project_folders(program, code, &mut lines);
        lines
    }

    #[test]
    fn git_folders_joined_to_their_option_are_read_as_the_projects() {
        let node = "const cp = require('child_process');\n\
                    const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n\
                    cp.execFileSync('git', ['--git-dir=' + path.join(input.cwd, '.git'), \
                    '--work-tree=' + input.cwd, 'status']);\n";
        assert_eq!(
            read("node", node),
            ["git --git-dir=\"$PWD/.git\" --work-tree=\"$PWD\" status"]
        );
        let elsewhere = node.replace("input.cwd, '.git'", "path.dirname(fp), '.git'");
        assert_eq!(
            read("node", &elsewhere),
            ["git --git-dir=\"$(:)\" --work-tree=\"$(:)\" status"]
        );
        // A template putting a value in is computed, not its text.
        let template = "const cp = require('child_process');\n\
                        cp.execFileSync('git', [`--git-dir=${d}/.git`, 'status']);\n";
        assert_eq!(read("node", template), ["git \"$(:)\" status"]);
    }
}
