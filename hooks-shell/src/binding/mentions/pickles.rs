//! The modules a pickle names: loading it imports each (`pickle.load`,
//! `shelve`), so each is the hook's code. Read from the file's text or
//! from a literal of code (its escapes decoded or not).

use std::sync::LazyLock;

use regex::Regex;

/// The longest module name read from a length-prefixed string.
const MAX_NAME: usize = 200;

/// The modules the pickles in `text` name: a `GLOBAL` or `INST` opcode's
/// (protocols 0 to 3: `ctools.boot\nmain\n`, R31-5), and each string
/// opcode's dotted name when `text` looks pickled (a `STACK_GLOBAL`'s or
/// `REDUCE`'s argument: `X` + length, `V…\n`, `\x8c` + length: R32-10).
pub(super) fn pickled_modules(text: &str) -> Vec<String> {
    static GLOBAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"[ci]([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\n|\\n)[A-Za-z_][A-Za-z0-9_.]*(?:\n|\\n)",
        )
        .expect("valid regex")
    });
    let mut found: Vec<String> = Vec::new();
    if text.contains('\n') || text.contains("\\n") {
        found.extend(
            GLOBAL
                .captures_iter(text)
                .map(|global| global[1].to_owned()),
        );
    }
    let binary = text.contains(|c: char| c < '\u{9}' || c == '\u{fffd}') || text.contains("\\x0");
    if binary || !found.is_empty() {
        found.extend(string_opcodes(text).into_iter().filter(|name| dotted(name)));
        if text.contains('\\') {
            found.extend(
                string_opcodes(&unescaped(text))
                    .into_iter()
                    .filter(|name| dotted(name)),
            );
        }
    }
    found.sort();
    found.dedup();
    found
}

/// Whether `text` (code) unpickles data it decodes first
/// (`pickle.loads(base64.b64decode(…))`, `bytes.fromhex`, `zlib`): the
/// modules the pickle names cannot be read, and it may import any.
pub(super) fn unpickles_decoded(text: &str) -> bool {
    // Calls, not words: a comment saying "cache it with pickle or gzip"
    // binds nothing (R34-13).
    static UNPICKLES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:pickle|cPickle|_pickle|dill|cloudpickle|joblib|jsonpickle|shelve)\s*\.\s*(?:loads?|Unpickler|open|decode)\s*\(|\b(?:Unpickler|read_pickle)\s*\(|\bfrom\s+(?:pickle|_pickle|cPickle|dill)\s+import\b|\btorch\.load\s*\(|allow_pickle\s*=\s*True")
            .expect("valid regex")
    });
    static DECODES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:b64decode|b32decode|b16decode|a85decode|b85decode|urlsafe_b64decode|decodebytes|fromhex|unhexlify|a2b_\w+|decompress|codecs\.decode|(?:gzip|bz2|lzma|zlib)\.\w+)\s*\(")
            .expect("valid regex")
    });
    UNPICKLES.is_match(text) && DECODES.is_match(text)
}

/// The files a `shelve` (or `dbm`) database the quoted words of `text`
/// name keeps its pickles in beside the name itself: `db.dat` of
/// `dbm.dumb`, `db.db` of `ndbm` (`shelve.open('db')`: R32-10).
pub(super) fn shelf_files(text: &str) -> Vec<String> {
    static QUOTED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"["']([A-Za-z0-9_./-]{1,200})["']"#).expect("valid regex"));
    if !text.contains("shelve") && !text.contains("dbm") {
        return Vec::new();
    }
    let names = QUOTED.captures_iter(text).map(|name| name[1].to_owned());
    names
        .flat_map(|name| [format!("{name}.dat"), format!("{name}.db")])
        .collect()
}

/// The strings of `text`'s string opcodes: `X`/`T` with a four-byte
/// length, `U`/`\x8c` (or what stands for an undecodable byte) with a
/// one-byte length, `V`/`S` up to the line's end.
fn string_opcodes(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let byte = |at: usize| chars.get(at).map(|c| *c as u32).filter(|c| *c < 0x100);
    let mut found = Vec::new();
    for (at, opcode) in chars.iter().enumerate() {
        let (length, start) = match opcode {
            'X' | 'T' => {
                let length =
                    (1..=4).try_fold(0u32, |sum, i| Some(sum | byte(at + i)? << (8 * (i - 1))));
                (length.map(|l| l as usize), at + 5)
            }
            'U' | '\u{8c}' | '\u{fffd}' => (byte(at + 1).map(|l| l as usize), at + 2),
            'V' | 'S' => {
                let line: String = chars[at + 1..]
                    .iter()
                    .take_while(|c| **c != '\n')
                    .take(MAX_NAME)
                    .collect();
                // `UNICODE`'s text is raw-unicode-escape: `tools\u002eboot` (R34-4).
                found.push(unicode_escaped(line.trim_matches(['\'', '"'])));
                continue;
            }
            _ => continue,
        };
        if let Some(length) = length.filter(|l| (1..=MAX_NAME).contains(l)) {
            found.push(chars.iter().skip(start).take(length).collect());
        }
    }
    found
}

/// `text` with its `\uXXXX` and `\UXXXXXXXX` escapes read.
fn unicode_escaped(text: &str) -> String {
    static ESCAPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})").expect("valid regex")
    });
    ESCAPE
        .replace_all(text, |found: &regex::Captures| {
            let hex = found.get(1).or(found.get(2)).map_or("", |m| m.as_str());
            u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .map_or_else(String::new, String::from)
        })
        .into_owned()
}

/// Whether `name` is a dotted Python name (`tools.boot`).
fn dotted(name: &str) -> bool {
    static DOTTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$").expect("valid regex")
    });
    DOTTED.is_match(name)
}

/// `text` with `\xNN` and `\n` escapes of a bytes literal decoded.
fn unescaped(text: &str) -> String {
    static ESCAPE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\\x([0-9a-fA-F]{2})|\\n").expect("valid regex"));
    ESCAPE
        .replace_all(text, |found: &regex::Captures| match found.get(1) {
            Some(hex) => u32::from_str_radix(hex.as_str(), 16)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{fffd}')
                .to_string(),
            None => "\n".to_owned(),
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::pickled_modules;

    #[test]
    fn every_string_opcode_of_a_pickle_names_its_module() {
        let cases = [
            // Protocol 4: `BINUNICODE`, a `STACK_GLOBAL` (R32-10).
            "\u{fffd}\u{4}X\n\0\0\0tools.bootX\u{4}\0\0\0main\u{fffd})R.",
            // `UNICODE` text strings.
            "\u{fffd}\u{4}Vtools.boot\n\u{fffd}Vmain\n\u{fffd}\u{fffd})R.",
            // `UNICODE` with its own escapes (R34-4).
            "Vtools\\u002eboot\nVx\n\u{fffd}.",
            // `REDUCE` of `builtins.__import__`.
            "cbuiltins\n__import__\n(Vtools.boot\ntR.",
            // `SHORT_BINUNICODE` glued to the next opcode.
            "\u{fffd}\u{5}\u{fffd}\u{a}tools.bootX\u{4}\0\0\0main\u{fffd}.",
            // In a bytes literal of code.
            "pickle.loads(b'\\x80\\x04X\\n\\x00\\x00\\x00tools.bootX\\x04\\x00\\x00\\x00main\\x93)R.')",
        ];
        for text in cases {
            assert!(
                pickled_modules(text).contains(&"tools.boot".to_owned()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_shelf_keeps_its_pickles_beside_its_name() {
        let files = super::shelf_files("import shelve\nshelve.open('db', flag='r')['k']\n");
        assert!(files.contains(&"db.dat".to_owned()), "{files:?}");
        assert!(super::shelf_files("open('db')").is_empty());
    }

    #[test]
    fn a_pickle_of_decoded_data_cannot_be_read() {
        let code = "import pickle, base64\npickle.loads(base64.b64decode(open('d').read()))\n";
        assert!(super::unpickles_decoded(code));
        assert!(super::unpickles_decoded("pickle.loads(bytes.fromhex(x))"));
        assert!(!super::unpickles_decoded(
            "pickle.load(open('data.pkl', 'rb'))"
        ));
        assert!(!super::unpickles_decoded("base64.b64decode(token)"));
        let comment = "# results could be cached with pickle or gzip later\nimport sys\n";
        assert!(!super::unpickles_decoded(comment));
        assert!(super::unpickles_decoded("pickle.load(gzip.open('d.gz'))"));
        assert!(!super::unpickles_decoded(
            "json.loads(base64.b64decode(token))"
        ));
        assert!(super::unpickles_decoded(
            "from pickle import loads as L\nL(bytes.fromhex(x))"
        ));
    }

    #[test]
    fn plain_text_is_not_read_as_a_pickle() {
        let text = "Version 2\nX marks the spot\nVery good\n";
        assert!(pickled_modules(text).is_empty());
    }
}
