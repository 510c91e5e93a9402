//! A Perl script run from its sealed copy with its own name: `perl -e
//! LOADER <path> <args>` reads the sealed bytes and evaluates them under
//! the script's path, so `$0`, `__FILE__` and `FindBin` name the script's
//! folder (red team R33-8: `use lib "$FindBin::Bin/lib"` found
//! `/proc/<pid>/fd/lib` and the approved hook could not run).

use std::io::Read;

use crate::binding::base_name;

/// What `perl -e` runs in place of a sealed script (`{fd}`: its
/// `/proc/self/fd/N`): `$0` set before anything compiles, the bytes
/// evaluated as `main` from line 1 of the script's path.
const PERL_LOADER: &str = r#"BEGIN { $0 = shift @ARGV }
open(my $hermes_sealed, '<', '{fd}') or die "cannot read the checked script: $!\n";
my $hermes_code = do { local $/; <$hermes_sealed> };
close $hermes_sealed;
eval "package main;\n#line 1 \"$0\"\n" . $hermes_code;
die $@ if $@;
"#;

/// The words to run in place of `argv[..=at]` when the sealed script at
/// `at` is Perl's: `perl [plain options] -e LOADER <path>`, `path` as the
/// command wrote it, as Perl gives it in `$0` (the caller adds the
/// arguments). `None` when the script cannot run so (its `#!` line
/// asks for switches that change how its text is read, such as `-n`; it
/// has a `__DATA__` or `__END__` section; its path holds a quote), or it
/// is no Perl script.
pub(super) fn perl_loading(
    argv: &[String],
    at: usize,
    fd_path: &str,
    path: &str,
) -> Option<Vec<String>> {
    let mut head = Vec::new();
    let file = std::fs::File::open(fd_path).ok()?;
    file.take(1 << 24).read_to_end(&mut head).ok()?;
    let text = String::from_utf8_lossy(&head);
    let first = text.lines().next().unwrap_or_default();
    let shebang: Vec<&str> = first
        .strip_prefix("#!")
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let shebang_perl = shebang.iter().take(2).any(|w| base_name(w) == "perl");
    let mut words: Vec<String> = if at > 0 {
        if base_name(&argv[0]) != "perl" || !argv[1..at].iter().all(|w| plain(w)) {
            return None;
        }
        argv[..at].to_vec()
    } else if shebang_perl {
        let perl = shebang.iter().position(|w| base_name(w) == "perl")?;
        shebang[..=perl].iter().map(|w| (*w).to_owned()).collect()
    } else {
        return None;
    };
    // Switches on the `#!` line Perl reads itself: only warnings are kept.
    let switches = shebang
        .iter()
        .skip_while(|w| base_name(w) != "perl")
        .skip(1);
    for switch in switches {
        match *switch {
            "-w" => words.push("-w".to_owned()),
            _ => return None,
        }
    }
    let sections = text.contains("\n__DATA__") || text.contains("\n__END__");
    if sections || path.contains(['"', '\n', '\\']) {
        return None;
    }
    words.push("-e".to_owned());
    words.push(PERL_LOADER.replace("{fd}", fd_path));
    words.push(path.to_owned());
    Some(words)
}

/// An option that changes nothing of how the script's file is found.
fn plain(word: &str) -> bool {
    word.starts_with('-')
        && !word.starts_with("--")
        && !word.contains(['e', 'E', 'x', 'n', 'p', 'i'])
        || word.starts_with("-I")
        || word.starts_with("-M")
        || word.starts_with("-m")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perl_script_runs_under_its_own_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sealed = dir.path().join("sealed");
        std::fs::write(
            &sealed,
            "#!/usr/bin/perl -w\nprint \"$0|\" . __FILE__ . \"|@ARGV\\n\";\n",
        )
        .expect("script");
        let fd = sealed.display().to_string();
        let argv = vec!["/x/check.pl".to_owned()];
        let mut words = perl_loading(&argv, 0, &fd, "/x/check.pl").expect("loaded");
        assert_eq!(words[..2], ["/usr/bin/perl", "-w"]);
        words.push("a".to_owned());
        let out = std::process::Command::new("perl")
            .args(&words[1..])
            .output()
            .expect("perl runs");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "/x/check.pl|/x/check.pl|a\n"
        );
        std::fs::write(&sealed, "print 1;\n__DATA__\nx\n").expect("script");
        let argv = vec!["perl".to_owned(), "check.pl".to_owned()];
        assert!(perl_loading(&argv, 1, &fd, "/x/check.pl").is_none());
    }
}
