//! Names the text gives values to, read in the commands that use them.

use super::substituted;

fn commands(lines: &[&str]) -> Vec<Vec<String>> {
    lines
        .iter()
        .map(|line| shlex::split(line).expect("words"))
        .collect()
}

fn read(lines: &[&str]) -> Vec<Vec<String>> {
    substituted(&commands(lines))
        .into_iter()
        .map(|(_, words)| words)
        .collect()
}

fn reads(lines: &[&str], expected: &str) {
    let found = read(lines);
    let expected = shlex::split(expected).expect("words");
    assert!(found.contains(&expected), "{lines:?}: {found:?}");
}

#[test]
fn a_program_or_options_a_variable_or_alias_holds_are_read_with_its_value() {
    reads(&["x=make", "$x -s lint"], "make -s lint");
    reads(&["x='make -s lint'", "$x"], "make -s lint");
    reads(&["MAKE=make", "${MAKE} -s lint"], "make -s lint");
    reads(&["export NPM=npm", "$NPM run lint"], "npm run lint");
    reads(
        &["o='-f tools/x.mk'", "make -s $o lint"],
        "make -s -f tools/x.mk lint",
    );
    reads(&["alias l='make -s lint'", "l"], "make -s lint");
}

#[test]
fn values_reaching_a_word_other_ways_are_read() {
    reads(&["a=make", "b=$a", "$b -s lint"], "make -s lint");
    reads(&["x=make", "y=${x}", "$y"], "make");
    reads(&["x=make", "y='$x -s'", "$y lint"], "make -s lint");
    reads(&["x=make", "sh -c '$x -s lint'"], "sh -c 'make -s lint'");
    reads(&["${x:-make} -s lint"], "make -s lint");
    reads(&["${x:+make} -s lint"], "make -s lint");
    reads(&[": ${x:=make}", "$x -s lint"], "make -s lint");
    reads(&["x=ma", "x+=ke", "$x -s lint"], "make -s lint");
    reads(
        &["x=make sh -c '$x -s lint'"],
        "x=make sh -c 'make -s lint'",
    );
    reads(&["IFS=_", "x=make_-s_lint", "$x"], "make -s lint");
    reads(
        &["x=m", "x=${x}a", "x=${x}k", "x=$x'e'", "$x -s lint"],
        "make -s lint",
    );
    reads(
        &["env -u y x=make sh -c '$x -s lint'"],
        "env -u y x=make sh -c 'make -s lint'",
    );
}

#[test]
fn a_name_given_its_own_value_again_is_read_once() {
    let found = read(&["PATH=\"$HOME/bin:$PATH\"", "make -s lint"]);
    assert!(
        found
            .iter()
            .all(|words| super::unread_reason(words).is_none()),
        "{found:?}"
    );
    // Past the limits, what it runs cannot be read: a name computed when it runs.
    let many: Vec<String> = (0..20).map(|i| format!("x=v{i}")).collect();
    let mut lines: Vec<&str> = many.iter().map(String::as_str).collect();
    lines.push("$x -s lint");
    assert!(
        read(&lines)
            .iter()
            .any(|words| super::unread_reason(words).is_some())
    );
}

#[test]
fn a_name_the_text_never_gives_is_left_alone() {
    assert!(read(&["$EDITOR notes"]).is_empty());
    let found = read(&["x=make", "x=npm", "$x lint"]);
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn what_echo_prints_in_place_of_its_substitution_is_read() {
    for text in [
        "$(echo make) -s lint",
        "`echo make` -s lint",
        "x=$(echo make); $x -s lint",
        "x=`echo make`; \"$x\" -s lint",
        "x=make; $(echo $x) -s lint",
        "x=ma; y=$(echo ${x}ke); $y -s lint",
    ] {
        let found = super::super::simple_commands(text);
        let expected = shlex::split("make -s lint").expect("words");
        assert!(found.contains(&expected), "{text}: {found:?}");
    }
}

#[test]
fn arrays_and_hashed_names_are_read_with_their_words() {
    // Red team round 62: `x=(ma ke); IFS=; "${x[*]}"`, `hash -p`.
    let array = |name: &str, items: &str, line: &str| {
        let mut lines = vec![format!("{name}=")];
        lines.push(items.to_owned());
        lines.push(line.to_owned());
        lines
    };
    let lines = array("cmd", "npx prettier --write", "${cmd[@]} x.js");
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    reads(&lines, "npx prettier --write x.js");
    let lines = array("x", "ma ke", "${x[*]} -s lint");
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    reads(&lines, "make -s lint");
    let lines = array("x", "echo make", "${x[1]} -s lint");
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    reads(&lines, "make -s lint");
    reads(
        &["hash -p /usr/bin/make m", "m -s lint"],
        "/usr/bin/make -s lint",
    );
}
