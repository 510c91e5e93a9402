//! `HERMES_HOME` resolution and the environment switches every mechanism reads.

use std::path::PathBuf;

/// The Hermes home: `explicit` if given, else `$HERMES_HOME`, else `~/.hermes`.
pub fn resolve_home(explicit: Option<PathBuf>) -> PathBuf {
    explicit
        .or_else(|| {
            std::env::var_os("HERMES_HOME")
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| home_dir().join(".hermes"))
}

/// The user's home directory (`$HOME`, else the current directory).
pub fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Expands a leading `~/` (or a lone `~`) to the user's home directory.
pub fn expand_tilde(text: &str) -> String {
    if text == "~" {
        home_dir().to_string_lossy().into_owned()
    } else if let Some(rest) = text.strip_prefix("~/") {
        home_dir().join(rest).to_string_lossy().into_owned()
    } else {
        text.to_owned()
    }
}

/// Whether a switch's text is one of `1, true, yes, on` (trimmed, any case).
pub fn is_truthy_text(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// Whether the environment variable `name` is set to a truthy value.
pub fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| is_truthy_text(&value))
}

/// Whether `HERMES_SAFE_MODE` is on: no plugin, shell hook or webhook is registered.
pub fn safe_mode() -> bool {
    env_flag("HERMES_SAFE_MODE")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthy_text_matrix() {
        for yes in ["1", "true", "TRUE", "  yes ", "On"] {
            assert!(is_truthy_text(yes), "{yes}");
        }
        for no in ["0", "false", "no", "off", "", "2", "y"] {
            assert!(!is_truthy_text(no), "{no}");
        }
    }

    #[test]
    fn explicit_home_wins() {
        assert_eq!(resolve_home(Some("/x".into())), PathBuf::from("/x"));
    }

    #[test]
    fn tilde_expands_only_at_the_start() {
        assert!(!expand_tilde("~/a").starts_with('~'));
        assert_eq!(expand_tilde("a/~/b"), "a/~/b");
        assert_eq!(expand_tilde("~user/x"), "~user/x");
    }
}
