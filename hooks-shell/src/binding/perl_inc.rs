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

use regex::Regex;

use super::BindError;
use super::python_shadows::{bound_digest, entries_where, file_names, with_project};

/// Binds in `mentioned` what may stand in for a module of the system's
/// Perl library in each project folder `subject`'s Perl may put first
/// (`named`: the files its code names).
pub(super) fn bind(
    subject: &super::Subject,
    found: &super::Identified,
    named: &[PathBuf],
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let words = subject.words.as_deref().unwrap_or_default();
    let words = with_project(words, project, &subject.cwd);
    // Files it runs are read for `perl`; those its code names only by their
    // ending (reading them all on every run would cost what approving did).
    let run = found.files.iter().filter(|file| is_perl(file));
    let code: Vec<&PathBuf> = run.chain(named.iter().filter(|f| perl_ending(f))).collect();
    let runs = words.iter().any(|word| {
        word.split(['/', ' ', ';', '&', '|'])
            .any(|part| part == "perl")
    }) || !code.is_empty()
        || found.files.iter().any(|file| file_names(file, b"perl"));
    if !runs {
        return Ok(());
    }
    let script_folder = found.code.as_ref().and_then(|code| code.path.parent());
    let mut folders: Vec<PathBuf> = Vec::new();
    // Modules `-M` loads from those folders (`perl -I. -MDbg`: R23-5).
    let mut loaded: BTreeSet<String> = BTreeSet::new();
    let tokens: Vec<&str> = words
        .iter()
        .flat_map(|word| word.split([' ', '\t', ';', '&', '|']))
        .map(|token| token.trim_matches(['"', '\'']))
        .filter(|token| !token.is_empty())
        .collect();
    let mut tokens = tokens;
    // A Perl file's `#!` line's switches (`#!/usr/bin/perl -Ilib`: R24-6).
    let firsts: Vec<String> = code.iter().filter_map(|file| hash_bang(file)).collect();
    tokens.extend(firsts.iter().flat_map(|line| line.split_whitespace()));
    for (at, token) in tokens.iter().enumerate() {
        // `PERL5OPT=-Ilib` holds switches (R23-4).
        let token = token.strip_prefix("PERL5OPT=").unwrap_or(token);
        // Switches may be clustered: `-wIlib`, `-wMlib=lib` (R24-5).
        let switch = token
            .strip_prefix('-')
            .filter(|rest| !rest.starts_with('-'))
            .map(|rest| rest.trim_start_matches(|c: char| "wWXTtsnpacSUu".contains(c)));
        match switch.and_then(|rest| rest.strip_prefix('I')) {
            Some("") => folders.extend(tokens.get(at + 1).map(|dir| subject.cwd.join(dir))),
            Some(dir) => folders.push(subject.cwd.join(dir)),
            None => {}
        }
        if let Some(module) = switch.and_then(|rest| rest.strip_prefix(['M', 'm'])) {
            match module.strip_prefix("lib=") {
                // `-Mlib=lib,vendor`: `use lib` (R23-4).
                Some(dirs) => folders.extend(dirs.split(',').map(|dir| subject.cwd.join(dir))),
                None => {
                    let module = module.split(['=', ' ']).next().unwrap_or_default();
                    loaded.insert(format!("{}.pm", module.replace("::", "/")));
                }
            }
        }
        let list = token
            .strip_prefix("PERL5LIB=")
            .or_else(|| token.strip_prefix("PERLLIB="));
        if let Some(list) = list {
            folders.extend(list.split(':').map(|dir| subject.cwd.join(dir)));
        }
    }
    for file in &code {
        let Some(text) = small_text(file) else {
            continue;
        };
        for dir in use_lib(&text) {
            let dir = dir.replace("$FindBin::RealBin", "$FindBin::Bin").replace(
                "$FindBin::Bin",
                &script_folder.unwrap_or(&subject.cwd).display().to_string(),
            );
            folders.push(subject.cwd.join(dir));
        }
    }
    let mut seen = BTreeSet::new();
    for folder in folders {
        let folder = super::normalize(&folder);
        if folder.starts_with(project) && seen.insert(folder.clone()) {
            let mut found = standing_in(&folder)?;
            for module in &loaded {
                let path = folder.join(module);
                if !found.iter().any(|(_, bound)| *bound == path) {
                    found.push((module.clone(), path));
                }
            }
            let (key, digest) = bound_digest(&folder, found, PERL_KEY)?;
            mentioned.insert(key, digest);
        }
    }
    Ok(())
}

/// The first MiB of the regular file at `path` as text; never a FIFO or a
/// device (a `conf.pl` made a FIFO hung every `emit`: R24-4).
fn small_text(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = hermes_hooks_core::regular_file::open_regular(path).ok()?;
    let mut text = Vec::new();
    file.take(1 << 20).read_to_end(&mut text).ok()?;
    Some(String::from_utf8_lossy(&text).into_owned())
}

/// The switches of the `#!` line of the Perl file at `path`.
fn hash_bang(path: &Path) -> Option<String> {
    let text = small_text(path)?;
    let line = text.lines().next()?.strip_prefix("#!")?;
    let at = line.find("perl")?;
    Some(line[at..].split_once(char::is_whitespace)?.1.to_owned())
}

/// What the digest is named for.
const PERL_KEY: &str = "Perl modules standing in for installed ones";

/// Whether the file at `path` is Perl, by its ending or its `#!` line.
fn is_perl(path: &Path) -> bool {
    perl_ending(path) || file_names(path, b"#!/usr/bin/perl") || file_names(path, b"env perl")
}

fn perl_ending(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "pl" || e == "pm" || e == "t")
}

/// The folders `use lib` lines of `text` name (`use lib "lib";`,
/// `use lib qw(. vendor);`, `unshift @INC, "lib";`), as written.
fn use_lib(text: &str) -> Vec<String> {
    static USE_LIB: LazyLock<Regex> = LazyLock::new(|| {
        // `use lib "lib";`, `unshift @INC, "lib";` / `push @INC, …` (R23-4),
        // `use if …, lib => "lib"`, `@INC = ("lib", @INC)`, `lib->import("lib")`,
        // `splice @INC, 0, 0, "lib"` (R24-7).
        Regex::new(concat!(
            r"(?:\buse\s+lib|\b(?:unshift|push)\s*\(?\s*@INC\s*,|\blib\s*=>",
            r"|@INC\s*=\s*\(|\blib\s*->\s*import\s*\(",
            r"|\bsplice\s*\(?\s*@INC\s*,\s*[0-9]+\s*,\s*[0-9]+\s*,)\s*([^;]*);"
        ))
        .expect("valid regex")
    });
    USE_LIB
        .captures_iter(text)
        .flat_map(|found| {
            let list = found[1].trim();
            let list = list.strip_prefix("qw").unwrap_or(list).trim();
            let list = list.trim_matches(|c: char| "()[]{}<>/".contains(c));
            list.split(|c: char| c.is_whitespace() || ",'\"".contains(c))
                .filter(|word| !word.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The entries of `folder` named as a module of the system's Perl library
/// (`Carp.pm`, `File/`).
fn standing_in(folder: &Path) -> Result<Vec<(String, PathBuf)>, BindError> {
    entries_where(folder, |name, _| INSTALLED.contains(name))
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
    fn a_fifo_or_a_device_is_never_read() {
        let folder = tempfile::tempdir().expect("folder");
        let fifo = folder.path().join("conf.pl");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
        assert_eq!(small_text(&fifo), None);
        assert_eq!(small_text(Path::new("/dev/zero")), None);
        let script = folder.path().join("check.pl");
        std::fs::write(&script, "#!/usr/bin/perl -w -Ilib\n").expect("script");
        assert_eq!(hash_bang(&script).as_deref(), Some("-w -Ilib"));
    }

    #[test]
    fn use_lib_lines_name_their_folders() {
        let text = "use strict;\nuse lib \"lib\";\nuse lib qw(. vendor);\n\
                    use lib '$FindBin::Bin/x';\nBEGIN { unshift @INC, \"inc\"; }\n\
                    use if 1, lib => \"a\";\nBEGIN { splice @INC, 0, 0, \"b\"; }\n";
        assert_eq!(
            use_lib(text),
            ["lib", ".", "vendor", "$FindBin::Bin/x", "inc", "a", "b"]
        );
    }
}
