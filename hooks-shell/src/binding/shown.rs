//! A binding as people are shown it (`list --json`): no secret of the hook,
//! and no unkeyed hash of one.

use serde_json::Value;

use super::Binding;
use crate::consent::FingerprintKey;

impl Binding {
    /// [`Binding::to_json`] as people are shown it (`list --json`): an http
    /// hook's URL with its credentials masked, its header values as the
    /// approval banner shows them (literal text `***` and a fingerprint
    /// made with `key`), and each `env` variable's recorded SHA-256 (of a
    /// value that may be an API key) as `hmac:<8 hex>` of it under `key`,
    /// or `null` without a key: an unkeyed hash of a weak value is guessed
    /// offline from a log or a screenshot.
    pub fn to_shown_json(&self, key: &FingerprintKey) -> Value {
        let mut value = self.to_json();
        if let Some(url) = value.pointer_mut("/request/url")
            && let Some(text) = url.as_str()
        {
            *url = Value::from(crate::shown_url(text));
        }
        let headers = value
            .pointer_mut("/request/headers")
            .and_then(Value::as_array_mut);
        for header in headers.into_iter().flatten() {
            if let Some(value) = header.get_mut(1)
                && let Some(text) = value.as_str()
            {
                *value = Value::from(crate::consent::shown_header_value(text, key));
            }
        }
        let env = value.get_mut("env").and_then(Value::as_object_mut);
        for hash in env.into_iter().flat_map(|env| env.values_mut()) {
            let shown = hash.as_str().and_then(|h| key.fingerprint(h.as_bytes()));
            *hash = shown.map_or(Value::Null, Value::from);
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use sha2::Digest;

    use super::{Binding, FingerprintKey};

    /// `list --json` never shows the unkeyed SHA-256 the approval recorded
    /// of an `env` value (an API key): a keyed fingerprint of it, or
    /// nothing without a key.
    #[test]
    fn env_hashes_are_shown_keyed_or_not_at_all() {
        let hash = hex::encode(sha2::Sha256::digest(b"hunter2"));
        let binding = Binding {
            env: [("API_KEY".to_owned(), hash.clone())].into(),
            ..Binding::default()
        };
        let dir = tempfile::tempdir().expect("dir");
        let key = FingerprintKey::in_folder(dir.path());
        let shown = binding.to_shown_json(&key);
        let text = shown.to_string();
        assert!(!text.contains(&hash[..8]), "{text}");
        assert_eq!(
            shown["env"]["API_KEY"].as_str(),
            key.fingerprint(hash.as_bytes()).as_deref()
        );
        let shown = binding.to_shown_json(&FingerprintKey::none());
        assert!(shown["env"]["API_KEY"].is_null(), "{shown}");
        // What is recorded is unchanged: existing approvals still match.
        assert_eq!(binding.to_json()["env"]["API_KEY"], hash.as_str());
    }
}
