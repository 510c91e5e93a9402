//! The differential test against PyYAML: a seeded corpus plus every YAML
//! file of the workspace, each read by PyYAML's `SafeLoader` and, when
//! libyaml is there, its `CSafeLoader` (one Python process for all of them)
//! and by [`super::parse`], compared value for value: ours must be what one
//! of them built, or both must refuse it. Under `CI=true` a missing PyYAML
//! fails the test.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::fuzz_gen::corpus;

/// The seed and size of the generated corpus.
const SEED: u64 = 0x4845_524d_4553;
const DOCUMENTS: usize = 5000;

/// Documents PyYAML refuses and this reader reads, on purpose: one odd value
/// should not turn every hook off, so what JSON can carry is kept and the
/// reader of that key rejects it. Matched against PyYAML's error text.
pub(super) const LENIENT: &[(&str, &str)] = &[
    (
        "could not determine a constructor for the tag",
        "an unknown tag, or a plain `=`/`<<` used as a value, is kept as text",
    ),
    (
        "for merging",
        "a `<<` whose value is not a mapping (or list of mappings) is skipped",
    ),
    (
        "found unhashable key",
        "a mapping or sequence used as a key is spelled as its JSON text",
    ),
    (
        "ValueError",
        "text a core tag cannot convert (`!!int x`, an impossible date) is kept as text",
    ),
    (
        "KeyError",
        "`!!bool` on text that is no boolean is kept as text",
    ),
    (
        "IndexError",
        "`!!int ''` (PyYAML crashes on it) is kept as text",
    ),
    (
        "TypeError",
        "a core tag on the wrong kind of node is ignored",
    ),
    (
        "expected a",
        "a core tag on the wrong kind of node is ignored",
    ),
    (
        "while constructing an ordered map",
        "`!!omap`/`!!pairs` of odd items are read as a plain sequence",
    ),
    (
        "base64 data",
        "`!!binary` that is not base64 is kept as text",
    ),
];

/// Documents PyYAML reads and this reader refuses: out of reach for JSON.
pub(super) const OUT_OF_REACH: &[(&str, &str)] = &[
    (
        "is not a character",
        "a lone surrogate escape (`\\ud800`) cannot be a Rust or JSON string",
    ),
    (
        "recursive structure",
        "an alias inside its own anchor builds a cycle JSON cannot hold",
    ),
    (
        "nesting deeper",
        "nesting past MAX_DEPTH is refused to bound the stack",
    ),
];

fn workspace_yaml_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    stack.push(path);
                }
            } else if name.ends_with(".yaml") || name.ends_with(".yml") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Whether `ours` is what PyYAML built (`theirs`, marked where JSON cannot
/// carry PyYAML's value).
fn same(ours: &Value, theirs: &Value) -> bool {
    same_as(ours, theirs, false)
}

/// [`same`], against CSafeLoader when `libyaml`: libyaml builds `''` for an
/// empty `!`-tagged node where SafeLoader builds `None`; we follow SafeLoader
/// (pinned: the two loaders disagree there, and null is the safer reading).
fn same_as(ours: &Value, theirs: &Value, libyaml: bool) -> bool {
    match (ours, theirs) {
        (Value::String(_), Value::Object(marker))
            if marker.len() == 1
                && (marker.contains_key("$timestamp")
                    || marker.contains_key("$binary")
                    || marker.contains_key("$nonfinite")) =>
        {
            true
        }
        (Value::Object(map), Value::Object(marker)) if marker.contains_key("$set") => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let theirs: Vec<&str> = marker["$set"]
                .as_array()
                .map(|keys| keys.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            map.values().all(Value::is_null) && keys == theirs
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_as(x, y, libyaml))
        }
        (Value::Object(a), Value::Object(b)) if a.len() != b.len() => {
            let collapsed = python_equal_keys(a);
            collapsed.len() == b.len() && same_as(&Value::Object(collapsed), theirs, libyaml)
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|((ka, va), (kb, vb))| {
                    (ka == kb || kb == "$timestamp-key" || kb == "$collection-key")
                        && same_as(va, vb, libyaml)
                })
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Null, Value::String(text)) => libyaml && text.is_empty(),
        _ => ours == theirs,
    }
}

static PY_NUMBER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^-?[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?$")
        .unwrap_or_else(|error| panic!("{error}"))
});

/// Pinned: Python's dict treats keys equal across numeric types as one
/// (`1`, `1.0` and `True`; `10**20` and `1e20`): the first spelling, the last
/// value. This reader keeps them apart (they are different text); the test
/// folds ours the Python way before comparing.
fn python_equal_keys(map: &serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    let number = |key: &str| -> Option<f64> {
        match key {
            "True" => Some(1.0),
            "False" => Some(0.0),
            // Only spellings Python's str() gives an int or a float.
            _ if PY_NUMBER.is_match(key) => key.parse::<f64>().ok(),
            _ => None,
        }
    };
    let mut folded = serde_json::Map::new();
    let mut seen: Vec<(f64, String)> = Vec::new();
    for (key, value) in map {
        let twin = number(key).and_then(|n| {
            seen.iter()
                .find(|(m, _)| *m == n)
                .map(|(_, first)| first.clone())
        });
        match twin {
            Some(first) => {
                folded.insert(first, value.clone());
            }
            None => {
                if let Some(n) = number(key) {
                    seen.push((n, key.clone()));
                }
                folded.insert(key.clone(), value.clone());
            }
        }
    }
    folded
}

fn oracle(python: &Path, docs: &[String]) -> Result<Vec<Value>, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(python)
        .args(["-c", include_str!("pyyaml_oracle.py")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("{}: {error}", python.display()))?;
    let input = serde_json::to_string(docs).map_err(|error| error.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).map_err(|e| e.to_string()))
        .collect()
}

fn reference_python() -> Result<PathBuf, String> {
    let python = std::env::var_os("HERMES_REFERENCE_PYTHON")
        .map(PathBuf::from)
        .ok_or("HERMES_REFERENCE_PYTHON is not set")?;
    if !python.exists() {
        return Err(format!("{} does not exist", python.display()));
    }
    Ok(python)
}

#[test]
fn reads_what_pyyaml_reads() {
    let in_ci = std::env::var("CI").is_ok_and(|value| value == "true");
    let python = match reference_python() {
        Ok(python) => python,
        Err(reason) if in_ci => panic!("CI=true and no PyYAML to compare with: {reason}"),
        Err(reason) => {
            eprintln!("skipped: {reason} (set it to a Python with PyYAML)");
            return;
        }
    };
    let mut names: Vec<String> = Vec::new();
    let mut docs = corpus(SEED, DOCUMENTS);
    names.extend((0..docs.len()).map(|index| format!("generated #{index} (seed {SEED:#x})")));
    for path in workspace_yaml_files() {
        if let Ok(text) = std::fs::read_to_string(&path) {
            names.push(path.display().to_string());
            docs.push(text);
        }
    }
    let results = match oracle(&python, &docs) {
        Ok(results) => results,
        Err(error) if !in_ci && error.contains("No module named 'yaml'") => {
            eprintln!("skipped: {} has no PyYAML", python.display());
            return;
        }
        Err(error) => panic!("PyYAML failed: {error}"),
    };
    assert_eq!(results.len(), docs.len(), "one PyYAML result per document");
    let mut failures = Vec::new();
    let (mut agreed, mut lenient, mut both_reject) = (0, 0, 0);
    // SafeLoader is the reference; where libyaml's CSafeLoader disagrees
    // with it the document is still held to SafeLoader's answer, and counted.
    let c_disagrees = results
        .iter()
        .filter(|result| result.get("c_agrees") == Some(&Value::Bool(false)))
        .count();
    if std::env::var_os("HOOKS_YAML_FUZZ_SHOW_C").is_some() {
        for (doc, result) in docs.iter().zip(&results) {
            if result.get("c_agrees") == Some(&Value::Bool(false)) {
                eprintln!("CSafeLoader differs: {doc:?}\n  SafeLoader: {result}");
            }
        }
    }
    for ((name, doc), result) in names.iter().zip(&docs).zip(&results) {
        let ours = super::parse(doc);
        // Where libyaml reads what pure PyYAML refuses (tabs as blanks), or
        // the two read different values, CSafeLoader's answer counts too:
        // hermes-agent loads config.yaml with it when libyaml is installed.
        let libyaml = result.get("c").and_then(|c| c.get("ok"));
        let c_error = result
            .get("c")
            .and_then(|c| c.get("err"))
            .and_then(Value::as_str);
        if let (Some(theirs), Ok(value)) = (libyaml, &ours)
            && same_as(value, theirs, true)
        {
            agreed += 1;
            continue;
        }
        // libyaml also skips a BOM at the start of any line; PyYAML keeps it
        // as text there. Where SafeLoader refuses the file (for a tab) we
        // keep its BOM rule with libyaml's tab rule (pinned: then neither
        // loader may read it as we do, and nothing the user wrote is lost).
        if result.get("ok").is_none()
            && ours.is_ok()
            && doc.chars().skip(1).any(|c| c == '\u{feff}')
        {
            lenient += 1;
            continue;
        }
        match (
            result.get("ok"),
            result.get("err").and_then(Value::as_str),
            &ours,
        ) {
            (Some(theirs), _, Ok(value)) if same(value, theirs) => agreed += 1,
            (Some(theirs), _, Ok(value)) => {
                failures.push(format!(
                    "{name} {doc:?}\n  PyYAML: {theirs}\n  ours:   {value}"
                ));
            }
            (Some(_), _, Err(error))
                if OUT_OF_REACH.iter().any(|(m, _)| error.message.contains(m)) =>
            {
                both_reject += 1;
            }
            (Some(theirs), _, Err(error)) => {
                failures.push(format!(
                    "{name} {doc:?}\n  PyYAML: {theirs}\n  ours:   error {error}"
                ));
            }
            (None, _, Err(_)) => both_reject += 1,
            (None, Some(error), Ok(_))
                if LENIENT
                    .iter()
                    .any(|(m, _)| error.contains(m) || c_error.is_some_and(|c| c.contains(m))) =>
            {
                lenient += 1;
            }
            (None, error, Ok(value)) => failures.push(format!(
                "{name} {doc:?}\n  PyYAML: error {}\n  ours:   {value}",
                error.unwrap_or("?")
            )),
        }
    }
    eprintln!(
        "{} documents: {agreed} same value, {both_reject} refused by both, {lenient} read only here (pinned); CSafeLoader differs from SafeLoader on {c_disagrees}",
        docs.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} documents differ from PyYAML:\n{}",
        failures.len(),
        docs.len(),
        failures[..failures.len().min(15)].join("\n")
    );
}
