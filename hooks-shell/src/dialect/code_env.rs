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
    "NLSPATH",
    "LOCPATH",
    "HOSTALIASES",
    "TMPDIR",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
    "HERMES_HOME",
    "GOROOT",
    "GOTOOLCHAIN",
];

/// Name prefixes of families that steer code loading (dynamic linkers,
/// language runtimes, package managers, git, XDG folders).
const PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "NODE_",
    "NPM_",
    "npm_",
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
    "RUSTC",
    "RUSTUP",
    "JAVA",
    "MAVEN",
    "GRADLE",
    "DOTNET_",
    "BASH_",
];

/// Name endings that commonly name code or options a program obeys.
const SUFFIXES: &[&str] = &[
    "PATH", "_HOME", "_OPTIONS", "_OPTS", "_FLAGS", "_PRELOAD", "_INIT", "LIB",
];

/// Whether `name` steers which code a program loads or runs.
pub(super) fn steers_code(name: &str) -> bool {
    NAMES.contains(&name)
        || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::steers_code;

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
