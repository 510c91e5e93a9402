//! Perl's library folders in the project (red team round 22, R22b-9): `perl
//! -I.`, `-Ilib`, `PERL5LIB=lib` or `use lib "."` put a project folder
//! before the system's library, so a `Carp.pm` added there after the
//! approval stands in for the `Carp` that `File::Temp` loads, inside the
//! approved hook, though its code names neither. What such a folder holds
//! under the name of a module of the system's Perl library (`Carp.pm`, a
//! `File/` folder) is bound as one digest, as Python's are
//! ([`super::python_shadows`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use super::BindError;
use super::peek::{self, small_text};
use super::python_shadows::{Split, bound_digest, entries_where};
use super::search_path::{self, Spoken};

/// Binds in `mentioned` what may stand in for a module in each project
/// folder `subject`'s Perl may put first (`named`: the files its code
/// names): `-I`, `-Mlib=`, `PERL5LIB`, `PERLLIB`, `PERL5OPT` in its command,
/// a shell file it runs (R25a-3) or a `#!` line (R24-6, R25b-6), from the
/// folder it runs in and each it `cd`s into (R25a-7), and each quoted word
/// of code that changes `@INC` (R24-7, R25a-4, R25a-5).
pub(super) fn bind(
    subject: &super::Subject,
    found: &super::Identified,
    named: &[PathBuf],
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let cwd = subject.cwd.as_path();
    let raw = subject.words.as_deref().unwrap_or_default();
    let words = search_path::with_project(raw, project, cwd);
    // Files it runs are read for `perl`; those its code names only by their
    // ending (reading them all on every run would cost what approving did).
    // A named file without an ending whose `#!` line runs Perl is Perl code
    // too (`run.sh` → `exec ./tool`: R24-2).
    let run = found.files.iter().filter(|file| is_perl(file));
    let named_perl = |file: &&PathBuf| {
        perl_ending(file) || peek::no_ending(file) && peek::runs_under(file, "perl")
    };
    let mut code: Vec<&PathBuf> = run.chain(named.iter().filter(named_perl)).collect();
    let runs = words.iter().any(|word| {
        word.split(['/', ' ', ';', '&', '|'])
            .any(|part| part == "perl")
    }) || !code.is_empty()
        || found
            .files
            .iter()
            .any(|file| peek::file_names(file, b"perl"));
    if !runs {
        return Ok(());
    }
    // What Perl code loads by a file name, whatever its ending or none
    // (`require "./conf.inc"`, `do "settings"`), may hold `use lib` too (R24-2).
    let texts = code.iter().filter_map(|file| small_text(file));
    let loads: Vec<String> = texts.flat_map(|text| loaded_files(&text)).collect();
    let loaded = |file: &&PathBuf| {
        let name = file.file_name();
        loads.iter().any(|load| Path::new(load).file_name() == name)
    };
    for file in named
        .iter()
        .filter(|file| peek::no_ending(file) || loaded(file))
    {
        if !code.contains(&file) {
            code.push(file);
        }
    }
    // A launcher in another language that runs Perl (`PERL5LIB: "inc"` in
    // Node code: R26-8) is read for folders too.
    for file in found.files.iter().filter(|f| peek::file_names(f, b"perl")) {
        if !code.contains(&file) {
            code.push(file);
        }
    }
    let files: Vec<&PathBuf> = found.files.iter().chain(named).collect();
    // With what the user's code starts (`["perl", "-Itools", "-MX"]`:
    // round 55, c25), read as the command's own words.
    let mut command = vec![subject.command.clone(), raw.join(" ")];
    let outside = found.files.iter().filter(|file| !file.starts_with(project));
    command.extend(outside.flat_map(|file| crate::binding::identify::started_by_file(file)));
    let mut spoken = Spoken::new(&command, &files, cwd, project);
    for file in &code {
        if let Some(line) = peek::hash_bang(file).filter(|line| line.contains("perl")) {
            let folder = file.parent().map(Path::to_path_buf);
            let tokens = line
                .split_whitespace()
                .map(|t| (t.to_owned(), folder.clone()));
            spoken.tokens.extend(tokens);
        }
    }
    let mut bases = vec![cwd.to_path_buf()];
    if let Some(setting) = spoken.unknown_settings() {
        return Err(BindError::UnknownFolder(setting));
    }
    let (moved, unknown) = spoken.cd_targets(cwd, project);
    bases.extend(moved);
    let script_folder = found.code.as_ref().and_then(|code| code.path.parent());
    let (folders, loaded, relative) = switches(&spoken, &bases, project)?;
    let mut folders = folders;
    // Perl searches the folder it runs in only when told to (`-I.`, a
    // relative `use lib`): only then does an unknown `cd` matter (R26-12).
    let mut relative = relative;
    let texts = code
        .iter()
        .filter_map(|file| small_text(file))
        .chain(std::iter::once(raw.join(" ")));
    for text in texts {
        for dir in search_path::literal_folders(&text) {
            let dir = dir.replace("$FindBin::RealBin", "$FindBin::Bin").replace(
                "$FindBin::Bin",
                &script_folder.unwrap_or(cwd).display().to_string(),
            );
            relative |= !dir.starts_with('/');
            folders.extend(bases.iter().map(|base| base.join(&dir)));
        }
    }
    if let Some(target) = unknown.filter(|_| relative) {
        return Err(BindError::UnknownFolder(target));
    }
    let mut seen = BTreeSet::new();
    for folder in folders {
        let folder = super::normalize(&folder);
        if folder.starts_with(project) && seen.insert(folder.clone()) {
            let (mut whole, by_name) = standing_in(&folder)?;
            for module in &loaded {
                let path = folder.join(module);
                if !whole.iter().any(|(_, bound)| *bound == path) {
                    whole.push((module.clone(), path));
                }
            }
            let (key, digest) = bound_digest(&folder, whole, &by_name, PERL_KEY)?;
            mentioned.insert(key, digest);
        }
    }
    for folder in spoken.copied_from(&["PERL5LIB", "PERLLIB"], cwd, project)? {
        let digest = super::tree_sha256(std::slice::from_ref(&folder))?;
        let key = super::python_shadows::COPIED_KEY;
        mentioned.insert(folder.join(format!("<{key}>")), digest);
    }
    Ok(())
}

/// The folders Perl's switches and variables in `spoken` put first (each
/// relative one from every folder of `bases`), the module files `-M` loads
/// from them (`perl -I. -MDbg`: R23-5; its `.pmc` first: R25a-2), and
/// whether one is written relative to the folder it runs in.
fn switches(
    spoken: &Spoken,
    bases: &[PathBuf],
    project: &Path,
) -> Result<(Vec<PathBuf>, BTreeSet<String>, bool), BindError> {
    let mut folders = Vec::new();
    let mut loaded = BTreeSet::new();
    let relative = std::cell::Cell::new(false);
    let add = |folders: &mut Vec<PathBuf>, dir: &str, own: &str, in_file: Option<&Path>| {
        relative.set(relative.get() || dir.split(':').any(|d| !d.starts_with(['/', '$', '~'])));
        for base in bases {
            folders.extend(spoken.folder(dir, own, base, project, in_file)?);
        }
        Ok::<(), BindError>(())
    };
    let tokens = &spoken.tokens;
    for (at, (token, in_file)) in tokens.iter().enumerate() {
        let in_file = in_file.as_deref();
        // `PERL5OPT=-Ilib` holds switches (R23-4).
        let token = token.strip_prefix("PERL5OPT=").unwrap_or(token);
        // Switches may be clustered: `-wIlib`, `-wMlib=lib` (R24-5).
        let switch = token
            .strip_prefix('-')
            .filter(|rest| !rest.starts_with('-'))
            .map(|rest| rest.trim_start_matches(|c: char| "wWXTtsnpacSUu".contains(c)));
        match switch.and_then(|rest| rest.strip_prefix('I')) {
            Some("") => {
                if let Some((dir, _)) = tokens.get(at + 1) {
                    add(&mut folders, dir, "", in_file)?;
                }
            }
            Some(dir) => add(&mut folders, dir, "", in_file)?,
            None => {}
        }
        if let Some(module) = switch.and_then(|rest| rest.strip_prefix(['M', 'm'])) {
            match module.strip_prefix("lib=") {
                // `-Mlib=lib,vendor`: `use lib` (R23-4).
                Some(dirs) => {
                    for dir in dirs.split(',') {
                        add(&mut folders, dir, "", in_file)?;
                    }
                }
                None => {
                    let module = module.split(['=', ' ']).next().unwrap_or_default();
                    let file = module.replace("::", "/");
                    loaded.extend([format!("{file}.pm"), format!("{file}.pmc")]);
                }
            }
        }
    }
    for name in ["PERL5LIB", "PERLLIB"] {
        for (value, in_file) in spoken.assigned(name) {
            add(&mut folders, value, name, in_file)?;
        }
    }
    Ok((folders, loaded, relative.get()))
}

/// The files Perl code `text` loads by name (`require "./conf.inc"`,
/// `do 'settings'`).
fn loaded_files(text: &str) -> Vec<String> {
    static LOADS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"\b(?:require|do)\s*\(?\s*["']([^"'\n]+)["']"#).expect("valid regex")
    });
    LOADS
        .captures_iter(text)
        .map(|found| found[1].to_owned())
        .collect()
}

/// What the digest is named for.
const PERL_KEY: &str = "Perl modules standing in for installed ones";

/// Whether the file at `path` is Perl, by its ending or its `#!` line.
fn is_perl(path: &Path) -> bool {
    perl_ending(path) || peek::runs_under(path, "perl")
}

fn perl_ending(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "pl" || e == "pm" || e == "t")
}

/// What of `folder` Perl may load: every module or Perl file (`Carp.pm`,
/// `Carp.pmc`, which `require` takes first: R25a-2, `Log.pm`) and folders
/// named as ones of the system's library (bound whole); the other folders
/// (bound by name: a `Log/Agent.pm` that `Storable` tries, R25a-1).
fn standing_in(folder: &Path) -> Result<Split, BindError> {
    let entries = entries_where(folder, |name, path| {
        let perl_file = [".pm", ".pmc", ".pl", ".so"]
            .iter()
            .any(|end| name.ends_with(end));
        perl_file && !path.is_dir() || path.is_dir() && !name.starts_with('.')
    })?;
    let (mut whole, mut by_name) = (Vec::new(), Vec::new());
    for (name, path) in entries {
        if !path.is_dir() || INSTALLED.contains(&name) {
            whole.push((name, path));
        } else {
            by_name.push(path);
        }
    }
    Ok((whole, by_name))
}

/// The top-level entries of the system's Perl library folders (`Carp.pm`,
/// `File`, `Exporter.pm`…), read once.
static INSTALLED: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    let mut names = BTreeSet::new();
    for folder in LIBRARY_FOLDERS.iter().flat_map(|pattern| expand(pattern)) {
        let Ok(listing) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in listing.flatten().take(20_000) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let module = name.ends_with(".pm") || entry.path().is_dir();
            if module && name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
                names.insert(name);
            }
        }
    }
    names
});

/// Where Debian-like and other systems keep Perl's library (`*`: any one
/// folder), as `perl -V` lists `@INC`.
const LIBRARY_FOLDERS: &[&str] = &[
    "/etc/perl",
    "/usr/share/perl5",
    "/usr/share/perl/*",
    "/usr/lib/*/perl/*",
    "/usr/lib/*/perl5/*",
    "/usr/lib/*/perl-base",
    "/usr/lib64/perl5",
    "/usr/share/perl5/vendor_perl",
    "/usr/lib64/perl5/vendor_perl",
    "/usr/local/share/perl/*",
    "/usr/local/lib/*/perl/*",
    "/usr/local/lib/site_perl",
    "/usr/local/share/perl5",
    "/usr/local/lib64/perl5",
];

/// The folders `pattern` names, each `*` part any one folder there.
fn expand(pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::from("/")];
    for part in pattern.split('/').filter(|part| !part.is_empty()) {
        found = found
            .iter()
            .flat_map(|folder| match part {
                "*" => std::fs::read_dir(folder)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .take(1_000)
                    .map(|entry| entry.path())
                    .filter(|path| path.is_dir())
                    .collect(),
                _ => vec![folder.join(part)],
            })
            .collect();
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_systems_library_is_found_where_perl_keeps_it() {
        if std::path::Path::new("/usr/bin/perl").exists() {
            assert!(INSTALLED.contains("Carp.pm"), "{:?}", *INSTALLED);
        }
    }

    #[test]
    fn files_perl_loads_by_name_are_read() {
        let text = "BEGIN { require \"./conf.inc\"; }\ndo 'settings';\nrequire File::Temp;\n";
        assert_eq!(loaded_files(text), ["./conf.inc", "settings"]);
    }

    #[test]
    fn a_fifo_or_a_device_is_never_read() {
        let folder = tempfile::tempdir().expect("folder");
        let fifo = folder.path().join("conf.pl");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
        assert_eq!(small_text(&fifo), None);
        assert_eq!(small_text(Path::new("/dev/zero")), None);
    }
}
