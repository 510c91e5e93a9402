//! What a file a command runs reaches in turn: the files a shell script
//! sources, the modules a Python script imports from beside it; and
//! whether a shell script runs a name computed when it runs
//! ([`super::computed`]), however it is named (R40-4).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::computed::Calls;
use super::language::read_head;
use super::language::{language_of, shebang_program};
use super::own_folder::{beside, own_folders, with_folder};
use super::scan::{scan, scan_awk_programs, scan_code, scan_with};
use super::{Identified, MAX_FOLLOW, MAX_SCAN, SHELLS, push, resolve, with_home};

/// A shell's name as a word of a command, however written.
static SHELL_WORD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    // `.` only where a command starts (`npx prettier --check .` sources
    // nothing).
    regex::Regex::new(
        r#"(?:^|[\s;&|(`'"\\/])(?:r?bash|sh|dash|zsh|ksh|mksh|ash|yash|source)(?:$|[\s;&|)`'"<])|(?:^|[;&|(`{\n]|\bthen|\bdo|\belse)\s*['"\\]?\.['"]?(?:$|[\s<])"#,
    )
    .expect("valid regex")
});

/// Endings of shell scripts.
const SHELL_ENDINGS: [&str; 5] = ["sh", "bash", "zsh", "ksh", "dash"];

/// Whether `bytes` (a file's start) are a program's, not text a shell
/// runs: an ELF file, or a NUL in the first line (as bash tells a binary;
/// a NUL later does not stop bash running the rest: R41-6).
pub(super) fn is_binary(bytes: &[u8]) -> bool {
    let first_line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    bytes.starts_with(b"\x7fELF") || first_line.contains(&0)
}

/// Why a file of `files` that the command `raw` runs with a shell (`bash
/// x.py`, `. lib`), whatever it is named, runs a name computed when it
/// runs; read with computed positional parameters when its name is one of
/// `given` ([`super::computed::scripts_given_computed`]).
pub(super) fn scan_run_by_shell(
    raw: &str,
    files: &[std::path::PathBuf],
    given: &BTreeMap<String, Calls>,
) -> Option<String> {
    files.iter().find_map(|file| {
        let name = file.file_name()?.to_string_lossy().into_owned();
        // A shell word anywhere (`/bin/bash`, `"bash"`, `\bash`, `bash -o
        // errexit`, `bash <`, `xargs bash`: R41-6) and the file's name.
        let plain: String = raw
            .chars()
            .filter(|c| !matches!(c, '"' | '\'' | '\\'))
            .collect();
        let shell = SHELL_WORD.is_match(raw) && names(&plain, &name);
        let calls = given.get(&name).cloned().unwrap_or_default();
        shell.then(|| scan(file, &calls)).flatten()
    })
}

/// Whether the text `plain` (quotes taken out) names a file called
/// `name`: written out, or matched by a glob (`ru?.py`, `r*.py`: R42-7).
fn names(plain: &str, name: &str) -> bool {
    plain.contains(name)
        || plain
            .split(|c: char| {
                c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>')
            })
            .filter_map(|word| word.rsplit('/').next())
            .filter(|last| last.contains(['*', '?', '[']))
            .any(|pattern| crate::binding::globbing::wildcard(pattern, name))
}

/// Adds the files `file` sources (shell) or imports from beside it
/// (Python), and the project's scripts a shell script runs by a static
/// name ([`super::sweep::named_in_project`]).
pub(super) fn follow(file: &Path, cwd: &Path, found: &mut Identified) {
    let calls = calls_of(file, &found.given);
    read(file, cwd, found, 0, (false, &calls));
}

/// The calls with arguments computed when it runs that `given` holds for
/// `file` (by its name); none when it has none.
fn calls_of(file: &Path, given: &BTreeMap<String, Calls>) -> Calls {
    let named = file
        .file_name()
        .and_then(|name| given.get(&*name.to_string_lossy()));
    // Calls of a script named through a variable reach every script (R47-1).
    let any = given.get(super::computed::ANY);
    named.into_iter().chain(any).flatten().cloned().collect()
}

/// [`follow`] of a file `depth` files down, `sourced` by a shell or run,
/// and run by `given`, its calls with arguments computed when it runs (R45-1).
fn read(
    file: &Path,
    cwd: &Path,
    found: &mut Identified,
    depth: usize,
    (sourced, given): (bool, &Calls),
) {
    if depth > MAX_FOLLOW {
        return;
    }
    let Ok(bytes) = read_head(file, MAX_SCAN) else {
        return;
    };
    // A sourced file is read whatever its bytes (R42-7).
    if bytes.starts_with(b"\x7fELF") || (!sourced && is_binary(&bytes)) {
        return;
    }
    let text = String::from_utf8_lossy(&bytes);
    let dir = file.parent().unwrap_or(Path::new("/"));
    let name = file.to_string_lossy().to_ascii_lowercase();
    let language = language_of(file, &text, found.interpreter_of(file));
    let executable = std::fs::metadata(file).is_ok_and(|meta| {
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0
    });
    let shell = sourced || is_shell_text(&name, &text, executable);
    // A shell script's own names computed when it runs (`sh "$(printf
    // ../tools/g.%s sh)"`): no more bound than the command's (R38-1).
    if shell && found.computed.is_none() {
        found.computed = scan(file, given)
            .or_else(|| super::sealed_copy::named(&text))
            .or_else(|| scan_awk_programs(&text, cwd, dir));
    }
    if let Some(language) = language {
        if language == "python3" {
            for line in text.lines().map(str::trim) {
                follow_import(line, dir, found);
            }
        }
        // `subprocess.run(["sh", name])`, `execSync("sh " + f)`: a
        // command built when it runs (R47-3: Node, Perl, Ruby, PHP too).
        if found.computed.is_none() {
            found.computed = scan_code(file, language);
        }
        // `subprocess.run(["sh","tools/g.sh"])`: the scripts it names by a
        // written name, as a shell script's (R45-3, b7), its list's items
        // as words; not in the bytes of a zip appended to a Python file.
        // Whether or not a shell may run it too (no `#!`, executable).
        if language != "python3" || !bytes.contains(&0) {
            let words = text.replace([',', '(', ')', '[', ']'], " ");
            follow_named(&words, cwd, dir, found, (depth, given));
        }
        code_definitions(language, &text, (cwd, dir), found);
        if language == "awk" {
            super::unmodeled::started(file, &text, cwd, found);
        }
        if !shell {
            return;
        }
    }
    let folders = own_folders(&text, dir);
    let mut libs = Vec::new();
    // Every `.`/`source` the text runs, in an `if` too (R40-4).
    for rest in super::computed::sourced(&text) {
        // `. "$HOME/bin/lib.sh"`: the home folder is known.
        let target = shlex::split(&rest)
            .and_then(|words| words.into_iter().next())
            .map(|word| with_folder(&word, &folders))
            .map(|word| beside(&with_project(&with_home(&word), cwd), dir))
            .unwrap_or_default();
        if target.contains('$') || target.contains('`') || target.is_empty() {
            found.opaque = Some(format!(
                "{} sources a file named at run time ({})",
                file.display(),
                rest.trim()
            ));
            // Most likely a file beside it: each shell file there is read
            // for computed names (R43-8).
            if found.computed.is_none() {
                found.computed = scan_folder(dir, file, given);
            }
            continue;
        }
        let resolved = resolve(&target, cwd, Some(dir));
        libs.extend(resolved.clone());
        match resolved {
            Some(path) if !found.files.contains(&path) => {
                found.files.push(path.clone());
                read(&path, cwd, found, depth + 1, (true, given));
            }
            Some(_) => {}
            None => {
                found.opaque = Some(format!(
                    "{} sources {target}, which does not exist",
                    file.display()
                ));
            }
        }
    }
    // What a sourced file defines holds in the script (`run() { "$@"; }`,
    // an alias, `declare -l`, `set --` in a lib: R44-3): read together.
    if shell && found.computed.is_none() && !libs.is_empty() {
        found.computed = scan_with(file, &libs, given);
    }
    // `sh tools/g.sh a`, `cd "$CLAUDE_PROJECT_DIR"; ./tools/g.sh`: what it
    // runs of the project, as the command's own text is read (R42-8).
    follow_named(&text, cwd, dir, found, (depth, given));
    // `make -s lint`, `npm run -s lint`: the definitions it runs in the
    // folder it runs in, as the command's own are read (R44-12).
    if shell {
        definitions_run_by(&text, cwd, found, (false, false));
    }
    // A script no reading models, also one a shell could run but a
    // program of its language is given (`tclsh ~/bin/g.tcl`).
    let foreign = super::unmodeled::foreign(file) || found.foreign.iter().any(|f| f == file);
    if language.is_none() && (!shell || foreign) {
        super::unmodeled::started(file, &text, cwd, found);
    }
}

/// Adds, and reads in turn, the scripts `text` (of a file in `dir`, run
/// in `cwd`, `depth` files down, `given` computed arguments) names
/// ([`super::sweep::named_in_project`]); each read with computed
/// positional parameters when `text` gives it computed arguments (R45-1).
fn follow_named(
    text: &str,
    cwd: &Path,
    dir: &Path,
    found: &mut Identified,
    (depth, given): (usize, &Calls),
) {
    let named = super::sweep::named_in_project(text, cwd, dir);
    found.computed = found.computed.take().or(named.too_many);
    if named.bound.is_empty() && named.read_only.is_empty() {
        return;
    }
    let passed = super::computed::scripts_given_computed(text, given);
    for path in named.bound {
        if !found.files.contains(&path) {
            found.files.push(path.clone());
            let calls = calls_of(&path, &passed);
            read(&path, cwd, found, depth + 1, (false, &calls));
        }
    }
    for path in named.read_only {
        let calls = calls_of(&path, &passed);
        read_only(&path, cwd, found, (depth + 1, &calls));
    }
}

/// Reads a script outside the project that a project script runs (the
/// user's `~/bin/y`, or a copy the script made: red team R45-4) for what
/// it runs of the project, without binding it (a copy changes with each
/// run): a name it computes refuses the approval as in any script, and the
/// project's scripts it names are bound and read; the other scripts it
/// names are read so in turn.
fn read_only(file: &Path, cwd: &Path, found: &mut Identified, (depth, given): (usize, &Calls)) {
    if depth > MAX_FOLLOW || found.read_only.contains(&file.to_path_buf()) {
        return;
    }
    found.read_only.push(file.to_path_buf());
    let Ok(bytes) = read_head(file, MAX_SCAN) else {
        return;
    };
    if is_binary(&bytes) {
        return;
    }
    let text = String::from_utf8_lossy(&bytes);
    let dir = file.parent().unwrap_or(Path::new("/"));
    let name = file.to_string_lossy().to_ascii_lowercase();
    let executable = std::fs::metadata(file).is_ok_and(|meta| {
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0
    });
    let shell = is_shell_text(&name, &text, executable);
    if shell && found.computed.is_none() {
        found.computed = scan(file, given)
            .or_else(|| super::sealed_copy::named(&text))
            .or_else(|| scan_awk_programs(&text, cwd, dir));
    }
    let language = language_of(file, &text, None);
    if let Some(language) = language {
        if found.computed.is_none() {
            found.computed = scan_code(file, language);
        }
        code_definitions(language, &text, (cwd, dir), found);
    }
    // `subprocess.run(["sh","tools/g.sh"])`: its list's items as words
    // (also in a Python file a shell could run: R47-4).
    let listed = text.replace([',', '(', ')', '[', ']'], " ");
    let words = match (shell, language.is_some()) {
        (true, true) => format!("{text}\n{listed}"),
        (true, false) => text.clone().into_owned(),
        (false, _) => listed,
    };
    let Ok(project) = cwd.canonicalize() else {
        return;
    };
    let named = super::sweep::named_in_project(&words, cwd, dir);
    found.computed = found.computed.take().or(named.too_many);
    let passed = super::computed::scripts_given_computed(&words, given);
    for path in named.bound.into_iter().chain(named.read_only) {
        let calls = calls_of(&path, &passed);
        let inside = path
            .canonicalize()
            .is_ok_and(|real| real.starts_with(&project));
        match inside {
            true if !found.files.contains(&path) => {
                found.files.push(path.clone());
                read(&path, cwd, found, depth + 1, (false, &calls));
            }
            true => {}
            false => read_only(&path, cwd, found, (depth + 1, &calls)),
        }
    }
    if shell {
        definitions_run_by(&text, cwd, found, (false, false));
    }
}

/// Adds the definitions the commands `text`, code of `language`, starts
/// execute (`subprocess.run(["make", "-s", "lint"])`, `execSync("npm
/// test")`: the project's `Makefile`, `package.json`, `node_modules/.bin`;
/// round 52, H52-5), as a shell script's are.
fn code_definitions(
    language: &str,
    text: &str,
    (cwd, dir): (&Path, &Path),
    found: &mut Identified,
) {
    let started = super::computed::started_commands(language, text);
    if !started.is_empty() {
        let feeds = [
            "input=",
            "stdin=",
            ".communicate(",
            ".stdin.write",
            "input:",
        ]
        .iter()
        .any(|feed| text.contains(feed));
        definitions_run_by(&started.join("\n"), cwd, found, (true, feeds));
    }
    // `process.chdir(input.cwd); require(path.resolve("m"))` (H52-6).
    if language == "node" {
        let reached = crate::binding::definitions::node_code_reaches(text, cwd, dir);
        if found.computed.is_none() {
            found.computed = reached.computed;
        }
        for root in reached.roots {
            if !found.definitions.contains(&root) {
                found.definitions.push(root);
            }
        }
    }
}

/// Adds the definitions the shell text `text` (run in `cwd`) executes
/// ([`crate::binding::reached`]): bound, and read for names computed when
/// they run.
pub(super) fn definitions_run_by(
    text: &str,
    cwd: &Path,
    found: &mut Identified,
    (from_code, feeds): (bool, bool),
) {
    // `make -C "$CLAUDE_PROJECT_DIR"`: the folder the hook runs in.
    static PROJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\{(?:(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR|PWD)\}|\$(?:(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR|PWD)\b")
            .expect("valid regex")
    });
    let folder = cwd.display().to_string();
    let text = match folder.contains(['$', '`', '"', '\\', '\'']) {
        true => std::borrow::Cow::Borrowed(text),
        false => PROJECT.replace_all(text, regex::NoExpand(&folder)),
    };
    let reached = match from_code {
        true => crate::binding::definitions::reached_from_code(&text, cwd, feeds),
        false => crate::binding::reached(&text, cwd, false),
    };
    if found.computed.is_none() {
        found.computed = reached.computed;
    }
    if found.opaque.is_none() {
        found.opaque = reached.opaque;
    }
    for root in reached.roots {
        if !found.definitions.contains(&root) {
            found.definitions.push(root);
        }
    }
}

/// Why a shell file in `dir` (other than `file`; the first 64 entries)
/// runs a name computed when it runs (`given` computed arguments).
fn scan_folder(dir: &Path, file: &Path, given: &Calls) -> Option<String> {
    let listing = std::fs::read_dir(dir).ok()?;
    listing
        .flatten()
        .take(64)
        .map(|entry| entry.path())
        .filter(|path| path != file && path.is_file())
        .filter(|path| {
            let name = path.to_string_lossy().to_ascii_lowercase();
            let head = read_head(path, 256).unwrap_or_default();
            is_shell_text(&name, &String::from_utf8_lossy(&head), false)
        })
        .find_map(|path| scan(&path, given))
}

/// Whether a script named `name` (lower case) holding `text` is shell
/// text: its `#!` line names a shell (after a byte order mark too), or,
/// with none, its name ends like a shell script's, or it has no ending and
/// may be executed (`/bin/sh` runs it: R40-4). Other files a shell runs
/// (`bash run.py`) are read so by [`scan_run_by_shell`].
pub(super) fn is_shell_text(name: &str, text: &str, executable: bool) -> bool {
    match shebang_program(text) {
        // An empty `#!` line: `/bin/sh` runs it.
        Some(program) => {
            program.is_empty() || SHELLS.contains(&program.as_str()) || program == "rbash"
        }
        None => {
            let file_name = name.rsplit('/').next().unwrap_or(name);
            // Run as a program with no `#!`, `/bin/sh` runs it, whatever its
            // name (R41-6).
            executable
                || file_name
                    .rsplit_once('.')
                    .is_some_and(|(_, ext)| SHELL_ENDINGS.contains(&ext))
        }
    }
}

/// `import x` / `from x import y`: a module `x.py` beside the script is bound;
/// a package folder `x/` makes the command opaque (bind the tree).
fn follow_import(line: &str, dir: &Path, found: &mut Identified) {
    let names = if let Some(rest) = line.strip_prefix("import ") {
        rest.split(',')
            .map(|part| part.split_whitespace().next().unwrap_or(""))
            .collect::<Vec<_>>()
    } else if let Some(rest) = line.strip_prefix("from ") {
        vec![rest.split_whitespace().next().unwrap_or("")]
    } else {
        return;
    };
    for name in names {
        let first = name.split('.').next().unwrap_or("");
        if first.is_empty() {
            if name.starts_with('.') {
                found.opaque = Some(format!("it imports a relative module ({name})"));
            }
            continue;
        }
        let module = dir.join(format!("{first}.py"));
        if module.is_file() {
            push(&mut found.files, module);
        } else if dir.join(first).is_dir() {
            found.opaque = Some(format!("it imports the package {first} beside it"));
        }
    }
}

/// `word` with a leading project-folder variable (`$CLAUDE_PROJECT_DIR`,
/// `${PWD}`...) as `cwd`, the folder the hook runs in.
pub(super) fn with_project(word: &str, cwd: &Path) -> String {
    for name in [
        "CLAUDE_PROJECT_DIR",
        "CURSOR_PROJECT_DIR",
        "CODEX_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
        "PWD",
    ] {
        for spelling in [format!("${{{name}}}"), format!("${name}")] {
            if let Some(rest) = word.strip_prefix(&spelling)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return format!("{}{rest}", cwd.display());
            }
        }
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_names_the_files_it_matches() {
        assert!(names("bash /p/.claude/hooks/ru?.py", "run.py"));
        assert!(names("bash /p/hooks/r*.py", "run.py"));
        assert!(names("bash /p/hooks/[r]un.py", "run.py"));
        assert!(names("bash /p/hooks/[!x]un.py", "run.py"));
        assert!(!names("bash /p/hooks/x?.py", "run.py"));
        assert!(names("bash /p/hooks/run.py", "run.py"));
    }
}
