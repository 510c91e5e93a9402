//! The command a Python call starts, read as the lists of words it may be:
//! a list or tuple literal (`["ruff", "check", path]`), a name and the
//! values the code gives it ([`super::python_values`]), `X + [path]`,
//! `list(args)`, `[*base, path]`, an entry of a dict of commands
//! (`FORMATTERS[ext]`), `a or b`, the `args=` keyword, and the programs
//! Python names without a string (`sys.executable`, `shutil.which("x")`).
//! A word computed when it runs reads as [`COMPUTED`]; an expression of
//! any other shape is unknown (`None`): it cannot be approved.

use std::sync::LazyLock;

use regex::Regex;

use super::inline_code::top_level;
use super::python_values::{is_name, values};

mod lists;

/// A word whose text is known only when it runs.
pub(super) const COMPUTED: &str = "\u{0}computed";

/// How many names deep a value is read (`cmd = base + [f]`, `base = [...]`).
const MAX_DEPTH: usize = 4;

/// The most alternatives kept for one expression.
const MAX_ALTERNATIVES: usize = 64;

/// The command words `argument` (a call's arguments, as written) may start,
/// each alternative a list whose first word is the program; `None` when its
/// shape is not one read here.
pub(super) fn commands(argument: &str, code: &str) -> Option<Vec<Vec<String>>> {
    let parts = top_level(argument, ',');
    let mut positional = Vec::new();
    // `run(["python3"], input=code)`: an interpreter fed text built when
    // it runs reads it as its code.
    let mut fed = false;
    let mut executable = None;
    for part in &parts {
        match keyword(part) {
            Some(("input", value)) => fed |= word_of(value, code, 0).is_none_or(|w| w == COMPUTED),
            // `run(args=[…])`: the command; `executable=` replaces its
            // program (round 55, c08: `run(["true"], executable="make")`
            // runs make).
            Some(("args", value)) => positional.insert(0, value),
            Some(("executable", value)) => {
                executable = Some(word_of(value, code, 0).filter(|w| w != COMPUTED)?);
            }
            Some(_) => {}
            None => positional.push(part),
        }
    }
    let (first, rest) = positional.split_first()?;
    let mut found = list_of(first, code, 0)?;
    // `execv(path, [argv0, …])`, `posix_spawn(path, argv, env)`: the words
    // after the program.
    for later in rest {
        let words = list_of(later, code, 0).unwrap_or_else(|| vec![vec![COMPUTED.to_owned()]]);
        found = joined(&found, &words);
    }
    if fed {
        for words in &mut found {
            words.push(COMPUTED.to_owned());
        }
    }
    if let Some(program) = executable {
        for words in &mut found {
            match words.first_mut() {
                Some(first) => *first = program.clone(),
                None => words.push(program.clone()),
            }
        }
    }
    Some(found)
}

/// `name=value` split, when `part` is a keyword argument.
fn keyword(part: &str) -> Option<(&str, &str)> {
    static KEYWORD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=([^=].*)$").expect("valid regex")
    });
    let found = KEYWORD.captures(part)?;
    let name = found.get(1)?.as_str();
    let value = found.get(2)?.as_str().trim();
    Some((name, value))
}

/// The word lists `expression` may be.
fn list_of(expression: &str, code: &str, depth: usize) -> Option<Vec<Vec<String>>> {
    let expression = expression.trim();
    if depth > MAX_DEPTH {
        return None;
    }
    // `a or b`, `a + b`: each side.
    let alternatives = super::brackets::split_outside(expression, " or ");
    if alternatives.len() > 1 {
        let mut found = Vec::new();
        for alternative in alternatives {
            found.extend(list_of(alternative, code, depth + 1)?);
        }
        return Some(found);
    }
    let pieces = super::brackets::split_outside(expression, "+");
    // `"sh " + name`: one string built when it runs, not lists joined.
    let text =
        |p: &&str| is_string_literal(p) || p.starts_with(['f', 'F']) && is_string_literal(&p[1..]);
    if pieces.len() > 1 && !pieces.iter().any(text) {
        let mut found = vec![Vec::new()];
        for piece in pieces {
            found = joined(&found, &list_of(piece, code, depth + 1)?);
        }
        return Some(found);
    }
    // `shlex.split('git status')`, `'git status'.split()` (round 59, B-12).
    if let Some(words) = lists::split_literal(expression) {
        return Some(vec![words]);
    }
    // `list(args)`, `tuple(args)`.
    for wrapper in ["list(", "tuple("] {
        if let Some(inner) = expression
            .strip_prefix(wrapper)
            .and_then(|e| e.strip_suffix(')'))
        {
            return list_of(inner, code, depth + 1);
        }
    }
    if let Some(inner) = expression
        .strip_prefix(['[', '('])
        .and_then(|e| e.strip_suffix([']', ')']))
    {
        let mut found = vec![Vec::new()];
        for item in top_level(inner, ',') {
            let words = match item.strip_prefix('*') {
                // `*files`: words of data, unless read as written.
                Some(spread) => list_of(spread, code, depth + 1)
                    .unwrap_or_else(|| vec![vec![COMPUTED.to_owned()]]),
                None => vec![vec![word_of(item, code, depth + 1)?]],
            };
            found = joined(&found, &words);
        }
        return Some(found);
    }
    // `FORMATTERS[ext]`: every command the dict (or list) holds.
    if let Some((name, _)) = expression.strip_suffix(']').and_then(|e| e.split_once('['))
        && is_name(name)
    {
        let mut found = Vec::new();
        for value in values(code, name)? {
            let inner = value.trim();
            let entries = match inner.strip_prefix('{').and_then(|i| i.strip_suffix('}')) {
                Some(dict) => top_level(dict, ',')
                    .into_iter()
                    .map(|entry| entry.split_once(':').map_or(entry, |(_, v)| v))
                    .collect(),
                None => top_level(inner.strip_prefix('[')?.strip_suffix(']')?, ','),
            };
            for entry in entries {
                found.extend(list_of(entry, code, depth + 1)?);
            }
        }
        return Some(found);
    }
    // `for c in CHECKS: run(c)` over a literal list (round 59, B-13).
    if is_name(expression)
        && let Some(items) = lists::loop_items(code, expression)
    {
        let mut found = Vec::new();
        for item in items {
            found.extend(list_of(&item, code, depth + 1)?);
        }
        return (found.len() <= MAX_ALTERNATIVES).then_some(found);
    }
    if is_name(expression) && !PROGRAMS.contains(&expression) {
        let mut found = Vec::new();
        for value in values(code, expression)? {
            found.extend(list_of(&value, code, depth + 1)?);
        }
        // `cmd.append(n)`, `cmd += [n]`: words added when it runs.
        if grows(code, expression) {
            for words in &mut found {
                words.push(COMPUTED.to_owned());
            }
        }
        return (found.len() <= MAX_ALTERNATIVES).then_some(found);
    }
    // A string: a shell command (`shell=True`, `os.system`) or a program.
    Some(vec![vec![word_of(expression, code, depth)?]])
}

/// Whether a Python command's `words` ([`commands`]) are
/// written out: its program, and an interpreter's script or code (which
/// must be there: `cmd = ["sh"]; cmd.append(n)` adds it when it runs).
pub(super) fn is_written(words: &[String]) -> bool {
    let Some((first, rest)) = words.split_first() else {
        return false;
    };
    if first == COMPUTED {
        return false;
    }
    let program = first.trim_matches(['"', '\'']);
    let name = super::base_name(program);
    if !super::super::INTERPRETERS.contains(&name.as_str()) {
        return true;
    }
    // `execvp("sh", ["sh", …])`: the program named again as `argv[0]`.
    let rest = match rest.first() {
        Some(again) if super::base_name(again.trim_matches(['"', '\''])) == name => &rest[1..],
        _ => rest,
    };
    let mut rest = rest.iter();
    while let Some(word) = rest.next() {
        if word == COMPUTED {
            return false;
        }
        let word = word.trim_matches(['"', '\'']);
        if matches!(word, "-c" | "-e" | "-E" | "--eval" | "-m") {
            return rest.next().is_some_and(|code| code != COMPUTED);
        }
        if !word.starts_with('-') {
            return true;
        }
    }
    // No script: it reads its input (the hook's, or text `input=` gives:
    // a computed one is a word of its own, read above).
    true
}

/// Whether `code` adds words to the list `name` holds.
fn grows(code: &str, name: &str) -> bool {
    let name = regex::escape(name);
    Regex::new(&format!(r"\b{name}\s*(?:\.\s*(?:append|extend)\s*\(|\+=)"))
        .is_ok_and(|grows| grows.is_match(code))
}

/// Names that are programs themselves, never a variable's.
const PROGRAMS: [&str; 1] = ["sys"];

/// The one word `expression` is: a string literal as written, a program
/// Python names (`sys.executable`, `shutil.which("ruff")`), a name given
/// only such words, or [`COMPUTED`]; `None` never (any other word is data
/// computed when it runs).
fn word_of(expression: &str, code: &str, depth: usize) -> Option<String> {
    let expression = expression.trim();
    if is_string_literal(expression) {
        return Some(expression.to_owned());
    }
    // `shutil.which("ruff") or "ruff"`: each side written out.
    let sides = super::brackets::split_outside(expression, " or ");
    if sides.len() > 1 {
        let words: Vec<String> = sides
            .iter()
            .filter_map(|side| word_of(side, code, depth + 1))
            .collect();
        let known = words.len() == sides.len() && words.iter().all(|w| w != COMPUTED);
        return Some(match known {
            true => words[0].clone(),
            false => COMPUTED.to_owned(),
        });
    }
    if let Some(quoted) = quoted_f_string(expression) {
        return Some(quoted);
    }
    if let Some(program) = python_program(expression) {
        return Some(format!("'{program}'"));
    }
    if let Some(path) = path_word(expression, code, depth) {
        return Some(path);
    }
    if depth < MAX_DEPTH && is_name(expression) {
        let words: Option<Vec<String>> = values(code, expression).map(|values| {
            values
                .iter()
                .map(|v| word_of(v, code, depth + 1).unwrap_or_else(|| COMPUTED.to_owned()))
                .collect()
        });
        // A name given one word, or the same word every time.
        if let Some(words) = words
            && let Some(first) = words.first()
            && words.iter().all(|w| w == first)
        {
            return Some(first.clone());
        }
    }
    Some(COMPUTED.to_owned())
}

/// A path Python builds from written words, as one written word (round
/// 50, U2): the script's own folder (`os.path.dirname(os.path.abspath(
/// __file__))`, `Path(__file__).parent`: its code's, which the sweep looks
/// in for the names it writes), `os.path.join(…)` of written words,
/// `os.path.expanduser("~/x")`; [`COMPUTED`] when a part is.
fn path_word(expression: &str, code: &str, depth: usize) -> Option<String> {
    static OWN_FOLDER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:str\(\s*)?(?:os\.path\.dirname\(\s*(?:os\.path\.(?:abspath|realpath|normpath)\(\s*__file__\s*\)|__file__)\s*\)|(?:pathlib\.)?Path\(\s*__file__\s*\)(?:\.(?:resolve|absolute)\(\s*\))?\.parent)\s*\)?$")
            .expect("valid regex")
    });
    if OWN_FOLDER.is_match(expression) {
        return Some("'HOOK_FOLDER'".to_owned());
    }
    let call = |name: &str| {
        expression
            .strip_prefix(name)
            .and_then(|rest| rest.trim_start().strip_prefix('('))
            .and_then(|rest| rest.strip_suffix(')'))
    };
    if let Some(inner) = call("os.path.expanduser") {
        return word_of(inner, code, depth + 1);
    }
    let inner = call("os.path.join")?;
    let mut parts = Vec::new();
    for part in top_level(inner, ',') {
        let word = word_of(part, code, depth + 1)?;
        let part = word.trim().trim_matches(['"', '\'']).to_owned();
        // `..` leads out of the folder the sweep looks in.
        let climbs = part.split('/').any(|piece| piece == "..");
        if word == COMPUTED || !is_string_literal(&word) || climbs {
            return Some(COMPUTED.to_owned());
        }
        parts.push(part);
    }
    Some(format!("'{}'", parts.join("/")))
}

/// `f"ruff format {shlex.quote(path)}"`: an f-string whose every value is
/// quoted for the shell reads as its text, each value a word computed when
/// it runs (`$(:)`), which the shell reading judges where it stands:
/// data to `ruff`, a folder named when it runs to `cd` (round 55: `f"cd
/// {shlex.quote(d)} && make"` read as `cd DATA` moved nowhere).
fn quoted_f_string(expression: &str) -> Option<String> {
    static VALUE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\{([^{}]*)\}").expect("valid regex"));
    let body = expression.strip_prefix(['f', 'F'])?;
    if !is_string_literal(body) {
        return None;
    }
    let quoted = VALUE
        .captures_iter(body)
        .all(|value| value[1].trim_start().starts_with("shlex.quote("));
    quoted.then(|| VALUE.replace_all(body, "$$(:)").into_owned())
}

/// Whether `word` is one string literal, no f-string.
fn is_string_literal(word: &str) -> bool {
    static STRING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*[rRbBuU]?(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*$"#)
            .expect("valid regex")
    });
    STRING.is_match(word)
}

/// The program a Python expression names that is no string yet written
/// out: `sys.executable` (Python itself), `shutil.which("ruff")`. One
/// looked for in a `path=` of its own is not, but for Python (whose
/// environment the binding reads there: R32-7): `path="tools:" + …` found
/// the project's git (round 57).
pub(super) fn python_program(word: &str) -> Option<String> {
    static WHICH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*shutil\.which\(\s*(?:"([^"\\$]+)"|'([^'\\$]+)')\s*(,.*)?\)\s*$"#)
            .expect("valid regex")
    });
    // `path=glob.glob(".v*/bin")[0]`, exactly.
    static GLOBBED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^,\s*(?:path\s*=\s*)?glob\.glob\(\s*(?:"([^"\\$*?\[]*[*?][^"\\$]*)"|'([^'\\$*?\[]*[*?][^'\\$]*)')\s*\)\s*\[\s*0\s*\]\s*$"#)
            .expect("valid regex")
    });
    if word.trim() == "sys.executable" {
        return Some("python3".to_owned());
    }
    let found = WHICH.captures(word)?;
    let name = found.get(1).or(found.get(2))?.as_str();
    let Some(path) = found.get(3) else {
        return Some(name.to_owned());
    };
    // A search path of its own is read only for an environment's Python
    // given by one glob (`path=glob.glob(".v*/bin")[0]`: R32-7), as the
    // path the glob makes (`.v*/bin/python3`), which the shell reading
    // binds with every match (round 58, H58-9: read as `python3`, an
    // edited `.venv/bin/python3` ran unasked).
    let python = matches!(name, "python" | "python3") || name.starts_with("python3.");
    let glob = GLOBBED.captures(path.as_str())?;
    let folder = glob.get(1).or(glob.get(2))?.as_str().trim_end_matches('/');
    python.then(|| format!("{folder}/{name}"))
}

/// Every list of `heads` followed by every list of `tails` (bounded).
fn joined(heads: &[Vec<String>], tails: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for head in heads {
        for tail in tails {
            if out.len() >= MAX_ALTERNATIVES {
                return out;
            }
            out.push(head.iter().chain(tail).cloned().collect());
        }
    }
    out
}
