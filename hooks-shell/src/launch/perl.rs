//! A Perl script run from its sealed copy with its own name: `perl
//! '-M5;BEGIN{$0=q{<path>}}' /proc/self/fd/N <args>` sets `$0` before the
//! script compiles, so `FindBin` and `$0` name the script's folder (red
//! team R33-8: `use lib "$FindBin::Bin/lib"` found `/proc/<pid>/fd/lib`
//! and the approved hook could not run). The script itself runs as Perl
//! runs a file: `caller` is false at its top (a modulino's `main() unless
//! caller` runs: R34-7), `__DATA__`, a byte order mark and its `#!`
//! switches are read by Perl (R34-8, R34-9); `__FILE__` names the copy.

use std::io::Read;

use crate::binding::base_name;

/// The words to run in place of `argv[..=at]` when the sealed script at
/// `at` is Perl's: `perl [options] -M… <fd>`, `path` as the command wrote
/// it, as Perl gives it in `$0` (the caller adds the arguments). `None`
/// when it is no Perl script, the options read a program from elsewhere
/// (`-e`, `-x`), or the path holds a character the quoting cannot carry.
pub(super) fn perl_loading(
    argv: &[String],
    at: usize,
    fd_path: &str,
    path: &str,
) -> Option<Vec<String>> {
    if path.contains(['{', '}', '\\', '\n']) {
        return None;
    }
    let mut words: Vec<String> = if at > 0 {
        if base_name(&argv[0]) != "perl" || !argv[1..at].iter().all(|w| plain(w)) {
            return None;
        }
        argv[..at].to_vec()
    } else {
        // Its `#!` line, as the kernel passes it: the interpreter and one
        // argument (`#!/usr/bin/perl -w`, `#!/usr/bin/env perl`).
        let mut head = Vec::new();
        let file = std::fs::File::open(fd_path).ok()?;
        file.take(256).read_to_end(&mut head).ok()?;
        let text = String::from_utf8_lossy(&head);
        let line = text.strip_prefix("#!")?.lines().next()?.trim().to_owned();
        let (program, rest) = match line.split_once(char::is_whitespace) {
            Some((program, rest)) => (program.to_owned(), Some(rest.trim().to_owned())),
            None => (line, None),
        };
        let perl = base_name(&program) == "perl";
        let env_perl = base_name(&program) == "env" && rest.as_deref() == Some("perl");
        if !perl && !env_perl {
            return None;
        }
        [Some(program), rest].into_iter().flatten().collect()
    };
    words.push(format!("-M5;BEGIN{{$0=q{{{path}}}}}"));
    words.push(fd_path.to_owned());
    Some(words)
}

/// An option that leaves the script to be read from its file.
fn plain(word: &str) -> bool {
    word.starts_with('-')
        && word != "--"
        && !word.starts_with("-e")
        && !word.starts_with("-E")
        && !word.starts_with("-x")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(words: &[String], args: &[&str]) -> (String, Option<i32>) {
        let out = std::process::Command::new(&words[0])
            .args(&words[1..])
            .args(args)
            .output()
            .expect("perl runs");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code(),
        )
    }

    #[test]
    fn a_perl_script_runs_under_its_own_name_as_perl_runs_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sealed = dir.path().join("sealed");
        let fd = sealed.display().to_string();
        let script = "#!/usr/bin/perl -w\nsub main { print \"$0|@ARGV\\n\"; exit 3 }\n\
                      main() unless caller;\n__DATA__\nx\n";
        std::fs::write(&sealed, script).expect("script");
        let argv = vec!["/x/check.pl".to_owned()];
        let words = perl_loading(&argv, 0, &fd, "/x/check.pl").expect("loaded");
        assert_eq!(words[..2], ["/usr/bin/perl", "-w"]);
        assert_eq!(run(&words, &["a"]), ("/x/check.pl|a\n".to_owned(), Some(3)));
        std::fs::write(&sealed, "\u{feff}print \"$0\\n\";\n").expect("script");
        let argv = vec!["perl".to_owned(), "check.pl".to_owned()];
        let words = perl_loading(&argv, 1, &fd, "check.pl").expect("loaded");
        assert_eq!(run(&words, &[]), ("check.pl\n".to_owned(), Some(0)));
        let argv = vec!["perl".to_owned(), "-e".to_owned(), "1".to_owned()];
        assert!(perl_loading(&argv, 2, &fd, "x").is_none());
    }
}
