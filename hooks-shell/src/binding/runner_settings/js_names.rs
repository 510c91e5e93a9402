//! The names a test runner's or Babel's settings file written in
//! JavaScript gives what it loads. A name written whole (`"./p.js"`,
//! `path.join(__dirname, "s.js")`) is read; one the code pieces together
//! (`"./b" + "p.js"`, `.concat(…)`, `[…].join("")`, a template's
//! `${…}`) is not known until it runs, so such a file cannot be approved
//! (red team round 68: a Babel plugin named so ran unbound).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::BindError;

/// Endings of settings files that are code.
const CODE: [&str; 6] = ["js", "cjs", "mjs", "ts", "cts", "mts"];

/// `text` (of the settings file `path`) with each `path.join(__dirname,
/// "a", "b")` / `path.resolve(…)` of written words read as the path it
/// gives (`"./a/b"`); an error when the code (a settings file that is
/// code) pieces a name together.
pub(super) fn written(path: &Path, text: &str) -> Result<String, BindError> {
    let ending = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !CODE.contains(&ending) {
        return Ok(text.to_owned());
    }
    let read = joined_read(text);
    static PIECED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"["'`]\s*\+|\+\s*["'`]|\.concat\s*\(|\.join\s*\(|\$\{"#).expect("valid regex")
    });
    // Comments say nothing it runs.
    static COMMENT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)//[^\n]*$|/\*[\s\S]*?\*/").expect("valid regex"));
    let code = COMMENT.replace_all(&read, "");
    // `require(f)`, `import(f)`: a module named by a value (round 70).
    static BY_VALUE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\b(?:require|import)\s*\(\s*[^"'`\s)]"#).expect("valid regex")
    });
    if let Some(found) = PIECED.find(&code).or_else(|| BY_VALUE.find(&code)) {
        return Err(BindError::Computed(format!(
            "{} builds a name of what it loads from pieces (`{}`): what runs cannot be \
             known until it does",
            path.display(),
            found.as_str()
        )));
    }
    Ok(read)
}

/// `text` with each `path.join(__dirname, "a", "b")` / `path.resolve(…)`
/// of written words read as the path it gives (`"./a/b"`).
pub(super) fn joined_read(text: &str) -> String {
    static JOINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"\b(?:path\.)?(?:join|resolve)\(\s*__dirname\s*((?:,\s*(?:"[^"\n]*"|'[^'\n]*'|`[^`$\n]*`)\s*)*)\)"#,
        )
        .expect("valid regex")
    });
    static PIECE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#""([^"\n]*)"|'([^'\n]*)'|`([^`\n]*)`"#).expect("valid regex")
    });
    let read = JOINED.replace_all(text, |found: &regex::Captures| {
        let pieces: Vec<&str> = PIECE
            .captures_iter(&found[1])
            .filter_map(|piece| piece.get(1).or(piece.get(2)).or(piece.get(3)))
            .map(|piece| piece.as_str().trim_matches('/'))
            .collect();
        format!("\"./{}\"", pieces.join("/"))
    });
    read.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_written_whole_are_read_and_pieced_ones_refused() {
        let config = Path::new("/p/babel.config.js");
        let joined = "module.exports = { setupFiles: [path.join(__dirname, 'test', 's.js')] };";
        let read = written(config, joined).expect("written whole");
        assert!(read.contains("\"./test/s.js\""), "{read}");
        for pieced in [
            "module.exports = { plugins: ['./b' + 'p.js'] };",
            "module.exports = { plugins: ['./b'.concat('p.js')] };",
            "module.exports = { plugins: [['./b', 'p.js'].join('')] };",
            "module.exports = { plugins: [`./${name}`] };",
        ] {
            assert!(written(config, pieced).is_err(), "{pieced}");
        }
        // A comment's `+` and JSON's text are no code.
        assert!(written(config, "// a + 'b'\nmodule.exports = {};").is_ok());
        let json = Path::new("/p/.babelrc");
        assert!(written(json, "{\"plugins\": [\"a\" + \"b\"]}").is_ok());
    }
}
