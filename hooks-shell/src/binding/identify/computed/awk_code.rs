//! An `awk` program's commands (`system(…)`, `cmd | getline`, `print |
//! cmd`), read in its inline text and in the program files `awk -f` runs
//! (red team round 49, H11): a command built when it runs (`system(l)` of
//! a line read with `getline`) names what no reading can.

use std::sync::LazyLock;

use regex::Regex;

/// An `awk` program's commands: `system(…)`, `cmd | getline`, `print … |
/// cmd`, each a string literal.
pub(super) fn awk(code: &str) -> Option<String> {
    static LITERAL_RUNS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"system\s*\(\s*"[^"]*"\s*\)|"[^"]*"\s*\|&?\s*getline|\|&?\s*"[^"]*""#)
            .expect("valid regex")
    });
    static FED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\|&?\s*"\s*([\w./-]+)"#).expect("valid regex"));
    static COMMENT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)#.*$").expect("valid regex"));
    // Strings, and regular expressions where one may start (`/a|b/`).
    static TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#""(?:[^"\\]|\\.)*"|(?:^|[({~!,;&|]\s*)/(?:[^/\\\n]|\\.)*/"#)
            .expect("valid regex")
    });
    let rest = LITERAL_RUNS.replace_all(code, "");
    let rest = TEXT.replace_all(&rest, " ");
    // A comment (`# fields: a | b`) runs nothing.
    let rest = COMMENT.replace_all(&rest, "");
    let rest = rest.replace("||", "");
    // `print l | "sh"`: what it writes to a shell, no reading sees; an
    // `@include` or `@load`, a program or library not read here.
    let fed = FED.captures_iter(code).find(|found| {
        let program = super::base_name(&found[1]);
        super::super::INTERPRETERS.contains(&program.as_str()) || program.ends_with("awk")
    });
    if fed.is_some() || code.contains("@include") || code.contains("@load") {
        let shown: String = code.trim().chars().take(120).collect();
        return Some(format!(
            "its awk program feeds or loads code no reading sees (`{shown}`)"
        ));
    }
    let runs = rest.contains("system") || rest.contains('|');
    let shown: String = code.trim().chars().take(120).collect();
    runs.then(|| format!("its awk program starts a command built when it runs (`{shown}`)"))
}

/// The inline program among an `awk` command's `args`: its first word
/// that is no option or option value; none when `-f` names a file.
pub(super) fn code_of(args: &[String]) -> Option<&str> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-f" | "--file" => return None,
            "-F" | "-v" | "--assign" | "--field-separator" => {
                words.next();
            }
            "--" => return words.next().map(String::as_str),
            option if option.starts_with('-') => {}
            code => return Some(code),
        }
    }
    None
}

/// The program files an `awk` command's `args` runs: each word after `-f`,
/// `--file`, `-E`, `--exec`, `-i`, `--include`, or joined to one (`-fx.awk`,
/// `--file=x.awk`).
pub(super) fn program_files(args: &[String]) -> Vec<&str> {
    const OPTIONS: [&str; 6] = ["-f", "--file", "-E", "--exec", "-i", "--include"];
    let mut files = Vec::new();
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if OPTIONS.contains(&word) {
            files.extend(words.next());
        } else if let Some((_, file)) = word.split_once('=').filter(|_| word.starts_with("--")) {
            let option = &word[..word.len() - file.len() - 1];
            if OPTIONS.contains(&option) {
                files.push(file);
            }
        } else if let Some(file) = ["-f", "-E", "-i"].iter().find_map(|o| word.strip_prefix(o)) {
            files.extend((!file.is_empty() && !word.starts_with("--")).then_some(file));
        } else if matches!(word, "-F" | "-v" | "--assign" | "--field-separator") {
            words.next();
        }
    }
    files
}

/// Why an `awk` command's `args` run a program file named by text
/// computed when it runs (`is_computed`), shown as `shown` gives it.
pub(super) fn computed_file(
    args: &[String],
    is_computed: &dyn Fn(&str) -> bool,
    shown: &dyn Fn(&str) -> String,
) -> Option<String> {
    let file = program_files(args).into_iter().find(|f| is_computed(f))?;
    Some(format!(
        "awk runs a program file named by text computed when it runs (`{}`)",
        shown(file)
    ))
}

/// The program files the commands of shell `text` give `awk` (`awk -F: -f
/// tools/x.awk`, `gawk --file=x.awk`), as written, quotes taken out.
pub(crate) fn program_files_in(text: &str) -> Vec<String> {
    static AWK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s;&|(`'"/])[gmn]?awk['"]?\s([^;&|\n)`]*)"#).expect("valid regex")
    });
    AWK.captures_iter(text)
        .filter_map(|found| found.get(1))
        .map(|words| {
            let words = words.as_str();
            shlex::split(words).unwrap_or_else(|| {
                let unquoted = words
                    .split_whitespace()
                    .map(|w| w.trim_matches(['\'', '"']));
                unquoted.map(str::to_owned).collect()
            })
        })
        .flat_map(|args| {
            program_files(&args)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{awk, program_files_in};

    #[test]
    fn an_awk_programs_computed_commands_are_found() {
        for code in [
            "BEGIN{while((getline l < \"tools/x.txt\")>0) system(l)}",
            "BEGIN { c = \"sh tools/g.sh\"; c | getline x }",
            "{ print | (\"sh \" $1) }",
            "# reads names\nBEGIN { getline n < \"n.txt\"; system(\"sh \" n) }\n",
            "{ print $0 | \"sh\" }",
            "{ print $0 |& \"/bin/bash -s\" }",
            "@include \"tools/x.awk\"\nBEGIN { f() }",
        ] {
            assert!(awk(code).is_some(), "{code}");
        }
        for code in [
            "{ print $1 | \"sort -u\" }",
            "# fields: a | b, run system() never\n{ print $1 }\nEND { print NR }\n",
            "BEGIN { FS = \":\" }\n/^#/ { next }\n{ n[$1]++ }\nEND { for (k in n) print k, n[k] }\n",
        ] {
            assert_eq!(awk(code), None, "{code}");
        }
    }

    #[test]
    fn the_program_files_awk_runs_are_named() {
        assert_eq!(
            program_files_in("awk -F: -f ~/bin/x.awk data.txt; gawk --file=y.awk -fz.awk < in"),
            ["~/bin/x.awk", "y.awk", "z.awk"]
        );
        assert_eq!(
            program_files_in("cat f | awk '{ print $1 }' | sort"),
            Vec::<String>::new()
        );
        assert_eq!(
            program_files_in("/usr/bin/awk -f \"tools/p.awk\" x"),
            ["tools/p.awk"]
        );
    }
}
