//! The hook input as a hook's code holds it. Its `cwd` is the project
//! folder only while the code holds the input exactly as parsed from
//! standard input: a name given nothing else (`data =
//! json.load(sys.stdin)`), its text not edited first, and no construct in
//! the code that may write into it (`data["cwd"] = d`,
//! `data.__setitem__("cwd", d)`, `data.update(cwd=d)`, `Object.assign`:
//! red team round 57, g02). Otherwise it is any folder, as a tool call's
//! path is.

use std::sync::LazyLock;

use regex::Regex;

/// Whether `value`, an expression code gives a name, is the hook input
/// parsed whole from standard input, with nothing done to its text nor to
/// what parsing builds (no `object_hook`, no reviver).
pub(super) fn is_parsed_input(value: &str) -> bool {
    static PARSED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"^(?:json\.loads?\(\s*sys\.stdin(?:\.buffer)?(?:\.read\(\s*\))?\s*\)|JSON\.parse\(\s*(?:(?:require\(\s*['"](?:node:)?fs['"]\s*\)|fs)\.)?readFileSync\(\s*(?:0|['"]/dev/stdin['"])\s*(?:,\s*(?:['"]utf-?8['"]|\{\s*encoding\s*:\s*['"]utf-?8['"]\s*\}))?\s*\)(?:\.toString\(\s*\))?\s*\))\s*;?$"#,
        )
        .expect("valid regex")
    });
    PARSED.is_match(value.trim())
}

/// [`is_parsed_input`], or the same of a name given only the text read
/// whole from standard input (`raw = sys.stdin.read()`; `json.loads(raw)`;
/// Node's `let raw = ""` read in chunks, `JSON.parse(raw)`).
pub(super) fn is_parsed_input_in(value: &str, program: &str, code: &str) -> bool {
    static OF_NAME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:json\.loads|JSON\.parse)\(\s*([A-Za-z_$][\w$]*)\s*\)\s*;?$")
            .expect("valid regex")
    });
    static STDIN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:sys\.stdin\.read\(\s*\)|''|""|(?:(?:require\(\s*['"](?:node:)?fs['"]\s*\)|fs)\.)?readFileSync\(\s*(?:0|['"]/dev/stdin['"])\s*(?:,\s*['"]utf-?8['"]\s*)?\)(?:\.toString\(\s*\))?)\s*;?$"#)
            .expect("valid regex")
    });
    if is_parsed_input(value) {
        return true;
    }
    let Some(name) = OF_NAME
        .captures(value.trim())
        .map(|found| found[1].to_owned())
    else {
        return false;
    };
    let values = match program {
        "python" | "python3" => super::python_values::values(code, &name),
        _ => super::moved_code::assigned_values(code, &name),
    };
    values.is_some_and(|values| {
        !values.is_empty() && values.iter().all(|text| STDIN_TEXT.is_match(text.trim()))
    })
}

/// Whether `code` of `program` holds a construct that may write into the
/// hook input it parsed, or take its `cwd` away so a default stands in:
/// a store by a key other than a written-out one (or by `cwd`), a mapping
/// updated, merged or cleared, an attribute set, code run from text.
pub(super) fn may_rewrite_input(program: &str, code: &str) -> bool {
    static WRITES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"\.update\s*\(|__setitem__|\bsetitem\s*\(|\.setdefault\s*\(|\|=|\.cwd\s*=[^=]|\bsetattr\b|__dict__|\bvars\s*\(|\bglobals\s*\(|\blocals\s*\(|object_hook|object_pairs_hook|Object\.(?:assign|defineProperty|defineProperties|setPrototypeOf)|Reflect\.|__proto__|\.clear\s*\(|\.popitem\b|\bdel\s|\bdelete\s|\.pop\s*\(\s*[^)\s'"\d]|\.pop\s*\(\s*['"]cwd|\bwith\s*\("#,
        )
        .expect("valid regex")
    });
    // A store `x[key] = …` (or `|=`, `+=`): fine by a key written out
    // other than `cwd`, or by a number.
    static STORE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\[([^\[\]\n]*)\]\s*[|+]?=(?:[^=]|$)").expect("valid regex"));
    static PLAIN_KEY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*(?:'([\w.\-]*)'|"([\w.\-]*)"|\d+|-\d+)\s*$"#).expect("valid regex")
    });
    static RUNS_TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bexec\s*\(|\beval\s*\(|\bcompile\s*\(|__import__").expect("valid regex")
    });
    static RUNS_TEXT_NODE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\beval\s*\(|\bnew\s+Function\b|\bvm\.|\brunIn\w*Context\b")
            .expect("valid regex")
    });
    if WRITES.is_match(code) {
        return true;
    }
    let by_text = match program {
        "python" | "python3" => RUNS_TEXT.is_match(code),
        _ => RUNS_TEXT_NODE.is_match(code),
    };
    by_text
        || STORE.captures_iter(code).any(|found| {
            PLAIN_KEY.captures(&found[1]).is_none_or(|key| {
                key.get(1)
                    .or_else(|| key.get(2))
                    .is_some_and(|key| key.as_str() == "cwd")
            })
        })
}

#[cfg(test)]
mod tests {
    use super::{is_parsed_input, is_parsed_input_in, may_rewrite_input};

    #[test]
    fn only_the_input_parsed_whole_is_the_input() {
        for value in [
            "json.load(sys.stdin)",
            "json.loads(sys.stdin.read())",
            "JSON.parse(require('fs').readFileSync(0, 'utf8'))",
            "JSON.parse(fs.readFileSync(0, \"utf-8\"))",
            "JSON.parse(readFileSync('/dev/stdin', { encoding: 'utf8' }))",
        ] {
            assert!(is_parsed_input(value), "{value}");
        }
        let python = "raw = sys.stdin.read()\ndata = json.loads(raw)\n";
        assert!(is_parsed_input_in("json.loads(raw)", "python3", python));
        let node = "let raw = '';\nprocess.stdin.on('data', (c) => (raw += c));\n";
        assert!(is_parsed_input_in("JSON.parse(raw)", "node", node));
        let edited = "raw = sys.stdin.read()\nraw = raw.replace('a', 'b')\n";
        assert!(!is_parsed_input_in("json.loads(raw)", "python3", edited));
        for value in [
            "json.loads(sys.stdin.read().replace('\"cwd\"', '\"x\"'))",
            "json.load(sys.stdin, object_hook=fix)",
            "JSON.parse(fs.readFileSync(0, 'utf8'), (k, v) => v)",
            "json.loads(re.sub('a', 'b', sys.stdin.read()))",
            "{**json.load(sys.stdin), 'cwd': d}",
        ] {
            assert!(!is_parsed_input(value), "{value}");
        }
    }

    #[test]
    fn code_that_may_write_into_the_input_is_found() {
        for code in [
            "data['cwd'] = d",
            "data[\"cwd\"]=d",
            "k = 'cwd'\ndata[k] = d",
            "data.__setitem__('cwd', d)",
            "operator.setitem(data, 'cwd', d)",
            "data.update(cwd=d)",
            "data |= {'cwd': d}",
            "data.pop('cwd'); x = data.get('cwd', d)",
            "del data['cwd']",
            "alias = data\nalias['c' 'wd'] = d",
            "exec('data[\"cw\" + \"d\"] = d')",
            "input.cwd = d",
            "Object.assign(input, { cwd: d })",
            "Reflect.set(input, 'cwd', d)",
        ] {
            let program = if code.contains("input") {
                "node"
            } else {
                "python3"
            };
            assert!(may_rewrite_input(program, code), "{code}");
        }
        for code in [
            "env = dict(os.environ)\nenv['NO_COLOR'] = '1'\nargs[0] = 'x'",
            "r = subprocess.run(['git', '-C', data['cwd'], 'status'])",
            "if data['cwd'] == x: pass",
            "exec('git status', { cwd: input.cwd })",
            "execSync('npm test', { cwd: input.cwd })",
        ] {
            let program = if code.contains("input") {
                "node"
            } else {
                "python3"
            };
            assert!(!may_rewrite_input(program, code), "{code}");
        }
    }
}
