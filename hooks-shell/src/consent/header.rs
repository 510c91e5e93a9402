//! An http hook's header value as a person is shown it: in the approval
//! banner and in `list --json`'s binding (red team R37-8: `Header:
//! Authorization: Bearer hunter` was printed).

use super::FingerprintKey;

/// Auth schemes that open an `Authorization` value; shown as written at the
/// start of a value, followed by whitespace.
const SCHEMES: &[&str] = &["Bearer", "Basic", "Bot", "Token", "Digest"];

/// `value` with every literal text masked, of any header: a header's name
/// does not say whether its value is a secret (`X-Team: <token>`), and
/// what is approved is still readable from the name, the `$VAR` / `${VAR}`
/// templates (shown as written; the `Env:` line lists the variables they
/// may read), a leading auth scheme (`Bearer`) and the fingerprint. When
/// anything is masked, `(hmac:<8 hex>)` follows: the first 8 hex digits of
/// the HMAC-SHA256 of the value as written under the home's key
/// ([`FingerprintKey`]), so a changed value shows as changed while a weak
/// value (`Bearer hunter2`) cannot be guessed from a log or a screenshot,
/// as an unkeyed hash's could. Without a key no fingerprint is shown.
pub(crate) fn shown_header_value(value: &str, key: &FingerprintKey) -> String {
    let mut out = String::with_capacity(value.len());
    let mut masked = false;
    let mut literal = String::new();
    let mut rest = value;
    let mut first = true;
    let mut flush = |literal: &mut String, out: &mut String, first: bool| {
        if mask_literal(literal, out, first) {
            masked = true;
        }
        literal.clear();
    };
    while let Some(at) = rest.find('$') {
        literal.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        // The templates `expand_header` expands, as it reads them.
        let template_len = match after.strip_prefix('{') {
            Some(inner) => inner.find('}').map(|end| end + 2),
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (end > 0).then_some(end)
            }
        };
        let Some(len) = template_len.filter(|len| *len > 2 || !after.starts_with('{')) else {
            literal.push('$');
            rest = after;
            continue;
        };
        flush(&mut literal, &mut out, first);
        first = false;
        out.push('$');
        out.push_str(&after[..len]);
        rest = &after[len..];
    }
    literal.push_str(rest);
    flush(&mut literal, &mut out, first);
    if masked && let Some(fingerprint) = key.fingerprint(value.as_bytes()) {
        out.push_str(&format!(" ({fingerprint})"));
    }
    out
}

/// Pushes `literal` onto `out` with its text masked (its whitespace at the
/// ends kept; an auth scheme kept when it opens the value); whether anything
/// was masked.
fn mask_literal(literal: &str, out: &mut String, opens_value: bool) -> bool {
    let mut text = literal;
    if opens_value {
        let scheme = text.split_whitespace().next().unwrap_or_default();
        let followed = text[scheme.len()..].starts_with(char::is_whitespace);
        if followed
            && SCHEMES
                .iter()
                .any(|known| known.eq_ignore_ascii_case(scheme))
        {
            out.push_str(scheme);
            text = &text[scheme.len()..];
        }
    }
    let inner = text.trim();
    if inner.is_empty() {
        out.push_str(text);
        return false;
    }
    let lead = &text[..text.len() - text.trim_start().len()];
    let trail = &text[text.trim_end().len()..];
    out.push_str(lead);
    out.push_str("***");
    out.push_str(trail);
    true
}

#[cfg(test)]
mod tests {
    use super::shown_header_value;
    use crate::consent::FingerprintKey;

    #[test]
    fn literal_text_is_masked_and_templates_shown() {
        let dir = tempfile::tempdir().expect("dir");
        let key = FingerprintKey::in_folder(dir.path());
        let fingerprint = |value: &str| key.fingerprint(value.as_bytes()).expect("a key");
        for (value, shown) in [
            ("Bearer $HOOK_SECRET", "Bearer $HOOK_SECRET".to_owned()),
            (
                "${A}-$B_2",
                format!("${{A}}***$B_2 ({})", fingerprint("${A}-$B_2")),
            ),
            (
                "Bearer hunter",
                format!("Bearer *** ({})", fingerprint("Bearer hunter")),
            ),
            ("hunter", format!("*** ({})", fingerprint("hunter"))),
            ("Bearer", format!("*** ({})", fingerprint("Bearer"))),
            (
                "token=$T; x=hunter",
                format!("***$T*** ({})", fingerprint("token=$T; x=hunter")),
            ),
            ("a$ ${", format!("*** ({})", fingerprint("a$ ${"))),
            ("", String::new()),
        ] {
            assert_eq!(shown_header_value(value, &key), shown, "{value}");
        }
        // Without a key: masked, and no fingerprint at all.
        let none = FingerprintKey::none();
        assert_eq!(shown_header_value("Bearer hunter", &none), "Bearer ***");
    }

    /// The fingerprint is keyed: not the plain SHA-256 prefix an offline
    /// word list finds `Bearer hunter2` from.
    #[test]
    fn the_fingerprint_is_not_the_unkeyed_sha256() {
        use sha2::Digest;
        let dir = tempfile::tempdir().expect("dir");
        let key = FingerprintKey::in_folder(dir.path());
        let shown = shown_header_value("Bearer hunter2", &key);
        let plain = &hex::encode(sha2::Sha256::digest(b"Bearer hunter2"))[..8];
        assert!(shown.starts_with("Bearer *** (hmac:"), "{shown}");
        assert!(
            !shown.contains(plain) && !shown.contains("sha256"),
            "{shown}"
        );
    }
}
