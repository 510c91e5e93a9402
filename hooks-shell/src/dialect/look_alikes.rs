//! A fail-closed guard's matcher written with characters that look like
//! others (red team rounds 74 and 75): `t\u{435}rminal` with a Cyrillic `е`,
//! fullwidth `ｔerminal` or a fullwidth bar `Read｜Bash`, an invisible
//! zero-width space or soft hyphen inside a name. Such a matcher matched
//! no tool, so the guard never ran and every call was allowed, with only
//! a warning that it names no tool. It is read as the text it looks like,
//! with a warning saying what to write.

/// `pattern` as it looks: invisible characters left out, fullwidth forms
/// and Cyrillic or Greek letters that look like Latin ones read as those,
/// a bar-like character as `|`; `None` when nothing changes.
pub(crate) fn folded(pattern: &str) -> Option<String> {
    let folded: String = pattern.chars().filter_map(looks_like).collect();
    (folded != pattern).then_some(folded)
}

/// Pairs of a character and the one it looks like: Cyrillic, Greek,
/// Armenian, Cherokee letters and Roman numerals that look like Latin
/// letters, and bar-like characters that look like `|`.
const LOOKS_LIKE: &str = concat!(
    "аaсcеeоoрpхxуyіiјjѕsԁdһhӏlԛqԝwгr",
    "АAВBСCЕEНHІIЈJКKМMОOРPЅSТTХXУY",
    "οoνvρpΑAΒBΕEΖZΗHΙIΚKΜMΝNΟOΡPΤTΥYΧX",
    "ԍGոnսuօoᎢTᎪAᏴBᏟCᎬEᎻH",
    "ⅰiⅼlⅽcⅾdⅿmⅴvⅹxⅠIⅬLⅭCⅮDⅯM",
    "ǀ|∣|│|‖|¦|।|︱|❘|￨|׀|丨|⏐|",
    "αaιiıiℓlɑaмmпnˍ_‗_",
);

/// The character `c` looks like; `None` for an invisible one.
fn looks_like(c: char) -> Option<char> {
    if c.is_ascii() {
        return Some(c);
    }
    let code = u32::from(c);
    // Invisible: format characters, variation selectors, tags, fillers.
    if matches!(
        code,
        0x00AD
            | 0x034F
            | 0x115F
            | 0x1160
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xE0000..=0xE007F
            | 0xE0100..=0xE01EF
    ) {
        return None;
    }
    // Combining marks (`a\u{301}`): what they sit on is what is seen.
    if matches!(
        code,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
    ) {
        return None;
    }
    // Fullwidth ASCII (`ｔ`, `｜`).
    if (0xFF01..=0xFF5E).contains(&code) {
        return char::from_u32(code - 0xFEE0);
    }
    // Mathematical letters (`𝐁𝐚𝐬𝐡`: bold, italic, script, ...: alphabets
    // of 52 in a row) and digits (sets of 10).
    if (0x1D400..=0x1D6A3).contains(&code) {
        let at = u8::try_from((code - 0x1D400) % 52).unwrap_or(0);
        return Some(char::from(if at < 26 { b'A' + at } else { b'a' + at - 26 }));
    }
    if (0x1D7CE..=0x1D7FF).contains(&code) {
        return Some(char::from(
            b'0' + u8::try_from((code - 0x1D7CE) % 10).unwrap_or(0),
        ));
    }
    let mut pairs = LOOKS_LIKE.chars();
    while let (Some(other), Some(latin)) = (pairs.next(), pairs.next()) {
        if other == c {
            return Some(latin);
        }
    }
    Some(c)
}

/// Whether `name` is `meant`, as written or as it looks.
pub(crate) fn reads_as(name: &str, meant: &str) -> bool {
    name == meant || folded(name).is_some_and(|folded| folded == meant)
}

/// The warning for a `what` (`matcher`, `hook event`) `written` with
/// look-alike characters, read as `folded`.
pub(crate) fn warning(what: &str, written: &str, folded: &str) -> String {
    let shown = hermes_hooks_core::display::escape(written);
    format!(
        "{what} '{shown}' has characters that only look like others (or cannot be seen); \
         read as '{folded}', what it looks like: write that"
    )
}

#[cfg(test)]
mod tests {
    use super::folded;

    #[test]
    fn a_matcher_is_read_as_it_looks() {
        for (written, read) in [
            ("t\u{435}rminal", "terminal"),
            ("term\u{200b}inal", "terminal"),
            ("\u{ff54}erminal", "terminal"),
            ("Read\u{ff5c}Bash", "Read|Bash"),
            ("B\u{430}sh", "Bash"),
            ("ter\u{ad}minal", "terminal"),
            ("\u{1d401}\u{1d41a}\u{1d42c}\u{1d421}", "Bash"),
            ("Read\u{2016}Bash", "Read|Bash"),
            ("te\u{433}minal", "terminal"),
            ("Ba\u{301}sh", "Bash"),
            ("Read|B\u{3b1}sh", "Read|Bash"),
            ("Bash\u{fe0f}", "Bash"),
            ("pre\u{2cd}tool_call", "pre_tool_call"),
            ("Read\u{ffe8}Bash", "Read|Bash"),
        ] {
            assert_eq!(folded(written).as_deref(), Some(read), "{written}");
        }
        assert_eq!(folded("terminal|Bash"), None);
        assert_eq!(folded("日本"), None);
    }
}
