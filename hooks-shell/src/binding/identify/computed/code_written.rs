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
    pub(crate) fn is_empty(&self) -> bool {
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
    /// The last argument: a copy's target, unless what it copies is
    /// named as written (bound where it is read, by the copy rule).
    Copied,
    /// The last argument: a move's or link's target, whatever it moves.
    Moved,
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
            (r"shutil\.(?:copy|copy2|copyfile|copytree)", Target::Copied),
            (
                r"shutil\.move|os\.(?:rename|renames|replace|link|symlink)|urlretrieve",
                Target::Moved,
            ),
            (r"\.\s*(?:rename|replace)", Target::Sole),
            // `p.symlink_to(t)`: `p` is made.
            (r"\.\s*(?:symlink_to|hardlink_to)", Target::Receiver),
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
            (r"(?:copyFile|cp|copy)(?:Sync)?", Target::Copied),
            (r"(?:rename|symlink|link|move)(?:Sync)?", Target::Moved),
        ])
    });
    static PERL: LazyLock<Vec<(Regex, Target)>> = LazyLock::new(|| {
        table(&[
            (r"open|sysopen", Target::Opened { path: 2, mode: 1 }),
            (r"(?:File::Copy::)?(?:copy|cp)", Target::Copied),
            (
                r"(?:File::Copy::)?(?:move|mv)|rename|symlink|link",
                Target::Moved,
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
            (r"FileUtils\.(?:cp|copy|copy_file|cp_r)", Target::Copied),
            (
                r"FileUtils\.\w+|File\.(?:rename|symlink|link)",
                Target::Moved,
            ),
        ])
    });
    static PHP: LazyLock<Vec<(Regex, Target)>> = LazyLock::new(|| {
        table(&[
            (r"file_put_contents", Target::Argument(0)),
            (r"fopen", Target::Opened { path: 0, mode: 1 }),
            (r"copy", Target::Copied),
            (r"rename|symlink|link|move_uploaded_file", Target::Moved),
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
    // Copies of files named as written: their sources and targets.
    let mut copies: Vec<(Vec<String>, String)> = Vec::new();
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
                // read (the copy rule), unless the code wrote them (checked
                // below); one of a name built when it runs may put anything
                // there.
                Target::Copied if arguments.len() >= 2 => {
                    // `fs.cpSync(a, b, {recursive: true})`: options aside
                    // (red team round 51, c27).
                    let options = arguments.len() >= 3
                        && arguments[arguments.len() - 1].trim_start().starts_with('{');
                    let target = arguments[arguments.len() - 1 - usize::from(options)];
                    match written_out(arguments[0], code, program) {
                        Some(source) => {
                            copies.push((source, target.to_owned()));
                            None
                        }
                        // A copy of the folder it runs in (`copytree(
                        // os.getcwd(), d)`): the copy rule's (R30-14).
                        None if copies_run_folder(arguments[0]) => None,
                        None => Some(target),
                    }
                }
                Target::Moved if arguments.len() >= 2 => arguments.last().copied(),
                Target::Copied | Target::Moved => None,
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
    // `open('/tmp/x.tmp', 'w')` then `shutil.copy('/tmp/x.tmp', '/tmp/y.sh')`.
    for (source, target) in copies {
        if source.iter().any(|source| found.paths.contains(source)) {
            path_of(&target, code, program, &mut found, 0)?;
        }
    }
    Ok(found)
}

/// The paths `expression` names when it is written out: one string
/// literal (no value put in), or a name given only such.
fn written_out(expression: &str, code: &str, program: &str) -> Option<Vec<String>> {
    let expression = expression.trim();
    let name = expression.trim_start_matches(['$', '@']);
    let expressions = match is_name(name) {
        true => assigned(code, name, program)?,
        false => vec![expression.to_owned()],
    };
    expressions
        .iter()
        .map(|text| one_literal(text, program).map(|path| normal(&path)))
        .collect()
}

/// The text of `expression` when it is one string literal of `program`,
/// nothing joined to it and no value put in (`'tools/' + chr(103)` is no
/// literal, though it starts and ends with a quote: round 50).
fn one_literal(expression: &str, program: &str) -> Option<String> {
    static LITERAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"^\s*[rRbBuU]{0,2}(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)\s*$"#,
        )
        .expect("valid regex")
    });
    if !LITERAL.is_match(expression) {
        return None;
    }
    let text = literal_text(expression, program).flatten()?;
    (!interpolated(&text, expression, program)).then_some(text)
}

/// What the code gives the name `name`: Python's assignments and call
/// arguments ([`values`]); elsewhere `name = …`, `my $name = …`, `const
/// name = …` statements.
fn assigned(code: &str, name: &str, program: &str) -> Option<Vec<String>> {
    if matches!(program, "python" | "python3") {
        return values(code, name).or_else(|| {
            super::code_words::parameter_values(code, name).filter(|found| !found.is_empty())
        });
    }
    let pattern = format!(
        r"(?m)(?:^|[;{{(]\s*)(?:(?:my|our|local|const|let|var)\s+)?\$?{}\s*=\s*([^;\n]+)",
        regex::escape(name)
    );
    let mut found: Vec<String> = Regex::new(&pattern)
        .ok()?
        .captures_iter(code)
        .map(|assignment| assignment[1].trim().to_owned())
        .collect();
    if matches!(program, "node" | "bun" | "deno") {
        found.extend(super::code_words::parameter_values(code, name)?);
    }
    (!found.is_empty()).then_some(found)
}

/// Whether `expression` is the folder the code runs in (`os.getcwd()`,
/// `pathlib.Path.cwd()`, `os.path.abspath(os.curdir)`, `process.cwd()`).
fn copies_run_folder(expression: &str) -> bool {
    static RUN_FOLDER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:str\()?\s*(?:os\.getcwd\(\)|(?:pathlib\.)?Path\.cwd\(\)|os\.path\.abspath\(\s*(?:os\.curdir|['"]\.['"])\s*\)|os\.curdir|process\.cwd\(\))\s*\)?$"#)
            .expect("valid regex")
    });
    RUN_FOLDER.is_match(expression.trim())
}

/// `./y.sh` and `y.sh` alike.
fn normal(path: &str) -> String {
    path.trim_start_matches("./").to_owned()
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
        match assigned(code, name, program) {
            Some(values) => {
                for value in values {
                    path_of(&value, code, program, found, depth + 1)?;
                }
            }
            None => found.ends.push(String::new()),
        }
        return Ok(());
    }
    if let Some(text) = one_literal(expression, program) {
        let text = text.trim_start_matches(['>', '+', '<', ' ']);
        found.paths.push(normal(text));
        return Ok(());
    }
    match literal_text(expression, program) {
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
pub(super) fn interpolated(text: &str, expression: &str, program: &str) -> bool {
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
mod tests;
