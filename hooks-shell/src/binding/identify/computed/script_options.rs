//! Programs that read a script file an option or a command of theirs
//! names (`sed -f F`, `gdb -x F`, `vim -S F`, `sqlite3 -init F`, `.read F`,
//! `make -f F`, `make -C D`, `jq -f F`, `m4 F`: `m` once its version is
//! cut), and `tar --to-command`,
//! which runs a command on each member it extracts. A script named by text
//! computed when it runs is code no reading binds (red team round 51:
//! o13, o14, o18, o22, q02–q12, q16, r30): such a hook cannot be approved.
//! The same options written out are bound where the reading finds them.

/// The options of `program` that name a script file it reads, or the
/// folder it reads its makefile in.
fn script_options(program: &str) -> &'static [&'static str] {
    match program {
        "sed" | "gsed" => &["-f", "--file"],
        "gdb" => &["-x", "--command", "-ix", "--init-command"],
        "vim" | "vi" | "nvim" | "ex" | "view" => &["-S", "-u", "--cmd"],
        "sqlite" | "sqlite3" => &["-init"],
        "make" | "gmake" => &["-f", "--file", "--makefile", "-C", "--directory"],
        // The folder whose `package.json` and `.npmrc` it runs (round 55,
        // H55-6: `npm --prefix "$(dirname "$f")" test`).
        "npm" | "npx" | "pnpm" | "yarn" => &["--prefix", "-C", "--dir", "--cwd"],
        "jq" => &["-f", "--from-file", "-L"],
        "m" | "m4" => &["-I", "--include"],
        "psql" => &["-f", "--file"],
        // Folders and modules of code (`perl -I"$(…)"`: round 51, s01).
        "perl" => &["-I", "-M", "-m"],
        "ruby" => &["-I", "-r"],
        "node" => &["-r", "--require", "--import", "--loader"],
        "bun" => &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--preload",
            "--cwd",
        ],
        _ => &[],
    }
}

/// Whether `command` runs a tool named in its own words whose options
/// come before it (`npx prettier --write`: the words `xargs` adds go to
/// prettier, not npx), no word `xargs` fills in before it.
fn runs_a_written_tool(command: &[String]) -> bool {
    let Some((first, args)) = command.split_first() else {
        return false;
    };
    if !matches!(super::base_name(first).as_str(), "npx" | "pnpx" | "bunx") {
        return false;
    }
    args.iter()
        .find(|word| !word.starts_with('-'))
        .is_some_and(|tool| !tool.contains(['{', '$', '%']))
        && !args.iter().any(|word| word.contains("{}"))
}

/// Programs that run a command given among their words.
const LAUNCHERS: [&str; 16] = [
    "xargs", "find", "flock", "nice", "nohup", "timeout", "stdbuf", "time", "env", "command",
    "exec", "sudo", "ionice", "setsid", "watch", "parallel",
];

/// Why a command whose program is `program_word` runs, in a folder named
/// when it runs (`moved`), code no reading follows there: a function of
/// the text (`lint(){ make; }; cd "$(…)" && lint`), or a program found
/// when it runs (`"$(command -v make)"`; round 57, H57-4).
pub(super) fn runs_there(
    program_word: &str,
    functions: &std::collections::BTreeSet<String>,
    moved: bool,
) -> Option<String> {
    if !moved {
        return None;
    }
    if functions.contains(program_word) {
        return Some(format!(
            "it calls its function `{program_word}` in a folder named when it runs, whose \
             commands no reading follows there"
        ));
    }
    program_word
        .contains('\u{e000}')
        .then(|| "it runs a program found when it runs in a folder named when it runs".to_owned())
}

/// Why `words` (a command, its assignments and `export`s among them), in
/// a folder named when it runs (`moved`), give a variable that steers what
/// runs a value naming that folder's files: relative (`BASH_ENV=./x.sh`,
/// `NODE_OPTIONS='--require ./m.js'`) or through `$PWD` (`PATH="$PWD/
/// node_modules/.bin:$PATH"`; round 58, H58-12).
pub(super) fn steers_there(words: &[String], moved: bool) -> Option<String> {
    if !moved {
        return None;
    }
    let here = |value: &str| {
        value.contains("$PWD")
            || value.contains("${PWD")
            || value.contains("$(pwd")
            || value
                .split([':', ' ', '='])
                .any(|part| !part.is_empty() && !part.starts_with(['/', '~', '$', '-']))
    };
    words.iter().find_map(|word| {
        let (name, value) = word.split_once('=')?;
        let steering = matches!(name, "PATH" | "PROMPT_COMMAND")
            || crate::dialect::code_env::steers_code(name);
        (steering && here(value)).then(|| {
            format!(
                "it gives `{name}` a value naming files of a folder named when it runs (`{word}`)"
            )
        })
    })
}

/// Why a command (`unwrapped`, of `program` with `args`), in a folder
/// named when it runs (`moved`), starts there what runs that folder's code
/// through a program no reading models (`taskset -c 0 make`,
/// `${MAKE-make}`, awk's `system("make")`) or an interpreter's inline code
/// (`perl -e 'system("make")'`; round 58).
pub(super) fn started_there(
    unwrapped: &[String],
    program: &str,
    args: &[String],
    moved: bool,
    is_computed: &dyn Fn(&str) -> bool,
) -> Option<String> {
    if !moved {
        return None;
    }
    let mut started = crate::binding::shell::launched_commands(unwrapped);
    for line in super::started::inline_started(program, args) {
        started.extend(crate::binding::shell::simple_commands(&line));
    }
    started.iter().find_map(|inner| {
        let (first, rest) = inner.split_first()?;
        runs_given_script(
            &super::super::base_name(first),
            rest,
            (false, true),
            is_computed,
        )
    })
}

/// Why `program` (with `args`) reads a script, or runs a command on each
/// member it extracts, that no reading binds.
pub(super) fn runs_given_script(
    program: &str,
    args: &[String],
    (input_computed, moved): (bool, bool),
    is_computed: &dyn Fn(&str) -> bool,
) -> Option<String> {
    // `cd "$(…)" && make`: the makefile of a folder named when it runs
    // (red team round 51, q11).
    if moved && matches!(program, "make" | "gmake") {
        return Some(format!(
            "{program} reads the makefile of a folder named when it runs"
        ));
    }
    // `cd "$(…)" && npm test`, `env -C "$(…)" go test` (round 55, H55-6):
    // any program running the folder's definitions (rustup's proxies run
    // the toolchain it names: H55-1), or its code.
    const DEFINITIONS: [&str; 4] = ["go", "pytest", "dotnet", "swift"];
    let definitions = crate::binding::definitions::runs_folder_definitions(program);
    if moved && (definitions || DEFINITIONS.contains(&program)) {
        return Some(format!(
            "{program} runs the definitions of a folder named when it runs"
        ));
    }
    // `cd "$(…)" && xargs make`, `find . -exec make \;`, `flock L make`
    // (round 57, H57-4): a launcher running such a program there.
    let runs_definitions = |word: &String| {
        let name = super::base_name(word);
        crate::binding::definitions::runs_folder_definitions(&name)
            || DEFINITIONS.contains(&name.as_str())
            || matches!(name.as_str(), "make" | "gmake" | "git")
    };
    if moved && LAUNCHERS.contains(&program) && args.iter().any(runs_definitions) {
        return Some(format!(
            "{program} runs the definitions of a folder named when it runs"
        ));
    }
    // `… | xargs make -s`, `xargs -I{} make -C {}`: words and folders named
    // by what it reads.
    if program == "xargs"
        && let Some(command) = super::written_text::xargs_command(
            &std::iter::once(program.to_owned())
                .chain(args.iter().cloned())
                .collect::<Vec<_>>(),
        )
        && command.first().is_some_and(runs_definitions)
        && !runs_a_written_tool(&command)
    {
        return Some(format!(
            "xargs runs {} with words named by what it reads",
            super::base_name(&command[0])
        ));
    }
    // `ed -s F < "$(…)"`: commands read from a file named when it runs.
    const READS_COMMANDS: [&str; 17] = [
        "ed", "red", "ex", "vim", "vi", "nvim", "sqlite", "tclsh", "wish", "lua", "m", "psql",
        "mysql", "gdb", "lldb", "bc", "dc",
    ];
    if input_computed && READS_COMMANDS.contains(&program) {
        return Some(format!(
            "{program} reads commands from a file named by text computed when it runs"
        ));
    }
    if matches!(program, "tar" | "bsdtar" | "gtar")
        && let Some(option) = args.iter().find(|word| {
            word.starts_with("--to-command")
                || word.starts_with("--use-compress-program")
                || word == &"-I"
        })
    {
        return Some(format!(
            "{program} runs a command on what it reads (`{option}`), which no reading follows"
        ));
    }
    // `ls -d */ | xargs -I{} git -C {} status`: git in folders it reads
    // (round 51, t41).
    if program == "xargs"
        && let Some(command) = super::written_text::xargs_command(
            &std::iter::once(program.to_owned())
                .chain(args.iter().cloned())
                .collect::<Vec<_>>(),
        )
        && command
            .first()
            .is_some_and(|first| super::base_name(first) == "git")
    {
        return Some("xargs runs git in folders named by what it reads".to_owned());
    }
    // `make -sC "$(…)"`: an option among others in one word (round 56).
    let clustered = |word: &str, letters: &[char]| {
        word.len() > 2
            && word.starts_with('-')
            && !word.starts_with("--")
            && word[1..].contains(letters)
    };
    if matches!(program, "make" | "gmake")
        && args.iter().enumerate().any(|(at, word)| {
            clustered(word, &['C', 'f', 'I'])
                && (is_computed(word) || args.get(at + 1).is_some_and(|next| is_computed(next)))
        })
    {
        return Some(format!(
            "{program} reads a makefile or folder named by text computed when it runs"
        ));
    }
    // `find "$f" -execdir make \;`: run in the folder of each path found.
    if program == "find"
        && args
            .iter()
            .any(|word| word == "-execdir" || word == "-okdir")
        && args.iter().any(|word| is_computed(word))
    {
        return Some("find runs a command in folders named when it runs (`-execdir`)".to_owned());
    }
    let options = script_options(program);
    for (at, word) in args.iter().enumerate() {
        let value = options.iter().find_map(|option| {
            let joined = word.strip_prefix(option)?;
            match joined {
                "" => args.get(at + 1).map(String::as_str),
                rest if option.starts_with("--") => rest.strip_prefix('='),
                rest => Some(rest.strip_prefix('=').unwrap_or(rest)),
            }
        });
        // sqlite3's `.read F` in its command text; `m4 F`, the files it reads.
        let read = matches!(program, "sqlite" | "sqlite3")
            .then(|| word.trim_start().strip_prefix(".read").map(str::trim))
            .flatten();
        let computed = value.or(read).is_some_and(is_computed)
            || (matches!(program, "m" | "m4") && !word.starts_with('-') && is_computed(word));
        if computed {
            return Some(format!(
                "{program} reads a script named by text computed when it runs (`{word}`)"
            ));
        }
    }
    None
}
