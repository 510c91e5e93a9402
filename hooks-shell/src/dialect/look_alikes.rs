//! A fail-closed guard's matcher written with characters that look like
//! others (red team round 74): `t\u{435}rminal` with a Cyrillic `е`,
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

/// The character `c` looks like; `None` for an invisible one.
fn looks_like(c: char) -> Option<char> {
    if c.is_ascii() {
        return Some(c);
    }
    let code = u32::from(c);
    if matches!(
        code,
        0x00AD | 0x034F | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0xFEFF
    ) {
        return None;
    }
    // Fullwidth ASCII (`ｔ`, `｜`).
    if (0xFF01..=0xFF5E).contains(&code) {
        return char::from_u32(code - 0xFEE0);
    }
    const SAME: &[(char, char)] = &[
        // Cyrillic.
        ('а', 'a'),
        ('с', 'c'),
        ('е', 'e'),
        ('о', 'o'),
        ('р', 'p'),
        ('х', 'x'),
        ('у', 'y'),
        ('і', 'i'),
        ('ј', 'j'),
        ('ѕ', 's'),
        ('ԁ', 'd'),
        ('һ', 'h'),
        ('ӏ', 'l'),
        ('ԛ', 'q'),
        ('ԝ', 'w'),
        ('А', 'A'),
        ('В', 'B'),
        ('С', 'C'),
        ('Е', 'E'),
        ('Н', 'H'),
        ('І', 'I'),
        ('Ј', 'J'),
        ('К', 'K'),
        ('М', 'M'),
        ('О', 'O'),
        ('Р', 'P'),
        ('Ѕ', 'S'),
        ('Т', 'T'),
        ('Х', 'X'),
        ('У', 'Y'),
        // Greek.
        ('ο', 'o'),
        ('ν', 'v'),
        ('ρ', 'p'),
        ('Α', 'A'),
        ('Β', 'B'),
        ('Ε', 'E'),
        ('Ζ', 'Z'),
        ('Η', 'H'),
        ('Ι', 'I'),
        ('Κ', 'K'),
        ('Μ', 'M'),
        ('Ν', 'N'),
        ('Ο', 'O'),
        ('Ρ', 'P'),
        ('Τ', 'T'),
        ('Υ', 'Y'),
        ('Χ', 'X'),
        // Bars.
        ('ǀ', '|'),
        ('∣', '|'),
        ('│', '|'),
    ];
    Some(
        SAME.iter()
            .find(|(other, _)| *other == c)
            .map_or(c, |(_, latin)| *latin),
    )
}

/// The warning for a fail-closed guard's matcher `written` read as
/// `folded`.
pub(crate) fn warning(written: &str, folded: &str) -> String {
    let shown = hermes_hooks_core::display::escape(written);
    format!(
        "matcher '{shown}' has characters that only look like others (or cannot be seen); \
         this fail-closed guard is read as '{folded}', what it looks like: write that"
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
        ] {
            assert_eq!(folded(written).as_deref(), Some(read), "{written}");
        }
        assert_eq!(folded("terminal|Bash"), None);
        assert_eq!(folded("日本"), None);
    }
}
