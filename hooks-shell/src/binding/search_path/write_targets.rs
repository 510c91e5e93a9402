//! The files a hook's shell text only writes as a copy's or an archive's
//! target (`cp README.md ~/.cache/readme.bak`, `tar czf ~/.cache/bk.tgz
//! src`): a backup the text never names again is nothing it runs, so such
//! a word is no path "inside a folder outside the project" the copy rule
//! looks for (red team round 52, R52-5: such a guard asked again after
//! every run, its own backup being new).

use std::collections::BTreeSet;

use crate::binding::identify::base_name;
use crate::binding::shell::{simple_commands, skip_prefixes};

/// Programs whose last operand is where they copy to.
const COPIERS: [&str; 6] = ["cp", "mv", "install", "ln", "rsync", "scp"];

/// The target words of the copies and archives each of `texts` (shell
/// text) makes, as written, that the text holding one names only there.
pub(crate) fn write_targets(texts: &[&str]) -> BTreeSet<String> {
    let mut targets = BTreeSet::new();
    for text in texts {
        let once = |word: &String| text.matches(word.as_str()).count() == 1;
        for words in simple_commands(text) {
            let words = skip_prefixes(&without_redirections(&words));
            let Some((program, args)) = words.split_first() else {
                continue;
            };
            let target = match base_name(program).as_str() {
                name if COPIERS.contains(&name) => copy_target(args),
                "tar" | "bsdtar" | "gtar" => archive_target(args),
                "zip" => args.iter().find(|word| !word.starts_with('-')).cloned(),
                _ => None,
            };
            targets.extend(target.map(|word| unquoted(&word)).filter(once));
        }
    }
    targets
}

/// A copier's last operand, when it names its target last (no `-t`) and
/// copies at least one file.
fn copy_target(args: &[String]) -> Option<String> {
    let target_first = args
        .iter()
        .any(|word| word == "-t" || word.starts_with("--target-directory"));
    let operands: Vec<&String> = args.iter().filter(|word| !word.starts_with('-')).collect();
    match (target_first, operands.as_slice()) {
        (false, [_, .., last]) => Some((*last).clone()),
        _ => None,
    }
}

/// The archive `tar` creates (`czf F`, `-c -f F`, `--create --file=F`).
fn archive_target(args: &[String]) -> Option<String> {
    let mode = args.first()?;
    let bundled = mode.trim_start_matches('-');
    let creates = (!mode.starts_with("--") && bundled.contains('c'))
        || args.iter().any(|word| word == "--create" || word == "-c");
    if !creates {
        return None;
    }
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if let Some(file) = word.strip_prefix("--file=") {
            return Some(file.to_owned());
        }
        let letters = word.strip_prefix('-').unwrap_or(word);
        let short = !word.starts_with("--") && (word.starts_with('-') || word == mode);
        // The letters' `f` takes the next word (`czf F`, `-cf F`).
        if short && letters.ends_with('f') && letters.chars().all(|c| c.is_ascii_alphabetic()) {
            return words.next().cloned();
        }
    }
    None
}

/// `words` without their redirections (`2>/dev/null`, `> f`, `<&3`).
fn without_redirections(words: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let operator = word.trim_start_matches(|c: char| c.is_ascii_digit());
        if !operator.starts_with(['<', '>']) && !operator.starts_with("&>") {
            kept.push(word.clone());
            continue;
        }
        // `>` alone takes the next word as its file.
        if operator.trim_end_matches(['<', '>', '&', '|']).is_empty() && !operator.ends_with('&') {
            words.next();
        }
    }
    kept
}

/// `word` without the quotes around it.
fn unquoted(word: &str) -> String {
    word.trim_matches(['"', '\'']).to_owned()
}

#[cfg(test)]
mod tests {
    use super::write_targets;

    #[test]
    fn copies_and_archives_name_their_targets() {
        let targets = write_targets(&[
            "mkdir -p ~/.cache; cp README.md ~/.cache/readme.bak 2>/dev/null",
            "tar czf ~/.cache/bk.tgz src && tar -c -f \"/tmp/b.tar\" src",
            "zip -qr /tmp/z.zip src; cp -t /tmp/e a b; cp -r tools /tmp/d > /dev/null",
        ]);
        let expected = [
            "/tmp/b.tar",
            "/tmp/d",
            "/tmp/z.zip",
            "~/.cache/bk.tgz",
            "~/.cache/readme.bak",
        ];
        assert_eq!(targets.iter().collect::<Vec<_>>(), expected);
        // Reading an archive, copying nothing: no target; one named again.
        assert!(write_targets(&["tar tzf x.tgz; tar xzf x.tgz -C /tmp/x; cp x"]).is_empty());
        assert!(write_targets(&["cp tools/g.sh /tmp/g.sh; sh /tmp/g.sh"]).is_empty());
    }
}
