//! Secrets and the two signature schemes: Hermes/GitHub (`sha256=<hex>` over the
//! body) and Standard Webhooks (`v1,<base64>` over `id.timestamp.body`).
//!
//! Key derivation follows each scheme: the Hermes and GitHub headers use the
//! secret's UTF-8 bytes as given; Standard Webhooks decodes the base64 after a
//! `whsec_` prefix and uses any other secret's bytes as they are.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The prefix of a Standard Webhooks secret whose rest is base64.
pub const STANDARD_WEBHOOKS_SECRET_PREFIX: &str = "whsec_";

/// An HMAC secret. Its value never shows in `Debug`, `Display` or logs.
#[derive(Clone)]
pub struct Secret {
    raw: Arc<[u8]>,
    standard_key: Arc<[u8]>,
}

impl Secret {
    /// A secret from its text, as configured (`secret:` or the `secret_env` variable).
    pub fn new(text: &str) -> Self {
        let raw: Arc<[u8]> = Arc::from(text.as_bytes());
        let standard_key = standard_webhooks_key(text.as_bytes())
            .map(Arc::from)
            .unwrap_or_else(|| raw.clone());
        Secret { raw, standard_key }
    }

    /// Whether the secret has a `whsec_` prefix whose rest is not valid base64
    /// (Standard Webhooks signatures then use the raw text).
    pub fn has_malformed_whsec_prefix(&self) -> bool {
        self.raw
            .starts_with(STANDARD_WEBHOOKS_SECRET_PREFIX.as_bytes())
            && standard_webhooks_key(&self.raw).is_none()
    }

    /// The `X-Hermes-Signature-256` value of `body`: `sha256=<lowercase hex>`.
    pub fn hermes_signature(&self, body: &[u8]) -> String {
        hermes_signature(&self.raw, body)
    }

    /// The `webhook-signature` value of a Standard Webhooks delivery: `v1,<base64>`.
    pub fn standard_webhooks_signature(&self, id: &str, timestamp: u64, body: &[u8]) -> String {
        standard_webhooks_signature_with_key(&self.standard_key, id, timestamp, body)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// `sha256=<lowercase hex HMAC-SHA256(key, body)>`, the GitHub and Hermes header value.
pub fn hermes_signature(key: &[u8], body: &[u8]) -> String {
    let mut mac = new_mac(key);
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`, with `secret`
/// derived as Standard Webhooks says (base64 after `whsec_`, else raw bytes).
pub fn standard_webhooks_signature(secret: &[u8], id: &str, timestamp: u64, body: &[u8]) -> String {
    let key = standard_webhooks_key(secret).unwrap_or_else(|| secret.to_vec());
    standard_webhooks_signature_with_key(&key, id, timestamp, body)
}

fn standard_webhooks_signature_with_key(
    key: &[u8],
    id: &str,
    timestamp: u64,
    body: &[u8],
) -> String {
    let mac = standard_webhooks_mac(key, id, timestamp, body);
    format!("v1,{}", BASE64.encode(mac.finalize().into_bytes()))
}

/// The Standard Webhooks key of `secret`: the base64 after `whsec_`, or `None`
/// when there is no prefix or the rest does not decode.
pub(crate) fn standard_webhooks_key(secret: &[u8]) -> Option<Vec<u8>> {
    let encoded = secret.strip_prefix(STANDARD_WEBHOOKS_SECRET_PREFIX.as_bytes())?;
    BASE64.decode(encoded).ok()
}

/// The keyed MAC over the Standard Webhooks signed content, ready to finalize or verify.
pub(crate) fn standard_webhooks_mac(
    key: &[u8],
    id: &str,
    timestamp: u64,
    body: &[u8],
) -> HmacSha256 {
    let mut mac = new_mac(key);
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// A fresh HMAC-SHA256 keyed with `key`.
pub(crate) fn new_mac(key: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length (long keys are hashed), so this cannot fail;
    // the fallback only satisfies the type.
    HmacSha256::new_from_slice(key)
        .unwrap_or_else(|_| <HmacSha256 as hmac::digest::KeyInit>::new(&Default::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_documented_vector() {
        assert_eq!(
            hermes_signature(b"It's a Secret to Everybody", b"Hello, World!"),
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
    }

    #[test]
    fn standard_webhooks_documented_vector() {
        let secret = Secret::new("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD");
        assert_eq!(
            secret.standard_webhooks_signature(
                "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
                1_649_367_553,
                br#"{"email":"test@example.com","username":"test_user"}"#,
            ),
            "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="
        );
        assert!(!secret.has_malformed_whsec_prefix());
    }

    #[test]
    fn hermes_header_uses_the_whsec_text_as_given() {
        let secret = Secret::new("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD");
        assert_eq!(
            secret.hermes_signature(b"x"),
            hermes_signature(b"whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", b"x")
        );
    }

    #[test]
    fn secrets_without_prefix_or_with_bad_base64_use_raw_bytes() {
        let plain = Secret::new("plain");
        assert_eq!(
            plain.standard_webhooks_signature("id", 1, b"b"),
            standard_webhooks_signature(b"plain", "id", 1, b"b")
        );
        let bad = Secret::new("whsec_!!!");
        assert!(bad.has_malformed_whsec_prefix());
        assert_eq!(
            bad.standard_webhooks_signature("id", 1, b"b"),
            standard_webhooks_signature_with_key(b"whsec_!!!", "id", 1, b"b")
        );
    }

    #[test]
    fn debug_and_display_hide_the_value() {
        let secret = Secret::new("hunter2-value");
        assert!(!format!("{secret:?}").contains("hunter2"));
        assert!(!format!("{secret}").contains("hunter2"));
    }
}
