//! What text piped into a program that runs its input starts.

use super::{echoed_text, piped_commands};

fn words(text: &str) -> Vec<String> {
    shlex::split(text).expect("words")
}

fn piped(producer: &str, consumer: &str) -> Vec<Vec<String>> {
    piped_commands(&words(producer), &words(consumer))
}

#[test]
fn text_piped_into_a_program_that_runs_it_is_read_as_what_it_starts() {
    for (producer, consumer, started) in [
        ("echo 'make -s lint'", "sh", "make -s lint"),
        ("echo make -s lint", "bash -s", "make -s lint"),
        ("printf 'cd x\\nmake -s lint\\n'", "dash -", "make -s lint"),
        ("echo 'exec make -s lint'", "tclsh", "make -s lint"),
        ("echo '!make -s lint'", "ed", "make -s lint"),
        ("echo '.shell make -s lint'", "sqlite3", "make -s lint"),
        ("echo 'shell make -s lint'", "gdb -batch", "make -s lint"),
        ("echo 'os.execute(\"make -s lint\")'", "lua", "make -s lint"),
        ("echo make -s lint", "xargs env", "env make -s lint"),
        (
            "echo 'make -s lint'",
            "xargs -I{} sh -c {}",
            "sh -c 'make -s lint'",
        ),
        (
            "echo 'import os; os.system(\"make\")'",
            "python3",
            "python3 -c 'import os; os.system(\"make\")'",
        ),
        (
            "echo 'system(\"make\")'",
            "perl -w",
            "perl -e 'system(\"make\")'",
        ),
        (
            "echo 'require(\"x\")'",
            "node -",
            "node -e 'require(\"x\")'",
        ),
        // One reading of an interpreter's arguments serves the pipe and
        // the computed reading: `-s`, `--rcfile`, `-I`, `-p`, `/dev/stdin`.
        ("echo make -s lint", "sh -s a b", "make -s lint"),
        ("echo make -s lint", "bash --rcfile x", "make -s lint"),
        ("echo make -s lint", "bash /dev/stdin", "make -s lint"),
        ("echo make", "python3 -I", "python3 -c make"),
        ("echo make", "perl -p", "perl -e make"),
    ] {
        let found = piped(producer, consumer);
        assert!(
            found.contains(&words(started)),
            "{producer} | {consumer}: {found:?}"
        );
    }
}

#[test]
fn text_piped_into_a_reader_of_data_or_from_a_program_is_no_command() {
    for (producer, consumer) in [
        ("echo 'make -s lint'", "grep -q make"),
        ("echo 'make -s lint'", "sh -c 'cat'"),
        ("echo 'make -s lint'", "sh tools/g.sh"),
        ("echo 'make -s lint'", "python3 guard.py"),
        ("echo 'make -s lint'", "python3 -c 'import sys'"),
        ("echo 'make -s lint'", "python3 -Ic 'import sys'"),
        ("echo 'make -s lint'", "perl -ne 'print'"),
        ("echo 'make -s lint'", "node --eval=1"),
        ("echo 'make -s lint'", "bash -- tools/g.sh"),
        ("echo 'make -s lint'", "jq ."),
        ("cat notes", "sh"),
    ] {
        assert!(
            piped(producer, consumer).is_empty(),
            "{producer} | {consumer}"
        );
    }
}

#[test]
fn echoed_text_is_the_line_printed() {
    assert_eq!(
        echoed_text(&words("echo -n make lint")).as_deref(),
        Some("make lint")
    );
    assert_eq!(
        echoed_text(&words("printf 'a\\nb'")).as_deref(),
        Some("a\nb")
    );
    assert_eq!(echoed_text(&words("cat x")), None);
}

#[test]
fn a_pipeline_of_the_shell_text_holds_the_piped_commands() {
    let found = super::super::simple_commands(
        "cat >/dev/null; (echo 'exec make -s lint' | tclsh) >/dev/null 2>&1",
    );
    assert!(found.contains(&words("make -s lint")), "{found:?}");
    let found = super::super::simple_commands("echo 'make -s lint' |& sh");
    assert!(found.contains(&words("make -s lint")), "{found:?}");
    let found = super::super::simple_commands("echo 'make -s lint' || sh");
    assert!(!found.contains(&words("make -s lint")), "{found:?}");
}

#[test]
fn sed_scripts_that_run_their_lines_are_told() {
    for word in ["e", "1e", "$e", "/x/e", "s/a/b/e", "s|a|b|ge"] {
        assert!(super::sed_executes(word), "{word}");
    }
    for word in ["s/a/b/g", "p", "-e", "s/e/f/"] {
        assert!(!super::sed_executes(word), "{word}");
    }
}
