//! The programs Perl starts through `open` and the `IPC::` modules (red
//! team round 49, H7). A pipe `open` is a program start: its command is
//! read as `system`'s; a mode built when it runs (`open(F, $spec)`, two
//! arguments) may start any. What a script writes to a shell's or an
//! interpreter's input (`open(F, "| sh")`, `open3(…, 'sh')`) is code no
//! reading sees. `IPC::Open2` / `Open3` / `Cmd` / `Run` / `Run3` /
//! `System::Simple` and `IO::Pipe` start the commands they are given,
//! which must be written out.

use std::sync::LazyLock;

use regex::Regex;

use super::code_words::{is_string, top_level, words_of};
use super::perl_reach::statement;

/// Why an `open` (or `IO::File->new`) of Perl `code` starts a program no
/// reading names, or feeds a shell.
pub(super) fn opens(code: &str) -> Option<String> {
    static OPEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\w$>:{@%&])(open|IO::File\s*->\s*new)\b\s*").expect("valid regex")
    });
    static HANDLE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:(?:my|our|local|state)\s+)?[\\*$]*[\w:]+(?:\s*(?:->\s*)?[\[{].*)?$")
            .expect("valid regex")
    });
    for found in OPEN.captures_iter(code) {
        let (Some(whole), Some(name)) = (found.get(0), found.get(1)) else {
            continue;
        };
        let inside = arguments_text(&code[whole.end()..]);
        let args = top_level(&inside, ',');
        // A handle first (`my $f`, `FH`, `local *FH`, `$self->{fh}`); not
        // prose (`die "cannot open file $f, $!"`).
        if name.as_str() == "open" && !args.first().is_some_and(|h| HANDLE.is_match(h)) {
            continue;
        }
        let shown = || format!("`{}({inside})`", name.as_str());
        let why = match (name.as_str() == "open", args.as_slice()) {
            (true, [_, spec]) | (false, [spec]) => two_arguments(spec),
            (true, [_, mode, rest @ ..]) => three_arguments(mode, rest, code),
            (false, [program, mode, ..]) => three_arguments(mode, &[*program], code),
            _ => None,
        };
        if let Some(why) = why {
            return Some(format!("{why} ({})", shown()));
        }
    }
    None
}

/// A call's arguments as written: inside its parentheses, else up to the
/// end of its statement.
fn arguments_text(rest: &str) -> String {
    match rest.strip_prefix('(') {
        Some(inside) => {
            let end =
                super::brackets::scan(inside, |_, _, depth| depth < 0).unwrap_or(inside.len());
            inside[..end].to_owned()
        }
        None => statement(rest),
    }
}

/// Two-argument `open`'s `spec`: a written pipe read as a command; a
/// file's mode written out; anything else a mode built when it runs.
fn two_arguments(spec: &str) -> Option<String> {
    let spec = spec.trim();
    if is_string(spec, "perl") {
        let text = spec.get(1..spec.len() - 1).unwrap_or("").trim();
        if let Some(command) = text.strip_prefix('|') {
            return fed(&shell_words(command)).or_else(|| pipe_computed(command));
        }
        return text
            .strip_suffix('|')
            .filter(|command| command.trim() != "-")
            .and_then(pipe_computed);
    }
    // `"<$file"`, `">>$log"`: a file's mode written before its name.
    let body = spec.strip_prefix('"').unwrap_or("").trim_start();
    let file = body.starts_with(['<', '>']) || body.starts_with("+<") || body.starts_with("+>");
    (!file || spec.contains('|')).then(|| "opens with a mode built when it runs".to_owned())
}

/// Three-argument `open`'s `mode` and the command words after it: a pipe
/// reads them as `system`'s.
fn three_arguments(mode: &str, rest: &[&str], code: &str) -> Option<String> {
    if !is_string(mode, "perl") {
        return Some("opens with a mode built when it runs".to_owned());
    }
    if !mode.contains('|') {
        return None;
    }
    let command = rest.join(", ");
    if !super::inline_code::is_literal(&command, "perl", code) {
        return Some("starts a command built when it runs".to_owned());
    }
    let words = literal_words(&command);
    if let [line] = words.as_slice()
        && let Some(why) = pipe_computed(line)
    {
        return Some(why);
    }
    let words = match words.as_slice() {
        [line] => shell_words(line),
        _ => words,
    };
    match mode.trim_matches(['\'', '"', ' ']).starts_with('|') {
        true => fed(&words),
        false => None,
    }
}

/// Why the shell `command` a pipe starts runs a name computed when it runs.
fn pipe_computed(command: &str) -> Option<String> {
    let why = super::computed_name(command)?;
    Some(format!("starts a command that {why}"))
}

/// The texts of the literal words of a call's `argument`.
fn literal_words(argument: &str) -> Vec<String> {
    words_of(argument)
        .into_iter()
        .filter_map(|word| super::shell_strings::literal_text(word, "perl").flatten())
        .collect()
}

/// A shell command's words (its text split at blanks when it does not
/// split as a shell's).
fn shell_words(command: &str) -> Vec<String> {
    shlex::split(command).unwrap_or_else(|| command.split_whitespace().map(str::to_owned).collect())
}

/// Why writing to the program `words` start is code no reading sees: a
/// shell or an interpreter given no script, or told to read its input.
fn fed(words: &[String]) -> Option<String> {
    let (program, rest) = words.split_first()?;
    let name = super::base_name(program);
    let interpreter = super::super::INTERPRETERS.contains(&name.as_str())
        || matches!(name.as_str(), "awk" | "gawk" | "mawk" | "nawk");
    let script = rest.iter().find(|word| !word.starts_with('-'));
    let reads_input = rest.iter().any(|word| matches!(word.as_str(), "-" | "-s"));
    (interpreter && (script.is_none() || reads_input)).then(|| {
        format!(
            "feeds code it writes to {name} on its input, which no reading sees (`{}`)",
            words.join(" ")
        )
    })
}

/// Why a call of an `IPC::` module's (or `IO::Pipe`'s) program starter in
/// Perl `code` starts a command not written out, or feeds a shell.
pub(super) fn ipc_modules(code: &str) -> Option<String> {
    static USES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bIPC::(?:Open2|Open3|Cmd|Run3?|System::Simple)\b|\bIO::Pipe\b")
            .expect("valid regex")
    });
    static CALL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\w$:{])(open2|open3|run3|run_forked|run|start|harness|capture|capturex|systemx|runx|reader|writer)\b\s*")
            .expect("valid regex")
    });
    if !USES.is_match(code) {
        return None;
    }
    for found in CALL.captures_iter(code) {
        let (Some(whole), Some(name)) = (found.get(0), found.get(1)) else {
            continue;
        };
        // `use IPC::Cmd qw(run)` imports, a method (`$h->start`) is another;
        // a statement after `use …;` on its line is read (round 49, pl19).
        let line = &code[code[..name.start()].rfind(['\n', ';']).map_or(0, |n| n + 1)..];
        if line.trim_start().starts_with("use ") {
            continue;
        }
        let method = code[..name.start()].trim_end().ends_with("->");
        let name = name.as_str();
        if method != matches!(name, "reader" | "writer") || code[whole.end()..].starts_with("=>") {
            continue;
        }
        let inside = with_qw_quoted(&arguments_text(&code[whole.end()..]));
        let args = top_level(&inside, ',');
        let command: Vec<&str> = match name {
            "open2" => args.iter().skip(2).copied().collect(),
            "open3" => args.iter().skip(3).copied().collect(),
            _ if args.iter().any(|a| a.starts_with("command")) => args
                .iter()
                .filter_map(|a| a.strip_prefix("command"))
                .filter_map(|a| a.trim_start().strip_prefix("=>"))
                .collect(),
            "run" | "run3" | "start" | "harness" => args.iter().take(1).copied().collect(),
            _ => args.clone(),
        };
        if command.is_empty() {
            continue;
        }
        let text = command.join(", ");
        let feeds = matches!(
            name,
            "open2" | "open3" | "writer" | "run3" | "run" | "start"
        );
        let why = match super::inline_code::is_literal(&text, "perl", code) {
            false => Some(format!(
                "starts a command built when it runs (`{name}({inside})`)"
            )),
            true if feeds => fed(&literal_words(&text)),
            true => None,
        };
        if why.is_some() {
            return why;
        }
    }
    None
}

/// `text` with each `qw(a b)` list written as quoted words (`'a', 'b'`).
fn with_qw_quoted(text: &str) -> String {
    static QW: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bqw\s*(?:\(([^)]*)\)|\[([^\]]*)\]|\{([^}]*)\}|/([^/]*)/)")
            .expect("valid regex")
    });
    QW.replace_all(text, |found: &regex::Captures| {
        let words = (1..=4)
            .find_map(|at| found.get(at))
            .map_or("", |m| m.as_str());
        let quoted: Vec<String> = words.split_whitespace().map(|w| format!("'{w}'")).collect();
        quoted.join(", ")
    })
    .into_owned()
}
