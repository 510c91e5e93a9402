//! Options read as the programs themselves read them (`getopt_long`): short
//! letters combined (`-sf x.mk`), a short option's value attached (`-fx.mk`)
//! or in the next word, `--name=value` or `--name value`, a unique prefix of
//! a long name (`--dir=tools` is `--directory`), `--` ending the options.
//! Anything the grammar does not know makes the reading *unsure*: the caller
//! then binds more (the hook tree), never a file the program does not read.

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes {
    /// No value.
    Nothing,
    /// A value: attached or the next word.
    Value,
    /// An optional value, attached only (`--debug=a`, `-Otarget`).
    Attached,
    /// An optional value, attached or the next word when it starts with a
    /// digit (`make -j 4`, `make -l 2.5`).
    Number,
}

/// What an option means to the binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Nothing the binding needs.
    Other,
    /// The folder the program runs in (`make -C`, `env --chdir`).
    Dir,
    /// A definitions file it reads (`make -f`, `just --justfile`).
    File,
    /// A folder its includes are searched in (`make -I`).
    IncludeDir,
    /// A string split into the rest of the command (`env -S`).
    Split,
    /// A variable removed from its environment (`env -u NAME`).
    Unset,
    /// Code given inline that may read files no scan follows (`make --eval`).
    Code,
}

/// One option: its names, how it takes a value, what it means.
pub(crate) type Opt = (&'static str, Takes, Role);

/// A program's options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grammar {
    /// Short options, one letter each as the name.
    pub short: &'static [Opt],
    /// Long options, without the leading `--`.
    pub long: &'static [Opt],
    /// Whether options may follow operands (GNU permutation); otherwise the
    /// first operand ends them (`env`, `nice`, a command after it).
    pub permute: bool,
}

/// One argument as the program reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    /// An option that matters ([`Role`] other than `Other`) and its value.
    Opt(Role, String),
    /// A word that is no option.
    Operand(String),
}

/// `args` read with `grammar`: options until the first operand or a
/// [`Role::Split`] one (whose words the caller puts before [`Parsed::rest`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// The options that matter and the operands, in order.
    pub args: Vec<Arg>,
    /// Without permutation: the first operand and every word after it (the
    /// command a wrapper runs).
    pub rest: Vec<String>,
    /// Why the reading is unsure (an unknown option, a missing value).
    pub unsure: Option<String>,
}

/// Reads `args` with `grammar`. Without permutation, the first operand and
/// everything after it are [`Parsed::rest`].
pub(crate) fn parse(grammar: &Grammar, args: &[String]) -> Parsed {
    let mut parsed = Parsed::default();
    let mut index = 0;
    while let Some(word) = args.get(index) {
        if let Some(Arg::Opt(Role::Split, _)) = parsed.args.last() {
            // `env -S`: the split words come before the words left.
            parsed.rest = args[index..].to_vec();
            return parsed;
        }
        index += 1;
        if word == "--" {
            operands(grammar, &args[index..], &mut parsed);
            return parsed;
        }
        if let Some(long) = word.strip_prefix("--") {
            if let Err(why) = long_option(grammar, long, args, &mut index, &mut parsed) {
                parsed.unsure = Some(why);
                return parsed;
            }
        } else if let Some(letters) = word.strip_prefix('-').filter(|l| !l.is_empty()) {
            if let Err(why) = short_options(grammar, letters, args, &mut index, &mut parsed) {
                parsed.unsure = Some(why);
                return parsed;
            }
        } else if grammar.permute {
            parsed.args.push(Arg::Operand(word.clone()));
        } else {
            parsed.rest = args[index - 1..].to_vec();
            return parsed;
        }
    }
    parsed
}

fn operands(grammar: &Grammar, words: &[String], parsed: &mut Parsed) {
    if grammar.permute {
        parsed.args.extend(words.iter().cloned().map(Arg::Operand));
    } else {
        parsed.rest = words.to_vec();
    }
}

fn push(parsed: &mut Parsed, role: Role, value: String) {
    if role != Role::Other {
        parsed.args.push(Arg::Opt(role, value));
    }
}

fn long_option(
    grammar: &Grammar,
    text: &str,
    args: &[String],
    index: &mut usize,
    parsed: &mut Parsed,
) -> Result<(), String> {
    let (name, inline) = match text.split_once('=') {
        Some((name, value)) => (name, Some(value.to_owned())),
        None => (text, None),
    };
    let exact = grammar.long.iter().find(|(long, ..)| *long == name);
    let matches: Vec<&Opt> = grammar
        .long
        .iter()
        .filter(|(long, ..)| long.starts_with(name))
        .collect();
    let &(_, takes, role) = match (exact, matches.as_slice()) {
        _ if name.is_empty() => return Err(format!("it passes --{text}")),
        (Some(opt), _) => opt,
        (None, [opt]) => *opt,
        (None, [first, rest @ ..]) if rest.iter().all(|o| o.1 == first.1 && o.2 == first.2) => {
            *first
        }
        _ => {
            return Err(format!(
                "it passes an option this reading does not know (--{name})"
            ));
        }
    };
    let value = match (takes, inline) {
        (Takes::Nothing, Some(_)) => return Err(format!("--{name} takes no value")),
        (Takes::Nothing, None) | (Takes::Attached, None) => String::new(),
        (_, Some(value)) => value,
        (Takes::Value, None) => next_word(args, index).ok_or(format!("--{name} has no value"))?,
        (Takes::Number, None) => next_number(args, index),
    };
    push(parsed, role, value);
    Ok(())
}

fn short_options(
    grammar: &Grammar,
    letters: &str,
    args: &[String],
    index: &mut usize,
    parsed: &mut Parsed,
) -> Result<(), String> {
    for (at, letter) in letters.char_indices() {
        let Some(&(_, takes, role)) = grammar
            .short
            .iter()
            .find(|(name, ..)| name.chars().eq(std::iter::once(letter)))
        else {
            return Err(format!(
                "it passes an option this reading does not know (-{letter})"
            ));
        };
        let attached = &letters[at + letter.len_utf8()..];
        let value = match takes {
            Takes::Nothing => {
                push(parsed, role, String::new());
                continue;
            }
            _ if !attached.is_empty() => attached.to_owned(),
            Takes::Value => next_word(args, index).ok_or(format!("-{letter} has no value"))?,
            Takes::Number => next_number(args, index),
            Takes::Attached => String::new(),
        };
        push(parsed, role, value);
        return Ok(());
    }
    Ok(())
}

fn next_word(args: &[String], index: &mut usize) -> Option<String> {
    let word = args.get(*index)?.clone();
    *index += 1;
    Some(word)
}

fn next_number(args: &[String], index: &mut usize) -> String {
    match args.get(*index) {
        Some(word) if word.starts_with(|c: char| c.is_ascii_digit()) => {
            *index += 1;
            word.clone()
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{Arg, Grammar, Role, Takes, parse};

    const G: Grammar = Grammar {
        short: &[
            ("s", Takes::Nothing, Role::Other),
            ("f", Takes::Value, Role::File),
            ("C", Takes::Value, Role::Dir),
            ("j", Takes::Number, Role::Other),
        ],
        long: &[
            ("directory", Takes::Value, Role::Dir),
            ("file", Takes::Value, Role::File),
            ("makefile", Takes::Value, Role::File),
            ("debug", Takes::Attached, Role::Other),
            ("dry-run", Takes::Nothing, Role::Other),
        ],
        permute: true,
    };

    fn read(line: &str) -> super::Parsed {
        parse(&G, &shlex::split(line).expect("split"))
    }

    #[test]
    fn every_spelling_of_a_value_is_read() {
        for line in [
            "-fx.mk",
            "-f x.mk",
            "-sfx.mk",
            "-sf x.mk",
            "--file=x.mk",
            "--file x.mk",
            "--makefile=x.mk",
            "--fi x.mk",
            "-j 4 -f x.mk",
            "--debug -f x.mk",
        ] {
            assert_eq!(
                read(line).args,
                vec![Arg::Opt(Role::File, "x.mk".to_owned())],
                "{line}"
            );
        }
        assert_eq!(
            read("check -C d -- -f").args,
            vec![
                Arg::Operand("check".to_owned()),
                Arg::Opt(Role::Dir, "d".to_owned()),
                Arg::Operand("-f".to_owned())
            ]
        );
        assert_eq!(
            read("-j check").args,
            vec![Arg::Operand("check".to_owned())]
        );
    }

    #[test]
    fn what_the_grammar_does_not_know_is_unsure() {
        for line in ["-x", "--d", "--nope", "-f", "--dry-run=1", "--"] {
            let parsed = read(line);
            assert_eq!(parsed.unsure.is_some(), line != "--", "{line}: {parsed:?}");
        }
    }
}
