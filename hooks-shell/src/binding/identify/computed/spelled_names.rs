//! What a name in a loader's argument holds, for [`super::spelled`]: the
//! values the code gives it (`X = 'lib'`, `const p = require('path')`),
//! the items or data a loop over it takes (`for row in
//! csv.reader(open('mods.csv'))`, `for (const m of ['a', 'b'])`), what
//! `with … as` opens; or that the code gives it none (a module, a
//! function of the language), or binds it in a way no reading follows (a
//! function's parameter or definition, a text's characters).

use std::sync::LazyLock;

use regex::Regex;

use super::spelled::Syntax;

/// Python's names a spelling may use besides [`super::python_paths::PATH_WORDS`]:
/// reading data and the script's arguments.
const PYTHON_WORDS: [&str; 36] = [
    "open",
    "read",
    "readline",
    "readlines",
    "read_text",
    "strip",
    "rstrip",
    "lstrip",
    "split",
    "rsplit",
    "splitlines",
    "argv",
    "stdin",
    "reader",
    "DictReader",
    "csv",
    "json",
    "load",
    "loads",
    "metadata",
    "distribution",
    "get_all",
    "name",
    "stem",
    "suffix",
    "with_suffix",
    "as_posix",
    "exists",
    "isfile",
    "isdir",
    "basename",
    "splitext",
    "relpath",
    "int",
    "globals",
    "locals",
];

/// JavaScript's names a spelling may use.
const NODE_WORDS: [&str; 32] = [
    "path",
    "join",
    "resolve",
    "dirname",
    "basename",
    "normalize",
    "__dirname",
    "__filename",
    "process",
    "cwd",
    "env",
    "argv",
    "import",
    "meta",
    "url",
    "filename",
    "URL",
    "fileURLToPath",
    "pathToFileURL",
    "href",
    "pathname",
    "require",
    "os",
    "homedir",
    "String",
    "fs",
    "readFileSync",
    "trim",
    "split",
    "JSON",
    "parse",
    "default",
];

/// Names a program may use unbound: built in, or the script's place.
const BUILT_IN: [&str; 18] = [
    "open",
    "str",
    "int",
    "next",
    "sorted",
    "list",
    "globals",
    "locals",
    "__file__",
    "__name__",
    "__package__",
    "__dirname",
    "__filename",
    "process",
    "require",
    "URL",
    "String",
    "JSON",
];

/// Whether `word` is a name a spelling may call or read as an attribute.
pub(super) fn allowed(word: &str, syntax: Syntax) -> bool {
    match syntax {
        Syntax::Python => {
            super::python_paths::PATH_WORDS.contains(&word) || PYTHON_WORDS.contains(&word)
        }
        Syntax::Node => NODE_WORDS.contains(&word),
    }
}

/// Whether `name`, which `code` gives no value, is one a spelling may
/// use: built in, or imported (`import csv`, `from os import path`) and
/// [`allowed`] or `used` as a module (`csv.reader`). Not what a star
/// import may give (`from helper import *`).
pub(super) fn unbound(code: &str, name: &str, syntax: Syntax, used: bool) -> bool {
    static STAR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bimport\s*\*\s*(?:$|[;\n])|\bimport\s*\(\s*\*").expect("valid regex")
    });
    let node_import = syntax == Syntax::Node && name == "import";
    BUILT_IN.contains(&name)
        || node_import
        || (imported(code, name) && !STAR.is_match(code) && (used || allowed(name, syntax)))
}

/// What `code` binds `name` to: `None` when it binds it nowhere (an
/// imported or built-in name), `Some(None)` when it binds it in a way no
/// reading follows, else the expressions it may hold.
pub(super) fn bound(code: &str, name: &str, syntax: Syntax) -> Option<Option<Vec<String>>> {
    match syntax {
        Syntax::Python => python(code, name),
        Syntax::Node => node(code, name),
    }
}

/// Whether `code` imports `name` (a module, or a name from one).
fn imported(code: &str, name: &str) -> bool {
    let name = regex::escape(name);
    Regex::new(&format!(
        r"(?m)^[ \t]*(?:import|from)\b[^\n]*\b{name}\b|\bimport\s+(?:\*\s*as\s+)?{name}\b|\bimport\s*\{{[^}}]*\b{name}\b"
    ))
    .is_ok_and(|imports| imports.is_match(code))
}

/// [`bound`] in Python.
fn python(code: &str, name: &str) -> Option<Option<Vec<String>>> {
    let escaped = regex::escape(name);
    let pattern = |text: String| Regex::new(&text).ok();
    // A definition, or text added in place (`p += chr(109)`).
    let defined = pattern(format!(
        r"\b(?:def|class)\s+{escaped}\b|\b{escaped}\s*(?:[-+*/%|&^@]|<<|>>|//|\*\*)="
    ))?;
    if defined.is_match(code) {
        return Some(None);
    }
    let looped = pattern(format!(
        r"(?m)\bfor\s+([^\n]*?\b{escaped}\b[^\n]*?)\s+in\s+(.+?):[ \t]*(?:#.*)?$|\bwith\s+(.+?)\s+as\s+{escaped}\b"
    ))?;
    let mut sources = Vec::new();
    for found in looped.captures_iter(code) {
        match (found.get(2), found.get(3)) {
            (Some(iterable), _) => sources.extend(loop_items(iterable.as_str())?),
            (None, Some(opened)) => sources.push(opened.as_str().to_owned()),
            (None, None) => {}
        }
    }
    let binds = pattern(format!(
        r"(?m)^[ \t]*[\w, ()\[\]*]*\b{escaped}\b[\w, ()\[\]*]*(?::[^=\n]+)?(?:[-+*/%|&]?=[^=])|\b{escaped}\s*:=|\b(?:global|nonlocal)\b[^\n]*\b{escaped}\b|\bexcept\b[^\n]*\bas\s+{escaped}\b|\b(?:def\s+\w+\s*\(|lambda\b)[^:]*\b{escaped}\b"
    ))?;
    if sources.is_empty() {
        return binds
            .is_match(code)
            .then(|| super::python_values::values(code, name));
    }
    // A loop's variable given other values too.
    let assigned = pattern(format!(r"(?m)^[ \t]*{escaped}[ \t]*=[ \t]*([^=\n].*)$"))?;
    sources.extend(
        assigned
            .captures_iter(code)
            .map(|found| found[1].trim().to_owned()),
    );
    Some(Some(sources))
}

/// What a loop over `iterable` takes: a list's or tuple's items, else the
/// data it reads whole; `None` for a text's characters (`for c in
/// open('x').read()`, a string).
fn loop_items(iterable: &str) -> Option<Vec<String>> {
    static TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:\.\s*(?:read|read_text|readline|strip|rstrip|lstrip)\s*\(\s*\)|['"])\s*$"#)
            .expect("valid regex")
    });
    let iterable = iterable.trim();
    if TEXT.is_match(iterable) {
        return None;
    }
    let listed = iterable
        .strip_prefix(['[', '('])
        .and_then(|inside| inside.strip_suffix([']', ')']));
    Some(match listed {
        Some(items) => super::inline_code::top_level(items, ',')
            .into_iter()
            .map(str::to_owned)
            .collect(),
        None => vec![iterable.to_owned()],
    })
}

/// [`bound`] in JavaScript.
fn node(code: &str, name: &str) -> Option<Option<Vec<String>>> {
    let escaped = regex::escape(name);
    let pattern = |text: String| Regex::new(&text).ok();
    let declared = pattern(format!(r"\b(?:const|let|var)\s+{escaped}\s*=\s*"))?;
    let looped = pattern(format!(
        r"\bfor\s*\(\s*(?:const|let|var)\s+{escaped}\s+(?:of|in)\s+"
    ))?;
    // A parameter, a definition, a name assigned again or taken apart.
    let other = pattern(format!(
        r"\bfunction\s*\*?\s*{escaped}\b|\bfunction\b[^(]*\([^)]*\b{escaped}\b[^)]*\)|\([^()]*\b{escaped}\b[^()]*\)\s*=>|(?:^|[^\w$.])\s*{escaped}\s*=>|\b(?:const|let|var)\s*[{{\[][^=]*\b{escaped}\b[^=]*=\s*(?:[^r\s]|r[^e])|\bclass\s+{escaped}\b|\bcatch\s*\(\s*{escaped}\b"
    ))?;
    let reassigned = pattern(format!(
        r"(?:^|[^\w$.])({escaped})\s*(?:[-+*/%|&]?=[^=>]|\+\+|--)"
    ))?;
    if other.is_match(code) {
        return Some(None);
    }
    let mut values = Vec::new();
    for found in declared.find_iter(code) {
        values.push(statement_value(&code[found.end()..]));
    }
    for found in looped.find_iter(code) {
        let rest = &code[found.end()..];
        let end = super::brackets::scan(rest, |_, _, depth| depth < 0)?;
        values.extend(loop_items(&rest[..end])?);
    }
    let again = reassigned.captures_iter(code).any(|found| {
        let before = code[..found.get(1).map_or(0, |m| m.start())].trim_end();
        !["const", "let", "var"].iter().any(|k| before.ends_with(k))
    });
    if again {
        return Some(None);
    }
    (!values.is_empty()).then_some(Some(values))
}

/// The expression a declaration's `=` gives: up to its `;` or line's end.
fn statement_value(rest: &str) -> String {
    let end = super::brackets::scan(rest, |_, c, depth| depth <= 0 && matches!(c, ';' | '\n'))
        .unwrap_or(rest.len());
    rest[..end].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::spelled::{Syntax, is_spelled};

    #[test]
    fn names_spelled_from_written_pieces_are_read() {
        let python = "import os, sys, glob, csv\nX = '/tmp/d'\nHERE = os.path.dirname(__file__)\n\
                      for row in csv.reader(open('mods.csv')):\n    pass\n";
        for expression in [
            "'tools/m.py'",
            "os.path.join(HERE, 'tools', 'm.py')",
            "f'{X}/check.py'",
            "X + '/check.py'",
            "glob.glob('**/helper2.py', recursive=True)[0]",
            "'tools.boot.main'.rsplit('.', 1)[0]",
            "row[0]",
            "open('ep.txt').read().strip()",
            "sys.argv[1]",
        ] {
            assert!(
                is_spelled(expression, python, Syntax::Python),
                "{expression}"
            );
        }
        let node = "const path = require('path');\nconst name = 'x';\n";
        for expression in [
            "'./tools/m'",
            "path.join(__dirname, 'lib', 'x')",
            "`./lib/${name}`",
            "__dirname + '/lib/x'",
            "new URL('./w.js', import.meta.url)",
            "['.', 'tools', 'm'].join('/')",
        ] {
            assert!(is_spelled(expression, node, Syntax::Node), "{expression}");
        }
    }

    #[test]
    fn names_built_when_it_runs_are_not() {
        let python = "import base64\nA = 'l'\nP = 'tools/'\nP += chr(109)\nfor c in open('x').read():\n    pass\n";
        for expression in [
            "'tools/' + chr(109) + '.py'",
            "'l' + 'ib'",
            "A + 'ib'",
            "'l' + '' + 'ib'",
            "''.join(['l', 'ib'])",
            "'yp.m'[::-1]",
            "'tools/%s.py' % x",
            "'tools/{}.py'.format(x)",
            "f'tools/{109:c}.py'",
            "'abcm'[3]",
            "open('x').read()[3]",
            "'toolsXm.py'.split('X')[0]",
            "base64.b64decode('dG9vbHM=').decode()",
            "'tools.' + c",
            "name",
            "P",
        ] {
            assert!(
                !is_spelled(expression, python, Syntax::Python),
                "{expression}"
            );
        }
        let node = "function f(p) { return p }\n";
        for expression in [
            "'./tools/' + x",
            "'./t' + 'ools/m'",
            "String.fromCharCode(109)",
            "`./tools/${(22).toString(36)}`",
            "['.', 'to', 'ols/m'].join('')",
            "JSON.parse('\"./tools/\\\\u006d\"')",
            "p",
        ] {
            assert!(!is_spelled(expression, node, Syntax::Node), "{expression}");
        }
    }
}
