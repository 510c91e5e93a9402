//! What a host tells a section function (and a plugin) about the session being started.
//!
//! Always compiled: the plugin SDK reads it without the `prompt` feature, so
//! a host and a plugin share one type. [`crate::prompt`] re-exports it.

use serde::{Deserialize, Serialize};

/// What a section function sees about the session being started. Functions
/// get a shared reference: they can read it and cannot change it. A field the
/// host leaves out reads as empty (hosts add fields as Hermes does).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The new session's id.
    pub session_id: String,
    /// The model the session talks to.
    pub model: String,
    /// The model provider.
    pub provider: String,
    /// The platform the session runs on (cli, telegram, ...).
    pub platform: String,
    /// The active Hermes profile (`default` when none).
    pub profile_name: String,
    /// The working directory the session's context comes from.
    pub cwd: String,
}

impl SessionInfo {
    /// Sets the new session's id.
    #[must_use]
    pub fn with_session_id(mut self, value: impl Into<String>) -> Self {
        self.session_id = value.into();
        self
    }

    /// Sets the model the session talks to.
    #[must_use]
    pub fn with_model(mut self, value: impl Into<String>) -> Self {
        self.model = value.into();
        self
    }

    /// Sets the model provider.
    #[must_use]
    pub fn with_provider(mut self, value: impl Into<String>) -> Self {
        self.provider = value.into();
        self
    }

    /// Sets the platform the session runs on.
    #[must_use]
    pub fn with_platform(mut self, value: impl Into<String>) -> Self {
        self.platform = value.into();
        self
    }

    /// Sets the active Hermes profile.
    #[must_use]
    pub fn with_profile_name(mut self, value: impl Into<String>) -> Self {
        self.profile_name = value.into();
        self
    }

    /// Sets the working directory the session's context comes from.
    #[must_use]
    pub fn with_cwd(mut self, value: impl Into<String>) -> Self {
        self.cwd = value.into();
        self
    }
}
