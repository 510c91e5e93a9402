//! Commands whose program or options a shell variable or an alias holds,
//! read with the value the text gives it: `x=make; $x -s lint`, `M=make;
//! "$M" -s lint`, `o='-f tools/x.mk'; make $o lint`, `alias l='make -s
//! lint'; l` (red team round 59: each ran the project's Makefile, or the
//! makefile it named, with nothing bound). A name given several values is
//! read with each; one the text never gives is left as written.

use std::collections::BTreeMap;

/// Builtins that give variables their values (`export x=make`).
const DECLARERS: [&str; 5] = ["export", "local", "declare", "typeset", "readonly"];

/// The most values one name is read with.
const MAX_VALUES: usize = 8;

/// The values `commands` give names: assignments standing alone (`x=make`,
/// `export M=make`) and aliases (`alias l='make -s lint'`), by name.
fn values(commands: &[Vec<String>]) -> (Values, Values) {
    let (mut variables, mut aliases) = (Values::new(), Values::new());
    for words in commands {
        let rest: &[String] = match words.split_first() {
            Some((first, rest)) if first == "alias" => {
                for word in rest {
                    if let Some((name, value)) = word.split_once('=') {
                        add(&mut aliases, name, value);
                    }
                }
                continue;
            }
            Some((first, rest)) if DECLARERS.contains(&first.as_str()) => rest,
            Some(_) => &words[..],
            None => continue,
        };
        let assigned: Vec<(&str, &str)> = rest
            .iter()
            .filter(|word| !word.starts_with('-'))
            .map_while(|word| word.split_once('='))
            .filter(|(name, _)| is_name(name))
            .collect();
        // Only assignments standing alone set the shell's variable.
        if assigned.len() == rest.iter().filter(|w| !w.starts_with('-')).count() {
            for (name, value) in assigned {
                add(&mut variables, name, value);
            }
        }
    }
    (variables, aliases)
}

/// Values by name.
type Values = BTreeMap<String, Vec<String>>;

fn add(values: &mut Values, name: &str, value: &str) {
    let known = values.entry(name.to_owned()).or_default();
    if !known.iter().any(|v| v == value) && known.len() < MAX_VALUES {
        known.push(value.to_owned());
    }
}

fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The name `word` expands whole (`$x`, `${x}`), when it does.
fn expanded_name(word: &str) -> Option<&str> {
    let name = word.strip_prefix('$')?;
    let name = match name.strip_prefix('{') {
        Some(braced) => braced.strip_suffix('}')?,
        None => name,
    };
    is_name(name).then_some(name)
}

/// `commands` read again with each variable and alias the text gives a
/// value to replaced by it (split into words, as an unquoted expansion
/// is): only the commands that change.
pub(super) fn substituted(commands: &[Vec<String>]) -> Vec<Vec<String>> {
    let (variables, aliases) = values(commands);
    let mut found = Vec::new();
    for words in commands {
        // Each word's readings: itself, or each value it may hold.
        let mut readings: Vec<Vec<String>> = vec![Vec::new()];
        let mut changed = false;
        for (at, word) in words.iter().enumerate() {
            let given = expanded_name(word)
                .and_then(|name| variables.get(name))
                .or_else(|| (at == 0).then(|| aliases.get(word.as_str())).flatten());
            let options: Vec<Vec<String>> = match given {
                Some(values) => {
                    changed = true;
                    values.iter().map(|value| split(value)).collect()
                }
                None => vec![vec![word.clone()]],
            };
            readings = readings
                .iter()
                .flat_map(|before| {
                    options.iter().map(move |option| {
                        let mut next = before.clone();
                        next.extend(option.iter().cloned());
                        next
                    })
                })
                .take(MAX_VALUES)
                .collect();
        }
        if changed {
            found.extend(readings.into_iter().filter(|r| !r.is_empty()));
        }
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
            [only] if !inner.contains(['$', '`']) => super::piped::echoed_text(only),
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
mod tests {
    use super::substituted;

    fn commands(lines: &[&str]) -> Vec<Vec<String>> {
        lines
            .iter()
            .map(|line| shlex::split(line).expect("words"))
            .collect()
    }

    #[test]
    fn a_program_or_options_a_variable_or_alias_holds_are_read_with_its_value() {
        for (lines, expected) in [
            (&["x=make", "$x -s lint"][..], "make -s lint"),
            (&["x='make -s lint'", "$x"][..], "make -s lint"),
            (&["MAKE=make", "${MAKE} -s lint"][..], "make -s lint"),
            (&["export NPM=npm", "$NPM run lint"][..], "npm run lint"),
            (
                &["o='-f tools/x.mk'", "make -s $o lint"][..],
                "make -s -f tools/x.mk lint",
            ),
            (&["alias l='make -s lint'", "l"][..], "make -s lint"),
        ] {
            let found = substituted(&commands(lines));
            let expected = shlex::split(expected).expect("words");
            assert!(found.contains(&expected), "{lines:?}: {found:?}");
        }
    }

    #[test]
    fn what_echo_prints_in_place_of_its_substitution_is_read() {
        for text in [
            "$(echo make) -s lint",
            "`echo make` -s lint",
            "x=$(echo make); $x -s lint",
            "x=`echo make`; \"$x\" -s lint",
        ] {
            let found = super::super::simple_commands(text);
            let expected = shlex::split("make -s lint").expect("words");
            assert!(found.contains(&expected), "{text}: {found:?}");
        }
    }

    #[test]
    fn a_name_the_text_never_gives_or_a_prefix_assignment_is_left_alone() {
        assert!(substituted(&commands(&["$EDITOR notes"])).is_empty());
        // `x=make env` gives `x` to `env` only, not to the shell.
        assert!(substituted(&commands(&["x=make env", "echo hi"])).is_empty());
        let found = substituted(&commands(&["x=make", "x=npm", "$x lint"]));
        assert_eq!(found.len(), 2, "{found:?}");
    }
}
