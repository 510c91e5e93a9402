//! A file the text writes when it runs and then runs (`printf 'sh
//! tools/g.%s a\n' sh > ~/.cache/y.sh; sh ~/.cache/y.sh`: red team R47-11):
//! its code exists only when the hook runs, so no reading can bind it, and
//! the run may delete it before any check sees it. Such a hook cannot be
//! approved. Written: an output redirection's target, `tee`'s files.
//! Run: the program, an interpreter's script, what `.` / `source` reads, a
//! makefile `make -f` reads.

use super::Reader;
use super::base_name;
use super::words::Words;

impl Reader {
    /// Why the command (`raw` its words with redirections, `words` read
    /// through wrappers) runs a file the text writes; records what it
    /// writes for the commands after it.
    pub(super) fn runs_written(
        &mut self,
        raw: &[String],
        words: &[String],
        reading: &Words,
    ) -> Option<String> {
        let named = |word: &str| normal(&reading.shown(word));
        let runs = run_words(words);
        let found = runs
            .iter()
            .find(|word| self.written.contains(&named(word)))
            .map(|word| {
                format!(
                    "it runs a file it writes when it runs (`{}`)",
                    reading.shown(word)
                )
            });
        let targets = written_targets(raw, words);
        self.written.extend(targets.iter().map(|word| named(word)));
        found
    }
}

/// The words of `words` (a command, its program first) that name code it
/// runs: the program, an interpreter's script, `.`/`source`'s file, `make
/// -f`'s makefile.
fn run_words(words: &[String]) -> Vec<&String> {
    let Some((program, args)) = words.split_first() else {
        return Vec::new();
    };
    let name = base_name(program);
    let mut runs = vec![program];
    if super::super::INTERPRETERS.contains(&name.as_str())
        || matches!(program.as_str(), "." | "source")
    {
        runs.extend(args.iter().find(|word| !word.starts_with('-')));
    } else if matches!(name.as_str(), "make" | "gmake") {
        let mut args = args.iter();
        while let Some(word) = args.next() {
            match word.as_str() {
                "-f" | "--file" | "--makefile" => runs.extend(args.next()),
                _ => runs.extend(["-f", "--file=", "--makefile="].iter().find_map(|option| {
                    word.strip_prefix(option)
                        .filter(|rest| !rest.is_empty())
                        .and(Some(word))
                })),
            }
        }
    }
    runs
}

/// The files the command writes: output redirections' targets in `raw`,
/// and `tee`'s files in `words`.
fn written_targets<'a>(raw: &'a [String], words: &'a [String]) -> Vec<&'a String> {
    let mut found = Vec::new();
    let mut raw = raw.iter();
    while let Some(word) = raw.next() {
        let operator = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let Some(target) = operator
            .strip_prefix(">>")
            .or_else(|| operator.strip_prefix(">|"))
            .or_else(|| operator.strip_prefix("&>"))
            .or_else(|| operator.strip_prefix('>'))
        else {
            continue;
        };
        match target.is_empty() {
            true => found.extend(raw.next()),
            false if !target.starts_with('&') => found.push(word),
            false => {}
        }
    }
    if words
        .first()
        .is_some_and(|program| base_name(program) == "tee")
    {
        found.extend(words[1..].iter().filter(|word| !word.starts_with('-')));
    }
    found
}

/// `word` as a path to compare: `$HOME/`, `${HOME}/` as `~/`, no `./`, the
/// target of a redirection word (`>file`) alone.
fn normal(word: &str) -> String {
    let word = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let word = word.trim_start_matches(['>', '|', '&']);
    let word = word.strip_prefix("./").unwrap_or(word);
    for home in ["$HOME/", "${HOME}/"] {
        if let Some(rest) = word.strip_prefix(home) {
            return format!("~/{rest}");
        }
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::computed_name;

    #[test]
    fn a_file_the_text_writes_and_runs_is_found() {
        for text in [
            "printf 'sh tools/g.%s a\\n' sh > ~/.cache/y.sh; sh ~/.cache/y.sh; rm -f ~/.cache/y.sh",
            "echo c2g= | base64 -d > \"$HOME/bin/y\"; chmod +x ~/bin/y; ~/bin/y",
            "printf 'x' | tee /tmp/y.sh >/dev/null; . /tmp/y.sh",
            "printf 'all:\\n\\tsh x' >~/.cache/y.mk; make -s -f ~/.cache/y.mk lint",
        ] {
            assert!(computed_name(text).is_some(), "{text}");
        }
        for text in [
            "jq -c . >> ~/.claude/log.jsonl; sh tools/g.sh",
            "sh tools/g.sh > out.txt; cat out.txt",
        ] {
            assert_eq!(computed_name(text), None, "{text}");
        }
    }
}
