//! Which words of a host variable's value name a path in the project: as
//! a path (absolute, `./x`, climbing with `..`), as a shell may expand it,
//! or as a loader reads it (a file-naming variable's relative word, an
//! option's module, an empty `:` entry).

use std::path::Path;

use super::Project;

/// The word of `value` that names a path in `project`: absolute there (by
/// name or where links lead), or relative and spelled as a path (`./x`,
/// `../x`); a `file://` URL read as its path, other URLs left out (red team
/// round 13, R13-1: `TZ=Europe/Berlin`, `HTTPS_PROXY=http://proxy:3128/`
/// name no file of the project).
///
/// Words are read as written and as a shell reads them (quotes and
/// backslashes taken away: `/w""ork/p/x`, `/w\ork/p/x`); a word a shell
/// expands (`<p>${X}/x`, `/${HOME#/}/p/x`, `<d>/pro*ect/x`, `$(pwd)/x`) or
/// one climbing from a folder not known (`3.12/../../<p>/.py`) may lead
/// anywhere, the project included, and is taken as there (red team round
/// 20, R20-1, R20-2).
pub(super) fn named_word(value: &str, project: &Project) -> Option<String> {
    named_word_in(value, project, true)
}

/// The word of an exported function's body (`BASH_FUNC_module%%`) that
/// names a path in `project`: as [`named_word`], but its expansions are the
/// function's own work when it is called, as the user wrote it (red team
/// round 20, R20-4: Environment Modules' `module`, RHEL's `which`).
pub(super) fn function_body_word(body: &str, project: &Project) -> Option<String> {
    named_word_in(body, project, false)
}

fn named_word_in(value: &str, project: &Project, expansions: bool) -> Option<String> {
    let value = value.replace("file://", "");
    let written = value.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '"' | '\''));
    let read = shlex::split(&value).unwrap_or_default();
    let tokens = written
        .map(str::to_owned)
        .chain(read.into_iter().flat_map(|word| {
            let words: Vec<String> = word.split([',', ';']).map(str::to_owned).collect();
            words
        }));
    tokens
        .filter(|token| !token.contains("://"))
        .find_map(|token| {
            token
                .split([':', '='])
                .find(|word| names_the_project(word, project, expansions))
                .map(str::to_owned)
        })
}

/// Whether `word` (one part of a value) names a path in `project`, or may
/// once a shell expands it.
/// `expansions`: a word a shell expands is taken as the project's.
fn names_the_project(word: &str, project: &Project, expansions: bool) -> bool {
    let path = Path::new(word);
    let climbs = path
        .components()
        .any(|part| part == std::path::Component::ParentDir);
    let spelled = path.is_absolute() || word.starts_with("./") || climbs;
    let expands = word.contains(['$', '`']) && (word.contains('/') || word.starts_with(['$', '`']));
    let globbed = path.is_absolute() && glob_may_reach(word, project);
    expansions && (expands || globbed) || spelled && project.owns(path)
}

/// Whether the absolute glob `word` (`*?[{`) may match a path in the
/// project: its fixed part is a folder above the project or in it, or a
/// `..` follows the pattern (red team round 21, R21a-4:
/// `CLASSPATH=/usr/share/java/*` names no project file).
fn glob_may_reach(word: &str, project: &Project) -> bool {
    let Some(at) = word.find(['*', '?', '[', '{']) else {
        return false;
    };
    let fixed = Path::new(&word[..word[..at].rfind('/').map_or(0, |slash| slash + 1)]);
    let fixed = crate::binding::normalize(fixed);
    let above = |folder: &Path| folder.starts_with(&fixed);
    above(&project.folder)
        || project.real.as_deref().is_some_and(above)
        || project.owns(&fixed)
        || word[at..].contains("..")
}

/// The word of the code-loading variable `name`'s `value` that loads from
/// `project` (the folder a hook runs in, red team round 12, R12-1): what
/// [`named_word`] finds; any relative word of a variable that names files
/// or folders (`PERL5LIB=lib`, `OPENSSL_CONF=openssl.cnf`); an empty entry
/// of a `:` list (the working folder: `LD_LIBRARY_PATH=:/usr/lib`); a
/// module a loader option names (`NODE_OPTIONS="--import tsx"`: found in
/// the project's `node_modules`); an option's joined path (`-I<p>/lib`).
pub(super) fn loaded_word(name: &str, value: &str, project: &Project) -> Option<String> {
    if let Some(word) = named_word(value, project) {
        return Some(word);
    }
    let upper = name.to_ascii_uppercase();
    let names_files = names_files(name);
    let entries: Vec<&str> = value.split(':').collect();
    let empty_is_here = !DEFAULT_WHEN_EMPTY.contains(&upper.as_str());
    if names_files && empty_is_here && entries.len() > 1 && entries.iter().any(|e| e.is_empty()) {
        return Some("(an empty entry: the working folder)".to_owned());
    }
    // Empty words left out: `--require  x` is `--require x` (R18-4).
    let words: Vec<&str> = value
        .split(|c: char| c.is_whitespace() || c == '=' || c == ':')
        .filter(|word| !word.is_empty())
        .collect();
    for (at, word) in words.iter().enumerate() {
        // `~` and `~user` were read as homes (`with_home`): a `~` left is literal.
        let relative = !word.is_empty() && !word.starts_with(['/', '-']);
        let after_loader = at > 0 && LOADER_OPTIONS.contains(&words[at - 1]);
        if word.starts_with('/') && (names_files || after_loader) && project.owns(Path::new(word)) {
            return Some((*word).to_owned());
        }
        // `-Ilib`, `-I./lib`, `-I<p>/lib`: a folder whatever its spelling.
        let joined = word
            .strip_prefix("-I")
            .filter(|rest| !rest.is_empty())
            .or_else(|| {
                word.strip_prefix('-')
                    .and_then(|option| option.get(1..))
                    .filter(|rest| rest.starts_with('.') || rest.contains('/'))
            });
        if let Some(rest) = joined
            && (!rest.starts_with('/') || project.owns(Path::new(rest)))
        {
            return Some((*word).to_owned());
        }
        let number = word.chars().all(|c| c.is_ascii_digit() || c == '.');
        let default = *word == "." && DEFAULT_WHEN_EMPTY.contains(&upper.as_str());
        if relative && !number && !default && (after_loader || names_files && project.has(word)) {
            return Some((*word).to_owned());
        }
    }
    None
}

/// The relative word of variable `value` (one whose name says it names
/// files: `KUBECONFIG=.kube/config`, `AWS_CONFIG_FILE=awsconfig`) that names
/// something in the project, read as the tool that opens it reads it: no
/// shell expands it, so `{"paths":["/var/log/*.log"]}` names nothing
/// (red team round 21, R21a-3).
pub(super) fn settings_file_word(value: &str, project: &Project) -> Option<String> {
    value
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | ';' | '='))
        .map(|word| word.trim_matches(['"', '\'']))
        .find(|word| {
            !word.is_empty()
                && !word.starts_with(['/', '-'])
                && !word.contains("://")
                && project.holds(word)
        })
        .map(str::to_owned)
}

/// Whether variable `name`'s value names files or folders, by its name.
pub(super) fn names_files(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    FILE_ENDINGS.iter().any(|ending| upper.ends_with(ending))
        || FILE_NAMES.contains(&upper.as_str())
}

/// Endings of variable names whose values are files or folders.
const FILE_ENDINGS: &[&str] = &[
    "PATH", "LIB", "_CONF", "_CONFIG", "_FILE", "STARTUP", "USERBASE", "PREFIX", "_HOME",
    "_PRELOAD", "_INIT", "_MODULES", "_ENGINES", "_AUDIT", "_DIR", "_DIRS", "RC",
];

/// Variable names whose values are files or folders, beside those endings.
const FILE_NAMES: &[&str] = &[
    "ENV",
    "BASH_ENV",
    "ZDOTDIR",
    "LESSOPEN",
    "LESSCLOSE",
    "GIT_EXEC_PATH",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GNUPGHOME",
    "VIMINIT",
    "EXINIT",
    "LESSKEY",
    "LESSKEYIN",
    "R_PROFILE",
    "R_PROFILE_USER",
    "R_ENVIRON",
    "R_ENVIRON_USER",
    // Tools' settings files, read from the working folder when relative
    // (`KUBECONFIG` names exec plugins it runs: R21a-3).
    "KUBECONFIG",
    "BOTO_CONFIG",
];

/// Lists whose empty entry is the program's default folders, not the
/// working folder (`MANPATH=:~/.nvm/man`: red team round 20, R20-5).
const DEFAULT_WHEN_EMPTY: &[&str] = &[
    "MANPATH",
    "INFOPATH",
    "PKG_CONFIG_PATH",
    "TERMINFO_DIRS",
    "XDG_DATA_DIRS",
    "XDG_CONFIG_DIRS",
    "ACLOCAL_PATH",
    // `cd x` looks in the working folder first anyway (R22a-8).
    "CDPATH",
];

/// Options that make a runtime load the module or file after them.
const LOADER_OPTIONS: &[&str] = &[
    "--require",
    "-r",
    "--import",
    "--loader",
    "--experimental-loader",
    "--experimental-specifier-resolution",
    "-M",
    "-I",
    // Perl's `-Mlib=lib`: `use lib "lib"`.
    "-Mlib",
];
