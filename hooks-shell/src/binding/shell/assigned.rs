//! Commands whose program or options a shell variable or an alias holds,
//! read with the values the text gives it: `x=make; $x -s lint`, `M=make;
//! "$M" -s lint`, `o='-f tools/x.mk'; make $o lint`, `alias l='make -s
//! lint'; l` (red team round 59), and the other ways a value reaches a
//! word (round 60): inside a word (`sh -c "$x -s lint"`), through another
//! variable (`b=$a`), `${x:-make}`, `${x:+make}`, `${x:=make}`, `x+=`, a
//! prefix assignment (`x=make sh -c '$x'`), `IFS`. A name given several
//! values is read with each; one the text never gives is left as written.
//! A reading for consent: more readings bind more, never less.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// Builtins that give variables their values (`export x=make`).
const DECLARERS: [&str; 5] = ["export", "local", "declare", "typeset", "readonly"];

/// The most values one name (or one word) is read with.
const MAX_VALUES: usize = 16;

/// How many names deep a value is expanded (`c=$b`, `b=$a`).
const MAX_DEPTH: usize = 8;

/// Values by name.
type Values = BTreeMap<String, Vec<String>>;

/// A parameter's expansion: `$x`, `${x}`, `${x:-word}` and the other
/// operators with a word.
static EXPANSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
        .expect("valid regex")
});

/// What the text gives names: variables (assignments standing alone or
/// before a command, `+=`, `${x:=word}`) and aliases.
struct Given {
    variables: Values,
    aliases: Values,
    /// Arrays by name, each with its words (`cmd=(npx prettier)`).
    arrays: Values,
    /// The characters `IFS` is given (words split at them too).
    ifs: String,
}

fn given(commands: &[Vec<String>]) -> Given {
    let mut given = Given {
        variables: Values::new(),
        aliases: Values::new(),
        arrays: Values::new(),
        ifs: String::new(),
    };
    for (at, words) in commands.iter().enumerate() {
        // `x=(ma ke)`: read as `x=` before a group of its words (round 62).
        if let [only] = words.as_slice()
            && let Some(name) = only.strip_suffix('=').filter(|name| is_name(name))
            && let Some(items) = commands.get(at + 1)
        {
            given.arrays.insert(name.to_owned(), items.clone());
            continue;
        }
        let rest: &[String] = match words.split_first() {
            // `for d in a b`: each word a value of `d` (round 65: `make -C
            // $d` was read literally); a glob or an expansion among them
            // is a value this reading cannot know.
            Some((first, rest)) if first == "for" && rest.get(1).is_some_and(|w| w == "in") => {
                if is_name(&rest[0]) {
                    for value in &rest[2..] {
                        let known = !value.contains(['$', '`'])
                            && !crate::binding::wrappers::expands(value);
                        add(
                            &mut given.variables,
                            &rest[0],
                            if known { value } else { "$(:)" },
                        );
                    }
                }
                continue;
            }
            Some((first, rest)) if first == "alias" => {
                for word in rest {
                    if let Some((name, value)) = word.split_once('=') {
                        add(&mut given.aliases, name, value);
                    }
                }
                continue;
            }
            // `hash -p /usr/bin/make m`: `m` runs that program (round 62).
            Some((first, rest)) if first == "hash" => {
                if let Some(at) = rest.iter().position(|w| w == "-p")
                    && let (Some(path), Some(name)) = (rest.get(at + 1), rest.get(at + 2))
                {
                    add(&mut given.aliases, name, path);
                }
                continue;
            }
            Some((first, rest)) if DECLARERS.contains(&first.as_str()) => rest,
            // `nice env -u y x=make sh -c '$x'`: the names env gives (round 61).
            Some(_)
                if let Some(env) = words
                    .iter()
                    .take(6)
                    .position(|w| super::super::identify::base_name(w) == "env") =>
            {
                let rest = &words[env + 1..];
                let mut at = 0;
                while let Some(word) = rest.get(at).filter(|w| w.starts_with('-')) {
                    at += if matches!(word.as_str(), "-u" | "-C" | "-S") {
                        2
                    } else {
                        1
                    };
                }
                &rest[at.min(rest.len())..]
            }
            Some(_) => &words[..],
            None => continue,
        };
        // The assignments it starts with, standing alone or before a
        // command (`x=make env`: the command's own, read all the same).
        let assigned = rest
            .iter()
            .filter(|word| !word.starts_with('-'))
            .map_while(|word| word.split_once('='))
            .filter_map(|(name, value)| match name.strip_suffix('+') {
                Some(name) => is_name(name).then_some((name, value, true)),
                None => is_name(name).then_some((name, value, false)),
            });
        for (name, value, appends) in assigned {
            if name == "IFS" {
                given.ifs.push_str(value);
            }
            match appends {
                true => {
                    let before = given.variables.get(name).cloned().unwrap_or_default();
                    for old in before {
                        add(&mut given.variables, name, &format!("{old}{value}"));
                    }
                    add(&mut given.variables, name, value);
                }
                // `x=${x}a`: the value before, in order (round 61).
                false => {
                    let before = given.variables.get(name).cloned().unwrap_or_default();
                    let own = [format!("${name}"), format!("${{{name}}}")];
                    match own.iter().any(|own| value.contains(own.as_str())) && !before.is_empty() {
                        true => {
                            for old in before {
                                let value = value.replace(&own[1], &old).replace(&own[0], &old);
                                add(&mut given.variables, name, &value);
                            }
                        }
                        false => add(&mut given.variables, name, value),
                    }
                }
            }
        }
        // `: ${x:=make}`: a default the expansion also assigns.
        for word in words {
            for found in EXPANSION.captures_iter(word) {
                if let (Some(name), Some(op), Some(value)) =
                    (found.get(1), found.get(2), found.get(3))
                    && op.as_str().ends_with('=')
                {
                    add(&mut given.variables, name.as_str(), value.as_str());
                }
            }
        }
    }
    given
}

fn add(values: &mut Values, name: &str, value: &str) {
    let known = values.entry(name.to_owned()).or_default();
    if known.iter().any(|v| v == value) {
        return;
    }
    match known.len() < MAX_VALUES {
        true => known.push(value.to_owned()),
        false => OVERFLOW.with(|overflow| overflow.set(true)),
    }
}

thread_local! {
    /// Whether the reading under way dropped a value or a reading past its
    /// limits: then what the text runs cannot all be read (round 61).
    static OVERFLOW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Why a command stands for what cannot be read: names given more values,
/// or values more names deep, than are read.
const UNREAD: &str = "names are given more values, or values more names deep, than are read";

/// A command standing for what cannot be read ([`unread_reason`]).
fn unread() -> Vec<String> {
    vec![UNREAD.to_owned()]
}

/// Why `words` (a simple command) stands for what the reading of names
/// cannot read: no approval can bind what it runs (round 61).
pub(crate) fn unread_reason(words: &[String]) -> Option<String> {
    (words.len() == 1 && words[0] == UNREAD).then(|| format!("the hook's shell text: {UNREAD}"))
}

fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Given {
    /// The texts `word` may stand for with the names in it expanded (`None`
    /// when it names none the text gives, nor a default).
    fn expanded(&self, word: &str, depth: usize) -> Option<Vec<String>> {
        self.expanded_within(word, depth, &[])
    }

    /// [`Given::expanded`] inside the values of `within` (a name's own
    /// value naming it, `PATH="$HOME/bin:$PATH"`, is the value before:
    /// left as written).
    fn expanded_within(&self, word: &str, depth: usize, within: &[&str]) -> Option<Vec<String>> {
        if !EXPANSION.is_match(word) {
            return None;
        }
        if depth > MAX_DEPTH {
            OVERFLOW.with(|overflow| overflow.set(true));
            return None;
        }
        let mut readings = vec![String::new()];
        let mut changed = false;
        let mut last = 0;
        for found in EXPANSION.captures_iter(word) {
            let whole = found.get(0).expect("a match");
            let name = found.get(1).or(found.get(4)).map_or("", |m| m.as_str());
            let op = found.get(2).map_or("", |m| m.as_str());
            let default = found.get(3).map_or("", |m| m.as_str());
            let mut options: Vec<String> = Vec::new();
            let values = self.variables.get(name).filter(|_| !within.contains(&name));
            if !op.contains('+') {
                options.extend(values.into_iter().flatten().cloned());
            }
            if !op.is_empty() && op != "?" && op != ":?" {
                options.push(default.to_owned());
            }
            if op.contains('+') {
                options.push(String::new());
            }
            // A value naming another variable (`b=$a`), expanded in turn.
            let options: Vec<String> = match options.is_empty() {
                true => vec![whole.as_str().to_owned()],
                false => {
                    changed = true;
                    options
                        .into_iter()
                        .flat_map(|option| {
                            let inner: Vec<&str> = within.iter().copied().chain([name]).collect();
                            self.expanded_within(&option, depth + 1, &inner)
                                .unwrap_or_else(|| vec![option])
                        })
                        .collect()
                }
            };
            let before = &word[last..whole.start()];
            readings = readings
                .iter()
                .flat_map(|reading| {
                    options
                        .iter()
                        .map(move |option| format!("{reading}{before}{option}"))
                })
                .collect();
            if readings.len() > MAX_VALUES {
                readings.truncate(MAX_VALUES);
                OVERFLOW.with(|overflow| overflow.set(true));
            }
            last = whole.end();
        }
        for reading in &mut readings {
            reading.push_str(&word[last..]);
        }
        changed.then_some(readings)
    }

    /// The readings of `word` when it is an array's expansion whole:
    /// `${x[@]}` its words, `${x[*]}` them joined (by a blank, or by what
    /// `IFS` is given), `${x[1]}` one of them.
    fn array_items(&self, word: &str) -> Option<Vec<Vec<String>>> {
        static ITEMS: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]\}$").expect("valid regex")
        });
        let found = ITEMS.captures(word)?;
        let items = self.arrays.get(found.get(1)?.as_str())?;
        let readings = match found.get(2)?.as_str() {
            "@" => vec![items.clone()],
            "*" => {
                let mut joiners = vec![" ".to_owned(), String::new()];
                joiners.extend(self.ifs.chars().next().map(String::from));
                joiners.iter().map(|by| vec![items.join(by)]).collect()
            }
            index => match index.parse::<usize>().ok().and_then(|at| items.get(at)) {
                Some(item) => vec![vec![item.clone()]],
                None => items.iter().map(|item| vec![item.clone()]).collect(),
            },
        };
        Some(readings)
    }

    /// `value` split into words as an unquoted expansion is: at blanks,
    /// and at the characters `IFS` is given.
    fn split(&self, value: &str) -> Vec<String> {
        let mut words = split(value);
        if !self.ifs.is_empty() {
            words = words
                .iter()
                .flat_map(|word| word.split(|c: char| self.ifs.contains(c)))
                .filter(|word| !word.is_empty())
                .map(str::to_owned)
                .collect();
        }
        words
    }
}

/// `commands` read again with each variable and alias the text gives a
/// value to replaced by it: a word that is the expansion whole split into
/// words (as an unquoted one is), one holding it (`"$x -s lint"`, a `-c`
/// string) kept one word. Only the commands that change, each with the
/// index of the command it reads again.
pub(super) fn substituted(commands: &[Vec<String>]) -> Vec<(usize, Vec<String>)> {
    OVERFLOW.with(|overflow| overflow.set(false));
    let given = given(commands);
    let mut found = Vec::new();
    for (index, words) in commands.iter().enumerate() {
        // Each word's readings: itself, or each value it may hold.
        let mut readings: Vec<Vec<String>> = vec![Vec::new()];
        let mut changed = false;
        for (at, word) in words.iter().enumerate() {
            let alias = (at == 0)
                .then(|| given.aliases.get(word.as_str()))
                .flatten();
            let options: Vec<Vec<String>> = match (alias, given.expanded(word, 0)) {
                _ if let Some(items) = given.array_items(word) => items,
                (Some(values), _) => values.iter().map(|value| given.split(value)).collect(),
                (None, Some(texts))
                    if EXPANSION.find(word).is_some_and(|m| m.len() == word.len()) =>
                {
                    texts.iter().map(|text| given.split(text)).collect()
                }
                (None, Some(texts)) => texts.into_iter().map(|text| vec![text]).collect(),
                (None, None) => vec![vec![word.clone()]],
            };
            changed |= options.len() != 1 || options[0].len() != 1 || options[0][0] != *word;
            readings = readings
                .iter()
                .flat_map(|before| {
                    options.iter().map(move |option| {
                        let mut next = before.clone();
                        next.extend(option.iter().cloned());
                        next
                    })
                })
                .collect();
            if readings.len() > MAX_VALUES {
                readings.truncate(MAX_VALUES);
                OVERFLOW.with(|overflow| overflow.set(true));
            }
        }
        if changed {
            found.extend(
                readings
                    .into_iter()
                    .filter(|r| !r.is_empty())
                    .map(|reading| (index, reading)),
            );
        }
    }
    if OVERFLOW.with(std::cell::Cell::get) {
        found.push((commands.len().saturating_sub(1), unread()));
    }
    found
}

/// `raw` with each command substitution of `echo`/`printf` of plain words
/// (`$(echo make)`, `` `echo make` ``) replaced by what it prints, as the
/// shell puts it in place (red team round 59); `None` when it holds none.
pub(super) fn echo_substituted(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    let mut changed = false;
    while let Some(at) = rest.find(['$', '`']) {
        let backquoted = rest[at..].starts_with('`');
        let opens = match backquoted {
            true => 1,
            false if rest[at..].starts_with("$(") && !rest[at..].starts_with("$((") => 2,
            false => {
                out.push_str(&rest[..=at]);
                rest = &rest[at + 1..];
                continue;
            }
        };
        let Some(end) = super::substitution_end(rest, at + opens, backquoted) else {
            break;
        };
        let inner = &rest[at + opens..end];
        let printed = match super::simple_commands(inner).as_slice() {
            // `$(echo ${x}ke)`: its variables read as the rest of the text's.
            [only] if !inner.contains(['`']) && !inner.contains("$(") => {
                super::piped::echoed_text(only)
            }
            _ => None,
        };
        out.push_str(&rest[..at]);
        match printed {
            Some(text) => {
                out.push_str(text.trim_end());
                changed = true;
            }
            None => out.push_str(&rest[at..=end]),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

fn split(value: &str) -> Vec<String> {
    shlex::split(value).unwrap_or_else(|| value.split_whitespace().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests;
