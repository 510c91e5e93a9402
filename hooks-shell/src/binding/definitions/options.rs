//! The options of the programs of the table that name where their
//! definitions are: read exactly for `make` and `just` ([`super::super::getopt`]
//! grammars: `make -ftools/x.mk`, `-C tools`, `--dir=tools`, `-I mk`), and
//! for the others from the lists of their folder and file options
//! (`npm --prefix`, `cargo --manifest-path`, `task -d`), where an attached
//! or abbreviated spelling of one of them makes the reading unsure (the hook
//! tree is bound then) rather than bind another file.

use crate::binding::getopt::{self, Arg, Grammar, Opt, Role, Takes};
use crate::binding::wrappers::assignment;

/// How a program's options are read.
#[derive(Clone, Copy)]
pub(super) enum Options {
    /// With the program's whole grammar.
    Exact(&'static Grammar),
    /// GNU make's grammar, and the `MAKEFILES` / `MAKEFLAGS` it reads.
    Make,
    /// By lists of the options that matter (with their dashes); every other
    /// word starting with `-` is taken as a flag.
    Lists {
        /// Options naming the folder it runs in.
        dir: &'static [&'static str],
        /// Options naming a definitions file.
        file: &'static [&'static str],
        /// Options naming the manifest whose folder it reads the others in
        /// (`cargo --manifest-path`, `mvn -f`).
        manifest: &'static [&'static str],
    },
}

/// No options that matter.
pub(super) const NONE: Options = Options::Lists {
    dir: &[],
    file: &[],
    manifest: &[],
};

/// What the options of one command say.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Read {
    /// The folders it changes to, in turn (`-C a -C b`).
    pub chdir: Vec<String>,
    /// The definitions files it is told to read.
    pub files: Vec<String>,
    /// The manifests whose folder it reads the rest in.
    pub manifests: Vec<String>,
    /// Folders its includes are searched in.
    pub include_dirs: Vec<String>,
    /// The words that are no options.
    pub words: Vec<String>,
    /// Every word given, options too, as given.
    pub args: Vec<String>,
    /// The variables the command sets for it (`CARGO_HOME=ch cargo …`).
    pub env: Vec<(String, String)>,
    /// Why the reading is unsure.
    pub unsure: Option<String>,
}

const fn flag(name: &'static str) -> Opt {
    (name, Takes::Nothing, Role::Other)
}

const fn value(name: &'static str) -> Opt {
    (name, Takes::Value, Role::Other)
}

/// GNU make 4.4.
pub(super) const MAKE: Grammar = Grammar {
    short: &[
        flag("b"),
        flag("B"),
        flag("d"),
        flag("e"),
        flag("h"),
        flag("i"),
        flag("k"),
        flag("L"),
        flag("n"),
        flag("p"),
        flag("q"),
        flag("r"),
        flag("R"),
        flag("s"),
        flag("S"),
        flag("t"),
        flag("v"),
        flag("w"),
        ("C", Takes::Value, Role::Dir),
        ("f", Takes::Value, Role::File),
        ("I", Takes::Value, Role::IncludeDir),
        ("E", Takes::Value, Role::Code),
        value("o"),
        value("W"),
        ("j", Takes::Number, Role::Other),
        ("l", Takes::Number, Role::Other),
        ("O", Takes::Attached, Role::Other),
    ],
    long: &[
        flag("always-make"),
        ("directory", Takes::Value, Role::Dir),
        ("debug", Takes::Attached, Role::Other),
        flag("environment-overrides"),
        ("eval", Takes::Value, Role::Code),
        ("file", Takes::Value, Role::File),
        ("makefile", Takes::Value, Role::File),
        flag("help"),
        flag("ignore-errors"),
        ("include-dir", Takes::Value, Role::IncludeDir),
        ("jobs", Takes::Number, Role::Other),
        value("jobserver-auth"),
        value("jobserver-fds"),
        value("jobserver-style"),
        flag("keep-going"),
        ("load-average", Takes::Number, Role::Other),
        ("max-load", Takes::Number, Role::Other),
        flag("check-symlink-times"),
        flag("just-print"),
        flag("dry-run"),
        flag("recon"),
        value("old-file"),
        value("assume-old"),
        ("output-sync", Takes::Attached, Role::Other),
        flag("print-data-base"),
        flag("question"),
        flag("no-builtin-rules"),
        flag("no-builtin-variables"),
        ("shuffle", Takes::Attached, Role::Other),
        flag("silent"),
        flag("quiet"),
        flag("no-silent"),
        flag("stop"),
        flag("no-keep-going"),
        flag("touch"),
        flag("trace"),
        flag("version"),
        flag("print-directory"),
        flag("no-print-directory"),
        value("what-if"),
        value("new-file"),
        value("assume-new"),
        flag("warn-undefined-variables"),
        ("warn", Takes::Attached, Role::Other),
        ("temp-stdin", Takes::Value, Role::Code),
    ],
    permute: true,
};

/// just 1.x: its options that take a value, the rest as flags.
pub(super) const JUST: Grammar = Grammar {
    short: &[
        ("f", Takes::Value, Role::File),
        ("d", Takes::Value, Role::Dir),
        ("E", Takes::Value, Role::File),
        value("c"),
        value("s"),
        flag("g"),
        flag("n"),
        flag("e"),
        flag("l"),
        flag("q"),
        flag("u"),
        flag("v"),
        flag("h"),
        flag("V"),
    ],
    long: &[
        ("justfile", Takes::Value, Role::File),
        ("working-directory", Takes::Value, Role::Dir),
        ("dotenv-path", Takes::Value, Role::File),
        ("dotenv-filename", Takes::Value, Role::Code),
        ("shell", Takes::Value, Role::File),
        value("shell-arg"),
        value("command"),
        value("chooser"),
        value("color"),
        value("command-color"),
        value("dump-format"),
        value("list-heading"),
        value("list-prefix"),
        value("show"),
        value("timestamp-format"),
        value("completions"),
        value("usage"),
        value("alias-style"),
        value("tempdir"),
        value("ceiling"),
        ("set", Takes::Value, Role::Code),
        flag("allow-missing"),
        flag("changelog"),
        flag("check"),
        flag("choose"),
        flag("clear-shell-args"),
        flag("dry-run"),
        flag("dump"),
        flag("edit"),
        flag("evaluate"),
        flag("explain"),
        flag("fmt"),
        flag("global-justfile"),
        flag("groups"),
        flag("help"),
        flag("highlight"),
        flag("init"),
        flag("list"),
        flag("man"),
        flag("no-aliases"),
        flag("no-deps"),
        flag("no-dotenv"),
        flag("no-highlight"),
        flag("one"),
        flag("quiet"),
        flag("shell-command"),
        flag("summary"),
        flag("timestamp"),
        flag("unsorted"),
        flag("unstable"),
        flag("variables"),
        flag("verbose"),
        flag("version"),
        flag("yes"),
    ],
    permute: true,
};

/// Reads `args` (with the command's `assignments`) as `options` say.
pub(super) fn read(options: Options, args: &[String], assignments: &[(String, String)]) -> Read {
    let mut read = Read {
        args: args.to_vec(),
        env: assignments.to_vec(),
        ..Read::default()
    };
    match options {
        Options::Exact(grammar) => exact(grammar, args, &mut read),
        Options::Make => {
            exact(&MAKE, args, &mut read);
            make_variables(assignments, &mut read);
        }
        Options::Lists {
            dir,
            file,
            manifest,
        } => lists((dir, file, manifest), args, &mut read),
    }
    read
}

fn exact(grammar: &Grammar, args: &[String], read: &mut Read) {
    let parsed = getopt::parse(grammar, args);
    for arg in parsed.args {
        match arg {
            Arg::Operand(word) => read.words.push(word),
            Arg::Opt(Role::Dir, dir) => read.chdir.push(dir),
            Arg::Opt(Role::File, file) => read.files.push(file),
            Arg::Opt(Role::IncludeDir, dir) => read.include_dirs.push(dir),
            Arg::Opt(Role::Code, code) => {
                read.unsure
                    .get_or_insert(format!("it gives code inline ({code:?})"));
            }
            Arg::Opt(..) => {}
        }
    }
    if let Some(why) = parsed.unsure {
        read.unsure.get_or_insert(why);
    }
}

/// `MAKEFILES=x.mk` (read before the others) and `MAKEFLAGS=-I mk` (read as
/// options), before the command or among its words.
fn make_variables(assignments: &[(String, String)], read: &mut Read) {
    let operands: Vec<(String, String)> = read.words.iter().filter_map(|w| assignment(w)).collect();
    // Make exports a variable given as an operand to what its recipes run.
    read.env.extend(operands.iter().cloned());
    for (name, value) in assignments.iter().chain(&operands) {
        match name.as_str() {
            "MAKEFILES" => read
                .files
                .extend(value.split_whitespace().map(str::to_owned)),
            "MAKEFLAGS" | "GNUMAKEFLAGS" => {
                let mut words = shlex::split(value).unwrap_or_default();
                // `MAKEFLAGS='CARGO_HOME=ch'`: a variable make is given, and
                // exports (round 73).
                read.env
                    .extend(words.iter().filter_map(|word| assignment(word)));
                if let Some(first) = words.first_mut()
                    && !first.starts_with('-')
                    && !first.contains('=')
                {
                    first.insert(0, '-');
                }
                let mut flags = Read::default();
                exact(&MAKE, &words, &mut flags);
                read.chdir.extend(flags.chdir);
                read.files.extend(flags.files);
                read.include_dirs.extend(flags.include_dirs);
                if let Some(why) = flags.unsure {
                    read.unsure.get_or_insert(why);
                }
            }
            _ => {}
        }
    }
}

fn lists((dir, file, manifest): (&[&str], &[&str], &[&str]), args: &[String], read: &mut Read) {
    let known = || dir.iter().chain(file).chain(manifest);
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if word == "--" {
            read.words.extend(iter.by_ref().cloned());
            break;
        }
        if !word.starts_with('-') || word == "-" {
            read.words.push(word.clone());
            continue;
        }
        let (option, inline) = match word.split_once('=') {
            Some((option, value)) => (option, Some(value.to_owned())),
            None => (word.as_str(), None),
        };
        let slot = if dir.contains(&option) {
            &mut read.chdir
        } else if file.contains(&option) {
            &mut read.files
        } else if manifest.contains(&option) {
            &mut read.manifests
        } else {
            let abbreviated =
                option.starts_with("--") && known().any(|o| o.starts_with(option) && *o != option);
            // `-Cweb`, `-sC web`: a short option of the list attached to its
            // value or to other letters.
            let attached = !option.starts_with("--")
                && option.len() > 2
                && known().any(|o| o.len() == 2 && option.contains(&o[1..]));
            if abbreviated || attached {
                read.unsure.get_or_insert(format!(
                    "it spells an option this reading does not take apart ({word})"
                ));
            }
            continue;
        };
        match inline.or_else(|| iter.next().cloned()) {
            Some(value) if value.contains('=') => {
                // `cargo --config key=value`: settings inline, not a file.
                read.unsure
                    .get_or_insert(format!("{option} {value:?} gives settings inline"));
            }
            Some(value) => slot.push(value),
            None => {
                read.unsure.get_or_insert(format!("{option} has no value"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{JUST, Options, read};

    fn make(line: &str) -> super::Read {
        read(Options::Make, &shlex::split(line).expect("split"), &[])
    }

    #[test]
    fn make_reads_every_spelling_of_its_file_folder_and_include_options() {
        for line in [
            "-ftools/x.mk check",
            "-f tools/x.mk check",
            "-sftools/x.mk check",
            "-sf tools/x.mk check",
            "--file=tools/x.mk check",
            "--file tools/x.mk check",
            "--makefile=tools/x.mk check",
            "--make tools/x.mk check",
            "check -j 4 -f tools/x.mk",
            "MAKEFILES=tools/x.mk check",
        ] {
            let read = make(line);
            assert_eq!(read.files, vec!["tools/x.mk"], "{line}: {read:?}");
            assert_eq!(read.unsure, None, "{line}");
        }
        for line in [
            "-Ctools",
            "-C tools",
            "--directory=tools",
            "--dir tools",
            "-sCtools",
        ] {
            assert_eq!(make(line).chdir, vec!["tools"], "{line}");
        }
        for line in ["-Imk", "-I mk", "--include-dir=mk", "MAKEFLAGS=-Imk"] {
            assert_eq!(make(line).include_dirs, vec!["mk"], "{line}");
        }
        for line in ["--eval='include x.mk'", "-E x", "-X", "--d=x", "-f"] {
            assert!(make(line).unsure.is_some(), "{line}");
        }
        assert_eq!(make("-- -f x").files, Vec::<String>::new());
    }

    #[test]
    fn just_and_listed_options_are_read() {
        let just = read(
            Options::Exact(&JUST),
            &shlex::split("-d tools --justfile=tools/j check").expect("split"),
            &[],
        );
        let quiet = read(
            Options::Exact(&JUST),
            &shlex::split("--quiet --yes check").expect("split"),
            &[],
        );
        assert_eq!(quiet.unsure, None);
        assert_eq!(
            (just.chdir, just.files),
            (vec!["tools".into()], vec!["tools/j".into()])
        );
        let npm = Options::Lists {
            dir: &["-C", "--prefix"],
            file: &[],
            manifest: &[],
        };
        let words = |line: &str| shlex::split(line).expect("split");
        assert_eq!(
            read(npm, &words("--prefix=web run x"), &[]).chdir,
            vec!["web"]
        );
        assert_eq!(read(npm, &words("-C web run x"), &[]).chdir, vec!["web"]);
        for line in ["-Cweb run x", "--pre web run x", "-sC web run"] {
            assert!(read(npm, &words(line), &[]).unsure.is_some(), "{line}");
        }
        assert_eq!(read(npm, &words("-s run x"), &[]).unsure, None);
    }
}
