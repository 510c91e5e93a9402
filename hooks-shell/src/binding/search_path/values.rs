//! The values shell text may give a variable: every assignment, earlier or
//! later, under a condition or not, and each word of a `for NAME in …`
//! loop (R26-4); and the variables it sets in ways whose value cannot be
//! read (`read NAME`, `printf -v NAME`, `mapfile NAME`, an array, a
//! nameref, `NAME+=`: R26-2), which are never taken for a value.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

/// The variables whose value says where Python or Perl looks for code.
const SETTINGS: [&str; 7] = [
    "PYTHONPATH",
    "PERL5LIB",
    "PERLLIB",
    "PYTHONPYCACHEPREFIX",
    "PYTHONUSERBASE",
    "PYTHONHOME",
    "HOME",
];

/// The most ways one line is read when its variables have several values;
/// past it, the line is read with those variables unresolved (a folder
/// written with them cannot be approved).
const MAX_VARIANTS: usize = 16;

/// `NAME=value`: the name, what finds a use of it, the value.
pub(super) struct Assignment {
    /// The variable.
    pub(super) name: String,
    /// What finds `$NAME`, `${NAME}` and `${NAME:-default}`.
    pub(super) used: Uses,
    /// The value as written.
    pub(super) value: String,
}

/// The assignment `token` makes (`NAME=value`), if any.
pub(super) fn assignment(token: &str) -> Option<Assignment> {
    let (name, value) = token.split_once('=')?;
    plain(name).then(|| Assignment {
        name: name.to_owned(),
        used: uses(name),
        value: value.to_owned(),
    })
}

/// What finds a use of the variable `name` (not `${NAME:+…}`, whose value
/// is another text).
fn uses(name: &str) -> Uses {
    Uses(name.to_owned())
}

/// The uses of one variable in a text: `$NAME`, `${NAME}`, `${NAME-…}`,
/// `${NAME:-…}`, `${NAME=…}`, `${NAME?…}`. Found by a scan, not a regex
/// compiled per assignment (a script of many cost each emit minutes: red
/// team round 62).
pub(super) struct Uses(String);

impl Uses {
    /// Where each use in `text` starts and ends.
    fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        let name = self.0.as_str();
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let mut spans = Vec::new();
        for (at, _) in text.match_indices('$') {
            let rest = &text[at + 1..];
            if let Some(inner) = rest.strip_prefix('{').and_then(|r| r.strip_prefix(name)) {
                let operator = inner.strip_prefix(':').unwrap_or(inner);
                let end = if inner.starts_with('}') {
                    Some(0)
                } else if operator.starts_with(['-', '=', '?']) {
                    inner.find('}')
                } else {
                    None
                };
                if let Some(end) = end {
                    spans.push((at, at + 2 + name.len() + end + 1));
                }
            } else if let Some(after) = rest.strip_prefix(name)
                && !after.starts_with(word)
            {
                spans.push((at, at + 1 + name.len()));
            }
        }
        spans
    }

    /// Whether `text` uses the variable.
    pub(super) fn is_match(&self, text: &str) -> bool {
        !self.spans(text).is_empty()
    }

    /// `text` with each use replaced by `value`.
    pub(super) fn replace_all(&self, text: &str, value: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, end) in self.spans(text) {
            if start < last {
                continue;
            }
            out.push_str(&text[last..start]);
            out.push_str(value);
            last = end;
        }
        out.push_str(&text[last..]);
        out
    }
}

/// Whether `name` is a shell variable's name.
fn plain(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variables of some shell text and the values it may give them.
pub(super) struct Values {
    /// Every assignment and loop word, in the order written, of variables
    /// whose value can be read.
    pub(super) all: Vec<Assignment>,
    /// The variables set in ways whose value cannot be read.
    pub(super) unknown: BTreeSet<String>,
    /// The first such setting of a module search variable, as written.
    pub(super) setting: Option<String>,
    /// The variables given more than one value, with those values.
    several: BTreeMap<String, Vec<String>>,
}

impl Values {
    /// The values `lines` (each split into tokens; `raw`: as written) give.
    pub(super) fn of(lines: &[Vec<String>], raw: &[String]) -> Self {
        let tokens: Vec<&str> = lines.iter().flatten().map(String::as_str).collect();
        let mut unknown = BTreeMap::new();
        unread(&tokens, raw, &mut unknown);
        let mut all: Vec<Assignment> = tokens.iter().filter_map(|t| assignment(t)).collect();
        all.extend(loop_words(&tokens, &mut unknown));
        all.retain(|set| !unknown.contains_key(&set.name));
        let setting = unknown
            .iter()
            .find(|(name, _)| SETTINGS.contains(&name.as_str()))
            .map(|(_, how)| how.clone());
        let mut several: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for set in &all {
            let values = several.entry(set.name.clone()).or_default();
            if !values.contains(&set.value) {
                values.push(set.value.clone());
            }
        }
        several.retain(|_, values| values.len() > 1);
        Self {
            all,
            unknown: unknown.into_keys().collect(),
            setting,
            several,
        }
    }

    /// The other ways to read `line` when a variable it uses, directly or
    /// through another's value, has several values: each a choice of one
    /// value per such variable (`D=lib; [ -e x ] && D=other; PYTHONPATH=$D`
    /// is read with `lib` and with `other`). `Err` with those variables when
    /// the choices are too many.
    pub(super) fn choices(
        &self,
        line: &[String],
    ) -> Result<Vec<BTreeMap<String, String>>, BTreeSet<String>> {
        let mut reached: BTreeSet<&str> = BTreeSet::new();
        let mut texts: Vec<&str> = line.iter().map(String::as_str).collect();
        while let Some(text) = texts.pop() {
            for set in &self.all {
                if !reached.contains(set.name.as_str()) && set.used.is_match(text) {
                    reached.insert(&set.name);
                    texts.extend(
                        self.all
                            .iter()
                            .filter(|s| s.name == set.name)
                            .map(|s| s.value.as_str()),
                    );
                }
            }
        }
        let varied: Vec<(&String, &Vec<String>)> = self
            .several
            .iter()
            .filter(|(name, _)| reached.contains(name.as_str()))
            .collect();
        let count = varied
            .iter()
            .try_fold(1usize, |n, (_, values)| n.checked_mul(values.len()));
        if varied.is_empty() {
            return Ok(Vec::new());
        }
        if count.is_none_or(|n| n > MAX_VARIANTS) {
            return Err(varied.into_iter().map(|(name, _)| name.clone()).collect());
        }
        let mut choices = vec![BTreeMap::new()];
        for (name, values) in varied {
            choices = choices
                .into_iter()
                .flat_map(|chosen: BTreeMap<String, String>| {
                    values.iter().map(move |value| {
                        let mut chosen = chosen.clone();
                        chosen.insert(name.clone(), value.clone());
                        chosen
                    })
                })
                .collect();
        }
        Ok(choices)
    }
}

/// `token` with each use of a variable in `chosen` written as its chosen
/// value (through values that use others, a few deep), never its own
/// (`own`, the variable `token` assigns).
pub(super) fn with_chosen(
    token: &str,
    chosen: &BTreeMap<String, String>,
    values: &Values,
) -> String {
    let own = token.split_once('=').map(|(name, _)| name);
    let mut token = token.to_owned();
    for _ in 0..4 {
        let before = token.clone();
        for (name, value) in chosen {
            let used = values.all.iter().find(|set| set.name == *name);
            if let Some(set) = used.filter(|_| own != Some(name.as_str())) {
                token = set.used.replace_all(&token, value);
            }
        }
        if token == before {
            break;
        }
    }
    token
}

/// The variables `tokens` set in ways whose value cannot be read, each
/// with how (R26-2): `read`, `printf -v`, `mapfile`/`readarray`,
/// `getopts`, a nameref (`declare -n R=PYTHONPATH`: its target), `NAME+=`,
/// and an array (`NAME=(…)`, from `raw`).
fn unread(tokens: &[&str], raw: &[String], unknown: &mut BTreeMap<String, String>) {
    // A name only the running shell spells (`read "PYTHON$1"`,
    // `printf -v "$n"`: R28-12) may be any module setting.
    let mut note = |name: &str, how: String| {
        if plain(name) {
            unknown.entry(name.to_owned()).or_insert(how);
        } else if name.contains(['$', '`']) {
            for setting in SETTINGS {
                unknown
                    .entry(setting.to_owned())
                    .or_insert_with(|| how.clone());
            }
        }
    };
    for (at, token) in tokens.iter().enumerate() {
        let rest = &tokens[at + 1..];
        match *token {
            "read" | "mapfile" | "readarray" => {
                // Options that take a value (`-d ''`, `-p prompt`, `-u 3`).
                let (mut skip, mut first) = (false, true);
                for word in rest.iter().take(12) {
                    if std::mem::take(&mut skip) {
                        continue;
                    }
                    if let Some(flags) = word.strip_prefix('-') {
                        // `-a NAME` is read as a name next.
                        skip = flags.len() == 1 && "dinNptuOsCc".contains(flags);
                        continue;
                    }
                    // A built name only first: the words that follow may
                    // be the next command's (`read -r a; echo "$a"`).
                    let built = first && word.contains(['$', '`']) && !word.contains('=');
                    if !plain(word) && !built {
                        break;
                    }
                    note(word, format!("{token} {word}"));
                    first = false;
                }
            }
            "printf" => {
                let named = match rest.first().copied() {
                    Some("-v") => rest.get(1).copied(),
                    Some(word) => word.strip_prefix("-v"),
                    None => None,
                };
                if let Some(name) = named {
                    note(name, format!("printf -v {name}"));
                }
            }
            "getopts" => {
                if let Some(name) = rest.get(1) {
                    note(name, format!("getopts {name}"));
                }
            }
            "declare" | "typeset" | "local" => {
                let flags = rest.iter().take_while(|word| word.starts_with('-'));
                if flags.clone().any(|flags| flags.contains('n')) {
                    let skipped = flags.count();
                    for word in rest
                        .iter()
                        .skip(skipped)
                        .take_while(|w| !w.starts_with('-'))
                    {
                        let (name, target) = word.split_once('=').unwrap_or((word, ""));
                        if !plain(name) {
                            break;
                        }
                        // Setting `name` sets its target: read neither.
                        let how = format!("{token} -n {word}");
                        note(name, how.clone());
                        if plain(target) {
                            note(target, how);
                        } else {
                            // A target known only when it runs may be any.
                            for setting in SETTINGS {
                                note(setting, how.clone());
                            }
                        }
                    }
                }
            }
            _ => {
                if let Some((name, _)) = token.split_once("+=") {
                    note(name, format!("{name}+="));
                }
            }
        }
    }
    static ARRAY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)\+?=\(").expect("valid regex")
    });
    for line in raw {
        for found in ARRAY.captures_iter(line) {
            note(&found[1], format!("{}=(…)", &found[1]));
        }
    }
}

/// The words `for NAME in w1 w2; do` gives `NAME`, as assignments; a
/// loop over what only the running shell knows (the arguments, a glob, an
/// expansion) makes `NAME` unknown.
fn loop_words(tokens: &[&str], unknown: &mut BTreeMap<String, String>) -> Vec<Assignment> {
    let mut found = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let Some(name) = tokens
            .get(at + 1)
            .filter(|name| *token == "for" && plain(name))
        else {
            continue;
        };
        let words: Vec<&str> = if tokens.get(at + 2) == Some(&"in") {
            tokens[at + 3..]
                .iter()
                .copied()
                .take_while(|word| *word != "do")
                .collect()
        } else {
            Vec::new()
        };
        let known = |word: &&str| !word.contains(['$', '`', '*', '?', '[']);
        if words.is_empty() || !words.iter().all(known) {
            unknown
                .entry((*name).to_owned())
                .or_insert(format!("for {name}"));
            continue;
        }
        found.extend(
            words
                .iter()
                .filter_map(|word| assignment(&format!("{name}={word}"))),
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_variables_uses_are_found_and_replaced_by_a_scan() {
        let uses = super::uses("D");
        for text in [
            "$D/x",
            "${D}/x",
            "${D:-lib}/x",
            "${D-lib}",
            "${D=a}",
            "${D?no}",
        ] {
            assert!(uses.is_match(text), "{text}");
        }
        for text in ["$DX/x", "${DX}", "${D:+a}", "${D+a}", "D", "$"] {
            assert!(!uses.is_match(text), "{text}");
        }
        assert_eq!(
            uses.replace_all("$D/a:${D:-b}/c:$DX", "lib"),
            "lib/a:lib/c:$DX"
        );
    }

    fn lines(text: &str) -> (Vec<Vec<String>>, Vec<String>) {
        let raw: Vec<String> = text.lines().map(str::to_owned).collect();
        (
            raw.iter().map(|line| super::super::split(line)).collect(),
            raw,
        )
    }

    #[test]
    fn every_value_given_anywhere_is_a_choice() {
        let (split, raw) = lines("D=lib\n[ -e x ] && D=other\nPYTHONPATH=$D python3 c.py\n");
        let values = Values::of(&split, &raw);
        let choices = values.choices(&split[2]).expect("few");
        let read: Vec<String> = choices
            .iter()
            .map(|chosen| with_chosen(&split[2][0], chosen, &values))
            .collect();
        assert_eq!(read, ["PYTHONPATH=lib", "PYTHONPATH=other"]);
        // Through another variable's value.
        let (split, raw) = lines("D=a\nD=b\nE=$D/x\nPYTHONPATH=$E\n");
        let values = Values::of(&split, &raw);
        assert_eq!(values.choices(&split[3]).expect("few").len(), 2);
    }

    #[test]
    fn loop_words_are_values_and_unreadable_settings_are_named() {
        let (split, raw) = lines("for D in lib vendor; do PYTHONPATH=$D python3 c.py; done\n");
        let values = Values::of(&split, &raw);
        assert_eq!(values.choices(&split[0]).expect("few").len(), 2);
        for (text, how) in [
            ("printf -v PYTHONPATH %s lib", "printf -v PYTHONPATH"),
            ("read -r PYTHONPATH <<EOF", "read PYTHONPATH"),
            ("IFS=: read -r PYTHONPATH _ <<< lib:x", "read PYTHONPATH"),
            ("declare -n R=PYTHONPATH", "declare -n R=PYTHONPATH"),
            ("local -rn R=$V", "local -n R=$V"),
            ("PERL5LIB=(inc)", "PERL5LIB=(…)"),
            ("export PYTHONPATH+=lib", "PYTHONPATH+="),
            // A name only the running shell spells (R28-12).
            ("printf -v \"PYTHON$1\" %s lib", "printf -v \"PYTHON$1\""),
            ("read -r PYTHON${1} <<EOF", "read PYTHON${1}"),
        ] {
            let (split, raw) = lines(text);
            assert_eq!(
                Values::of(&split, &raw).setting.as_deref(),
                Some(how),
                "{text}"
            );
        }
        // `read -r line` of the payload is no module setting.
        let (split, raw) = lines("read -r payload; D=$payload");
        let values = Values::of(&split, &raw);
        assert_eq!(values.setting, None);
        assert!(values.unknown.contains("payload"));
    }

    #[test]
    fn too_many_choices_leave_the_variables_unresolved() {
        let text: String = (0..5).map(|n| format!("A=a{n}\nB=b{n}\n")).collect();
        let (split, raw) = lines(&format!("{text}PYTHONPATH=$A$B\n"));
        let values = Values::of(&split, &raw);
        let last = split.last().expect("a line");
        let unresolved = values.choices(last).expect_err("25 choices");
        assert_eq!(unresolved.into_iter().collect::<Vec<_>>(), ["A", "B"]);
    }
}
