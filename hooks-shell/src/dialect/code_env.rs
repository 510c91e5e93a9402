//! Variables that steer which code a process loads or runs: a project's
//! settings file may not set them for its hooks (red-team B1). An approval
//! binds the value's text, not the files it names, so `PATH=tools:...`,
//! `BASH_ENV=tools/env.sh`, `NODE_OPTIONS=--require ./x.js`,
//! `LD_PRELOAD=lib/x.so` or `HOME=vendor` would let a repository change the
//! code an approved hook runs without asking again. A user's own settings
//! file keeps them (docs/decisions/settings-env-reaches-its-own-files-hooks.md).

/// Exact names that steer code loading.
const NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "ENV",
    "BASH_ENV",
    "ZDOTDIR",
    "SHELL",
    "SHELLOPTS",
    "BASHOPTS",
    "IFS",
    "CDPATH",
    "PROMPT_COMMAND",
    "PS4",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "BROWSER",
    "CLASSPATH",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "GCONV_PATH",
    "OPENSSL_CONF",
    "OPENSSL_MODULES",
    "OPENSSL_ENGINES",
    "LESSOPEN",
    "LESSCLOSE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "GIT_ASKPASS",
    "NLSPATH",
    "LOCPATH",
    "HOSTALIASES",
    "TMPDIR",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
    "HERMES_HOME",
    "GOROOT",
    "GOTOOLCHAIN",
    // `-toolexec=./x`: a command go runs for every tool.
    "GOFLAGS",
    "GNUPGHOME",
    // The certificates a hook trusts: a project's would let it answer for a policy server.
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "AWS_CA_BUNDLE",
    "VIMINIT",
    "EXINIT",
    "WGETRC",
    "PSQLRC",
    "INPUTRC",
    "LESSKEY",
    "LESSKEYIN",
    "R_PROFILE",
    "R_PROFILE_USER",
    "R_ENVIRON",
    "R_ENVIRON_USER",
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "FC",
];

/// Name prefixes of families that steer code loading (dynamic linkers,
/// language runtimes, package managers, git, XDG folders).
const PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "NODE_",
    "NPM_",
    "YARN_",
    "PNPM_",
    "BUN_",
    "DENO_",
    "PYTHON",
    "PIP_",
    "VIRTUAL_ENV",
    "CONDA",
    "PERL",
    "RUBY",
    "GEM_",
    "BUNDLE",
    "XDG_",
    "GIT_",
    "LUA_",
    "TCL",
    "PHP",
    "CARGO",
    // `TOX_WORK_DIR=.tox`: environments a repository left there (round 72, R72-3b).
    "TOX",
    "NOX_",
    "RUSTC",
    "RUSTUP",
    "JAVA",
    "MAVEN",
    "GRADLE",
    "DOTNET_",
    "BASH_",
    "MAKE",
    "GNUMAKE",
    "MFLAGS",
    "JUST_",
    // Version managers' choices: `PYENV_VERSION=3.12/../../<p>/.py` runs
    // the project's `python3` through the user's shim (red team round 20, R20-2).
    "PYENV",
    "RBENV",
    "NODENV",
    "GOENV",
    "PLENV",
    "JENV",
    "ASDF_",
    "MISE_",
    "RTX_",
    "NVM_",
    "VOLTA_",
    "SDKMAN_",
];

/// Name endings that commonly name code or options a program obeys
/// (`MANPAGER`, `SUDO_EDITOR`, `RSYNC_RSH`: commands a program runs).
const SUFFIXES: &[&str] = &[
    "PATH", "_HOME", "_OPTIONS", "_OPTS", "_FLAGS", "_PRELOAD", "_INIT", "LIB", "PAGER", "EDITOR",
    "_RSH",
];

/// Whether `name` steers which code a program loads or runs, in any case:
/// npm reads `npm_config_*` case-insensitively (`Npm_Config_Userconfig`),
/// zsh ties `path` to `PATH` (red-team F14).
pub(crate) fn steers_code(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    NAMES.contains(&name.as_str())
        || PREFIXES
            .iter()
            .any(|prefix| name.starts_with(&prefix.to_ascii_uppercase()))
        || SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

/// The first word of `value` that names a path in `project` (relative
/// with a `/` or a leading `.`, or absolute and under the project; URLs
/// aside), whether or not it exists yet: a variable not on the lists above
/// may still make a program load it (`MAKEFILES=tools/x.mk`,
/// `OPENSSL_CONF=./ssl.cnf`), and an approval binds only the value's text.
pub(crate) fn names_project_path<'a>(value: &'a str, project: &std::path::Path) -> Option<&'a str> {
    path_words(value).find(|word| {
        let path = std::path::Path::new(word);
        if path.is_absolute() {
            path.starts_with(project)
        } else {
            word.starts_with('.') || word.contains('/')
        }
    })
}

/// The words of `value` that may name paths: split at blanks, `:`, `=`,
/// `,`, `;` and quotes, the rest of a URL after its scheme left out.
pub(crate) fn path_words(value: &str) -> impl Iterator<Item = &str> {
    let url = value.contains("://");
    value
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | '=' | ',' | ';' | '"' | '\''))
        .filter(move |word| !(word.is_empty() || url && word.starts_with("//")))
}

#[cfg(test)]
mod tests {
    use super::{names_project_path, steers_code};

    #[test]
    fn values_naming_a_project_path_are_found_and_data_is_not() {
        let project = std::path::Path::new("/work/repo");
        for value in [
            "tools/extra.mk",
            "./ssl.cnf",
            "--require ./x.js",
            "/work/repo/lib/x.so",
            "a:b:tools/bin",
            "..",
        ] {
            assert!(names_project_path(value, project).is_some(), "{value}");
        }
        for value in [
            "hello there",
            "3",
            "true",
            "https://api.example.com/v1",
            "/usr/lib/ssl/openssl.cnf",
            "en_US.UTF-8",
        ] {
            assert!(names_project_path(value, project).is_none(), "{value}");
        }
    }

    #[test]
    fn loaders_are_refused_and_plain_settings_kept() {
        for name in [
            "PATH",
            "BASH_ENV",
            "ENV",
            "ZDOTDIR",
            "NODE_OPTIONS",
            "NODE_PATH",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "PERL5OPT",
            "PERL5LIB",
            "RUBYOPT",
            "RUBYLIB",
            "HOME",
            "XDG_CONFIG_HOME",
            "GIT_SSH_COMMAND",
            "GIT_EXEC_PATH",
            "JAVA_TOOL_OPTIONS",
            "LUA_INIT",
            "MANPATH",
            "EDITOR",
            "Npm_Config_Userconfig",
            "npm_config_script_shell",
            "path",
            "MAKEFILES",
            "MAKEFLAGS",
            "CC",
            "PYENV_VERSION",
            "RBENV_VERSION",
            "ASDF_PYTHON_VERSION",
            "MISE_PYTHON_VERSION",
            "GOFLAGS",
            "MANPAGER",
            "SUDO_EDITOR",
            "RSYNC_RSH",
        ] {
            assert!(steers_code(name), "{name}");
        }
        for name in [
            "DEBUG",
            "API_URL",
            "MY_TOKEN",
            "GOOGLE_API_KEY",
            "LANG",
            "RUST_LOG",
            "NO_COLOR",
            "TZ",
        ] {
            assert!(!steers_code(name), "{name}");
        }
    }
}
