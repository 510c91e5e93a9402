//! A folder a Python script puts on its module path (`sys.path.insert`,
//! `.append`, `.extend`, `site.addsitedir`) that is computed when it runs
//! (`sys.path.insert(0, 'l' + 'ib')`: red team R46-3): the modules it then
//! imports come from a folder no reading names, so such a script cannot be
//! approved. A folder written out, or spelled from the script's own place,
//! the folder it runs in or the environment (`os.path.join(os.path.dirname(
//! __file__), "lib")`, `Path(__file__).parent / "lib"`, `os.getcwd()`,
//! `os.environ["CLAUDE_PROJECT_DIR"]`), is read by the binding as before.

use std::sync::LazyLock;

use regex::Regex;

/// Names a folder's spelling may use: the script's place, the run folder,
/// the environment, the path functions that join them, and globs (which
/// the binding reads: `glob.glob('li*')[0]`, `next(Path('.').rglob('x'))`).
pub(super) const PATH_WORDS: [&str; 40] = [
    "os",
    "path",
    "join",
    "dirname",
    "abspath",
    "realpath",
    "normpath",
    "expanduser",
    "expandvars",
    "__file__",
    "getcwd",
    "environ",
    "get",
    "getenv",
    "Path",
    "PurePath",
    "pathlib",
    "parent",
    "parents",
    "resolve",
    "cwd",
    "home",
    "str",
    "sys",
    "fspath",
    "absolute",
    "curdir",
    "pardir",
    "insert",
    "append",
    "site",
    "joinpath",
    "with_name",
    "glob",
    "iglob",
    "rglob",
    "next",
    "sorted",
    "list",
    "__name__",
];

/// How many names deep a folder's value is read.
const MAX_DEPTH: usize = 3;

/// Why Python `code` puts on its module path a folder computed when it runs.
pub(super) fn computed_folder(code: &str) -> Option<String> {
    static ADDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:sys\.path\.(?:insert|append|extend)|addsitedir)\s*\(")
            .expect("valid regex")
    });
    for found in ADDS.find_iter(code) {
        let call = &code[found.end() - 1..];
        let inside = super::python_values::call_arguments(call);
        let parts = super::inline_code::top_level(&inside, ',');
        // `insert(0, x)`: the folder is the second argument.
        let folder = match found.as_str().contains("insert") {
            true => parts.get(1),
            false => parts.first(),
        };
        if let Some(folder) = folder
            && !is_spelled(folder, code, 0)
        {
            return Some(format!(
                "it puts a folder computed when it runs on its module path (`{}{inside})`)",
                found.as_str()
            ));
        }
    }
    None
}

/// [`is_spelled`] of an expression of `code` (a folder code moves to:
/// [`super::moved_code`]).
pub(super) fn spells_a_folder(expression: &str, code: &str) -> bool {
    is_spelled(expression, code, 0)
}

/// Whether `expression` spells a folder from written pieces only: string
/// literals, [`PATH_WORDS`], numbers, brackets, `.`, `,`, `/`, and names
/// the code gives only such values; at most one string joined by `+`
/// (`'l' + 'ib'` is a name no reading holds), and no string's own method
/// or slice (`''.join([…])`, `'bil'[::-1]`).
fn is_spelled(expression: &str, code: &str, depth: usize) -> bool {
    pieces(expression, code, depth).is_some_and(|(strings, joined)| !(joined && strings > 1))
}

/// The string pieces `expression` spells a folder from, and whether it
/// joins them with `+`; `None` when it is spelled otherwise.
fn pieces(expression: &str, code: &str, depth: usize) -> Option<(usize, bool)> {
    static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"[rbuRBU]?"(?:[^"\\]|\\.)*"|[rbuRBU]?'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\s+|."#)
            .expect("valid regex")
    });
    let (mut strings, mut joined) = (0, false);
    let tokens: Vec<&str> = TOKEN.find_iter(expression).map(|t| t.as_str()).collect();
    for (at, token) in tokens.iter().enumerate() {
        let first = token.chars().next().unwrap_or(' ');
        let string = token.ends_with(['"', '\'']) && token.len() >= 2;
        if string {
            // An f-string, an escape, a string's method or slice.
            let next = tokens[at + 1..].iter().find(|t| !t.trim().is_empty());
            if token.starts_with(['f', 'F'])
                || token.contains('\\')
                || next.is_some_and(|t| matches!(*t, "." | "["))
            {
                return None;
            }
            strings += 1;
        } else if first.is_ascii_alphabetic() || first == '_' {
            if PATH_WORDS.contains(token) {
                continue;
            }
            let values = (depth < MAX_DEPTH)
                .then(|| super::python_values::values(code, token))
                .flatten()?;
            let mut most = 0;
            for value in &values {
                let (inner, inner_joined) = pieces(value, code, depth + 1)?;
                joined |= inner_joined;
                most = most.max(inner);
            }
            strings += most;
        } else if *token == "+" {
            joined = true;
        } else if !(first.is_ascii_digit()
            || first.is_whitespace()
            || matches!(*token, "." | "(" | ")" | "[" | "]" | "," | "/" | "-"))
        {
            return None;
        }
    }
    Some((strings, joined))
}

#[cfg(test)]
mod tests {
    use super::computed_folder;

    #[test]
    fn a_module_folder_computed_when_it_runs_is_found() {
        for code in [
            "import sys\nsys.path.insert(0, 'l' + 'ib')\nimport helper\n",
            "import sys\nsys.path.append(''.join(['l', 'ib']))\n",
            "import sys\nsys.path.insert(0, 'bil'[::-1])\n",
            "import sys\nA = 'l'\nB = 'ib'\nsys.path.insert(0, A + B)\n",
            "import sys\nsys.path.insert(0, f'{x}/lib')\n",
            "import sys, site\nsite.addsitedir(input())\n",
        ] {
            assert!(computed_folder(code).is_some(), "{code}");
        }
    }

    #[test]
    fn a_folder_spelled_from_written_pieces_is_read_as_before() {
        for code in [
            "import sys\nsys.path.insert(0, 'lib')\n",
            "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'lib'))\n",
            "import os, sys\nHERE = os.path.dirname(os.path.abspath(__file__))\nsys.path.insert(0, os.path.join(HERE, 'lib'))\n",
            "import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).parent / 'lib'))\n",
            "import os, sys\nsys.path.insert(0, os.getcwd())\n",
            "import os, sys\nsys.path.insert(0, os.environ['CLAUDE_PROJECT_DIR'])\n",
            "import os, sys\nsys.path.append(os.path.dirname(__file__) + '/lib')\n",
            "import sys\nsys.path.insert(0, str(Path(__file__).resolve().parents[1]))\n",
            "import sys, glob\nsys.path.insert(0, glob.glob('li*')[0])\n",
            "import sys\nsys.path.insert(0, str(next(Path('.').rglob('sub'))))\n",
        ] {
            assert_eq!(computed_folder(code), None, "{code}");
        }
    }
}
