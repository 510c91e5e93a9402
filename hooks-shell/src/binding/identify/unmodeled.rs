//! Scripts in a language no reading models (Tcl, awk, gdb, vim, sed,
//! jshell, a `#!/usr/bin/make -sf` file): what they start, read from the
//! runners their text names, and refused when they build it (red team
//! rounds 59 and 60).

use std::path::Path;

use super::Identified;

/// Endings of scripts a program of another language than the shell reads
/// (`tclsh g.tcl`), even when executable without a `#!` line.
const FOREIGN_ENDINGS: [&str; 16] = [
    "tcl", "tk", "exp", "gdb", "vim", "sed", "jsh", "java", "lua", "r", "jl", "awk", "mk", "sql",
    "scm", "el",
];

/// Programs that read a file given them in a language no reading models.
const FOREIGN_PROGRAMS: [&str; 26] = [
    "tclsh", "wish", "expect", "awk", "gawk", "mawk", "nawk", "gdb", "vim", "vi", "nvim", "ex",
    "view", "sed", "jshell", "lua", "julia", "guile", "sqlite3", "ed", "red", "R", "Rscript",
    "psql", "mysql", "dc",
];

/// Whether `program` (a base name) reads the files it is given in a
/// language no reading models (round 61: `tclsh g`, `awk -f g.txt`).
pub(super) fn reads_foreign(program: &str) -> bool {
    FOREIGN_PROGRAMS.contains(&program)
}

/// Whether `file`'s ending says a program of another language reads it.
pub(super) fn foreign(file: &Path) -> bool {
    file.extension().is_some_and(|ending| {
        FOREIGN_ENDINGS.contains(&ending.to_string_lossy().to_ascii_lowercase().as_str())
    })
}

/// A script in a language no reading models (Tcl's `exec make`, awk's
/// `system("make")`, gdb's `shell make`, a `#!/usr/bin/make -sf` file):
/// the programs it names that run a folder's code, read as started there
/// (red team round 59).
pub(super) fn started(file: &Path, text: &str, cwd: &Path, found: &mut Identified) {
    // `[string cat ma ke]`, `\141`: what it starts cannot be read (round 60).
    if found.computed.is_none()
        && let Some(why) = crate::binding::shell::builds_what_it_starts(text)
    {
        found.computed = Some(format!("{} {why}", file.display()));
    }
    // sed's `s/X/a/e`: the pattern space it builds, run (round 61).
    if found.computed.is_none() && crate::binding::shell::sed_substitution_runs(text) {
        found.computed = Some(format!(
            "{} runs the text its sed substitution builds (its `e` flag)",
            file.display()
        ));
    }
    // `#!/usr/bin/make -sf`: a makefile, read as `make -f` reads it (its
    // includes, `$(MAKE) -C tools`: round 60).
    if super::language::shebang_program(text)
        .is_some_and(|program| super::base_name(&program) == "make")
        && let Ok(quoted) = shlex::try_quote(&file.to_string_lossy())
    {
        super::follow::definitions_run_by(&format!("make -f {quoted}"), cwd, found, (false, false));
    }
    let started: Vec<String> = crate::binding::shell::runners_named(text)
        .iter()
        .filter_map(|words| shlex::try_join(words.iter().map(String::as_str)).ok())
        .collect();
    if !started.is_empty() {
        super::follow::definitions_run_by(&started.join("\n"), cwd, found, (false, false));
    }
}
