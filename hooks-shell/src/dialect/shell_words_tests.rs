//! Tests of the strict command-line reading.

use super::{SimpleCommand, simple_commands};

fn read(line: &str) -> Vec<SimpleCommand> {
    simple_commands(line).unwrap_or_else(|| panic!("not read: {line}"))
}

fn texts(command: &SimpleCommand) -> Vec<&str> {
    command
        .words
        .iter()
        .map(|word| word.text.as_str())
        .collect()
}

#[test]
fn plain_lines_split_into_their_simple_commands() {
    let commands = read(
        "A=1 ls -la 'a b' \"c\\\"d\" e\\ f; cat x | wc -l && echo $HOME ${USER} $1 # rm -rf /\npwd",
    );
    assert_eq!(commands.len(), 5, "{commands:?}");
    assert_eq!(commands[0].assigned, ["A"]);
    assert_eq!(texts(&commands[0]), ["ls", "-la", "a b", "c\"d", "e f"]);
    assert!(commands[0].words.iter().all(|word| word.literal));
    assert_eq!(texts(&commands[3]), ["echo", "$HOME", "${USER}", "$1"]);
    assert!(commands[3].words[1..].iter().all(|word| !word.literal));
    assert_eq!(texts(&commands[4]), ["pwd"]);
    // A quoted name, or an `=` after a quote, is no assignment.
    for line in ["\"A\"=1", "A\"=\"1", "A+\"=\"1"] {
        assert!(read(line)[0].assigned.is_empty(), "{line}");
    }
    assert_eq!(read("A+=1 B= ls")[0].assigned, ["A", "B"]);
}

#[test]
fn expansions_globs_and_tildes_are_not_literal() {
    for (line, literal) in [
        ("x", true),
        ("'$x'", true),
        ("\\$x", true),
        ("$x", false),
        ("\"$x\"", false),
        ("*.rs", false),
        ("'*'.rs", true),
        ("{a,b}", false),
        ("~/x", false),
        ("a~", true),
        ("[", true),
        ("[a]", false),
        ("\"a$\"", true),
    ] {
        assert_eq!(read(line)[0].words[0].literal, literal, "{line}");
    }
}

#[test]
fn redirections_are_not_words_and_writing_a_file_shows() {
    let commands = read("ls 2>/dev/null >&2 2>&1 </etc/hosts <<< 'x' >/dev/null; cat &>/dev/null");
    assert_eq!(texts(&commands[0]), ["ls"]);
    assert!(commands.iter().all(|command| !command.writes_file));
    for line in [
        "echo x > f",
        "echo x >> f",
        "echo x >| f",
        "echo x &> f",
        "echo x >& f",
        "cat <> f",
        "> f",
    ] {
        assert!(read(line)[0].writes_file, "{line}");
    }
}

#[test]
fn what_the_reading_does_not_know_is_not_read() {
    for line in [
        "echo $(rm -rf /)",
        "echo `rm -rf /`",
        "echo \"$(rm -rf /)\"",
        "(rm -rf /)",
        "f() { rm -rf /; }",
        "echo $((x))",
        "echo $[x]",
        "echo ${x:-y}",
        "echo ${!x}",
        "echo ${x@P}",
        "echo $'\\x72'",
        "echo $\"x\"",
        "cat <<EOF\nx\nEOF",
        "cat <(rm -rf /)",
        "echo >(rm -rf /)",
        "exec {fd}>x",
        "case x in x) ;; esac",
        "echo 'open",
        "echo \"open",
        "echo a\0b",
        "cat <&f",
    ] {
        assert!(simple_commands(line).is_none(), "{line}");
    }
}

#[test]
fn each_command_spans_its_words_and_redirections() {
    let line = "A=1 grep -q x 'a b' 2>/dev/null && echo hi # c\n >x ls";
    let spans: Vec<&str> = read(line)
        .iter()
        .map(|command| {
            let (start, end) = command.span.expect("spanned");
            &line[start..end]
        })
        .collect();
    assert_eq!(
        spans,
        ["A=1 grep -q x 'a b' 2>/dev/null", "echo hi", ">x ls"]
    );
}
