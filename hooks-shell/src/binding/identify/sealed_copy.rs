//! Shell text that reads where the sealed copy of the script it runs in is
//! (`/proc/self/fd/N`, [`crate::launch`]), a place no reading names (red
//! team R45-7): such a script cannot be approved.

use std::sync::LazyLock;

use regex::Regex;

/// Why `text` reads the sealed copy's place: `BASH_SOURCE` split by a line
/// continuation (the copy's references are renamed by their spelling), an
/// entry of it past the file's own (`${BASH_SOURCE[1]}` in a library, a
/// loop over `${BASH_SOURCE[@]}`; its count `${#BASH_SOURCE[@]}` aside),
/// or `caller`'s output.
pub(super) fn named(text: &str) -> Option<String> {
    static ENTRY: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(\$\{#)?BASH_SOURCE\[\s*([^\]]*)\]").expect("valid regex"));
    static CALLER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:\$\(|`)\s*caller\b").expect("valid regex"));
    // The references as the copy's renaming finds them (`$BASH_SOURCE`,
    // `${BASH_SOURCE…`), before and after joining continued lines.
    static REFERENCE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\$\{?[#!]?BASH_SOURCE").expect("valid regex"));
    let joined = text.replace("\\\n", "");
    if REFERENCE.find_iter(&joined).count() > REFERENCE.find_iter(text).count() {
        return Some("a line continuation splits a `BASH_SOURCE` reference".to_owned());
    }
    let other = ENTRY.captures_iter(&joined).find(|entry| {
        let count = entry.get(1).is_some() && matches!(entry[2].trim(), "@" | "*");
        !count && entry[2].trim() != "0"
    });
    if let Some(entry) = other {
        return Some(format!(
            "`{}` names a file other than its own: the sealed copy of the hook's script",
            &entry[0]
        ));
    }
    CALLER
        .find(&joined)
        .map(|_| "`caller` names the sealed copy of the hook's script".to_owned())
}

#[cfg(test)]
mod tests {
    use super::named;

    #[test]
    fn reading_the_sealed_copys_place_is_found() {
        for text in [
            "s=${BASH_SOU\\\nRCE[0]}",
            "s=$\\\n{BASH_SOURCE[0]}",
            "D=$(dirname \"${BASH_SOURCE[1]}\")",
            "x=${BASH_SOURCE[-1]}",
            "for s in \"${BASH_SOURCE[@]}\"; do :; done",
            "f() { set -- $(caller 0); }",
        ] {
            assert!(named(text).is_some(), "{text}");
        }
        for text in [
            "D=$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)",
            "[[ ${#BASH_SOURCE[@]} -gt 1 ]] && return",
            "source \"${BASH_SOURCE%/*}/lib.sh\"",
            "echo 'a \\\nb'",
        ] {
            assert!(named(text).is_none(), "{text}");
        }
    }
}
