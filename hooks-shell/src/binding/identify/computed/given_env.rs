//! The environment variables a hook's code gives the programs it starts
//! (`env={**os.environ, "PATH": "tools:" + os.environ["PATH"]}`,
//! `os.environ["GIT_EXTERNAL_DIFF"] = "tools/d.sh"`, `os.putenv(…)`,
//! Node's `env: { ...process.env, MAKEFILES: "common.mk" }`), as the shell
//! assignments that start each command (`PATH="tools:${PATH}"`): the rest
//! of the reading then binds what they lead to as it does for the hook's
//! own shell text. Any variable that steers what a program loads or runs
//! is read ([`crate::dialect::code_env::steers_code`]: `PATH`, `HOME`,
//! `GIT_*`, `MAKEFILES`...; red team round 57: `PATH` and
//! `GIT_EXTERNAL_DIFF` given by code ran a project's program unasked). A
//! value built in a way no reading follows, or such a name given another
//! way (`k = "BASH_ENV"; env[k] = …`), makes the code unapprovable.

use std::sync::LazyLock;

use regex::Regex;

use super::brackets::split_outside;
use super::code_words::{interpolates, is_string};
use keys::keys_written;

/// The variables `code` gives what it starts, and why some cannot be read.
pub(super) struct GivenVariables {
    /// `NAME=word` for each, the word as a shell reads it.
    pub assignments: Vec<String>,
    /// Why a variable steering what runs is given in a way no reading
    /// follows, if one is.
    pub unread: Option<String>,
}

/// The variables named by the old fixed list: any mention of them that is
/// neither given written out nor read counts (round 56).
const LISTED: &str = "MAKEFILES|MAKEFLAGS|GNUMAKEFLAGS|MFLAGS|NODE_OPTIONS|NODE_PATH|npm_config_[A-Za-z_]+|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|BASH_ENV|ENV|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG";

/// A variable given: a quoted key (`"PATH": v`, `putenv("PATH", v)`), a
/// key or keyword argument (`{ PATH: v }`, `dict(os.environ, PATH=v)`), a
/// store (`os.environ["PATH"] = v`, `process.env.PATH = v`, Perl's
/// `$ENV{PATH} = v`), each followed by its value.
static GIVEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"['"](?P<a>[A-Z_][A-Z0-9_]*|npm_config_\w+)['"]\s*\]?\s*(?::|,|=[^=])\s*|[{,(]\s*(?P<b>[A-Z_][A-Z0-9_]*|npm_config_\w+)\s*(?::|=[^=])\s*|(?:\.|\{\s*)(?P<c>[A-Z_][A-Z0-9_]*|npm_config_\w+)\s*\}?\s*=[^=]\s*"#,
    )
    .expect("valid regex")
});

/// The shell variable an expression of `code` reads, marked for
/// [`shell_word`]: an environment read (`os.environ["PATH"]`,
/// `process.env.PATH`) is that variable; the folder the hook runs in
/// (`input.cwd` of the parsed input, `process.cwd()`) is `.`, as a
/// search path reads a relative entry.
fn variable_of(piece: &str, program: &str, code: &str) -> Option<String> {
    static READS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:os\.environ\[\s*['"](?P<a>\w+)['"]\s*\]|os\.environ\.get\(\s*['"](?P<b>\w+)['"]\s*(?:,\s*['"]['"]\s*)?\)|os\.getenv\(\s*['"](?P<c>\w+)['"]\s*(?:,\s*['"]['"]\s*)?\)|process\.env\.(?P<d>\w+)|process\.env\[\s*['"](?P<e>\w+)['"]\s*\]|\$ENV\{\s*['"]?(?P<f>\w+)['"]?\s*\})$"#)
            .expect("valid regex")
    });
    if let Some(read) = READS.captures(piece.trim()) {
        let name = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .find_map(|n| read.name(n))?;
        return Some(format!("\u{0}{}\u{1}", name.as_str()));
    }
    let piece = piece.trim();
    let here = matches!(piece, "process.cwd()" | "os.getcwd()")
        || (super::moved_code::INPUT_CWD.is_match(piece)
            && super::moved_code::is_project_place(piece, program, code))
        || super::input_values::destructured_input_cwd(piece, program, code);
    here.then(|| ".".to_owned())
}

/// A JavaScript template literal's pieces: each literal text, and the
/// expression after it (`` `${a}/x` ``); `None` when `piece` is no
/// template or nests one.
fn template_pieces(piece: &str, program: &str) -> Option<Vec<(String, Option<String>)>> {
    let inner = piece.strip_prefix('`')?.strip_suffix('`')?;
    if !matches!(program, "node" | "bun" | "deno") || inner.contains(['`', '\\']) {
        return None;
    }
    let mut pieces = Vec::new();
    let mut rest = inner;
    while let Some(open) = rest.find("${") {
        let close = rest[open..].find('}')? + open;
        pieces.push((
            rest[..open].to_owned(),
            Some(rest[open + 2..close].to_owned()),
        ));
        rest = &rest[close + 1..];
    }
    pieces.push((rest.to_owned(), None));
    Some(pieces)
}

/// Whether variable `name` steers what a program started loads or runs.
fn steers(name: &str) -> bool {
    static LISTED_NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!("^(?:{LISTED})$")).expect("valid regex"));
    LISTED_NAME.is_match(name) || crate::dialect::code_env::steers_code(name)
}

/// The variables `code` of `program` gives what it starts ([`GIVEN`]).
pub(super) fn given_variables(program: &str, code: &str) -> GivenVariables {
    let mut given = GivenVariables {
        assignments: Vec::new(),
        unread: None,
    };
    let mut covered: Vec<(usize, usize)> = Vec::new();
    for found in GIVEN.captures_iter(code) {
        let Some(name) = ["a", "b", "c"].iter().find_map(|n| found.name(n)) else {
            continue;
        };
        let name = name.as_str();
        let whole = found.get(0).map_or(0..0, |m| m.range());
        if !steers(name) || !gives(code, whole.start, &code[whole.clone()]) {
            continue;
        }
        // `=[^=]` took the value's first character: start at the `=`'s end.
        let from = code[whole.clone()]
            .rfind(['=', ':', ','])
            .map_or(whole.end, |at| whole.start + at + 1);
        let value = super::moved_code::value_at(&code[from..]);
        let end = from + code[from..].find(value).map_or(0, |at| at + value.len());
        covered.push((whole.start, end));
        // The folder it runs in, read as `.`, is a search path's entry
        // only: `HOME`, `NODE_PATH`, `XDG_CONFIG_HOME` given it name files
        // there no reading of `.` binds (round 58, H58-13).
        let run_folder = name != "PATH" && RUN_FOLDER.is_match(value);
        match shell_word(value, program, code).filter(|_| !run_folder) {
            Some(word) => given.assignments.push(format!("{name}={word}")),
            None => {
                given.unread.get_or_insert_with(|| {
                    format!(
                        "its {program} code gives what it starts `{name}` a value built in a \
                         way no reading follows (`{}`)",
                        value.chars().take(80).collect::<String>()
                    )
                });
            }
        }
    }
    if given.unread.is_none() {
        given.unread =
            named_another_way(program, code, &covered).or_else(|| names_computed(program, code));
    }
    given
}

/// Why `code` of `program` gives what it starts variables whose names it
/// works out when it runs (round 57: `for line in open(".env"): k, v = …;
/// os.environ[k] = v` ran the project's `PATH`): a store into the
/// environment by a computed name, an environment merged from something
/// other than written-out keys, a `.env` file Node loads (Python's
/// `load_dotenv()` binds the files it reads: R35-6), an `env=` built by a
/// call, or the mapping it names written by a computed key.
fn names_computed(program: &str, code: &str) -> Option<String> {
    static LOADS_OR_STORES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?:os\.environ|process\.env)\s*\[\s*[^'"\s\]][^\]\n]*\]\s*=[^=]|\$ENV\{\s*\$|putenv\s*\(\s*[^'"\s)]|environ\.setdefault\s*\(\s*[^'"\s)]|Object\.assign\s*\(\s*process\.env|loadEnvFile|['"]dotenv(?:/config)?['"]|--env-file|--config-env"#,
        )
        .expect("valid regex")
    });
    static UPDATE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:\benv\w*|\benviron)\.update\s*\(").expect("valid regex"));
    static ENV_ARGUMENT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\benv\s*(?:=|:)\s*").expect("valid regex"));
    // A store by a key other than a plain literal or a number.
    static COMPUTED_STORE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"([\w.$]+)\s*\[([^\]\n]*)\]\s*(?:\|\||&&|\?\?|[|+])?=[^=]"#)
            .expect("valid regex")
    });
    static ENV_NAMED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)env|environ").expect("valid regex"));
    let computed_store = |receivers: &dyn Fn(&str) -> bool| {
        COMPUTED_STORE.captures_iter(code).find(|found| {
            let key = found[2].trim();
            !PLAIN_KEY.is_match(key) && key.parse::<i64>().is_err() && receivers(&found[1])
        })
    };
    let why = |what: &str| {
        Some(format!(
            "its {program} code gives what it starts variables named when it runs (`{}`)",
            what.trim().chars().take(60).collect::<String>()
        ))
    };
    if let Some(found) = LOADS_OR_STORES.find(code) {
        return why(found.as_str());
    }
    // `os.environ["PA" "TH"] = …`, `os.putenv("PATH".strip(), …)`: a
    // name no reading sees (round 58).
    if let Some(found) = NAMED_STORE.captures_iter(code).find(|found| {
        let name = found.get(1).or(found.get(2)).map_or("", |m| m.as_str());
        !PLAIN_KEY.is_match(name.trim())
    }) {
        return why(&found[0]);
    }
    // `{P\u0041TH: …}`, `{["PA" + "TH"]: …}`, `get PATH()` (round 58).
    if let Some(found) = super::hidden_keys::hidden_name(program, code) {
        return why(&found);
    }
    // `os.environ["PATH"] += ":tools"`, `process.env.PATH += …`: added to.
    if let Some(found) = APPENDED.captures_iter(code).find(|found| steers(&found[1])) {
        return why(&found[0]);
    }
    for found in UPDATE.find_iter(code) {
        let argument = super::moved_code::value_at(&code[found.end()..]);
        let written = (argument.starts_with('{') && keys_written(argument))
            || WRITTEN_KEYWORDS.is_match(argument);
        if !written {
            return why(&code[found.start()..found.end() + argument.len()]);
        }
    }
    // Node's shorthand `{ env }`: the mapping named `env`.
    static SHORTHAND: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[{,]\s*env\s*[,}]").expect("valid regex"));
    if SHORTHAND.is_match(code) && !written_environment("env", code, 0) {
        return why("{ env }");
    }
    for found in ENV_ARGUMENT.find_iter(code) {
        if code[found.end()..].starts_with('=') {
            continue; // `env == x`: a comparison.
        }
        let value = super::moved_code::value_at(&code[found.end()..]);
        if !written_environment(value, code, 0) {
            return why(value);
        }
        if let Some(store) = computed_store(&|_| true) {
            return why(&store[0]);
        }
    }
    // A mapping of the environment (`opts.env`, `const e = process.env`,
    // a copy) given a key no reading sees (round 58: `e["PA" + "TH"] = …`).
    let of_environment = |receiver: &str| {
        ENV_NAMED.is_match(receiver)
            || super::moved_code::assigned_values(code, receiver).is_some_and(|values| {
                values
                    .iter()
                    .any(|value| value.contains("process.env") || value.contains("os.environ"))
            })
    };
    if let Some(store) = computed_store(&of_environment) {
        return why(&store[0]);
    }
    // `os.environ |= {"PA" "TH": …}`: a merge of keys not written out.
    static MERGED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:os\.environ|process\.env|\benv\w*)\s*\|=\s*").expect("valid regex")
    });
    for found in MERGED.find_iter(code) {
        let merged = super::moved_code::value_at(&code[found.end()..]);
        if !keys_written(merged) {
            return why(&code[found.start()..found.end() + merged.len()]);
        }
    }
    // python-dotenv read from anywhere but its own default (round 58,
    // H58-2: `load_dotenv(".env")` bound neither the file nor what it
    // names; R35-6 binds the default's).
    static DOTENV: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:load_dotenv|dotenv_values)\s*\(\s*[^)\s]|\bfind_dotenv\b|\bdotenv\s+import\b[^\n]*\bas\b|\bimport\s+dotenv\b|\bdotenv\.")
            .expect("valid regex")
    });
    // Its file joined onto the input's `cwd` is bound (round 58, dv07).
    static JOINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:load_dotenv|dotenv_values)\s*\(\s*os\.path\.join\(\s*\w+\[\s*['"]cwd['"]\s*\]\s*,\s*['"][\w.\-]+['"]\s*\)\s*(?:,\s*override\s*=\s*(?:True|False)\s*)?\)"#)
            .expect("valid regex")
    });
    if let Some(found) = DOTENV
        .find_iter(code)
        .find(|found| !JOINED.is_match(&code[found.start()..]))
    {
        return why(found.as_str());
    }
    None
}

/// Whether `value`, an `env=` argument of `code`, is an environment whose
/// names are written out: the host's (`os.environ`, a copy), a display
/// merging only the host's (`{**os.environ, "K": v}`, `{ ...process.env }`),
/// `dict(os.environ, K=v)`, or a name given only such values.
fn written_environment(value: &str, code: &str, depth: usize) -> bool {
    static SPREAD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:\*\*|\.\.\.)\s*([\w.]+(?:\(\))?)").expect("valid regex"));
    // The host's, or python-dotenv's `.env` (bound where it is read: R35-6).
    let host = |spread: &str| {
        matches!(
            spread,
            "os.environ" | "os.environ.copy()" | "process.env" | "dict(os.environ)"
        ) || spread == "dotenv_values()"
    };
    let value = value.trim();
    if value.starts_with('{') || value.starts_with("dict(os.environ") {
        return SPREAD.captures_iter(value).all(|found| host(&found[1])) && keys_written(value);
    }
    if host(value) || value == "None" {
        return true;
    }
    // `Object.assign({}, process.env, { NO_COLOR: "1" })`.
    if let Some(merged) = value
        .strip_prefix("Object.assign(")
        .and_then(|rest| rest.strip_suffix(')'))
    {
        let parts = split_outside(merged, ",");
        return parts.first().is_some_and(|first| *first == "{}")
            && parts
                .iter()
                .skip(1)
                .all(|part| host(part) || part.starts_with('{'));
    }
    let name = value.chars().all(|c| c.is_alphanumeric() || c == '_') && !value.is_empty();
    if !name || depth > 2 {
        return false;
    }
    // Each value it is given (its stores by key are read apart).
    // (`env=env` is the keyword argument passing it, not a value).
    let assigned = super::moved_code::assigned_values(code, value).unwrap_or_default();
    let values: Vec<&str> = assigned
        .iter()
        .map(|given| super::moved_code::value_at(given))
        .filter(|given| *given != value)
        .collect();
    !values.is_empty()
        && values
            .iter()
            .all(|given| written_environment(given, code, depth + 1))
}

/// A store into the environment, or a call setting a variable, and the
/// name it is given (as written).
static NAMED_STORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:os\.environ|process\.env)\s*\[([^\]\n]*)\]\s*[|+]?=[^=]|(?:putenv|setenv|environ\.setdefault|environ\.__setitem__)\s*\(([^,()\n]*),"#)
        .expect("valid regex")
});

/// A name written as one plain literal (`"PATH"`, `'GIT_DIR'`).
static PLAIN_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(?:"[A-Za-z_][A-Za-z0-9_]*"|'[A-Za-z_][A-Za-z0-9_]*')$"#).expect("valid regex")
});

/// An expression reading the folder the hook runs in.
static RUN_FOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"process\.cwd\(\)|os\.getcwd\(\)|\bcwd\b").expect("valid regex"));

/// A variable added to in place (`os.environ["PATH"] += …`).
static APPENDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:['"]|\.|\{\s*)([A-Z_][A-Z0-9_]*|npm_config_\w+)['"]?\s*[\]}]?\s*(?:\+|\|)="#)
        .expect("valid regex")
});

/// Keyword arguments written out (`NO_COLOR="1", LANG="C"`).
static WRITTEN_KEYWORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\w+\s*=\s*[^,]+(?:,\s*\w+\s*=\s*[^,]+)*,?$"#).expect("valid regex")
});

/// Whether the [`GIVEN`] match `matched` at `start` of `code` gives its
/// variable: a quoted name before a comma only as a call's first argument
/// that sets it (`os.putenv("PATH", …)`, not `os.environ.get("PATH", "")`).
fn gives(code: &str, start: usize, matched: &str) -> bool {
    static SETS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:putenv|setenv|setdefault|__setitem__)\s*\(\s*$").expect("valid regex")
    });
    let by_comma = matched.trim_end().ends_with(',');
    !by_comma || SETS.is_match(&code[..start])
}

/// The shell word `value`, an expression of `code` of `program`, stands
/// for: string literals, the variables it reads (`os.environ["PATH"]` is
/// `${PATH}`), the path list separator, joined by `+`. `None` for anything
/// else.
fn shell_word(value: &str, program: &str, code: &str) -> Option<String> {
    static HOME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^os\.path\.expanduser\(\s*(['"])~(/[^'"$`\\]*)?['"]\s*\)$"#)
            .expect("valid regex")
    });
    let mut word = String::new();
    let mut literal_only = true;
    for piece in split_outside(value, "+") {
        let piece = piece.trim();
        if is_string(piece, program) && !interpolates(piece) && !piece.contains('\\') {
            word.push_str(&piece[1..piece.len() - 1]);
        } else if let Some(home) = HOME.captures(piece) {
            // `os.path.expanduser("~/.local/bin")`: under the user's home.
            word.push_str(&format!(
                "\u{0}HOME\u{1}{}",
                home.get(2).map_or("", |m| m.as_str())
            ));
            literal_only = false;
        } else if matches!(piece, "os.pathsep" | "path.delimiter") {
            word.push(':');
        } else if let Some(template) = template_pieces(piece, program) {
            // Node's `${input.cwd}/node_modules/.bin:${process.env.PATH}`.
            for (literal, expression) in template {
                word.push_str(&literal);
                if let Some(expression) = expression {
                    word.push_str(&variable_of(&expression, program, code)?);
                    literal_only = false;
                }
            }
        } else if let Some(variable) = variable_of(piece, program, code) {
            word.push_str(&variable);
            literal_only = false;
        } else {
            return None;
        }
    }
    if literal_only {
        return Some(shlex::try_quote(&word).ok()?.into_owned());
    }
    // Double-quoted, the variables read left to expand.
    let mut quoted = String::from("\"");
    for c in word.chars() {
        match c {
            '\u{0}' => quoted.push_str("${"),
            '\u{1}' => quoted.push('}'),
            '"' | '\\' | '$' | '`' => {
                quoted.push('\\');
                quoted.push(c);
            }
            _ => quoted.push(c),
        }
    }
    quoted.push('"');
    Some(quoted)
}

/// Why `code` names a variable steering what runs in a way no reading
/// follows, outside the places `covered` where it is given: a listed name
/// anywhere but a read (`os.environ.get("NODE_PATH")`), or any such name
/// quoted whole (`k = "PATH"`) but a read.
fn named_another_way(program: &str, code: &str, covered: &[(usize, usize)]) -> Option<String> {
    static LISTED_ANYWHERE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!(r"\b(?:{LISTED})\b")).expect("valid regex"));
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"['"]([A-Z_][A-Z0-9_]*|npm_config_\w+)['"]"#).expect("valid regex")
    });
    static READ: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?:\.get\(|getenv\(|\.pop\(|unsetenv\(|\bin\s+os\.environ|process\.env\.|process\.env\[|environ\[|\bdel\s+[\w.]+\[|\bdelete\s+[\w.]+\[|\$ENV\{)\s*['"]?$"#,
        )
        .expect("valid regex")
    });
    static IN: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*(?:not\s+)?in\b").expect("valid regex"));
    let listed = LISTED_ANYWHERE
        .find_iter(code)
        .filter(|found| found.as_str() != "ENV")
        .map(|found| (found.start(), found.end(), found.as_str()));
    let quoted = QUOTED.captures_iter(code).filter_map(|found| {
        let name = found.get(1)?;
        steers(name.as_str()).then_some((name.start(), name.end(), name.as_str()))
    });
    for (start, end, name) in listed.chain(quoted) {
        if covered
            .iter()
            .any(|(from, to)| (*from..*to).contains(&start))
        {
            continue;
        }
        let line_start = code[..start].rfind('\n').map_or(0, |at| at + 1);
        let before = &code[line_start..start];
        let after = code[end..].trim_start_matches(['"', '\'', ']', '}']);
        let assigned = after.trim_start().starts_with('=') && !after.trim_start().starts_with("==");
        // `"PATH" in os.environ`, `"PATH" not in env`: a test.
        let tested = IN.is_match(after);
        let read = READ.is_match(before) && !assigned;
        if !tested && !read {
            return Some(format!(
                "its {program} code gives what it starts `{name}` in a way no reading follows"
            ));
        }
    }
    None
}

mod keys;
#[cfg(test)]
mod tests;
