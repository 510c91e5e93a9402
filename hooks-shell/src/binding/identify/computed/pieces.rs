//! Names joined from pieces no reading resolves (red team R42-1):
//! `tools/g${NOPE}.sh`, `tools/g$#.sh`, `"${X:+tools/g.sh}"`, `"${X%XX}sh"`
//! of a loop's variable, `X=tools/g; X="$X.sh"`. The sweep binds what a
//! name's text shows; an expansion inside the file's own name (or mixed
//! into a folder's) shows nothing of what runs, so such a name is read as
//! computed when it runs. An expansion that is a whole folder (`"$D"/x.sh`,
//! `${CLAUDE_PROJECT_DIR:-$(pwd)}/x.sh`) is read as before.

use super::commands::ENVIRONMENT;
use super::words::{Taint, is_name};

/// Variables a hook's environment gives whose value is no name of the
/// project's choosing: a name made of them is the user's.
const GIVEN: [&str; 12] = [
    "PATH",
    "PYTHONPATH",
    "NODE_PATH",
    "PERL5LIB",
    "RUBYLIB",
    "USER",
    "LOGNAME",
    "SHELL",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
];

/// Whether `word`, in a name's place, is joined from pieces no reading
/// resolves: a path component mixing an expansion with text or with
/// another expansion, or a file name (the last component) that is one
/// expansion of a variable the text does not set once to text of its own
/// (positional parameters and `$0` are read by their taint).
pub(super) fn pieced(word: &str, taint: &Taint) -> bool {
    // `tools/[[:lower:]].sh`, `[]g]`: bracket forms no reading matches
    // (R44-8); `/proc/self/cwd/…`, `/dev/fd/../cwd/…`: the folder it runs
    // in by another name (R44-10).
    let brackets = ["[[:", "[[.", "[[=", "[]", "[!]", "[^]"]
        .iter()
        .any(|b| word.contains(b));
    let by_proc = (word.starts_with("/proc/") || word.starts_with("/dev/fd/"))
        && (word.contains("/cwd") || word.contains("/root") || word.contains(".."));
    if brackets || by_proc {
        return true;
    }
    let components = components(word);
    let last = components.len().saturating_sub(1);
    components.iter().enumerate().any(|(at, component)| {
        if !holds_expansion(component) {
            return false;
        }
        match whole_expansion(component) {
            None => true,
            Some(_) if at < last => false,
            Some(expansion) => !resolved(expansion, taint),
        }
    })
}

/// Whether `word` is one expansion and nothing else (`$X`, `${X:-d}`).
pub(super) fn is_one_expansion(word: &str) -> bool {
    whole_expansion(word).is_some()
}

/// `word` split at each `/` outside `${…}`.
fn components(word: &str) -> Vec<&str> {
    super::super::split_outside_parameters(word, b'/')
}

/// Whether `text` holds a parameter expansion (`$N`, `${…}`, `$1`, `$#`).
fn holds_expansion(text: &str) -> bool {
    text.match_indices('$').any(|(at, _)| {
        text[at + 1..].starts_with(|c: char| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '{' | '@' | '*' | '#' | '?' | '!' | '-')
        })
    })
}

/// The expansion `component` is whole (`$X`, `${X}`, `${X:-d}`, `$1`):
/// what follows its `$`.
fn whole_expansion(component: &str) -> Option<&str> {
    let rest = component.strip_prefix('$')?;
    if let Some(inner) = rest.strip_prefix('{') {
        let mut depth = 1usize;
        for (at, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (at + 1 == inner.len()).then_some(&inner[..at]);
                    }
                }
                _ => {}
            }
        }
        return None;
    }
    let single =
        rest.len() == 1 && rest.starts_with(|c: char| c.is_ascii_digit() || c == '@' || c == '*');
    (single || is_name(rest)).then_some(rest)
}

/// Whether `text` is one substitution's mark (a place: `$(pwd)`).
fn is_one_mark(text: &str) -> bool {
    text.starts_with('\u{e000}')
        && text.ends_with('\u{e001}')
        && text.matches('\u{e000}').count() == 1
}

/// Whether the expansion `inner` (what follows `$`, braces taken off)
/// names text a reading knows: a positional parameter (read by its
/// taint), a variable the environment gives, one the text sets once to
/// text of its own, or a loop's variable over written words; `NAME:-D`
/// of such a variable whose default is written or a place.
fn resolved(inner: &str, taint: &Taint) -> bool {
    let end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let (name, operator) = inner.split_at(end);
    // `${cmd[@]}`, `${a[0]}`: an element of the array.
    let operator = match operator.strip_prefix('[').and_then(|o| o.split_once(']')) {
        Some((index, rest))
            if index
                .chars()
                .all(|c| c.is_ascii_digit() || c == '@' || c == '*') =>
        {
            rest
        }
        _ => operator,
    };
    let default = ["-", ":-", "=", ":="]
        .iter()
        .find_map(|op| operator.strip_prefix(op));
    // `${S:-tools/step.sh}`: the binding reads a written default as written.
    let plain_default =
        default.is_some_and(|d| !holds_expansion(d) && (!d.contains('\u{e000}') || is_one_mark(d)));
    if !(operator.is_empty() || ["@", "*"].contains(&inner) || plain_default) {
        return false;
    }
    let positional = name.chars().all(|c| c.is_ascii_digit()) || ["@", "*"].contains(&inner);
    let known = positional
        || ENVIRONMENT.contains(&name)
        || GIVEN.contains(&name)
        || taint.once(name) && (taint.plain.contains(name) || taint.looped.contains(name));
    // `${S:-tools/step.sh}` of a variable the text never sets: its default.
    known || (plain_default && !taint.assigned.contains(name) && !taint.looped.contains(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint() -> Taint {
        let mut taint = Taint::default();
        for (name, count) in [("ONCE", 1), ("TWICE", 2), ("L", 1)] {
            taint.counts.insert(name.to_owned(), count);
        }
        taint.plain.extend(["ONCE".to_owned(), "TWICE".to_owned()]);
        taint.looped.insert("L".to_owned());
        taint
    }

    #[test]
    fn names_of_unresolved_pieces_are_pieced() {
        for word in [
            "tools/g${NOPE}.sh",
            "tools/g$NOPE.sh",
            "${X%XX}sh",
            "${X:+tools/g.sh}",
            "tools/g$#.sh",
            "tools/g$OPTIND.sh",
            "tools/g${#X}.sh",
            "$TWICE",
            "tools/$1.sh",
            "tools$NOPE/g.sh",
            "$NOPE",
            "${L%x}",
            "$ONCE.sh",
        ] {
            assert!(pieced(word, &taint()), "{word}");
        }
    }

    #[test]
    fn whole_folders_and_known_names_are_not() {
        for word in [
            "tools/g.sh",
            "$CLAUDE_PROJECT_DIR/tools/g.sh",
            "${CLAUDE_PROJECT_DIR:-\u{e000}0\u{e001}}/x.sh",
            "${CLAUDE_PROJECT_DIR:-\u{e000}0\u{e001}}",
            "$D/x.sh",
            "${D#x}/check.py",
            "$1",
            "${1}",
            "$@",
            "$0",
            "$ONCE",
            "${ONCE}",
            "${ONCE[@]}",
            "$L",
            "$HOME",
            "$PATH",
            "a$",
        ] {
            assert!(!pieced(word, &taint()), "{word}");
        }
    }
}
