//! The adapter against PyYAML's `safe_load`: hard-coded cases taken from
//! PyYAML 6, plus a live comparison when a reference Python is installed.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::*;

fn ok(text: &str) -> Value {
    parse(text).unwrap_or_else(|error| panic!("{text:?}: {error}"))
}

/// Every spelling PyYAML 6 reads as a boolean, and near misses it keeps as text.
const BOOLEANS: &[(&str, Value)] = &[
    ("yes", Value::Bool(true)),
    ("Yes", Value::Bool(true)),
    ("YES", Value::Bool(true)),
    ("no", Value::Bool(false)),
    ("No", Value::Bool(false)),
    ("NO", Value::Bool(false)),
    ("true", Value::Bool(true)),
    ("True", Value::Bool(true)),
    ("TRUE", Value::Bool(true)),
    ("false", Value::Bool(false)),
    ("False", Value::Bool(false)),
    ("FALSE", Value::Bool(false)),
    ("on", Value::Bool(true)),
    ("On", Value::Bool(true)),
    ("ON", Value::Bool(true)),
    ("off", Value::Bool(false)),
    ("Off", Value::Bool(false)),
    ("OFF", Value::Bool(false)),
];

const STRINGS: &[&str] = &["y", "n", "Y", "N", "yEs", "oN", "tRUE", "'yes'", "\"on\""];

#[test]
fn yaml11_booleans() {
    for (text, expected) in BOOLEANS {
        assert_eq!(ok(&format!("v: {text}"))["v"], *expected, "{text}");
    }
    for text in STRINGS {
        let value = ok(&format!("v: {text}"));
        assert!(value["v"].is_string(), "{text} → {value}");
    }
}

#[test]
fn scalars_resolve_like_pyyaml() {
    for (text, expected) in [
        ("~", json!(null)),
        ("null", json!(null)),
        ("NULL", json!(null)),
        ("", json!(null)),
        ("nULL", json!("nULL")),
        ("12", json!(12)),
        ("-0x1f", json!(-31)),
        ("0b101", json!(5)),
        ("017", json!(15)),
        ("1_000", json!(1000)),
        ("1:30", json!(90)),
        ("1.5", json!(1.5)),
        ("1e5", json!("1e5")),
        ("1.0e+2", json!(100.0)),
        ("1.0e2", json!("1.0e2")),
        (".5", json!(0.5)),
        ("0o17", json!("0o17")),
        ("2001-12-14", json!("2001-12-14")),
        ("!!str 12", json!("12")),
        ("!!bool yes", json!(true)),
        ("!!int '7'", json!(7)),
        ("!!float '2'", json!(2.0)),
        ("!!int '- 7'", json!(-7)),
        ("!!int '0o17'", json!(15)),
        ("!!float ' 1.5 '", json!(1.5)),
        ("!!int '1: 30'", json!(90)),
    ] {
        assert_eq!(ok(&format!("v: {text}"))["v"], expected, "{text}");
    }
}

#[test]
fn out_of_range_numbers_are_kept_for_the_reader() {
    let value =
        ok("big: 123456789012345678901234567890\nhuge: !!float '1e400'\ninf: .inf\nok: 1\n");
    assert_eq!(value["big"].as_f64(), Some(1.2345678901234568e29));
    assert_eq!(value["huge"], json!("1e400"));
    assert_eq!(value["inf"], json!(".inf"));
    assert_eq!(value["ok"], json!(1));
    assert_eq!(ok("v: 18446744073709551615")["v"], json!(u64::MAX));
    assert_eq!(ok("v: -9223372036854775808")["v"], json!(i64::MIN));
}

#[test]
fn duplicate_keys_keep_the_last_value_in_the_first_place() {
    let value = ok("model:\n  provider: a\n  name: m\n  provider: b\nhooks: {}\n");
    assert_eq!(
        value,
        json!({"model": {"provider": "b", "name": "m"}, "hooks": {}})
    );
    let keys: Vec<&String> = value["model"]
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["provider", "name"]);
}

#[test]
fn duplicate_keys_are_noted_by_place() {
    let text = "hooks:\n  pre_tool_call:\n    - command: a\n      command: b\nhooks: {}\n\
                list: [{x: 1, x: 2}]\nbase: &b {k: 1}\nmerged:\n  <<: *b\n  k: 2\n";
    let document = crate::parse_document(text).expect("parses");
    assert_eq!(
        document.duplicate_keys,
        ["hooks.pre_tool_call[0].command", "hooks", "list[0].x"]
    );
    assert_eq!(document.value["hooks"], json!({}));
    assert!(
        crate::parse_document("a: 1\nb: 2\n")
            .expect("parses")
            .duplicate_keys
            .is_empty()
    );
}

#[test]
fn keys_are_spelled_as_python_str() {
    let value = ok("1: a\nyes: b\n~: c\n1.0: d\n[1, 2]: e\n");
    let keys: Vec<&String> = value
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["1", "True", "None", "1.0", "[1,2]"]);
}

#[test]
fn merge_keys_and_aliases() {
    let value = ok("base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\nm:\n  <<: [*b, *o]\n  x: 9\n");
    assert_eq!(value["m"], json!({"z": 4, "y": 2, "x": 9}));
    assert_eq!(ok("a: &a [1]\nb: *a\n")["b"], json!([1]));
}

#[test]
fn broken_documents_name_line_and_column() {
    let error = parse("a: 1\nb: [1,\nc: {").err();
    let Some(error) = error else {
        panic!("accepted")
    };
    assert!(error.line.is_some() && error.column.is_some(), "{error:?}");
    assert!(error.message.contains("line"), "{error}");
    assert!(parse("a: 1\n---\nb: 2\n").is_err());
    assert!(parse("a: *nowhere\n").is_err());
}

#[test]
fn empty_document_is_null() {
    assert_eq!(parse(""), Ok(Value::Null));
    assert_eq!(parse("# only a comment\n"), Ok(Value::Null));
}

#[test]
fn deep_nesting_is_refused_quickly() {
    for text in [
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        format!("{}1", "- ".repeat(100_000)),
        format!("{}{}", "{a: ".repeat(100_000), "}".repeat(100_000)),
    ] {
        let start = Instant::now();
        let error = parse(&text).err();
        // A guard against quadratic work (hours at this depth), not a
        // speed check: 60 s is far above any machine's time for a refusal.
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{:?}",
            start.elapsed()
        );
        let refused = error
            .as_ref()
            .is_some_and(|e| e.message.contains("nesting") || e.message.contains("recursion"));
        assert!(refused, "{error:?}");
    }
    assert!(parse(&format!("{}1{}", "[".repeat(150), "]".repeat(150))).is_ok());
}

#[test]
fn oversized_documents_are_refused_by_size() {
    let big = "#".repeat(MAX_BYTES + 1);
    assert!(parse(&big).is_err_and(|e| e.message.contains("bytes")));
}

/// Every node of a value, counted as JSON holds it.
fn nodes(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(nodes).sum(),
        Value::Object(map) => map.values().map(nodes).sum(),
        _ => 0,
    }
}

fn laughs(levels: usize, extra: &str) -> String {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..levels {
        let prev = level - 1;
        let refs = vec![format!("*a{prev}"); 10].join(", ");
        text.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
    }
    text.push_str(extra);
    text
}

#[test]
fn a_billion_laughs_loads_in_bounded_memory() {
    // 10^10 nodes once expanded; PyYAML shares them and loads the file.
    let text = laughs(
        10,
        "hooks_auto_accept: true\nhooks:\n  pre_tool_call:\n    - command: ./guard.sh\n",
    );
    let value = ok(&text);
    assert_eq!(value["hooks_auto_accept"], json!(true));
    assert_eq!(
        value["hooks"]["pre_tool_call"][0]["command"],
        json!("./guard.sh")
    );
    // What the text holds once, plus at most the alias budget.
    assert!(nodes(&value) <= MAX_ALIAS_NODES + 200, "{}", nodes(&value));
    // Small levels are whole; the bomb's top stands as the marker text.
    assert_eq!(value["a1"].as_array().map(Vec::len), Some(10));
    assert_eq!(value["a1"][9], json!(vec!["x"; 10]));
    assert_eq!(value["a9"][9], json!(NOT_EXPANDED));
}

#[test]
fn repeated_big_strings_are_bounded_by_bytes() {
    // A 1 MiB file of 100,000 aliases to a 600-byte string: 60 MB once copied.
    let mut text = format!("big: &s '{}'\nrefs:\n", "y".repeat(600));
    for _ in 0..100_000 {
        text.push_str("- *s\n");
    }
    text.push_str("hooks_auto_accept: yes\n");
    let value = ok(&text);
    assert_eq!(value["hooks_auto_accept"], json!(true));
    let refs = value["refs"].as_array().cloned().unwrap_or_default();
    assert_eq!(refs.len(), 100_000);
    let copied: usize = refs
        .iter()
        .filter_map(Value::as_str)
        .filter(|text| *text != NOT_EXPANDED)
        .map(str::len)
        .sum();
    assert!(copied <= MAX_ALIAS_BYTES, "{copied}");
    assert_eq!(refs[0].as_str().map(str::len), Some(600));
    assert_eq!(refs[99_999], json!(NOT_EXPANDED));
}

#[test]
fn aliases_are_shared_not_copied_while_reading() {
    let text = laughs(8, "");
    let tokens = scan::Scanner::new(&text)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    let root = parse::Parser::new(tokens)
        .single_document()
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no document"));
    let parse::Node::Mapping { entries, .. } = &*root else {
        panic!("not a mapping")
    };
    // a7 holds ten references to the one a6 node.
    let parse::Node::Sequence { items } = &*entries[7].1 else {
        panic!("not a sequence")
    };
    assert!(
        items
            .iter()
            .all(|item| std::rc::Rc::ptr_eq(item, &entries[6].1))
    );
}

/// The same documents through the reference's PyYAML, when it is installed.
#[test]
fn agrees_with_pyyaml_when_present() {
    let Some(python) = test_support::reference::python() else {
        return;
    };
    let mut cases: Vec<String> = BOOLEANS
        .iter()
        .map(|(text, _)| format!("v: {text}"))
        .collect();
    cases.extend(STRINGS.iter().map(|text| format!("v: {text}")));
    cases.extend(
        [
            "v: 1:30",
            "v: 017",
            "v: 0b11",
            "v: 1.0e+2",
            "v: 1e5",
            "v: ~",
            "v: 0x_1F",
            "a: 1\na: 2\nb: {c: 1, c: 3}",
            "m: &m {x: 1}\nn: {<<: *m, y: 2}",
        ]
        .map(str::to_owned),
    );
    let script = "import sys, json, yaml\nfor doc in json.load(sys.stdin):\n    print(json.dumps(yaml.safe_load(doc), sort_keys=True))\n";
    let output = run_python(
        &python,
        script,
        &serde_json::to_string(&cases).unwrap_or_default(),
    );
    for (case, line) in cases.iter().zip(output.lines()) {
        let expected: Value = serde_json::from_str(line).unwrap_or_default();
        let ours: Value =
            serde_json::from_str(&serde_json::to_string(&ok(case)).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(sorted(ours), sorted(expected), "{case:?}");
    }
    assert_eq!(output.lines().count(), cases.len());
}

fn sorted(value: Value) -> Value {
    // Compare by content: key order is checked by the dedicated tests above.
    serde_json::from_str(&serde_json::to_string(&value).unwrap_or_default()).unwrap_or_default()
}

fn run_python(python: &std::path::Path, script: &str, input: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .unwrap_or_else(|error| panic!("{error}"));
    }
    let output = child
        .wait_with_output()
        .unwrap_or_else(|error| panic!("{error}"));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn nel_ls_and_ps_end_lines_and_comments_as_in_pyyaml() {
    // A comment ended by LS used to swallow the rest of the line (and the key).
    let value = ok("x: 1 # note\u{2028}hooks_auto_accept: true\n");
    assert_eq!(value, json!({"x": 1, "hooks_auto_accept": true}));
    let value =
        ok("hooks:\n  pre_tool_call:\n    - command: a.sh # note\u{2029}    - command: evil.sh\n");
    assert_eq!(
        value["hooks"]["pre_tool_call"],
        json!([{"command": "a.sh"}, {"command": "evil.sh"}])
    );
    assert_eq!(ok("k:\n  - a\u{85}  - b\n")["k"], json!(["a", "b"]));
    // Folded inside quotes: NEL as a space, LS kept as itself.
    assert_eq!(ok("a: \"x\u{85}  y\"\n")["a"], json!("x y"));
    assert_eq!(ok("a: \"x\u{2028}  y\"\n")["a"], json!("x\u{2028}y"));
}

#[test]
fn files_pyyaml_reads_are_read() {
    // A flow list wrapped at the key's indentation, a quoted string wrapped
    // onto a dedented line, U+FEFF inside a plain value.
    assert_eq!(ok("k: [a,\nb]\n")["k"], json!(["a", "b"]));
    assert_eq!(ok("x:\n  k: \"a\nb\"\n")["x"]["k"], json!("a b"));
    assert_eq!(
        ok("x:\n  k: {p: 1,\n q: 2}\n")["x"]["k"],
        json!({"p": 1, "q": 2})
    );
    assert_eq!(ok("k: a\u{feff}b\n")["k"], json!("a\u{feff}b"));
    assert_eq!(ok("\u{feff}k: v\n")["k"], json!("v"));
    // Tabs as libyaml (hermes-agent's CSafeLoader) reads them: after `key:`,
    // inside a plain value, in a continuation line's indentation past the key.
    let value = ok("hooks:\n  pre_tool_call:\n    - command: a.sh\n      fail_closed:\ttrue\n");
    assert_eq!(
        value["hooks"]["pre_tool_call"][0]["fail_closed"],
        json!(true)
    );
    assert_eq!(ok("a: b\tc\n")["a"], json!("b\tc"));
    assert_eq!(ok("a: x\n  \ty\n")["a"], json!("x y"));
    // And what both refuse is refused: a tab cannot indent or follow `-`.
    assert!(parse("-\tx\n").is_err());
    assert!(parse("a:\n\tb: 1\n").is_err());
    assert!(parse("a: \u{1}\n").is_err());
    assert!(parse("a: &x 1\nb: &x 2\n").is_err());
}

#[test]
fn integer_keys_past_64_bits_keep_every_digit() {
    let value = ok("100000000000000000000: a\n-0x1_0000_0000_0000_0000: b\n.inf: c\n");
    let keys: Vec<&String> = value
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        ["100000000000000000000", "-18446744073709551616", "inf"]
    );
}

/// Inputs libyaml-safer 0.3.0 panics on (`docs/decisions/yaml-keep-own-scanner.md`):
/// a plain value ending in ` #` or `? ` at the end of a file without a final
/// newline, and a tag followed by `,` in a flow collection. PyYAML reads the
/// first two (both loaders) and refuses the third; so do we, without panicking.
#[test]
fn inputs_libyaml_safer_panics_on_are_read_as_pyyaml_reads_them() {
    assert_eq!(ok("a: write #"), json!({"a": "write"}));
    assert_eq!(ok("a: write? "), json!({"a": "write?"}));
    let refused = parse("[!foo,bar]");
    assert!(
        refused
            .as_ref()
            .is_err_and(|error| error.line.is_some() && error.column.is_some()),
        "{refused:?}"
    );
}
