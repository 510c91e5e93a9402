//! What a secret looks like when no marker says one follows: keys by their
//! shape and entropy, passwords a person chose by their digits and punctuation.

/// Whether a path segment looks like a credential. It is cut at the characters
/// that join ids (`@` in Teams' `<guid>@<guid>`, `:` in Telegram's
/// `bot<id>:<token>`, `,`); one piece that looks like a key masks the segment.
pub(super) fn looks_secret(segment: &str) -> bool {
    password_shaped(&percent_decoded(segment))
        || segment
            .split(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '=' | '%' | '+'))
            })
            .any(piece_looks_secret)
}

/// A short credential a person chose rather than a generated key: a word of
/// six or more letters and digits with digits inside its letters (two
/// changes between them or more: `Pa55w0rd`, `s3cr3t`, but not `sha256`,
/// `oauth2` or `x86_64`), or a segment carrying the punctuation passwords
/// carry and paths do not (`!`, `$`, `*`, `^`: `hunter!2`).
fn password_shaped(segment: &str) -> bool {
    let words = segment.split(|c: char| !c.is_alphanumeric());
    let leet = words.clone().any(|word| {
        let kinds: Vec<bool> = word.chars().map(|c| c.is_numeric()).collect();
        kinds.len() >= 6 && kinds.windows(2).filter(|pair| pair[0] != pair[1]).count() >= 2
    });
    let letters = segment.chars().filter(|c| c.is_alphanumeric()).count();
    leet || (letters >= 4 && segment.contains(['!', '$', '*', '^']))
}

/// `segment` with its `%XX` escapes decoded (lossily): `Pa55w0rd%21` is `Pa55w0rd!`.
pub(super) fn percent_decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escape = (bytes[index] == b'%')
            .then(|| segment.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) => {
                out.push(byte);
                index += 3;
            }
            None => {
                out.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A key-like piece: a long run of digits (an id that, with the next segment,
/// makes a capability URL), a UUID or long hex string, anything of 32
/// characters or more, or 16 or more characters that are random-looking
/// (digits among letters, or both cases mixed with a high entropy).
fn piece_looks_secret(piece: &str) -> bool {
    let len = piece.chars().count();
    if len < 10 {
        return false;
    }
    let count = |class: fn(&char) -> bool| piece.chars().filter(class).count();
    let digits = count(char::is_ascii_digit);
    let upper = count(char::is_ascii_uppercase);
    let lower = count(char::is_ascii_lowercase);
    let hex = piece
        .chars()
        .filter(|c| c.is_ascii_hexdigit() || *c == '-')
        .count();
    if digits == len || (len >= 16 && hex == len && digits > 0) {
        return true;
    }
    if len >= 32 {
        return true;
    }
    // Letters and digits mixed: a token. Letters alone: a token only when both
    // cases are well represented and the characters are spread (camel-case
    // words have few capitals and repeat letters).
    let letters_and_digits = digits > 0 && upper + lower > 0;
    let mixed_case = upper * 4 >= len && lower * 4 >= len && shannon_entropy(piece) >= 3.5;
    len >= 16 && (letters_and_digits || mixed_case)
}

/// Bits per character of `text`'s character distribution.
fn shannon_entropy(text: &str) -> f64 {
    let mut counts = std::collections::HashMap::<char, usize>::new();
    for c in text.chars() {
        *counts.entry(c).or_default() += 1;
    }
    #[allow(clippy::cast_precision_loss)] // segment lengths are small
    let total = text.chars().count() as f64;
    counts
        .values()
        .map(|&count| {
            #[allow(clippy::cast_precision_loss)]
            let p = count as f64 / total;
            -p * p.log2()
        })
        .sum()
}
