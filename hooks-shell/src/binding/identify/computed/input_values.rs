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
            r#"^(?:json\.loads?\(\s*sys\.stdin(?:\.buffer)?(?:\.read\(\s*\)(?:\s+or\s+['"]\{\}['"])?)?\s*\)|JSON\.parse\(\s*(?:(?:require\(\s*['"](?:node:)?fs['"]\s*\)|fs)\.)?readFileSync\(\s*(?:0|['"]/dev/stdin['"])\s*(?:,\s*(?:['"]utf-?8['"]|\{\s*encoding\s*:\s*['"]utf-?8['"]\s*\}))?\s*\)(?:\.toString\(\s*\))?\s*\))\s*;?$"#,
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
        Regex::new(r#"^(?:sys\.stdin\.read\(\s*\)(?:\s+or\s+['"]\{\}['"])?|''|""|(?:(?:require\(\s*['"](?:node:)?fs['"]\s*\)|fs)\.)?readFileSync\(\s*(?:0|['"]/dev/stdin['"])\s*(?:,\s*['"]utf-?8['"]\s*)?\)(?:\.toString\(\s*\))?)\s*;?$"#)
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

/// Whether `name` is the hook input in `code` of `program`: a name the
/// code gives only the input as parsed ([`is_parsed_input_in`]), or else
/// an empty mapping (`except ValueError: data = {}`: an empty input has
/// no `cwd`).
pub(super) fn is_input_name(name: &str, program: &str, code: &str) -> bool {
    let values = match program {
        "python" | "python3" => super::python_values::values(code, name).unwrap_or_default(),
        _ => Regex::new(&format!(r"\b{}\s*=\s*([^;\n]+)", regex::escape(name)))
            .map(|found| {
                found
                    .captures_iter(code)
                    .map(|c| c[1].to_owned())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default(),
    };
    let empty = |value: &String| matches!(value.trim(), "{}" | "dict()");
    values
        .iter()
        .any(|value| is_parsed_input_in(value, program, code))
        && values
            .iter()
            .all(|value| empty(value) || is_parsed_input_in(value, program, code))
}

/// Whether `name`, in JavaScript `code` of `program`, holds the hook
/// input's `cwd` taken out of the input as parsed (`const {cwd,
/// tool_input} = JSON.parse(raw)`, `const {cwd: dir} = input`: round 57,
/// U57-3): given so once, with no default, and given nothing else
/// anywhere in the code (no assignment, parameter, loop variable, other
/// declaration or pattern naming it).
pub(super) fn destructured_input_cwd(name: &str, program: &str, code: &str) -> bool {
    static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:const|let|var)\s*\{((?:[^{}]|\{[^{}]*\})*)\}\s*=\s*([^;\n]+)")
            .expect("valid regex")
    });
    static CWD_ENTRY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:cwd|cwd\s*:\s*([A-Za-z_$][\w$]*))$").expect("valid regex")
    });
    static ASSIGNED_PATTERN: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\{((?:[^{}]|\{[^{}]*\})*)\}\s*=[^=>]").expect("valid regex"));
    if matches!(program, "python" | "python3") || !super::python_values::is_name(name) {
        return false;
    }
    let word = regex::escape(name);
    let Ok(mentions) = Regex::new(&format!(r"(?:^|[^\w$.]){word}(?:$|[^\w$])")) else {
        return false;
    };
    let mut given = 0;
    for found in PATTERN.captures_iter(code) {
        for entry in super::brackets::split_outside(&found[1], ",") {
            let Some(cwd) = CWD_ENTRY.captures(entry.trim()) else {
                if mentions.is_match(entry) {
                    return false;
                }
                continue;
            };
            let bound = cwd.get(1).map_or("cwd", |m| m.as_str());
            if bound != name {
                continue;
            }
            let source = found[2].trim().trim_end_matches(';').trim();
            let parsed = is_parsed_input_in(source, program, code)
                || (super::python_values::is_name(source)
                    && is_input_name(source, program, code)
                    && !may_rewrite_input(program, code, source));
            if !parsed {
                return false;
            }
            given += 1;
        }
    }
    // Any other giving of the name: an assignment (`cwd = d`, `cwd ??=
    // d`, `cwd++`), a parameter (`(cwd) =>`, `function f(cwd)`, `catch
    // (cwd)`), a declaration, a loop variable, another pattern, an import.
    let other = Regex::new(&format!(
        r"(?:^|[^\w$.]){word}\s*(?:[-+*/%&|^?]{{0,3}}=[^=>]|\+\+|--|=>)|(?:\+\+|--)\s*{word}\b|\((?:[^()]*[^\w$.()])?{word}\b[^()]*\)\s*=>|\bfunction\b[^(]*\((?:[^)]*[^\w$.)])?{word}\b|\bcatch\s*\(\s*{word}\b|\b(?:const|let|var|class|import)\s+{word}\b|\bfor\s*\((?:[^;)]*[^\w$.;)])?{word}\b[^;)]*\b(?:of|in)\b|\[(?:[^\[\]=]*[^\w$.\[\]=])?{word}\b[^\[\]=]*\]\s*=[^=]|\bimport\b[^;\n]*\b{word}\b"
    ));
    // Every pattern naming it, declared or not (`({cwd} = other)`).
    let patterns = ASSIGNED_PATTERN
        .captures_iter(code)
        .filter(|found| mentions.is_match(&found[1]))
        .count();
    given == 1
        && other.is_ok_and(|other| !other.is_match(code))
        && patterns == 1
        && !may_rewrite_input(program, code, name)
}

/// Whether `code` of `program` holds a construct that may write into the
/// hook input it parsed as `name`, or take its `cwd` away so a default
/// stands in: a store by `cwd` or an attribute `cwd` anywhere; on `name`
/// or a name given it (`alias = data`): a store by a key other than a
/// written-out one, a mapping updated, merged, popped or cleared; `name`
/// passed to a function the code defines; code run from text, attributes
/// set by name. An unrelated mapping updated (`env.update(…)`) is not
/// (round 57, U57-1).
pub(super) fn may_rewrite_input(program: &str, code: &str, name: &str) -> bool {
    static ANYWHERE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"\[\s*['"]cwd['"]\s*\]\s*(?:\|\||&&|\?\?|[|+&-])?=[^=]|__setitem__|\bsetitem\b|\.cwd\s*(?:\|\||&&|\?\?|[|+&-])?=[^=]|Object\.fromEntries|Object\.assign\s*\(\s*(?:[^{\s]|\{\s*[^}\s])|[=(,:]\s*Object\s*[;),\n}]|\}\s*=\s*Object\b|\bsys\.(?:__)?stdin(?:__)?\s*=[^=]|\[\s*(['"])[^'"\n\]]*['"]\s*(?:['"]|\+|\.|\[)[^\]\n]*\]\s*(?:\|\||&&|\?\?|[|+&-])?=[^=]|\[\s*[\w.]+\s*\([^\]\n]*\]\s*=[^=]|\bsetattr\b|__dict__|\bvars\s*\(|\bglobals\s*\(|\blocals\s*\(|object_hook|object_pairs_hook|Object\.(?:defineProperty|defineProperties|setPrototypeOf)|Reflect\.|__proto__|\bwith\s*\(|\bdel\s+[\w.]+\s*\[\s*['"]cwd|\.pop\s*\(\s*['"]cwd|\bdelete\s+[\w.]+(?:\.cwd|\[\s*['"]cwd)"#,
        )
        .expect("valid regex")
    });
    static RUNS_TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bexec\s*\(|\beval\s*\(|\bcompile\s*\(|__import__").expect("valid regex")
    });
    static RUNS_TEXT_NODE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\beval\s*\(|\bnew\s+Function\b|\bvm\.|\brunIn\w*Context\b")
            .expect("valid regex")
    });
    let by_text = match program {
        "python" | "python3" => RUNS_TEXT.is_match(code),
        _ => RUNS_TEXT_NODE.is_match(code),
    };
    if ANYWHERE.is_match(code) || by_text {
        return true;
    }
    receivers(code, name)
        .iter()
        .any(|receiver| writes_into(code, receiver))
}

/// `name` and the names given it (`alias = data`, `let alias = data;`),
/// as far as two steps.
fn receivers(code: &str, name: &str) -> Vec<String> {
    static GIVEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)(?:^|[;{(\s])(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*=\s*([A-Za-z_$][\w$]*)\s*(?:;|$)")
            .expect("valid regex")
    });
    let pairs: Vec<(&str, &str)> = GIVEN
        .captures_iter(code)
        .filter_map(|found| Some((found.get(1)?.as_str(), found.get(2)?.as_str())))
        .collect();
    let mut names = vec![name.to_owned()];
    for _ in 0..2 {
        let more: Vec<String> = pairs
            .iter()
            .filter(|(alias, source)| {
                names.iter().any(|n| n == source) && !names.iter().any(|n| n == alias)
            })
            .map(|(alias, _)| (*alias).to_owned())
            .collect();
        if more.is_empty() {
            break;
        }
        names.extend(more);
    }
    names
}

/// Whether `code` writes into the mapping named `receiver`: a store by a
/// key not written out, an update, a merge in place, a pop or a clear, or
/// it passes it to a function of its own.
fn writes_into(code: &str, receiver: &str) -> bool {
    static METHOD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\w$.])([A-Za-z_$][\w$]*)\s*(?:\.\s*(?:update|setdefault|clear|popitem|pop|__setitem__|__ior__|__init__)\s*\(|\|=)|(?:setitem|Object\.assign)\s*\(\s*([A-Za-z_$][\w$]*)\b")
            .expect("valid regex")
    });
    static STORE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\w$.])([A-Za-z_$][\w$]*)\s*\[([^\[\]\n]*)\]\s*[|+]?=(?:[^=]|$)|\b(?:del|delete)\s+([A-Za-z_$][\w$]*)\s*\[")
            .expect("valid regex")
    });
    static PASSED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\w$.])([A-Za-z_$][\w$]*)\s*\(([^()]*)\)").expect("valid regex")
    });
    static DEFINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\b(?:def|function)\s+([A-Za-z_$][\w$]*)|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=",
        )
        .expect("valid regex")
    });
    static PLAIN_KEY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*(?:'[\w.\-]*'|"[\w.\-]*"|-?\d+)\s*$"#).expect("valid regex")
    });
    let is = |found: Option<regex::Match<'_>>| found.is_some_and(|m| m.as_str() == receiver);
    let method = METHOD
        .captures_iter(code)
        .any(|found| is(found.get(1)) || is(found.get(2)));
    let store = || {
        STORE.captures_iter(code).any(|found| {
            is(found.get(3))
                || (is(found.get(1))
                    && found
                        .get(2)
                        .is_none_or(|key| !PLAIN_KEY.is_match(key.as_str())))
        })
    };
    let passed = || {
        let defined: Vec<&str> = DEFINED
            .captures_iter(code)
            .filter_map(|found| found.get(1).or(found.get(2)).map(|m| m.as_str()))
            .collect();
        PASSED.captures_iter(code).any(|found| {
            defined.contains(&&found[1])
                && found[2]
                    .split(',')
                    .any(|argument| argument.trim() == receiver)
        })
    };
    method || store() || passed()
}

#[cfg(test)]
mod tests {
    use super::{destructured_input_cwd, is_parsed_input, is_parsed_input_in, may_rewrite_input};

    #[test]
    fn the_input_cwd_destructured_once_is_the_input_cwd() {
        let read = "const raw = require('fs').readFileSync(0, 'utf8');\n";
        for (code, name) in [
            (
                "const {cwd, tool_input} = JSON.parse(fs.readFileSync(0, 'utf8'));",
                "cwd",
            ),
            (
                "const { tool_input: { file_path }, cwd } = JSON.parse(raw);",
                "cwd",
            ),
            (
                "const {cwd: dir} = JSON.parse(raw);\nrun({cwd: dir});",
                "dir",
            ),
            (
                "const input = JSON.parse(raw);\nconst {cwd} = input;\nx({cwd});",
                "cwd",
            ),
        ] {
            let code = format!("{read}{code}");
            assert!(destructured_input_cwd(name, "node", &code), "{code}");
        }
        for (code, name) in [
            (
                "let {cwd} = JSON.parse(raw);\ncwd = path.dirname(fp);",
                "cwd",
            ),
            ("let {cwd} = JSON.parse(raw);\ncwd ??= d;", "cwd"),
            ("const {cwd = '/tmp'} = JSON.parse(raw);", "cwd"),
            (
                "const {cwd} = JSON.parse(raw);\nfiles.forEach((cwd) => run(cwd));",
                "cwd",
            ),
            (
                "const {cwd} = JSON.parse(raw);\nfunction f(a, cwd) { run(cwd); }",
                "cwd",
            ),
            (
                "const {cwd} = JSON.parse(raw);\nfor (const cwd of dirs) run(cwd);",
                "cwd",
            ),
            ("const {cwd} = JSON.parse(raw);\n({cwd} = other);", "cwd"),
            (
                "const {cwd} = JSON.parse(raw);\n{ const [cwd] = dirs; }",
                "cwd",
            ),
            ("const {tool_input: cwd} = JSON.parse(raw);", "cwd"),
            ("const {cwd} = JSON.parse(raw.replace('a', 'b'));", "cwd"),
            ("const {cwd} = other;", "cwd"),
            (
                "const input = JSON.parse(raw);\ninput.cwd = d;\nconst {cwd} = input;",
                "cwd",
            ),
            ("const {cwd} = JSON.parse(raw);\neval(text);", "cwd"),
            (
                "const {cwd} = JSON.parse(raw);\n[1].map((cwd) => run(cwd));",
                "cwd",
            ),
            (
                "const {cwd} = JSON.parse(raw);\nconst f = (cwd) => run(cwd);",
                "cwd",
            ),
            (
                "const {cwd} = JSON.parse(raw);\nconst f = cwd => run(cwd);",
                "cwd",
            ),
        ] {
            let code = format!("{read}{code}");
            assert!(!destructured_input_cwd(name, "node", &code), "{code}");
        }
        assert!(!destructured_input_cwd("cwd", "python3", "{cwd} = x"));
    }

    #[test]
    fn only_the_input_parsed_whole_is_the_input() {
        for value in [
            "json.load(sys.stdin)",
            "json.loads(sys.stdin.read())",
            "json.loads(sys.stdin.read() or \"{}\")",
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
            "alias = data\nalias.update(x)",
            "def fix(x):\n    x[k] = v\nfix(data)",
            "exec('data[\"cw\" + \"d\"] = d')",
            "data.cwd = d",
            "Object.assign(data, { cwd: d })",
            "Reflect.set(data, 'cwd', d)",
            // Round 58.
            "dict.__setitem__(data, 'cwd', d)",
            "from operator import setitem as put\nput(data, 'cwd', d)",
            "data.cwd &&= d",
            "data['cwd'] ||= d",
            "Object.assign((data), Object.fromEntries([['cwd', d]]))",
            "const {assign} = Object;\nassign(data, {cwd: d})",
            "for x in [data]:\n    x['c' 'wd'] = d",
            "x = [data][0]\nx['c' + 'wd'] = d",
            "[x.__setitem__('c' 'wd', d) for x in [data]]",
            "sys.stdin = S()\ndata = json.load(sys.stdin)",
        ] {
            let program = if code.contains("Object")
                || code.contains("Reflect")
                || code.contains("&&=")
                || code.contains("||=")
            {
                "node"
            } else {
                "python3"
            };
            assert!(may_rewrite_input(program, code, "data"), "{code}");
        }
        for code in [
            "env = dict(os.environ)\nenv['NO_COLOR'] = '1'\nargs[0] = 'x'",
            "r = subprocess.run(['git', '-C', data['cwd'], 'status'])",
            "if data['cwd'] == x: pass",
            "exec('git status', { cwd: data.cwd })",
            "execSync('npm test', { cwd: data.cwd })",
            // Round 57, U57-1: other mappings updated.
            "env = os.environ.copy()\nenv.update({'NO_COLOR': '1'})",
            "counts = {}\ncounts.setdefault(w, 0)\ncounts[w] += 1",
            "seen = set()\nseen |= {1}",
            "const env = Object.assign({}, process.env, { NO_COLOR: '1' });",
            "print(json.dumps(data))",
        ] {
            let program = if code.contains("const") || code.contains("exec(") {
                "node"
            } else {
                "python3"
            };
            assert!(!may_rewrite_input(program, code, "data"), "{code}");
        }
    }
}
