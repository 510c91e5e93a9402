//! What an interpreter's arguments say it runs: a shell's `-c` string,
//! its script (or the file its input comes from) and the modules its
//! options load, code given inline, or its input.

use super::commands::{read_code, reads_input};
use super::cut::Input;
use super::words::Words;
use super::{Command, base_name};

/// The options of `program` (an interpreter) that give its code inline or
/// run a module by name: read elsewhere (`-m` binds the hook tree).
fn inline_options(program: &str) -> &'static [&'static str] {
    match program {
        "python" | "python3" | "pypy" | "pypy3" => &["-c", "-m"],
        "perl" => &["-e", "-E"],
        "ruby" => &["-e"],
        "node" | "nodejs" | "bun" => &["-e", "--eval", "-p", "--print"],
        "php" => &["-r"],
        _ => &[],
    }
}

/// Whether `arg` gives `program` (an interpreter) its code inline or a
/// module: one of [`inline_options`], among other letters too (`perl
/// -ne`, `python3 -Ic`), or `--eval=…`.
fn is_inline(program: &str, arg: &str) -> bool {
    let options = inline_options(program);
    if options.contains(&arg) {
        return true;
    }
    if let Some(long) = arg.strip_prefix("--") {
        return long
            .split_once('=')
            .is_some_and(|(name, _)| options.contains(&format!("--{name}").as_str()));
    }
    let letters: Vec<char> = options
        .iter()
        .filter_map(|option| {
            let mut letters = option.strip_prefix('-')?.chars();
            let letter = letters.next()?;
            letters.next().is_none().then_some(letter)
        })
        .collect();
    arg.strip_prefix('-').is_some_and(|flags| {
        flags.len() > 1
            && flags.chars().all(|c| c.is_ascii_alphanumeric())
            && flags.chars().any(|c| letters.contains(&c))
    })
}

/// Whether `word` names the input itself (`-`, `/dev/stdin`,
/// `/dev/fd/0`): a script there is the code a pipe feeds it.
pub(crate) fn names_input(word: &str) -> bool {
    matches!(word, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// Whether `program` (a shell or an interpreter) given `args` runs the
/// code its input holds: no `-c` string, inline code, module or script
/// but its input (`sh`, `sh -s a`, `bash -`, `python3 -X utf8`).
pub(crate) fn runs_its_input(program: &str, args: &[String]) -> bool {
    matches!(script_argument(program, args), Argument::Input)
}

/// The options of `program` that take a value in the next word: first
/// those whose value is code it loads (`node -r mod`, `ruby -I dir`), then
/// the others.
fn valued_options(program: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match program {
        "python" | "python3" | "pypy" | "pypy3" => (&[], &["-W", "-X", "--check-hash-based-pycs"]),
        "node" | "nodejs" | "bun" | "deno" => (
            &[
                "-r",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
            ],
            &[],
        ),
        "ruby" => (&["-r", "-I"], &[]),
        "perl" => (&["-I", "-M"], &[]),
        // `--rcfile` is read by an interactive shell only.
        _ if super::super::super::SHELLS.contains(&program) => {
            (&[], &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"])
        }
        _ => (&[], &[]),
    }
}

/// What an interpreter's arguments say it runs.
pub(super) enum Argument<'a> {
    /// A shell's `-c` string.
    String(&'a str),
    /// Its script, the file its input comes from, and the modules or
    /// folders of code its options name.
    Named(Vec<&'a str>),
    /// Code given inline, or a module by name.
    Inline,
    /// No script: it runs what its input holds.
    Input,
}

/// What `program`'s arguments `args` name it runs.
pub(super) fn script_argument<'a>(program: &str, args: &'a [String]) -> Argument<'a> {
    let shell = super::super::super::SHELLS.contains(&program);
    let (code_valued, valued) = valued_options(program);
    let mut named = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let arg = arg.as_str();
        match arg {
            // `-c`, `-ec`, `-lc`: the string (R41-2).
            _ if shell && arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c') => {
                return args.next().map_or(Argument::Input, |s| Argument::String(s));
            }
            // `sh -s a b`: its input, the words after are its arguments.
            _ if shell && arg.starts_with('-') && !arg.starts_with("--") && arg.contains('s') => {
                return Argument::Input;
            }
            _ if is_inline(program, arg) => return Argument::Inline,
            // `bash -`, `python3 /dev/stdin`: the input is the script.
            _ if names_input(arg) && named.is_empty() => return Argument::Input,
            "--" | "<" => {
                let Some(script) = args.next() else {
                    return Argument::Input;
                };
                if names_input(script) && named.is_empty() {
                    return Argument::Input;
                }
                named.push(script.as_str());
                return Argument::Named(named);
            }
            ">" | ">>" | "2>" | "2>>" | "&>" => {
                args.next();
            }
            _ if code_valued.contains(&arg) => named.extend(args.next().map(String::as_str)),
            _ if valued.contains(&arg) => {
                args.next();
            }
            _ if arg.starts_with("<<") || arg.contains('>') => {}
            _ if arg.starts_with('<') => {
                named.push(&arg[1..]);
                return Argument::Named(named);
            }
            _ if arg.starts_with(['-', '+']) => {}
            _ => {
                named.push(arg);
                return Argument::Named(named);
            }
        }
    }
    match named.is_empty() {
        true => Argument::Input,
        false => Argument::Named(named),
    }
}

/// Why a shell or interpreter reading its code from a pipe runs computed
/// code: its producer is not `cat` of named files or `echo` of plain text.
pub(super) fn from_input(
    piped: bool,
    previous: Option<&Command>,
    is_computed: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let producer = previous.filter(|_| piped)?;
    let (first, rest) = producer.words.split_first()?;
    let static_text = match base_name(first).as_str() {
        // `… | cat | sh`: a `cat` of no file passes on what it is fed.
        "cat" => {
            rest.iter().any(|w| !w.starts_with('-'))
                && rest.iter().all(|w| !is_computed(w) && w != "-")
        }
        "echo" => rest.iter().all(|w| !is_computed(w) && !w.contains('\\')),
        _ => false,
    };
    (!static_text).then(|| format!("it runs code piped from `{first}`"))
}

/// Why awk (as `program`, given `args`) runs a name computed when it
/// runs: its program starts one it builds (`system("sh " n)`, `\141`
/// escapes: round 60), or its program file is named when it runs.
pub(super) fn awk_runs(
    program: &str,
    args: &[String],
    is_computed: &dyn Fn(&str) -> bool,
    reading: &Words,
) -> Option<String> {
    let code = super::inline_code::code_of(program, args);
    code.and_then(|code| super::inline_code::spawns_computed(program, code))
        .or_else(|| code.and_then(crate::binding::shell::builds_what_it_starts))
        .or_else(|| super::awk_code::computed_file(args, is_computed, &|w| reading.shown(w)))
}

/// Why `coproc sh` (`words`) runs a name computed when it runs: a shell or
/// an interpreter reading what the hook writes to it (round 60).
pub(super) fn coprocess(words: &[String]) -> Option<String> {
    let runs_code = words.first().is_some_and(|first| first == "coproc")
        && words[1..]
            .iter()
            .any(|word| super::super::INTERPRETERS.contains(&base_name(word).as_str()));
    runs_code.then(|| "a coprocess runs code the hook writes to it when it runs".to_owned())
}

/// Why a program no reading models (`program`) starts one whose name it
/// builds: in a word it is given (`gdb -ex 'python …"ma"+"ke"…'`), a
/// here-document, or the plain text `echo` pipes into it (`echo 'exec
/// [string cat ma ke]' | tclsh`: red team round 60).
pub(super) fn fed_built(
    program: &str,
    command: &Command,
    previous: Option<&Command>,
) -> Option<String> {
    use crate::binding::shell::{builds_what_it_starts, reads_words_as_data};
    // `sed 's/X/a/e'`: the pattern space it builds, run (round 61).
    if program == "sed"
        && command.words[1..]
            .iter()
            .any(|w| crate::binding::shell::sed_substitution_runs(w))
    {
        return Some("sed runs the text its substitution builds (its `e` flag)".to_owned());
    }
    // Only a program of another language reads its words or input as code.
    if reads_words_as_data(program) || !super::super::unmodeled::reads_foreign(program) {
        return None;
    }

    let piped = previous
        .filter(|_| command.piped)
        .and_then(|producer| crate::binding::shell::echoed_text(&producer.words));
    command.words[1..]
        .iter()
        .map(String::as_str)
        .chain(command.here_document.as_deref())
        .chain(piped.as_deref())
        .find_map(builds_what_it_starts)
}

/// Where the program `xargs` runs starts in its arguments: the first word
/// after its options.
pub(crate) fn xargs_program(args: &[String]) -> Option<usize> {
    const VALUED: [&str; 10] = ["-I", "-i", "-n", "-P", "-L", "-l", "-d", "-E", "-s", "-a"];
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        if VALUED.contains(&arg.as_str()) {
            at += 2;
        } else if arg.starts_with('-') {
            at += 1;
        } else {
            return Some(at);
        }
    }
    None
}

impl super::Reader {
    /// Why an interpreter's command runs a computed name: its script, its
    /// `-c` string (and the arguments it gets), or the code it reads.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn interpreter(
        &mut self,
        program: &str,
        program_word: &str,
        args: &[String],
        command: &Command,
        previous: Option<&Command>,
        (inputs, reading): (&[Input], &Words),
        depth: usize,
    ) -> Option<String> {
        let taint = self.taint.clone();
        let is_computed = |word: &str| reading.is_computed(word, &taint);
        let shell = super::super::SHELLS.contains(&program);
        // `sh -s a < "$(…)"`, `sh /dev/fd/3 3< "$(…)"`: whatever its words (R41-1).
        if let Some(why) = super::commands::opened(inputs, &is_computed, reading) {
            return Some(why);
        }
        // `bash -n x.sh` reads, never runs.
        if shell && args.iter().any(|a| a == "-n") {
            return None;
        }
        match script_argument(program, args) {
            Argument::String(string) if reading.is_computed_text(string) => Some(format!(
                "its shell string is computed when it runs (`{}`)",
                reading.shown(string)
            )),
            Argument::String(string) => {
                // `sh -c 'sh "$1"' _ "$(…)"`: its arguments (R40-2).
                let after = args
                    .iter()
                    .position(|a| a == string)
                    .map_or(&[][..], |i| &args[i + 1..]);
                let positional = after.iter().any(|w| is_computed(w));
                self.string(&reading.shown(string), positional, depth)
            }
            Argument::Named(words) => {
                let sources = matches!(program_word, "." | "source");
                let stdin = sources && words.first().is_some_and(|w| reads_input(w));
                // `. lib.sh "$(…)"`: the file's `$1` (R41-3).
                let script = words.last().and_then(|w| args.iter().position(|a| a == w));
                let passed = script.map_or(&[][..], |at| &args[at + 1..]);
                if sources && let Some(word) = passed.iter().find(|w| is_computed(w)) {
                    return Some(format!(
                        "it sources a file with text computed when it runs (`{}`)",
                        reading.shown(word)
                    ));
                }
                if stdin {
                    return read_code(
                        inputs,
                        command.piped,
                        previous,
                        &is_computed,
                        reading,
                        &taint,
                    );
                }
                let word = words
                    .into_iter()
                    .find(|w| is_computed(w) || self.taint.moved_script(w))?;
                Some(format!(
                    "its script or module is named by text computed when it runs (`{}`)",
                    reading.shown(word)
                ))
            }
            // `python3 -c 'os.system("sh " + n)'` (R43-11); `python3 -m
            // "$(…)"`, a module named when it runs (round 51, t13).
            Argument::Inline => {
                let module = args
                    .iter()
                    .position(|arg| arg == "-m")
                    .and_then(|at| args.get(at + 1))
                    .filter(|module| is_computed(module));
                match module {
                    Some(module) => Some(format!(
                        "{program} runs a module named by text computed when it runs (`{}`)",
                        reading.shown(module)
                    )),
                    None => super::inline_code::code_of(program, args)
                        .and_then(|code| super::inline_code::spawns_computed(program, code)),
                }
            }
            // `echo 'sh "$1"' | sh -s "$(…)"`: its arguments may be computed.
            Argument::Input => read_code(
                inputs,
                command.piped,
                previous,
                &is_computed,
                reading,
                &taint,
            )
            .or_else(|| {
                let positional = args.iter().any(|word| is_computed(word));
                self.echoed_code(program, (command, previous), positional, depth)
            }),
        }
    }

    /// Why the plain text `echo` pipes into a shell or an interpreter
    /// (`echo 'cd "$(…)"; make' | sh`) runs a computed name: read as its
    /// `-c` string or inline code is (round 58, rs05); `positional`: its
    /// arguments (`$1`) are computed.
    fn echoed_code(
        &mut self,
        program: &str,
        (command, previous): (&Command, Option<&Command>),
        positional: bool,
        depth: usize,
    ) -> Option<String> {
        let producer = previous.filter(|_| command.piped)?;
        let text = crate::binding::shell::echoed_text(&producer.words)?;
        match super::super::SHELLS.contains(&program) {
            true => self.string(&text, positional, depth),
            false => super::inline_code::spawns_computed(program, &text),
        }
    }

    /// Why `xargs` runs a computed name: an interpreter on names read from
    /// its input (unless `echo` of plain words gives them), or a shell
    /// string run with them as its arguments.
    pub(super) fn xargs(
        &mut self,
        command: &Command,
        previous: Option<&Command>,
        args: &[String],
        is_computed: &dyn Fn(&str) -> bool,
        reading: &Words,
        depth: usize,
    ) -> Option<String> {
        let from = xargs_program(args)?;
        let runs = &args[from..];
        let program = base_name(&runs[0]);
        let interprets = super::super::INTERPRETERS.contains(&program.as_str())
            || matches!(program.as_str(), "." | "source" | "eval");
        // `echo tools/g.sh | xargs sh`: names written in the text.
        let echoed = previous.filter(|_| command.piped).is_some_and(|producer| {
            producer
                .words
                .first()
                .is_some_and(|p| base_name(p) == "echo")
                && producer.words[1..]
                    .iter()
                    .all(|w| !is_computed(w) && !w.contains('\\'))
        });
        if !interprets || echoed {
            return None;
        }
        // `xargs sh -c 'lint "$1"' _`: the string runs, its arguments read.
        match script_argument(&program, &runs[1..]) {
            Argument::String(string) => {
                let string = string.replace("{}", "$1");
                self.string(&reading.shown(&string), true, depth)
            }
            // `xargs python3 -m py_compile`, `xargs python3 x.py`: the names
            // it reads are the module's or script's data (R45-8), unless
            // `-I {}` puts one where the code is named.
            Argument::Inline | Argument::Named(_)
                if !runs[1..].iter().any(|w| w.contains("{}"))
                    && !matches!(program.as_str(), "." | "source" | "eval")
                    && names_its_code(&program, &runs[1..]) =>
            {
                None
            }
            _ => Some("xargs runs an interpreter on names read from its input".to_owned()),
        }
    }
}

/// Whether `args` of the interpreter `program` name the code it runs
/// themselves (a script, `-c CODE`, `-m MODULE`), so what `xargs` adds
/// after them is that code's data: not when they end with an option
/// (`-m` alone) or an option's value (`node -r ./x.js`, whose script is
/// then the first name read).
fn names_its_code(program: &str, args: &[String]) -> bool {
    let (code_valued, valued) = valued_options(program);
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let word = word.as_str();
        if inline_options(program).contains(&word) {
            return words.next().is_some();
        }
        if code_valued.contains(&word) || valued.contains(&word) {
            words.next();
        } else if !word.starts_with('-') {
            return true;
        }
    }
    false
}
