//! The words of a call in code other than a shell's, as written: its
//! arguments parted at top-level commas, keyword options, string literals
//! (and whether they interpolate in Perl's, Ruby's or PHP's double
//! quotes), commands in backquotes.

use std::sync::LazyLock;

use regex::Regex;

/// The words of a call's arguments as written: its lists' items in line,
/// keyword options (`check=True`) aside.
pub(super) fn words_of(argument: &str) -> Vec<&str> {
    let mut words: Vec<&str> = Vec::new();
    for part in top_level(argument, ',') {
        if KEYWORD.is_match(part) {
            continue;
        }
        match part
            .strip_prefix(['[', '('])
            .and_then(|p| p.strip_suffix([']', ')']))
        {
            Some(list) => words.extend(top_level(list, ',')),
            None => words.push(part),
        }
    }
    words
}

/// `name=value`: a keyword option.
pub(super) static KEYWORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[A-Za-z_]+\s*=[^=]").expect("valid regex"));

/// Whether `word` is one string literal (no interpolation in `program`'s
/// double quotes).
pub(super) fn is_string(word: &str, program: &str) -> bool {
    static STRING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*$"#).expect("valid regex")
    });
    let interpolating = matches!(program, "perl" | "ruby" | "php");
    let word = word.trim();
    // A JavaScript template with nothing put in (`` `npx` ``).
    if matches!(program, "node" | "bun" | "deno") {
        let template = word.len() > 1 && word.starts_with('`') && word.ends_with('`');
        if template && !word[1..word.len() - 1].contains(['`', '\\']) && !word.contains("${") {
            return true;
        }
    }
    STRING.is_match(word) && !(interpolating && word.starts_with('"') && interpolates(word))
}

/// `text` split at `separator` outside quotes and brackets, each part
/// trimmed, empty ones left out.
pub(super) fn top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = super::brackets::split_outside(text, separator.encode_utf8(&mut [0; 4]));
    parts.retain(|part| !part.is_empty());
    parts
}

/// Text in backquotes, `qx(…)` / `qx{…}` (Perl) or `%x(…)` (Ruby).
pub(super) static BACKQUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"`[^`]*`|\bqx\s*[({\[/][^)}\]/]*|%x\s*[({\[][^)}\]]*").expect("valid regex")
});

/// Whether quoted text interpolates a value (`$x`, `@x`, `#{x}`).
pub(super) fn interpolates(text: &str) -> bool {
    static VALUE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[$@][A-Za-z_{(]|#\{").expect("valid regex"));
    VALUE.is_match(text)
}

/// What JavaScript `code` gives `name` when it is a parameter of a function
/// it declares (`function log(file, msg) {…}`, `const log = (file) =>`;
/// Python's `save = lambda d: …`: round 51, x-xpfn4):
/// the argument in its place of each call (`log(path.join(os.homedir(),
/// 'hook.log'), 'x')`: round 50, U50-3); `Some` of none when it is no
/// parameter, `None` when a call passes it on no reading follows (a
/// spread, the function handed over as a value).
pub(super) fn parameter_values(code: &str, name: &str) -> Option<Vec<String>> {
    static DECLARED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\bfunction\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:function\s*)?\(([^)]*)\)\s*(?:=>|\{)|\b([A-Za-z_]\w*)\s*=\s*lambda\b([^:]*):)")
            .expect("valid regex")
    });
    let mut found = Vec::new();
    for declared in DECLARED.captures_iter(code) {
        let function = declared
            .get(1)
            .or(declared.get(3))
            .or(declared.get(5))?
            .as_str();
        let parameters = declared
            .get(2)
            .or(declared.get(4))
            .or(declared.get(6))?
            .as_str();
        let Some(at) = parameters
            .split(',')
            .position(|parameter| parameter.split('=').next().unwrap_or("").trim() == name)
        else {
            continue;
        };
        let call = Regex::new(&format!(r"(?:^|[^\w$.]){}\s*\(", regex::escape(function))).ok()?;
        let whole = declared.get(0)?;
        let mut calls = 0;
        for found_call in call.find_iter(code) {
            // The declaration itself.
            if found_call.start() >= whole.start() && found_call.end() <= whole.end() {
                continue;
            }
            let open = found_call.end() - 1;
            let arguments = super::python_values::call_arguments(&code[open..]);
            let arguments = top_level(&arguments, ',');
            if arguments.iter().any(|argument| argument.starts_with("...")) {
                return None;
            }
            found.push(arguments.get(at).map_or("undefined", |a| a).to_owned());
            calls += 1;
        }
        // Handed over as a value (`arr.forEach(log)`): no call to read.
        let named = Regex::new(&format!(r"(?:^|[^\w$.]){}\b", regex::escape(function))).ok()?;
        if named.find_iter(code).count() > calls + 1 {
            return None;
        }
    }
    Some(found)
}
