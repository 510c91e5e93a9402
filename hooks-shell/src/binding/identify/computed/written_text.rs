//! Text a command is given, read for the files [`super::written`]
//! compares (round 51): a word holding a blank (`sed "1e sh F"`, `vim -c
//! "!sh F"`, `sqlite3 db ".shell sh F"`), text a pipe feeds it (`echo "exec
//! sh F" | tclsh`, `printf "!sh F" | ed`), a here-document or here-string
//! it reads. A program that is no reader may run a file the text wrote
//! that such text names, or write one it names (`sqlite3 … "select
//! writefile('/tmp/y.sh', …)"`, `… | tclsh`, `python3 - <<E`: R50-10).
//! Also the other spellings of what a command runs or writes: the words
//! `xargs` adds, `--option=VALUE`, `${NAME:-VALUE}`, `/dev/fd/N` (R50-9).

use super::Reader;
use super::base_name;
use super::cut::{Command, Input, redirections};
use super::words::Words;
use super::written_names::{leaves_content, mentions, only_shows, script_at};

/// A word computed when it runs: what `xargs` adds to its command.
const ADDED: &str = "$RANDOM";

/// Programs that name the file they write first, or write as their
/// command text says: editors, archivers (`tar cf /tmp/x.tar "$(…)"`).
pub(super) const TARGET_FIRST: &[&str] = &[
    "vi", "vim", "nvim", "ex", "ed", "emacs", "tar", "bsdtar", "zip", "7z", "cpio", "ar", "pax",
];

/// Archivers: one fed what a command with a computed word prints (`tar cf
/// - "$(…)" | tar xf -`) writes code no reading binds.
pub(super) const ARCHIVERS: &[&str] = &["tar", "bsdtar", "zip", "7z", "cpio", "ar", "pax"];

impl Reader {
    /// Whether `word` (as written) names a file the text writes: by its
    /// path, or by a computed name's written end.
    pub(super) fn names_written(&self, word: &str, reading: &Words) -> bool {
        self.names_written_apart(word, reading, None)
    }

    /// [`Reader::names_written`], a file written only through `text`
    /// itself aside (`sed -i "s/a b/c/" F` names `s/a` it may write, read
    /// again: round 51).
    fn names_written_apart(&self, word: &str, reading: &Words, text: Option<&str>) -> bool {
        let word = self.compared(word, reading);
        let own = |target: &String| {
            text.is_some_and(|text| {
                self.text_written
                    .get(target)
                    .is_some_and(|texts| texts.iter().all(|t| t == text))
            })
        };
        let own_end = |end: &String| own(&format!("{}{end}", super::written::TEXT_END));
        self.written
            .iter()
            .any(|target| mentions(&word, target) && !own(target))
            || self.written_ends.iter().any(|end| {
                !end.is_empty()
                    && word.contains('/')
                    && word.ends_with(end.as_str())
                    && !own_end(end)
            })
    }

    /// Whether inline `code` starts a program beside naming a file the
    /// text writes (`python3 -c "…run(['sh', '/tmp/y.sh'])"`, awk's
    /// `system("sh /tmp/y.sh")`: round 50).
    pub(super) fn code_runs_written(&self, code: &str) -> bool {
        const STARTS: [&str; 9] = [
            "system",
            "exec",
            "spawn",
            "popen",
            "subprocess",
            "run(",
            "fork",
            "`",
            "| \"",
        ];
        STARTS.iter().any(|call| code.contains(call))
            && self
                .written
                .iter()
                .filter(|target| !target.contains(char::is_whitespace))
                .any(|target| {
                    target.len() > 2 && target.contains('/') && code.contains(target.as_str())
                })
    }

    /// What the calls of the text's functions give a positional parameter
    /// `word` (`"$1"`, `"$@"`, or a name set to one: `local d=$1`) stands
    /// for; `None` when it is none. Before the calls are known (a first
    /// reading) none: the second reading has them.
    pub(super) fn arguments_of(&self, word: &str, reading: &Words) -> Option<Vec<String>> {
        let shown = reading.shown(word);
        let value = self.taint.static_value(word);
        let word = value.as_deref().unwrap_or(&shown).trim_matches('"');
        let inner = word
            .strip_prefix('$')
            .map(|w| w.trim_start_matches('{').trim_end_matches('}'))
            .filter(|inner| inner.len() == 1)?;
        let picked: Vec<String> = match inner {
            "@" | "*" => self.calls.iter().flatten().cloned().collect(),
            digit => {
                let position = digit.parse::<usize>().ok().filter(|p| *p > 0)?;
                (self.calls.iter())
                    .filter_map(|call| call.get(position - 1).cloned())
                    .collect()
            }
        };
        Some(picked.into_iter().filter(|a| !a.starts_with('$')).collect())
    }

    /// Records as written what the calls give a positional parameter
    /// `target` ([`Reader::arguments_of`]); whether it is one.
    pub(super) fn notes_arguments(
        &mut self,
        target: &str,
        text: &Option<String>,
        reading: &Words,
    ) -> bool {
        let Some(arguments) = self.arguments_of(target, reading) else {
            return false;
        };
        for argument in arguments {
            self.note_written_argument(&argument, text.clone(), reading);
        }
        true
    }

    /// Records that the file `target` (as compared) is written through
    /// `text`, or, with none, by a command's words (then not only
    /// through text).
    pub(super) fn note_text_written(&mut self, target: &str, text: Option<String>) {
        let written_otherwise =
            self.written.contains(target) && !self.text_written.contains_key(target);
        match text {
            Some(text) if !written_otherwise => {
                self.text_written
                    .entry(target.to_owned())
                    .or_default()
                    .insert(text);
            }
            Some(_) => {}
            None => {
                self.text_written.remove(target);
            }
        }
    }

    /// The text the command (`raw` its words with redirections, `words`
    /// read through wrappers) is given: why it runs a file the text wrote
    /// that the text names, and the files the text names, which it may
    /// write. Records what it prints for a command a pipe feeds.
    pub(super) fn given_text(
        &mut self,
        raw: &[String],
        words: &[String],
        command: &Command,
        reading: &Words,
    ) -> (Option<String>, Vec<(String, String)>) {
        let program = words.first().map(|w| base_name(w)).unwrap_or_default();
        let args = &words[1.min(words.len())..];
        let stdin = |word: &String| matches!(word.as_str(), "-" | "/dev/stdin" | "/proc/self/fd/0");
        let interpreter = super::super::INTERPRETERS.contains(&program.as_str());
        let shell = super::super::SHELLS.contains(&program.as_str())
            || words
                .first()
                .is_some_and(|w| matches!(w.as_str(), "." | "source"));
        let script = interpreter.then(|| script_at(args)).flatten();
        // An interpreter given a script reads its input as data.
        let input_is_data = script.is_some_and(|at| !stdin(&args[at]));
        let reader = only_shows(&program) || leaves_content(&program);
        let inline = super::inline_code::code_of(&program, args);
        // Its words holding a blank, up to an interpreter's script (its
        // data after it); a commit's message names nothing it writes.
        let end = script.map_or(args.len(), |at| at + 1);
        let own: Vec<String> = args[..end]
            .iter()
            .enumerate()
            .filter(|(at, word)| {
                word.contains(char::is_whitespace) && !is_message(&program, args, *at)
            })
            .map(|(_, word)| word.clone())
            .collect();
        let (_, inputs) = redirections(raw);
        let mut input: Vec<String> = inputs
            .into_iter()
            .filter_map(|input| match input {
                Input::Text(text) => Some(text),
                Input::File(_) => None,
            })
            .collect();
        // A shell's here-document is read as the text's own lines.
        input.extend(command.here_document.clone().filter(|_| !shell));
        let fed = std::mem::take(&mut self.fed_text);
        if command.piped {
            input.extend(fed);
        }
        // What it prints: `echo`'s and `printf`'s words, what a program
        // that passes on its input (`cat <<E`) is given.
        self.fed_text = match program.as_str() {
            "echo" | "printf" => vec![args.join(" ")],
            _ if only_shows(&program) => own.iter().chain(&input).cloned().collect(),
            _ => Vec::new(),
        };
        if reader {
            return (None, Vec::new());
        }
        let names = |text: &String| {
            named_paths(text)
                .iter()
                .any(|piece| self.names_written_apart(piece, reading, Some(text)))
        };
        // A shell's `-c` text and inline code are read where they run; a
        // function's or a runner's words are a command (`try sh -c '…'`).
        let runs_words = words.first().is_some_and(|first| {
            self.functions.contains(first) || self.aliases.contains_key(first)
        }) || super::RUNNERS.contains(&program.as_str());
        let code_read = shell || inline.is_some() || runs_words;
        let why = match own.iter().any(names) && !code_read {
            true => Some(format!(
                "it hands a file it writes when it runs to `{program}` in its text"
            )),
            false => None,
        };
        // Input read as another language's code: a call starting a program
        // beside the name, as inline code is read.
        // A shell's input is its code, read as the text's own.
        let runs_input = !input_is_data
            && !shell
            && match interpreter {
                true => input.iter().any(|code| self.code_runs_written(code)),
                false => input.iter().any(names),
            };
        let why = why.or_else(|| {
            runs_input
                .then(|| format!("`{program}` is given text naming a file it writes when it runs"))
        });
        // Only text that says it writes names what it writes (`w F`,
        // `writefile('F', …)`, `file copy … F`, `> F`); a command in text
        // (`git -c alias.x='!sh F'`) runs what it names.
        let pieces = |text: &String| match says_it_writes(text) {
            true => named_paths(text)
                .into_iter()
                .map(|piece| (piece, text.clone()))
                .collect::<Vec<_>>(),
            false => Vec::new(),
        };
        let mut targets: Vec<(String, String)> = match code_read {
            true => Vec::new(),
            false => own.iter().flat_map(pieces).collect(),
        };
        // An interpreter's code given on its input is read as inline code
        // is (its text a target holding what it writes: `python3 - <<E`);
        // another program's text by the names in it (`… | tclsh`).
        match (shell, interpreter) {
            (true, _) => {}
            (false, true) if !input_is_data => {
                targets.extend(input.iter().map(|text| (text.clone(), text.clone())));
            }
            (false, false) if !input_is_data => targets.extend(input.iter().flat_map(pieces)),
            _ => {}
        }
        (why, targets)
    }
}

/// The files another program's script `text` (a makefile, `awk -f`, `sed
/// -f`, tcl, sqlite3's) may write: the paths it names, when it says it
/// writes (red team round 51, x50–x53).
pub(crate) fn script_writes(text: &str) -> super::Written {
    let mut written = super::Written::default();
    if says_it_writes(text) {
        written.paths = named_paths(text)
            .into_iter()
            .filter(|path| path.contains('/'))
            .collect();
    }
    written
}

/// Whether `text` (given to a program that is no reader) says it writes
/// a file: an editor's `w`, a call or command that writes, copies, moves
/// or saves, a redirection.
fn says_it_writes(text: &str) -> bool {
    static WRITES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)(?:^|[\s;|:!\\n])w[qa]?!?\s|\b(?:write\w*|copy\w*|cp|mv|move|rename|save\w*|dump\w*|tee|output|put\w*|link|symlink|install|open|export|backup|into)\b|>",
        )
        .expect("valid regex")
    });
    WRITES.is_match(text)
}

/// Whether `args[at]` is a `git commit`'s or `git tag`'s message (`-m
/// TEXT`, `-qm TEXT`).
fn is_message(program: &str, args: &[String], at: usize) -> bool {
    program == "git"
        && at > 0
        && (args[at - 1] == "--message"
            || args[at - 1].starts_with('-')
                && !args[at - 1].starts_with("--")
                && args[at - 1].ends_with('m'))
}

/// The pieces of `text` that may name a file: a path (`/tmp/y.sh`,
/// `tools/g.sh`, a folder written out whole: `/tmp/d/`) or a file's name
/// with an ending (`y.sh`); `\n` and `\t` written out are blanks.
pub(super) fn named_paths(text: &str) -> Vec<String> {
    text.replace("\\n", " ")
        .replace("\\t", " ")
        .split(|c: char| c.is_whitespace() || "'\"`()[],;<>|=+!".contains(c))
        .map(|piece| piece.trim_matches(['{', '}']).trim_end_matches(['.', ':']))
        .filter(|piece| match piece.rsplit_once('/') {
            // A folder: only one written from the root or home.
            Some((_, "")) => piece.len() > 1 && piece.starts_with(['/', '~']),
            Some(_) => true,
            None => piece.rsplit_once('.').is_some_and(|(stem, ending)| {
                !stem.is_empty()
                    && ending.len() <= 8
                    && ending.chars().all(|c| c.is_ascii_alphanumeric())
                    && ending.chars().any(|c| c.is_ascii_alphabetic())
            }),
        })
        .map(str::to_owned)
        .collect()
}

/// The command `xargs` runs in `words` (an `xargs` command), the words it
/// adds computed when it runs (`xargs -I{} cp {} F`: the input's names
/// where `{}` stands; without `-I`, after its words).
pub(super) fn xargs_command(words: &[String]) -> Option<Vec<String>> {
    let (program, args) = words.split_first()?;
    if base_name(program) != "xargs" {
        return None;
    }
    let from = super::interpreters::xargs_program(args)?;
    let replaced = args[..from]
        .iter()
        .enumerate()
        .find_map(|(at, word)| match word.as_str() {
            "-I" => args.get(at + 1).cloned(),
            "-i" | "--replace" => Some("{}".to_owned()),
            _ => word
                .strip_prefix("--replace=")
                .or_else(|| word.strip_prefix("-I"))
                .or_else(|| word.strip_prefix("-i"))
                .map(str::to_owned),
        });
    let mut command: Vec<String> = match &replaced {
        Some(replaced) if !replaced.is_empty() => args[from..]
            .iter()
            .map(|word| word.replace(replaced.as_str(), ADDED))
            .collect(),
        _ => args[from..].to_vec(),
    };
    if replaced.is_none() {
        command.push(ADDED.to_owned());
    }
    Some(command)
}

/// Whether `args[at]` is the folder an archiver (`name`) works in (`tar xf
/// - -C "$D"`): where it writes, not what it writes from.
pub(super) fn names_folder(name: &str, args: &[String], at: usize) -> bool {
    ARCHIVERS.contains(&name)
        && (args[at].starts_with("--directory=")
            || at > 0 && matches!(args[at - 1].as_str(), "-C" | "--directory"))
}

/// `word`'s value when it is an option's (`--target-directory=/tmp/d`).
pub(super) fn option_value(word: &str) -> &str {
    match word.starts_with('-') {
        true => word.split_once('=').map_or(word, |(_, value)| value),
        false => word,
    }
}

/// The file `word` (`/dev/fd/N`, `/proc/self/fd/N`, `/dev/stdin`) names
/// through a descriptor `raw` opens on it (`sh /dev/fd/3 3< F`: R50-9).
pub(super) fn descriptor_file<'a>(raw: &'a [String], word: &str) -> Option<&'a String> {
    let descriptor = match word {
        "/dev/stdin" => "0",
        _ => word
            .strip_prefix("/dev/fd/")
            .or_else(|| word.strip_prefix("/proc/self/fd/"))?,
    };
    raw.iter().enumerate().find_map(|(at, redirection)| {
        let rest = redirection
            .strip_prefix(descriptor)
            .unwrap_or(match descriptor {
                "0" => redirection,
                _ => "",
            });
        let file = rest.strip_prefix("<>").or_else(|| rest.strip_prefix('<'))?;
        match file.is_empty() {
            true => raw.get(at + 1),
            false if !file.starts_with(['<', '&', '(']) => Some(redirection),
            false => None,
        }
    })
}

/// `word` with each `${NAME:-VALUE}` (`-`, `:=`, `=`) read as the value the
/// text gave NAME, or as VALUE when it gave none (`sh ${TMPDIR:-/tmp}/y.sh`:
/// R50-9); `given` the text's value of a name, `set` whether the text sets
/// it otherwise.
pub(super) fn defaulted(
    word: &str,
    given: &dyn Fn(&str) -> Option<String>,
    set: &dyn Fn(&str) -> bool,
) -> String {
    let mut read = String::new();
    let mut rest = word;
    while let Some(at) = rest.find("${") {
        read.push_str(&rest[..at]);
        let inner = &rest[at + 2..];
        let name_end = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let (name, after) = inner.split_at(name_end);
        let default = [":-", ":=", "-", "="]
            .iter()
            .find_map(|op| after.strip_prefix(op))
            .and_then(|after| after.split_once('}'))
            .filter(|(value, _)| !value.contains(['$', '`', '{', '\u{e000}']));
        let value = default.and_then(|(value, _)| match given(name) {
            Some(given) => Some(given),
            None if set(name) => None,
            None => Some(value.to_owned()),
        });
        match (value, default) {
            (Some(value), Some((_, after))) if !name.is_empty() => {
                read.push_str(&value);
                rest = after;
            }
            _ => {
                read.push_str("${");
                rest = inner;
            }
        }
    }
    read.push_str(rest);
    read
}
