//! Typed load warnings: which mechanism, which file, which key or field, and
//! what is wrong, instead of a line of text.

use std::fmt;
use std::path::{Path, PathBuf};

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_core::display::escape;

/// One problem met while loading a home. The rest keeps working: a warning
/// never stops the host.
///
/// `Display` gives the text the `hooks` command prints (file, then the
/// message), escaped for a terminal; the fields are the raw values.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Warning {
    /// What it concerns: `home`, `plugins`, `shell`, `imported`, `outbound`,
    /// `gateway`, `otlp`, or `host` (a mechanism this build leaves out).
    pub mechanism: &'static str,
    /// The file the problem is in (`config.yaml`, a `HOOK.yaml`, a plugin's
    /// manifest, ...), when there is one.
    pub file: Option<PathBuf>,
    /// The dotted config key or manifest field, e.g.
    /// `hooks.pre_tool_call[0].timeout`, when the problem is in one.
    pub key: Option<String>,
    /// What is wrong and what was done about it.
    pub message: String,
    /// The displayed text, escaped.
    text: String,
}

impl Warning {
    /// A warning about `key` of `file`; displayed as `<file>: <message>`.
    pub fn new(
        mechanism: &'static str,
        file: Option<&Path>,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> Warning {
        let message = message.into();
        let text = match file {
            Some(file) => format!("{}: {message}", file.display()),
            None => message.clone(),
        };
        Warning::with_text(mechanism, file, key, message, &text)
    }

    /// A warning with no file or key (e.g. about the environment).
    pub fn text(mechanism: &'static str, message: impl Into<String>) -> Warning {
        Warning::new(mechanism, None, None, message)
    }

    /// A config warning of `mechanism`, displayed as the mechanism crate displays it.
    pub fn from_config(mechanism: &'static str, warning: &ConfigWarning) -> Warning {
        let key = (!warning.key.is_empty()).then_some(warning.key.as_str());
        Warning::with_text(
            mechanism,
            Some(&warning.file),
            key,
            warning.message.clone(),
            &warning.to_string(),
        )
    }

    /// A warning whose text is already escaped for display (the home's own).
    pub(crate) fn escaped(mechanism: &'static str, text: &str) -> Warning {
        Warning {
            mechanism,
            file: None,
            key: None,
            message: text.to_owned(),
            text: text.to_owned(),
        }
    }

    pub(crate) fn with_text(
        mechanism: &'static str,
        file: Option<&Path>,
        key: Option<&str>,
        message: String,
        text: &str,
    ) -> Warning {
        Warning {
            mechanism,
            file: file.map(Path::to_path_buf),
            key: key.map(str::to_owned),
            message,
            text: escape(text).into_owned(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::Warning;
    use hermes_hooks_core::ConfigWarning;
    use std::path::Path;

    #[test]
    fn a_config_warning_keeps_file_key_and_message_and_displays_as_before() {
        let raw = ConfigWarning::new(
            "/h/config.yaml",
            "hooks.pre_tool_call[0].timeout",
            "not a number\u{1b}[31m",
        );
        let warning = Warning::from_config("shell", &raw);
        assert_eq!(warning.file.as_deref(), Some(Path::new("/h/config.yaml")));
        assert_eq!(
            warning.key.as_deref(),
            Some("hooks.pre_tool_call[0].timeout")
        );
        assert_eq!(warning.message, "not a number\u{1b}[31m", "raw value kept");
        let shown = warning.to_string();
        assert!(shown.starts_with("/h/config.yaml: not a number"), "{shown}");
        assert!(!shown.contains('\u{1b}'), "escaped for display: {shown}");
        assert_eq!(
            shown,
            hermes_hooks_core::display::escape(&raw.to_string()),
            "the text the CLI printed before"
        );
    }
}
