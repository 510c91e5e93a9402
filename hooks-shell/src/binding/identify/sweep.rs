//! Every script a command's text names, however it runs it: a word that
//! ends like a script (`.sh`, `.py`...) or names an executable file, found
//! from where the command runs, the home folder, or a folder another word
//! names. The reading of what runs can miss a spelling (`case` inside
//! `"$(…)"`, nested backquotes, `trap --`, `<<<`, a `cd` it cannot follow:
//! red team R37-3, R37-4); a script the text names is bound all the same.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::user_scripts;

mod expansions;
use expansions::expanded;

/// The most words of a command looked at.
pub(super) const MAX_WORDS: usize = 4096;
/// The most words of a script's text looked at (its first
/// [`super::MAX_SCAN`] bytes are read).
const MAX_SCRIPT_WORDS: usize = 1 << 17;

/// The scripts `raw` (a command run in `cwd`) names that exist, and why
/// not all could be found (a glob matching more than can be bound).
pub(super) fn named_scripts(raw: &str, cwd: &Path) -> (Vec<PathBuf>, Option<String>) {
    let home = hermes_hooks_core::home::user_home();
    // `jq -c . >> log.jsonl`: a file it writes is no script it runs (R44-15).
    let raw = crate::binding::mentions::without_written_targets(raw);
    named_from(&raw, cwd, home.as_deref(), MAX_WORDS)
}

/// The scripts of the project folder `cwd` that the shell text `text` of
/// a script in `dir` names, read as [`named_scripts`] reads a command run
/// in `cwd`, from `dir` too (`sh "$(dirname "$0")/g.sh"`): each a file
/// inside `cwd` once links and `..` are resolved, and no program (red
/// team R42-8: a user's hook script running `sh tools/g.sh` in every
/// project), a script beside it, or, for a script outside the project
/// (the user's), any other but the system's and a version manager's
/// (`~/bin/y`, `/opt/team/y.sh`, which may run the project's in turn:
/// R44-11, R45-3); for a project script, those elsewhere are read, not
/// bound ([`Named::read_only`]: R45-4). Nothing is read when
/// `cwd` is `/`, the home folder or above it (no project). A file it
/// writes (`date > target/stamp.sh`) is not read as one it runs.
pub(super) fn named_in_project(text: &str, cwd: &Path, dir: &Path) -> Named {
    let Ok(project) = cwd.canonicalize() else {
        return Named::default();
    };
    let home = hermes_hooks_core::home::user_home();
    let home_inside = home.as_deref().and_then(|home| home.canonicalize().ok());
    if project.parent().is_none()
        || home_inside
            .as_deref()
            .is_some_and(|home| home.starts_with(&project))
    {
        return Named::default();
    }
    // `date > target/stamp.sh`: a file it writes is no script it runs.
    let text = crate::binding::mentions::without_written_targets(text);
    let text = super::own_folder::with_own_folder(&text, dir);
    // A script beside it (the user's `~/.claude/hooks/y.sh` that runs the
    // project's scripts: R44-11), unless that folder is the home folder.
    let own = dir.canonicalize().ok().filter(|own| {
        own.parent().is_some()
            && home_inside
                .as_deref()
                .is_none_or(|home| !home.starts_with(own))
    });
    let users = own.as_deref().is_none_or(|own| !own.starts_with(&project));
    // `y a`, `~/bin` on `PATH`: the user's own program (R44-11), also a
    // project script's (read, not bound: R47-5).
    let on_path = match home_inside.as_deref() {
        Some(home) => user_scripts::home_programs(&text, home, &project),
        None => Vec::new(),
    };
    let (swept, too_many) = named_from(&text, cwd, Some(dir), MAX_SCRIPT_WORDS);
    let mut named = Named {
        too_many,
        ..Named::default()
    };
    for path in swept.into_iter().chain(on_path) {
        let Ok(real) = path.canonicalize() else {
            continue;
        };
        if super::language::read_head(&path, 4096).is_ok_and(|head| super::follow::is_binary(&head))
            // Git's sample hooks are no script the text runs.
            || (path.components().any(|part| part.as_os_str() == ".git")
                && path.extension().is_some_and(|ext| ext == "sample"))
        {
            continue;
        }
        let elsewhere = !is_system(&real) && !user_scripts::is_version_manager(&real);
        if real.starts_with(&project)
            || own.as_deref().is_some_and(|own| real.parent() == Some(own))
            // A user's script running another of the home folder
            // (`~/bin/y`), which may run the project's in turn (R44-11).
            // Elsewhere too (`/opt/team/check.sh`, a link out of the home
            // folder: R45-3), but never the system's nor a version
            // manager's own code (R45-9).
            || (users && elsewhere)
        {
            named.bound.push(path);
        } else if elsewhere {
            // A project script running the user's (`~/bin/y`: R45-4), or a
            // copy it made (`cp -r . ~/copy`): read, not bound.
            named.read_only.push(path);
        }
    }
    named
}

/// The scripts a script's text names ([`named_in_project`]).
#[derive(Default)]
pub(super) struct Named {
    /// Those bound and read in turn.
    pub(super) bound: Vec<PathBuf>,
    /// Those outside the project that a project script runs: read for
    /// what they run of the project, not bound (the user's own, or a copy
    /// the script makes, which changes with each run).
    pub(super) read_only: Vec<PathBuf>,
    /// Why not every script could be found (a glob matching more than
    /// can be bound: then the hook cannot be approved).
    pub(super) too_many: Option<String>,
}

/// The scripts `raw` (a command run in `cwd`) names that exist, found
/// from `cwd`, `second` (the home folder for a command, the script's own
/// folder for a script's text), and the folders other words name there;
/// its first `max_words` words.
fn named_from(
    raw: &str,
    cwd: &Path,
    second: Option<&Path>,
    max_words: usize,
) -> (Vec<PathBuf>, Option<String>) {
    let words = spellings(raw, cwd, max_words);
    let mut bases: Vec<PathBuf> = vec![cwd.to_path_buf()];
    bases.extend(second.map(Path::to_path_buf));
    // A lone `*` names the folder it runs in, or one a `cd` moves to, and
    // no folder to look in (`cd tools && sh *`: red team round 50, g20, g21).
    let lone = |word: &str| matches!(word, "*" | "?");
    for (word, _) in words.iter().filter(|(word, _)| !lone(word)) {
        for base in [Some(cwd), second].into_iter().flatten() {
            for folder in paths_of(base, word) {
                if folder.is_dir() && !bases.contains(&folder) && bases.len() < 32 {
                    bases.push(folder);
                }
            }
        }
    }
    // `CDPATH=tools; cd sub`: a folder inside a folder another word names
    // (`tools/sub`, though `./sub` exists too: R42-2); written words only.
    let named = bases.len();
    for at in 2.min(named)..named {
        let base = bases[at].clone();
        for (word, _) in words.iter().filter(|(w, _)| !w.contains(['*', '?', '['])) {
            for folder in paths_of(&base, word) {
                if folder.is_dir() && !bases.contains(&folder) && bases.len() < 32 {
                    bases.push(folder);
                }
            }
        }
    }
    let mut scripts = Vec::new();
    let mut too_many = None;
    let feeds = feeds_an_interpreter(raw);
    let runs_a_name = runs_a_variable(raw);
    let second = bases
        .iter()
        .position(|base| Some(base.as_path()) == second && base != cwd);
    // `/**` and `/*` alone open a comment of C-like code (a Node tool's
    // `/** Copyright …`: round 66, V1); as globs they name every folder of
    // the system, never a script a hook runs.
    let comment = |word: &str| {
        word.starts_with("/*") && word.trim_start_matches('/').chars().all(|c| c == '*')
    };
    for (word, after_interpreter) in words
        .iter()
        .filter(|(word, _)| (word.len() > 1 || lone(word)) && !comment(word))
    {
        let roots = match Path::new(word).is_absolute() {
            true => vec![Path::new("/").to_path_buf()],
            false => (bases.iter().enumerate())
                .filter(|(at, _)| !lone(word) || Some(*at) != second)
                .map(|(_, base)| base.clone())
                .collect(),
        };
        let mut candidates = Vec::new();
        for root in roots {
            match every_path_of(&root, word) {
                Some(paths) => candidates.extend(paths),
                None => too_many = Some(word.clone()),
            }
        }
        for path in candidates {
            // `sh tools/guard`: an interpreter's script, whatever its name.
            // A glob's match an interpreter may be given by a name
            // (`for f in tools/*; do sh "$f"`): any file (round 51).
            let globbed = runs_a_name && word.contains(['*', '?', '[']);
            let script = is_script(&path, word)
                || ((*after_interpreter || feeds || globbed) && path.is_file());
            if script && !scripts.contains(&path) && !is_system(&path) {
                scripts.push(super::super::normalize(&path));
            }
        }
    }
    let too_many = too_many.map(|word| {
        format!(
            "its glob `{word}` matches more than {} files, too many to bind",
            crate::binding::globbing::MAX_MATCHED
        )
    });
    (scripts, too_many)
}

/// Each spelling of the words of `raw` (a command or script run in
/// `cwd`; its first `max_words` words) as the shell may read it, and
/// whether an interpreter's word came before it.
fn spellings(raw: &str, cwd: &Path, max_words: usize) -> Vec<(String, bool)> {
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z0-9_./~${}@%+,=:?*\[\]#^!-]+").expect("valid regex"));
    let home = hermes_hooks_core::home::user_home();
    // `"$(pwd)"/tools/g.sh`: the folder it runs in (R44-13).
    static PWD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\(\s*pwd(?:\s+-[LP]+)*\s*\)|`\s*pwd(?:\s+-[LP]+)*\s*`").expect("valid regex")
    });
    let raw = PWD.replace_all(raw, "$${PWD}");
    let raw = raw.as_ref();
    // Quotes and backslashes out: `\"$CLAUDE_PROJECT_DIR\"/tools/g.sh` is
    // one word (red team round 37).
    // `$'tools/g\x2esh'` as the shell reads it (R38-1), at each depth of
    // double quotes (`bash -c "sh \$'tools/g\\x2esh'"`).
    let unquoted: String = read_at_each_depth(raw)
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\' | '`'))
        .collect();
    // Each spelling, and whether an interpreter's word came before it.
    let mut words: Vec<(String, bool)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut after_interpreter = false;
    // `f=TOOLS/G.SH; sh ${f,,}`: what the text assigns (R38-1), the first
    // value of each name.
    let mut assigned: HashMap<&str, &str> = HashMap::new();
    for (name, value) in WORD
        .find_iter(&unquoted)
        .take(max_words)
        .filter_map(|word| word.as_str().split_once('='))
        .filter(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
    {
        assigned.entry(name).or_insert(value);
    }
    // `set -- tools; sh $1/g.sh`: the positional parameters it sets
    // (round 51, z52).
    static SET: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\bset\s+--\s+([^;&|\n]+)").expect("valid regex"));
    const POSITIONS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
    if let Some(found) = SET.captures(&unquoted).and_then(|found| found.get(1)) {
        for (at, word) in found.as_str().split_whitespace().take(9).enumerate() {
            assigned.entry(POSITIONS[at]).or_insert(word);
        }
    }
    // `for d in tools; do sh $d/*`: a loop's name holds its first word
    // (red team round 49, i11).
    static LOOP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s+([^\s;]+)").expect("valid regex")
    });
    for found in LOOP.captures_iter(&unquoted) {
        if let (Some(name), Some(value)) = (found.get(1), found.get(2)) {
            assigned.entry(name.as_str()).or_insert(value.as_str());
        }
    }
    // `BASH_ENV=tools/g.sh bash -c :`: an assignment's value is a word too
    // (R42-2).
    let values = WORD
        .find_iter(&unquoted)
        .take(max_words)
        .filter_map(|word| word.as_str().split_once('=').map(|(_, value)| value));
    for word in WORD
        .find_iter(&unquoted)
        .take(max_words)
        .map(|w| w.as_str())
        .chain(values)
        // `PATH="$PWD/zz:$PATH"`: each entry of a `:` list too (R43-10);
        // each item of a code's list (`["sh", "tools/g.sh"]` read as
        // `[sh,` and `tools/g.sh]`: round 51, e34).
        .flat_map(|word| {
            std::iter::once(word)
                .chain(list_entries(word))
                .chain(list_items(word))
        })
        // `silent !tools/x`, `:!tools/x`: the path after vim's, ed's or
        // gdb's `!` is run by a shell (red team round 61, U-47).
        .flat_map(|word| std::iter::once(word).chain(after_bang(word)))
    {
        let spellings = expanded(word, home.as_deref(), cwd, &assigned);
        // Brace lists as bash expands them, bounded (a word of forty
        // `{a,b}` is globs, not 2^40 words: red team R39-3).
        let braced = spellings.iter().flat_map(|spelling| {
            crate::binding::mentions::brace_expanded(spelling)
                .unwrap_or_else(|| vec![spelling.clone()])
        });
        for spelling in braced {
            if !spelling.is_empty() && !spelling.contains('$') && seen.insert(spelling.clone()) {
                words.push((spelling, after_interpreter));
            }
        }
        let program = super::base_name(word);
        after_interpreter =
            super::INTERPRETERS.contains(&program.as_str()) || matches!(word, "." | "source");
    }
    words
}

/// What follows the `!`s `word` starts with (`!tools/x`), if anything
/// does and it is no glob's `[!…]`.
fn after_bang(word: &str) -> Option<&str> {
    let rest = word.trim_start_matches('!');
    (rest.len() < word.len() && !rest.is_empty()).then_some(rest)
}

/// The items of a code's list or call in `word` (`tools/g.sh]`, `[a,b]`),
/// brackets and commas aside; none when it has none.
fn list_items(word: &str) -> Vec<&str> {
    if !word.contains([',', '[', ']']) || word.contains("[!") {
        return Vec::new();
    }
    word.split(',')
        .map(|item| item.trim_matches(['[', ']']))
        .filter(|item| !item.is_empty() && *item != word)
        .collect()
}

/// The entries of a `:` list in `word` (`PATH=$PWD/zz:$PATH`), split
/// outside `${…}` (`${D:-$PWD}/zz:…`: R44-13); none without a `:`.
fn list_entries(word: &str) -> Vec<&str> {
    let entries = super::split_outside_parameters(word, b':');
    match entries.len() {
        1 => Vec::new(),
        _ => entries,
    }
}

/// `raw` with its `$'…'` read, then again with one level of backslashes
/// inside double quotes taken out (`\\` → `\`, `\$` → `$`), up to
/// [`super::MAX_STRING_DEPTH`] levels, one reading per line.
fn read_at_each_depth(raw: &str) -> String {
    let mut text = raw.to_owned();
    let mut readings = crate::ansi_quotes::with_ansi_quotes_read(&text);
    for _ in 0..super::MAX_STRING_DEPTH {
        let mut next = String::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\\', Some(&e)) if matches!(e, '\\' | '$' | '"' | '`') => {
                    next.push(e);
                    chars.next();
                }
                _ => next.push(c),
            }
        }
        if next == text {
            break;
        }
        readings.push('\n');
        readings.push_str(&crate::ansi_quotes::with_ansi_quotes_read(&next));
        text = next;
    }
    readings
}

/// [`paths_of`], every match of a glob; `None` past
/// [`crate::binding::globbing::MAX_MATCHED`].
fn every_path_of(base: &Path, word: &str) -> Option<Vec<PathBuf>> {
    match word.contains(['*', '?', '[']) {
        true => crate::binding::globbing::every_match(base, word.trim_start_matches('/')),
        false => Some(vec![base.join(word)]),
    }
}

/// The paths `word` names from `base`: what it matches when it is a glob
/// (`tools/g.s?`, `t*ls/g.sh`: red team R38-1).
fn paths_of(base: &Path, word: &str) -> Vec<PathBuf> {
    match word.contains(['*', '?', '[']) {
        true => super::super::globbing::glob_matches(base, word.trim_start_matches('/')),
        false => vec![base.join(word)],
    }
}

/// Whether `path` is a file a shell may run: it ends like a script, or it
/// may be executed and is named with a `/`.
fn is_script(path: &Path, word: &str) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let ends_like_a_script = |name: &str| {
        let lower = name.to_ascii_lowercase();
        crate::script::SCRIPT_EXTENSIONS
            .iter()
            .any(|ext| lower.ends_with(ext))
    };
    // A glob (`tools/*`, `tools/g*`, `tools/*.s?`): each file it matches
    // by its own name (red team round 49: only `*.sh` was read).
    let glob = word.contains(['*', '?', '[']);
    let name = path.file_name().map(|name| name.to_string_lossy());
    ends_like_a_script(word)
        || (glob && name.is_some_and(|name| ends_like_a_script(&name)))
        || (word.contains('/') && meta.permissions().mode() & 0o111 != 0)
}

/// Whether `raw` pipes text into an interpreter that reads its code from
/// its input (`cat tools/*.txt | python3 -`, `| perl`, `| node`, `| sh -s`:
/// red team round 49, e22–e24): every file it names may be that code.
fn feeds_an_interpreter(raw: &str) -> bool {
    static FEEDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\|&?\s*(?:\S*/)?(?:python[0-9.]*|perl|node|ruby|php|sh|bash|dash|zsh|ksh|tclsh|lua)(?:\s+-[A-Za-z]+)*(?:\s+-)?\s*(?:$|[;&|)\n])",
        )
        .expect("valid regex")
    });
    FEEDS.is_match(raw)
}

/// Whether `raw` gives an interpreter, `.` or `source` a file by a
/// variable (`sh "$f"`, `. "$x"`, `python3 $f`).
fn runs_a_variable(raw: &str) -> bool {
    static RUNS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s;&|(])(?:\S*/)?(?:sh|bash|dash|zsh|ksh|python[0-9.]*|perl|node|ruby|php|source|\.)(?:\s+-\S+)*\s+["']?\$"#)
            .expect("valid regex")
    });
    RUNS.is_match(raw)
}

/// The system's own files, never a command's code to bind by name.
fn is_system(path: &Path) -> bool {
    [
        "/proc", "/sys", "/dev", "/usr", "/bin", "/sbin", "/lib", "/etc",
    ]
    .iter()
    .any(|system| path.starts_with(system))
}

#[cfg(test)]
mod tests;
