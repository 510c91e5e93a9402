//! What the commands a shell text runs hold for [`super::computed_name`]:
//! the functions it defines, the code `trap` and `alias` keep, `find`
//! running an interpreter, the files `exec` opens and the code a shell
//! reads from its input.

use super::base_name;
use super::cut::{Command, Input};
use super::interpreters::from_input;
use super::words::{Taint, Words};

/// `a[0]=x` as `a=x`: an element is its array.
pub(super) fn array_name(word: &str) -> String {
    match (word.find('['), word.find(']')) {
        (Some(open), Some(close)) if open < close && !word[..open].contains('=') => {
            format!("{}{}", &word[..open], &word[close + 1..])
        }
        _ => word.to_owned(),
    }
}

/// The functions `text` defines (`name() {`, `function name`).
pub(super) fn function_names(text: &str) -> Vec<String> {
    static DEFINED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?:^|[\s;&|(){}])(?:function\s+([^\s;&|(){}<>"'$`]+)|([^\s;&|(){}<>"'$`=]+)\s*\(\s*\))"#)
            .expect("valid regex")
    });
    DEFINED
        .captures_iter(text)
        .filter_map(|found| found.get(1).or(found.get(2)))
        .map(|name| name.as_str().to_owned())
        .collect()
}

/// Programs that run the command after their own words (`flock LOCK sh
/// x`, `sudo sh x`): the interpreter among their words is read.
pub(super) const RUNNERS: [&str; 29] = [
    "flock",
    "cross-env",
    "env-cmd",
    "dotenv",
    "with-env",
    "sg",
    "fakeroot",
    "dbus-run-session",
    "sudo",
    "doas",
    "chronic",
    "caffeinate",
    "xvfb-run",
    "unbuffer",
    "chrt",
    "taskset",
    "prlimit",
    "systemd-run",
    "firejail",
    "unshare",
    "setpriv",
    "runuser",
    "watch",
    "strace",
    "ltrace",
    "chroot",
    "valgrind",
    "su",
    "script",
];

/// Variables the environment gives a hook, never text it computes.
pub(super) const ENVIRONMENT: [&str; 8] = [
    "HOME",
    "PWD",
    "CLAUDE_PROJECT_DIR",
    "CURSOR_PROJECT_DIR",
    "CODEX_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
    "HERMES_HOME",
    "TMPDIR",
];

/// The code `trap`, `alias` and `mapfile` keep: `trap [--] CODE
/// SIGNAL…`, `alias NAME=CODE…`, `mapfile -C CODE` (R42-5).
pub(super) fn code_arguments<'a>(program: &str, args: &'a [String]) -> Vec<&'a str> {
    match program {
        // `-C CODE`, `-CCODE`, `-tC CODE` (R43-4).
        "mapfile" | "readarray" => args
            .iter()
            .enumerate()
            .filter_map(|(at, word)| {
                let value = option_values(word, 'C', args.get(at + 1))?;
                Some(match value.from_next {
                    true => args[at + 1].as_str(),
                    false => &word[word.len() - value.text.len()..],
                })
            })
            .collect(),
        "trap" => args
            .iter()
            .find(|a| !matches!(a.as_str(), "--" | "-p" | "-l"))
            .map(|code| vec![code.as_str()])
            .unwrap_or_default(),
        _ => args
            .iter()
            .filter_map(|a| a.split_once('=').map(|(_, code)| code))
            .collect(),
    }
}

/// `find … -exec sh {} \;`: an interpreter run on the files it finds,
/// whose names no text shows (R40-3).
pub(super) fn finds_and_runs(args: &[String]) -> Option<String> {
    let mut args = args.iter();
    while let Some(arg) = args
        .by_ref()
        .find(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
    {
        let runs: Vec<&String> = args
            .by_ref()
            .take_while(|a| !matches!(a.as_str(), ";" | "+"))
            .collect();
        let program = runs.first().map(|p| base_name(p)).unwrap_or_default();
        // `find tools -name l -exec {} \;`: each file it finds run as a
        // program (red team round 60).
        if runs.first().is_some_and(|first| first.contains("{}")) {
            return Some(format!("find {arg} runs each file it finds as a program"));
        }
        let interprets = super::super::INTERPRETERS.contains(&program.as_str())
            || matches!(program.as_str(), "." | "source" | "eval");
        if interprets && runs.iter().any(|w| w.contains("{}")) {
            return Some(format!(
                "find {arg} runs an interpreter on the files it finds"
            ));
        }
        // `find . -name .git -execdir git status \;`: git in each folder it
        // finds, their settings no reading names (red team round 51, t24).
        let in_found = arg.ends_with("dir") || runs.iter().any(|w| w.contains("{}"));
        if program == "git" && in_found {
            return Some(format!("find {arg} runs git in the folders it finds"));
        }
    }
    None
}

/// Whether `.`/`source` of `word` reads its input (`/dev/stdin`,
/// `/dev/fd/N`, `/proc/self/fd/N`).
pub(super) fn reads_input(word: &str) -> bool {
    word == "-"
        || word == "/dev/stdin"
        || word.starts_with("/dev/fd/")
        || word.starts_with("/proc/self/fd/")
}

/// Why a file a command opens is named by computed text (`exec 3< "$(…)"`).
pub(super) fn opened(
    inputs: &[Input],
    is_computed: &dyn Fn(&str) -> bool,
    reading: &Words,
) -> Option<String> {
    inputs.iter().find_map(|input| match input {
        Input::File(file) if is_computed(file) => Some(format!(
            "it opens a file named by text computed when it runs (`{}`)",
            reading.shown(file)
        )),
        _ => None,
    })
}

/// Why the code a shell or interpreter reads from its input is computed:
/// a redirected file or here-string computed when it runs (R40-1), or a
/// pipe from anything but `cat` of files or `echo` of plain words.
pub(super) fn read_code(
    inputs: &[Input],
    piped: bool,
    previous: Option<&Command>,
    is_computed: &dyn Fn(&str) -> bool,
    reading: &Words,
    taint: &Taint,
) -> Option<String> {
    for input in inputs {
        match input {
            Input::File(file) if is_computed(file) => {
                return Some(format!(
                    "it runs a file named by text computed when it runs (`{}`)",
                    reading.shown(file)
                ));
            }
            Input::Text(text)
                if reading.is_computed_text(text)
                    || reading.holds_computed(text, taint)
                    || text.contains("$(")
                    || text.contains('`') =>
            {
                return Some(format!(
                    "it runs text computed when it runs (`<<< {}`)",
                    reading.shown(text)
                ));
            }
            _ => {}
        }
    }
    if inputs.is_empty() {
        return from_input(piped, previous, is_computed);
    }
    None
}

/// `exec`'s `-a NAME` (the name it gives the program, its `$0`) and the
/// words of the command it runs, after its options (`-c`, `-l`, bundled
/// `-ca NAME`, attached `-aNAME`: R43-3).
pub(super) fn exec_options(args: &[String]) -> (Option<String>, &[String]) {
    let mut named = None;
    let mut at = 0;
    while let Some(word) = args.get(at) {
        if word == "--" {
            return (named, &args[at + 1..]);
        }
        if !(word.starts_with('-') && word.len() > 1) {
            break;
        }
        at += 1;
        if let Some(value) = option_values(word, 'a', args.get(at)) {
            if value.from_next {
                at += 1;
            }
            named = Some(value.text);
        }
    }
    (named, &args[at.min(args.len())..])
}

/// A value a short option takes: attached (`-aNAME`) or the next word.
pub(super) struct OptionValue {
    pub(super) text: String,
    pub(super) from_next: bool,
}

/// The value of the short option `letter` in the option word `word`
/// (`-a`, `-ca`, `-aNAME`, `-tC`): what follows the letter in the word, or
/// `next` when nothing does.
pub(super) fn option_values(
    word: &str,
    letter: char,
    next: Option<&String>,
) -> Option<OptionValue> {
    let letters = word.strip_prefix('-').filter(|l| !l.starts_with('-'))?;
    let at = letters.find(letter)?;
    let attached = &letters[at + letter.len_utf8()..];
    match attached.is_empty() {
        true => next.map(|n| OptionValue {
            text: n.clone(),
            from_next: true,
        }),
        false => Some(OptionValue {
            text: attached.to_owned(),
            from_next: false,
        }),
    }
}
/// Whether `word` is a short option word holding `c` (`-c`, `-qc`).
pub(super) fn short_c(word: &str) -> bool {
    word.starts_with('-') && !word.starts_with("--") && word.contains('c')
}

/// Whether `word` is all the positional parameters (`"$@"`, `$*`).
pub(super) fn is_all_arguments(word: &str) -> bool {
    matches!(word, "$@" | "${@}" | "$*" | "${*}")
}
