//! The files another language's code writes when it runs (`open("/tmp/y.sh",
//! "w")`, `fs.copyFileSync(src, "/tmp/y.sh")`, Perl's `open(my $f, ">",
//! $p)`): a file it then runs ([`super::written`]) has code that exists only
//! when the hook runs, so no reading can bind it (red team R47-11, round
//! 49). A path written out is read as written (escapes decoded); one built
//! when it runs (`os.path.join(d, "y.sh")`, `` `${d}/y.sh` ``) by its
//! written end (`y.sh`), or as any file when it has none.

use std::sync::LazyLock;

use regex::Regex;

use super::brackets::split_outside;
use super::python_values::{call_arguments, is_name, values};
use super::shell_strings::literal_text;

/// What code writes: the paths written out, and the written ends of those
/// built when it runs (empty: any file).
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// The paths written out, as written.
    pub(crate) paths: Vec<String>,
    /// The written ends of paths built when it runs (empty: any file).
    pub(crate) ends: Vec<String>,
}

impl Written {
    /// Whether it writes no file.
    pub(super) fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.ends.is_empty()
    }
}

/// Which argument of a call names the file it writes.
#[derive(Clone, Copy)]
enum Target {
    /// This argument, always.
    Argument(usize),
    /// This argument, when the mode at `mode` writes.
    Opened { path: usize, mode: usize },
    /// The object it is called on (`Path(p).write_text(…)`).
    Receiver,
    /// The object it is called on, when the mode at this argument writes.
    OpenedReceiver(usize),
    /// The last argument: a move's or copy's target.
    Last,
    /// The one argument, when there is one (`Path.rename(target)`, not
    /// `str.replace(a, b)`).
    Sole,
    /// Files no argument names (`extractall`): any file.
    Any,
}

/// Each language's calls that write a file, as a name pattern (matched
/// before `(`) and the argument naming it.
fn writers(program: &str) -> &'static [(Regex, Target)] {
    fn table(rows: &[(&str, Target)]) -> Vec<(Regex, Target)> {
        rows.iter()
            .map(|(name, target)| {
                // `p.write_text(`: the method, after its object.
                let before = match name.starts_with(r"\.") {
                    true => "",
                    false => r"(?:^|[^\w$])",
                };
                let pattern = format!(r"{before}(?:{name})(?:\s*\(|[ \t]+[^\s=(])");
                (Regex::new(&pattern).expect("valid regex"), *target)
            })
            .collect()
    }
    static PYTHON: LazyLock<Vec<(Regex, Target)>> = LazyLock::new(|| {
        table(&[
            (
                r"(?:io\.|codecs\.|gzip\.|bz2\.|lzma\.|builtins\.)?open",
                Target::Opened { path: 0, mode: 1 },
            ),
            (r"os\.open", Target::Opened { path: 0, mode: 1 }),
            (r"\.\s*(?:write_text|write_bytes|touch)", Target::Receiver),
            (r"\.\s*open", Target::OpenedReceiver(0)),
            (
                r"shutil\.(?:copy|copy2|copyfile|copytree|move)|os\.(?:rename|renames|replace|link|symlink)|urlretrieve",
                Target::Last,
            ),
            (
                r"\.\s*(?:rename|replace|symlink_to|hardlink_to)",
                Target::Sole,
            ),
            (r"\.\s*(?:extract|extractall)|unpack_archive", Target::Any),
        ])
    });
    static NODE: LazyLock<Vec<(Regex, Target)>> = LazyLock::new(|| {
        table(&[
            (
                r"(?:writeFile|appendFile|outputFile)(?:Sync)?|createWriteStream",
                Target::Argument(0),
            ),
            (r"open(?:Sync)?", Target::Opened { path: 0, mode: 1 }),
            (
                r"(?:copyFile|rename|symlink|link|cp|copy|move)(?:Sync)?",
                Target::Last,
            ),
        ])
    });
    static PERL: LazyLock<Vec<(Regex, Target)>> = LazyLock::new(|| {
        table(&[
            (r"open|sysopen", Target::Opened { path: 2, mode: 1 }),
            (
                r"(?:File::Copy::)?(?:copy|move|cp|mv)|rename|symlink|link",
                Target::Last,
            ),
        ])
    });
    static RUBY: LazyLock<Vec<(Regex, Target)>> = LazyLock::new(|| {
        table(&[
            (r"(?:File|IO)\.(?:write|binwrite)", Target::Argument(0)),
            (
                r"(?:File|IO)\.open|File\.new",
                Target::Opened { path: 0, mode: 1 },
            ),
            (
                r"FileUtils\.\w+|File\.(?:rename|symlink|link)",
                Target::Last,
            ),
        ])
    });
    static PHP: LazyLock<Vec<(Regex, Target)>> = LazyLock::new(|| {
        table(&[
            (r"file_put_contents", Target::Argument(0)),
            (r"fopen", Target::Opened { path: 0, mode: 1 }),
            (r"copy|rename|symlink|link|move_uploaded_file", Target::Last),
        ])
    });
    match program {
        "python" | "python3" => &PYTHON,
        "node" | "bun" | "deno" => &NODE,
        "perl" => &PERL,
        "ruby" => &RUBY,
        "php" => &PHP,
        _ => &[],
    }
}

/// The files `code` (of `program`) writes; why not, when a path is spelled
/// with an escape no reading decodes.
pub(super) fn written(code: &str, program: &str) -> Result<Written, String> {
    let mut found = Written::default();
    for (name, target) in writers(program) {
        for call in name.find_iter(code) {
            let rest = &code[call.end() - 1..];
            // `open(…)`; Perl's and Ruby's `open my $f, '>', $p;` up to
            // the statement's end.
            let arguments = match rest.starts_with('(') {
                true => call_arguments(rest),
                false if matches!(program, "perl" | "ruby") => {
                    rest.split([';', '\n']).next().unwrap_or("").to_owned()
                }
                false => continue,
            };
            let arguments = split_outside(&arguments, ",");
            let arguments: Vec<&str> = arguments.into_iter().filter(|a| !a.is_empty()).collect();
            // `shutil.copy(a, b, follow_symlinks=False)`: keywords aside,
            // but the target's own.
            let positional: Vec<&str> = arguments
                .iter()
                .filter_map(|a| match KEYWORD.captures(a) {
                    Some(k) if matches!(&k[1], "dst" | "dest" | "target" | "filename" | "mode") => {
                        Some(a[k.get(0).map_or(0, |m| m.end())..].trim())
                    }
                    Some(_) => None,
                    None => Some(*a),
                })
                .collect();
            let arguments = positional;
            let receiver = || receiver(&code[..call.start()]);
            let path = match *target {
                Target::Argument(at) => arguments.get(at).copied(),
                Target::Opened { path, mode } => opened(program, &arguments, path, mode),
                Target::Receiver => Some(receiver()),
                Target::OpenedReceiver(mode) => arguments
                    .get(mode)
                    .filter(|mode| literal_text(mode, program).is_some())
                    .filter(|mode| writes_mode(mode, program))
                    .map(|_| receiver())
                    // `os.open`, `io.open`: the function, read above.
                    .filter(|object| !MODULES.contains(&object.trim())),
                // A copy of files named as written is bound where they are
                // read (the copy rule); one of a name built when it runs
                // may put anything there.
                Target::Last if arguments.len() >= 2 => arguments
                    .last()
                    .copied()
                    .filter(|_| !is_written_out(arguments[0], code, program)),
                Target::Last => None,
                Target::Sole if arguments.len() == 1 => arguments.first().copied(),
                Target::Sole => None,
                Target::Any => {
                    found.ends.push(String::new());
                    None
                }
            };
            if let Some(path) = path {
                path_of(path, code, program, &mut found, 0)?;
            }
        }
    }
    Ok(found)
}

/// Whether `expression` is a path written out: a string literal (no value
/// put in), or a name given only such.
fn is_written_out(expression: &str, code: &str, program: &str) -> bool {
    let expression = expression.trim();
    let literal = |text: &str| {
        literal_text(text, program)
            .flatten()
            .is_some_and(|value| !interpolated(&value, text, program))
    };
    match is_name(expression.trim_start_matches(['$', '@'])) {
        true => values(code, expression.trim_start_matches(['$', '@']))
            .is_some_and(|values| values.iter().all(|value| literal(value))),
        false => literal(expression),
    }
}

/// `name=value`: a keyword argument.
static KEYWORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*([A-Za-z_]\w*)\s*=[^=]").expect("valid regex"));

/// Modules whose `open` is a function, not a path's method.
const MODULES: &[&str] = &[
    "os",
    "io",
    "codecs",
    "gzip",
    "bz2",
    "lzma",
    "builtins",
    "tarfile",
    "zipfile",
    "webbrowser",
    "Image",
    "fs",
    "File",
    "IO",
];

/// The path argument of an `open`-like call whose mode writes: `path` and
/// `mode` its places; Perl's two-argument `open(F, ">/tmp/y")` too.
fn opened<'a>(program: &str, arguments: &[&'a str], path: usize, mode: usize) -> Option<&'a str> {
    let keyword = arguments.iter().find_map(|a| {
        a.strip_prefix("mode")
            .map(|m| m.trim_start().trim_start_matches('='))
    });
    if program == "perl" && arguments.len() == 2 {
        // `open(F, ">/tmp/y.sh")`: the mode leads the path.
        let text = literal_text(arguments[1], program).flatten()?;
        let rest = text.trim_start();
        return rest.starts_with(['>', '+']).then_some(arguments[1]);
    }
    let mode = keyword.or_else(|| arguments.get(mode).copied())?;
    writes_mode(mode, program)
        .then(|| arguments.get(path).copied())
        .flatten()
}

/// Whether an `open` mode (a literal, or `os.O_*` flags) writes; a mode
/// not written out may.
fn writes_mode(mode: &str, program: &str) -> bool {
    if mode.contains("O_WRONLY") || mode.contains("O_RDWR") || mode.contains("O_CREAT") {
        return true;
    }
    static MODE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[rwaxbtU+]{1,4}$").expect("valid regex"));
    match literal_text(mode, program).flatten() {
        Some(text) if program == "perl" => text.trim_start().starts_with(['>', '+']),
        Some(text) => MODE.is_match(&text) && text.contains(['w', 'a', 'x', '+']),
        // `os.O_RDONLY`, a name: read only when it says so.
        None => !mode.contains("O_RDONLY") && !mode.trim().starts_with(['r', 'R']),
    }
}

/// The object a method call is made on: the expression ending `before`
/// (the text up to its `.`).
fn receiver(before: &str) -> &str {
    let text = before.trim_end();
    let text = text.strip_suffix('.').unwrap_or(text).trim_end();
    let mut depth = 0i32;
    let start = text
        .char_indices()
        .rev()
        .find(|(_, c)| {
            match c {
                ')' | ']' => depth += 1,
                '(' | '[' => depth -= 1,
                _ => {}
            }
            depth <= 0 && !(c.is_alphanumeric() || matches!(c, '_' | '.' | ')' | ']' | '(' | '['))
        })
        .map_or(0, |(at, c)| at + c.len_utf8());
    &text[start..]
}

/// Records the file `expression` names: a string literal, a name given
/// values, or an expression built when it runs (by its written end).
fn path_of(
    expression: &str,
    code: &str,
    program: &str,
    found: &mut Written,
    depth: usize,
) -> Result<(), String> {
    let expression = expression.trim();
    // `Path(p)`, `str(p)`: the path `p` names.
    static WRAPPED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:pathlib\.)?(?:Pure)?(?:Posix)?Path\(|^str\(|^os\.fspath\(")
            .expect("valid regex")
    });
    if let Some(wrapper) = WRAPPED.find(expression)
        && depth < 4
    {
        let inside = call_arguments(&expression[wrapper.end() - 1..]);
        let whole = expression[wrapper.end() - 1..].trim_end() == format!("({inside})");
        if whole && split_outside(&inside, ",").len() == 1 {
            return path_of(&inside, code, program, found, depth + 1);
        }
    }
    let name = expression.trim_start_matches(['$', '@']);
    if is_name(name) && depth < 4 {
        match values(code, name) {
            Some(values) => {
                for value in values {
                    path_of(&value, code, program, found, depth + 1)?;
                }
            }
            None => found.ends.push(String::new()),
        }
        return Ok(());
    }
    match literal_text(expression, program) {
        Some(Some(text)) if !interpolated(&text, expression, program) => {
            let text = text.trim_start_matches(['>', '+', '<', ' ']);
            found.paths.push(text.trim_start_matches("./").to_owned());
        }
        Some(None) => {
            return Err(format!(
                "writes a file it names with an escape no reading decodes ({expression})"
            ));
        }
        _ => found.ends.push(written_end(expression)),
    }
    Ok(())
}

/// Whether a literal puts values in (Perl's `"$d/y"`, JavaScript's
/// `` `${d}/y` ``, Python's f-strings).
fn interpolated(text: &str, expression: &str, program: &str) -> bool {
    let quoted = expression.trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U']);
    match program {
        "python" | "python3" => {
            expression.trim_start().starts_with(['f', 'F']) && text.contains('{')
        }
        "node" | "bun" | "deno" => quoted.starts_with('`') && text.contains("${"),
        _ => quoted.starts_with('"') && text.contains(['$', '@', '#']),
    }
}

/// The written end of an expression built when it runs: the text of the
/// literal it ends with, from its last `/` (`os.path.join(d, "y.sh")` →
/// `y.sh`, `f"{d}/y.sh"` → `/y.sh`); empty when it ends in no literal.
fn written_end(expression: &str) -> String {
    static LAST_LITERAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`((?:[^`\\]|\\.)*)`)[\s)\]]*$"#)
            .expect("valid regex")
    });
    let Some(last) = LAST_LITERAL.captures(expression.trim()) else {
        return String::new();
    };
    let text = (1..=3)
        .find_map(|group| last.get(group))
        .map_or("", |text| text.as_str());
    // What follows the literal's last value put in (`{d}`, `${d}`, `$d`).
    let text = text.rsplit(['}', '$']).next().unwrap_or(text);
    match text.rfind('/') {
        Some(at) => text[at..].to_owned(),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(code: &str, program: &str) -> Written {
        written(code, program).expect("read")
    }

    #[test]
    fn paths_written_out_are_read_as_written() {
        for (code, program, path) in [
            ("open('/tmp/y.sh', 'w').write(t)", "python3", "/tmp/y.sh"),
            (
                "with open(\"y.sh\", mode=\"a\") as f:\n    f.write(x)\n",
                "python3",
                "y.sh",
            ),
            (
                "p = '/tmp/y.py'\nPath(p).write_text(body)\n",
                "python3",
                "/tmp/y.py",
            ),
            ("shutil.copy(src, '/tmp/y')\n", "python3", "/tmp/y"),
            (
                "open('/tmp/y\\x2esh', 'w').write(t)",
                "python3",
                "/tmp/y.sh",
            ),
            ("fs.writeFileSync('/tmp/y.sh', body);", "node", "/tmp/y.sh"),
            ("fs.copyFileSync(src, '/tmp/y.sh');", "node", "/tmp/y.sh"),
            ("open(my $f, '>', '/tmp/y.sh');", "perl", "/tmp/y.sh"),
            ("open(F, \">/tmp/y.sh\");", "perl", "/tmp/y.sh"),
            ("copy($src, '/tmp/y.sh');", "perl", "/tmp/y.sh"),
            ("File.write('/tmp/y.sh', body)", "ruby", "/tmp/y.sh"),
            ("file_put_contents('/tmp/y.sh', $body);", "php", "/tmp/y.sh"),
        ] {
            let found = of(code, program);
            assert_eq!(found.paths, [path], "{code}");
        }
    }

    #[test]
    fn paths_built_when_it_runs_are_read_by_their_end() {
        for (code, program, end) in [
            (
                "open(os.path.join(d, 'y.sh'), 'w').write(t)",
                "python3",
                "y.sh",
            ),
            ("(Path(d) / 'y.sh').write_text(t)", "python3", "y.sh"),
            (
                "p = Path(d) / 'bin' / 'y'\np.write_text(t)\n",
                "python3",
                "y",
            ),
            ("open(f'{d}/y.sh', 'w')", "python3", "/y.sh"),
            ("shutil.copyfile(src, os.path.join(d, name))", "python3", ""),
            ("tarfile.open(a).extractall(d)", "python3", ""),
            (
                "fs.writeFileSync(path.join(d, 'y.sh'), body);",
                "node",
                "y.sh",
            ),
            ("fs.writeFileSync(`${d}/y.sh`, body);", "node", "/y.sh"),
            ("open(my $f, '>', \"$d/y.sh\");", "perl", "/y.sh"),
        ] {
            let found = of(code, program);
            assert_eq!(found.ends, [end], "{code}");
        }
    }

    #[test]
    fn reading_is_no_writing() {
        for (code, program) in [
            ("open('tools/g.sh').read()", "python3"),
            ("open(p, 'r')", "python3"),
            ("open(p, 'rb')", "python3"),
            ("Path(p).read_text()", "python3"),
            ("s.replace('a', 'b')", "python3"),
            ("fs.readFileSync('/tmp/y.sh')", "node"),
            ("open(my $f, '<', $p);", "perl"),
            ("open(F, 'tools/g.sh');", "perl"),
            // A copy of files named as written: bound where read.
            ("shutil.copytree('.', '/tmp/copy')", "python3"),
            ("shutil.copy('tools/x.sh', '/tmp/y.sh')", "python3"),
            ("X = 'lib'\nshutil.copytree(X, '/tmp/copy')\n", "python3"),
        ] {
            assert!(of(code, program).is_empty(), "{code}");
        }
    }

    #[test]
    fn an_escape_no_reading_decodes_refuses() {
        assert!(written("open('/tmp/y\\N{FULL STOP}sh', 'w')", "python3").is_err());
    }
}
