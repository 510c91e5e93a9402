//! Red team round 8: bash spellings of a name the word reader missed
//! (R8-9: `~+`, brace lists, `$'\x..'`, a backslash-newline in a word) and
//! string-literal escapes of JavaScript and Python (R8-10).

use super::{named_by, project, write};
use crate::binding::mentions::{braces, literals, spelled};
use std::path::Path;

/// What `script` (a hook script in `language`'s file) misses of `file`.
fn missed(p: &Path, script_name: &str, script: &str, file: &str) -> Option<String> {
    let named = named_by(p, "x", Some((script_name, script)));
    (!named.contains(&file.to_owned())).then(|| format!("{script:?}: {named:?}"))
}

#[test]
fn bash_spellings_of_a_sourced_path_name_it() {
    let (_dir, p) = project();
    write(&p.join("lib/common.sh"), "true\n");
    let mut missing = Vec::new();
    for spelling in [
        "~+/lib/common.sh",
        "~-/lib/common.sh",
        "~+1/lib/common.sh",
        "li{b,}/common.sh",
        "lib/comm{on,}.sh",
        "{x,lib/common}.sh",
        "{lib,{a,b}}/common.sh",
        "l{a..z}b/common.sh",
        "l{h..j}{b..a}/common.sh",
        "$'\\x6cib/common.sh'",
        "$'\\154ib/common.sh'",
        "$'\\u006cib/common.sh'",
        "$'\\x6c'ib/common.sh",
        "lib/com\\\nmon.sh",
        "li\\\nb/common.sh",
    ] {
        let script = format!("#!/bin/sh\n. {spelling}\n");
        missing.extend(missed(&p, "hooks/a.sh", &script, "lib/common.sh"));
    }
    assert!(missing.is_empty(), "{missing:#?}");
    // In the hook's own command too.
    let named = named_by(&p, "cd \"$CLAUDE_PROJECT_DIR\" && . li{b,}/common.sh", None);
    assert!(named.contains(&"lib/common.sh".to_owned()), "{named:?}");
}

#[test]
fn a_brace_word_past_the_bound_is_read_as_globs_then_as_a_computed_path() {
    let (_dir, p) = project();
    write(&p.join("lib/common.sh"), "true\n");
    // 26 × 26 words: read as the glob `l**/common.sh`.
    let script = "#!/bin/sh\n. l{a..z}{a..z}/common.sh\n";
    assert_eq!(missed(&p, "hooks/a.sh", script, "lib/common.sh"), None);
    let script = "#!/bin/sh\n. {1..100000}/../lib/common.sh\n";
    assert_eq!(missed(&p, "hooks/a.sh", script, "lib/common.sh"), None);
    // 70 alternatives, one with a `/`: `*` and `*/*`.
    let many: Vec<String> = (0..70).map(|n| format!("a{n}")).collect();
    let script = format!("#!/bin/sh\n. {{lib/common,{}}}.sh\n", many.join(","));
    assert_eq!(missed(&p, "hooks/a.sh", &script, "lib/common.sh"), None);
}

#[test]
fn braces_expand_as_bash_expands_them() {
    let expanded = |word: &str| braces::expanded(word);
    let words = |list: &[&str]| Some(list.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>());
    assert_eq!(expanded("li{b,}/x"), words(&["lib/x", "li/x"]));
    assert_eq!(expanded("{a,{b,c}}x"), words(&["ax", "bx", "cx"]));
    assert_eq!(expanded("{1..3}{a,b}").map(|w| w.len()), Some(6));
    assert_eq!(expanded("{05..07}"), words(&["05", "06", "07"]));
    assert_eq!(expanded("{3..1}"), words(&["3", "2", "1"]));
    assert_eq!(expanded("{e..b..2}"), words(&["e", "c"]));
    assert_eq!(expanded("{a{b,c}}"), words(&["{ab}", "{ac}"]));
    assert_eq!(expanded("a{\"b c\",d}"), words(&["a\"b c\"", "ad"]));
    // Not a list: kept.
    for word in ["${x}", "{a}", "{}", "'{a,b}'", "\"{a,b}\"", "{a,b"] {
        assert_eq!(expanded(word), None, "{word}");
    }
    // Past the bound: globs, one for each count of `/`.
    assert_eq!(expanded("x{a..z}{a..z}"), words(&["x**"]));
    assert_eq!(expanded("{1..999}/y"), words(&["*/y"]));
    // Past it as globs too: the text before the first list.
    let shapes = "{a,b/c,d/e/f,g/h/i/j}";
    assert_eq!(expanded(&format!("p/{}", shapes.repeat(4))), words(&["p/"]));
    assert_eq!(expanded(&format!("q/{}", "{}".repeat(65))), words(&["q/"]));
}

#[test]
fn ansi_c_strings_continued_lines_and_tildes_are_read_as_bash_reads_them() {
    let read = |text: &str| spelled::as_bash_reads(text).unwrap_or_default();
    assert_eq!(read(". $'\\x6cib/x.sh'"), ". 'lib/x.sh'");
    assert_eq!(read(". $'\\x27it\\'s'"), ". \"'it's\"");
    assert_eq!(read(". $'l\\x00ib'"), ". 'l'");
    assert_eq!(read(". lib/com\\\nmon.sh"), ". lib/common.sh");
    assert_eq!(read(". ~+/lib/x ~-"), ". $PWD/lib/x $PWD");
    assert_eq!(read("x=~+/lib"), "x=$PWD/lib");
    // Nothing bash reads otherwise: the text itself.
    for text in ["cd ~/x && . ~user/y", "f() { :; }", "a \\\n  b", "echo ~+x"] {
        assert_eq!(spelled::as_bash_reads(text), None, "{text}");
    }
}

#[test]
fn string_literals_are_read_decoded_and_raw_ones_as_written() {
    let read = |text: &str| literals::decoded(text).unwrap_or_default();
    assert_eq!(read("require(\"/\\x6cib/x.js\")"), "require(\"/lib/x.js\")");
    assert_eq!(read("f('\\u006cib')"), "f(\"lib\")");
    assert_eq!(read("f(`\\u{6c}ib`)"), "f(\"lib\")");
    assert_eq!(read("open('\\154ib')"), "open(\"lib\")");
    assert_eq!(read("open(\"li\" \"b/x.py\")"), "open(\"lib/x.py\")");
    assert_eq!(read("open(\"li\"\n  'b/x.py')"), "open(\"lib/x.py\")");
    assert_eq!(read("open(b'li' rb\"b\")"), "open(\"lib\")");
    assert_eq!(read("'\\N{LATIN SMALL LETTER L}ib'"), "\"lib\"");
    assert_eq!(read("'\\N{solidus}'\n"), "\"/\"\n");
    assert_eq!(read("'l\\N{BLACK STAR}b'"), "\"l?b\"");
    assert_eq!(read("'lib/com\\\nmon.py'"), "\"lib/common.py\"");
    // Raw literals are read as written; escapes of no name's characters and
    // lone literals change nothing.
    for text in [
        "open(r\"\\x6cib/x.py\")",
        "open(R'\\x6cib')",
        "print(\"a\\n\", 'b')",
        "x = \"lib\"",
        "# don't\nx = 'y'",
    ] {
        assert_eq!(literals::decoded(text), None, "{text}");
    }
}

#[test]
fn escaped_names_in_javascript_and_python_are_bound() {
    let (_dir, p) = project();
    write(&p.join("lib/x.js"), "module.exports = 1;\n");
    write(&p.join("lib/x.py"), "X = 1\n");
    let mut missing = Vec::new();
    for (name, code, file) in [
        (
            "hooks/a.js",
            "require(process.cwd() + \"/\\x6cib/x.js\");\n",
            "lib/x.js",
        ),
        (
            "hooks/a.js",
            "require(process.cwd() + \"/\\u006cib/x.js\");\n",
            "lib/x.js",
        ),
        (
            "hooks/a.py",
            "exec(open(\"\\x6cib/x.py\").read())\n",
            "lib/x.py",
        ),
        (
            "hooks/a.py",
            "exec(open(\"li\" \"b/x.py\").read())\n",
            "lib/x.py",
        ),
        (
            "hooks/a.py",
            "exec(open(\"\\N{LATIN SMALL LETTER L}\\N{BLACK STAR}b/x.py\").read())\n",
            "lib/x.py",
        ),
    ] {
        missing.extend(missed(&p, name, code, file));
    }
    assert!(missing.is_empty(), "{missing:#?}");
    // A raw literal opens the file its text spells, not `lib/x.py`.
    let raw = "exec(open(r\"\\x6cib/x.py\").read())\n";
    assert!(missed(&p, "hooks/a.py", raw, "lib/x.py").is_some());
}
