//! Code that names an option of what it starts in a way no reading
//! follows: a key built when it runs (`{["c" + "wd"]: d}`,
//! `Object.fromEntries([["cwd", d]])`, `o[k] = d`), spelled with escapes
//! (`{c\u0077d: d}`, `"\x63wd"`), read through a getter or a proxy, or
//! split by a comment (`{/*x*/cwd/*y*/: d}`). Red team round 58: each
//! sent `make` to the folder of a path the tool call names, unread.

use std::sync::LazyLock;

use regex::Regex;

/// The construct in `code` of `program` that may name an option (`cwd`,
/// `env`) of a program it starts where no reading sees it, if any:
/// [`hidden_name`], or a key the code computes (`o[k] = d`, entries made
/// an object).
pub(super) fn hidden_key(program: &str, code: &str) -> Option<String> {
    static COMPUTED_STORE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"[\w$)\]]\s*\[\s*[A-Za-z_$][\w$.]*\s*\]\s*=[^=]").expect("valid regex")
    });
    static ENTRIES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bObject\.(?:fromEntries|create)\b|\bnew\s+Map\b").expect("valid regex")
    });
    let javascript = !matches!(program, "python" | "python3");
    COMPUTED_STORE
        .find(code)
        .or_else(|| javascript.then(|| ENTRIES.find(code)).flatten())
        .map(|found| found.as_str().trim().to_owned())
        .or_else(|| hidden_name(program, code))
}

/// The construct in `code` of `program` that may name a key or a
/// variable where no reading sees it, if any: an escape standing for a
/// letter ([`word_escape`]), a comment between a key and its value
/// (`{PATH/*y*/: v}`), and in JavaScript a computed key (`{["PA" +
/// "TH"]: v}`), a getter, a proxy, a prototype or reflection (red team
/// round 58: each gave what a hook starts `PATH` or `cwd` unread).
pub(super) fn hidden_name(program: &str, code: &str) -> Option<String> {
    static COMMENTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"[\w$'`]\s*(?:/\*.*?\*/|(?:#|//)[^\n]*\n)\s*(?::|=[^=])|\bcwd\s*(?:/\*|//|#)")
            .expect("valid regex")
    });
    static JAVASCRIPT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"[{,]\s*\[[^\]]*\]\s*:|\bObject\.(?:defineProperty|defineProperties|setPrototypeOf)\b|\bnew\s+Proxy\b|__proto__|\bget\s+[\w$'"\[]+\s*\(|\bReflect\."#,
        )
        .expect("valid regex")
    });
    let javascript = !matches!(program, "python" | "python3");
    COMMENTED
        .find(code)
        .or_else(|| javascript.then(|| JAVASCRIPT.find(code)).flatten())
        .map(|found| found.as_str().trim().to_owned())
        .or_else(|| word_escape(code))
}

/// An escape in `code` that stands for a letter, a digit or `_` (`\x63`,
/// `\u0077`, `\u{77}`, `\143`, `\N{…}`): a name written so no reading
/// sees it. Escapes of other characters (`\x1b[31m`, `\u00e9`) are not.
fn word_escape(code: &str) -> Option<String> {
    static ESCAPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|u\{([0-9a-fA-F]{1,6})\}|U([0-9a-fA-F]{8})|([0-7]{3})|N\{)")
            .expect("valid regex")
    });
    ESCAPE.captures_iter(code).find_map(|found| {
        let (digits, radix) = match (1..=4).find_map(|group| found.get(group)) {
            Some(hex) => (hex.as_str(), 16),
            None => match found.get(5) {
                Some(octal) => (octal.as_str(), 8),
                None => return Some(found[0].to_owned()),
            },
        };
        let stands_for = u32::from_str_radix(digits, radix)
            .ok()
            .and_then(char::from_u32)?;
        (stands_for.is_ascii_alphanumeric() || stands_for == '_').then(|| found[0].to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::hidden_key;

    #[test]
    fn keys_built_escaped_or_hidden_are_found() {
        for code in [
            "run(cmd, Object.fromEntries([['cwd', d]]))",
            "run(cmd, {c\\u0077d: d})",
            "run(cmd, {\"\\x63wd\": d})",
            "run(cmd, {[`cwd`]: d})",
            "run(cmd, {['c' + 'wd']: d})",
            "const o = {}; o[k] = d; run(cmd, o)",
            "run(cmd, {/*x*/cwd/*y*/: d})",
            "run(cmd, {stdio: 'ignore', get cwd() { return d; }})",
            "run(cmd, new Proxy({}, {get: () => d}))",
            "run(cmd, {__proto__: o})",
        ] {
            assert!(hidden_key("node", code).is_some(), "{code}");
        }
        for code in [
            "subprocess.run(cmd, **{'c\\x77d': d})",
            "kw = {}\nkw[k] = d\nsubprocess.run(cmd, **kw)",
            "subprocess.run(cmd, cwd  # the folder\n= d)",
        ] {
            assert!(hidden_key("python3", code).is_some(), "{code}");
        }
        for code in [
            "run(cmd, {cwd: d, stdio: 'ignore'})",
            "console.log('\\x1b[31mblocked\\x1b[0m')",
            "const o = {a: 1}; o['b'] = 2; xs[0] = 1;",
            "print('caf\\u00e9')",
            "subprocess.run(cmd, cwd=d  # the folder\n)",
            "# where it runs\ncwd = data['cwd']",
        ] {
            assert_eq!(hidden_key("node", code), None, "{code}");
        }
    }
}
