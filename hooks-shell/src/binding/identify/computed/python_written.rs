//! A file Python code writes when it runs and then runs (`open("/tmp/y.sh",
//! "w").write("sh tools/g." + "sh"); subprocess.run(["sh", "/tmp/y.sh"])`:
//! red team R47-11, as [`super::written`] reads shell text): its code
//! exists only when the hook runs, so no reading can bind it. Written:
//! `open(p, "w"/"a"/"x"/"+")`, `Path(p).write_text`/`write_bytes`/`open("w")`,
//! the target of `shutil.copy*`/`move`, `os.rename`/`replace`/`link`/`symlink`.
//! Run: a command's program, an interpreter's script, what `.` / `source`
//! reads, in a list or a shell string.

use std::sync::LazyLock;

use regex::Regex;

use super::python_commands::{COMPUTED, commands};
use super::python_values::{is_name, values};
use super::shell_strings::literal_text;

/// The paths `code` writes, as they read (escapes decoded, a name read
/// for the one string it is given); why not, when a path is spelled with
/// an escape no reading decodes.
pub(super) fn targets(code: &str) -> Result<Vec<String>, String> {
    // `open(p, "w")`, `open(p, mode="a")`, `io.open`, `os.fdopen` aside.
    static OPENED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\bopen\(\s*([^,()]+?)\s*,\s*(?:mode\s*=\s*)?[rRbB]?["']([^"']*)["']"#)
            .expect("valid regex")
    });
    // `Path(p).write_text(…)`, `Path(p).open("w")`.
    static PATHS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\bPath\(\s*([^,()]+?)\s*\)\s*\.\s*(write_text|write_bytes|open\(\s*["']([^"']*)["'])"#)
            .expect("valid regex")
    });
    // `shutil.copy(a, p)`, `os.rename(a, p)`: the second argument.
    static MOVED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:shutil\.(?:copy|copy2|copyfile|move)|os\.(?:rename|replace|link|symlink))\(\s*[^,()]+?\s*,\s*([^,()]+?)\s*[,)]")
            .expect("valid regex")
    });
    let mut found = Vec::new();
    for opened in OPENED.captures_iter(code) {
        if opened[2].contains(['w', 'a', 'x', '+']) {
            found.extend(path_of(&opened[1], code)?);
        }
    }
    for path in PATHS.captures_iter(code) {
        let writes = path
            .get(3)
            .is_none_or(|mode| mode.as_str().contains(['w', 'a', 'x', '+']));
        if writes {
            found.extend(path_of(&path[1], code)?);
        }
    }
    for moved in MOVED.captures_iter(code) {
        found.extend(path_of(&moved[1], code)?);
    }
    Ok(found)
}

/// The path `expression` names: a string literal, or a name given one;
/// why not, for a literal spelled with an escape no reading decodes.
fn path_of(expression: &str, code: &str) -> Result<Option<String>, String> {
    let expression = expression.trim();
    let literal = match is_name(expression) {
        true => match values(code, expression).map(<[String; 1]>::try_from) {
            Some(Ok([value])) => value,
            _ => return Ok(None),
        },
        false => expression.to_owned(),
    };
    match literal_text(literal.trim(), "python3") {
        None => Ok(None),
        Some(Some(text)) => Ok(Some(normal(&text))),
        Some(None) => Err(format!(
            "writes a file it names with an escape no reading decodes ({literal})"
        )),
    }
}

/// `./y.sh` and `y.sh` alike.
fn normal(path: &str) -> String {
    path.trim_start_matches("./").to_owned()
}

/// Why the call whose arguments are `argument` (in `code`) runs one of
/// the files `written`.
pub(super) fn runs_written(argument: &str, code: &str, written: &[String]) -> Option<String> {
    let alternatives = commands(argument, code)?;
    alternatives.iter().find_map(|words| {
        let words: Vec<String> = words
            .iter()
            .filter(|word| *word != COMPUTED)
            .filter_map(|word| literal_text(word, "python3").flatten())
            .collect();
        // One string: a shell command line (`os.system`, `shell=True`).
        let lines: Vec<Vec<String>> = match words.as_slice() {
            [line] if line.contains(char::is_whitespace) => line
                .split([';', '&', '|', '\n'])
                .filter_map(shlex::split)
                .collect(),
            _ => vec![words],
        };
        lines
            .iter()
            .flat_map(|line| run_words(line))
            .find(|word| written.contains(&normal(word)))
            .map(|word| format!("runs a file it writes when it runs (`{word}`)"))
    })
}

/// The words of a command that name code it runs: the program, an
/// interpreter's script (its `argv[0]` named again aside), `.`/`source`'s
/// file.
fn run_words(words: &[String]) -> Vec<&String> {
    let Some((program, args)) = words.split_first() else {
        return Vec::new();
    };
    let name = super::base_name(program);
    let mut runs = vec![program];
    let interpreter = super::super::INTERPRETERS.contains(&name.as_str())
        || matches!(program.as_str(), "." | "source");
    if interpreter {
        let args = match args.first() {
            Some(again) if super::base_name(again) == name => &args[1..],
            _ => args,
        };
        runs.extend(args.iter().find(|word| !word.starts_with('-')));
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(code: &str) -> bool {
        let Ok(written) = targets(code) else {
            return true;
        };
        let call = code.rsplit_once("run(").map_or("", |(_, rest)| rest);
        let argument = call.strip_suffix(")\n").unwrap_or(call);
        runs_written(argument, code, &written).is_some()
    }

    #[test]
    fn a_file_written_then_run_is_found() {
        for code in [
            "open('/tmp/y.sh', 'w').write('sh tools/g.' + 'sh')\nsubprocess.run(['sh', '/tmp/y.sh'])\n",
            "with open(\"y.sh\", mode=\"a\") as f:\n    f.write(x)\nsubprocess.run('sh ./y.sh a', shell=True)\n",
            "p = '/tmp/y.py'\nPath(p).write_text(body)\nsubprocess.run([sys.executable, p])\n",
            "shutil.copy(src, '/tmp/y')\nsubprocess.run(['/tmp/y'])\n",
            "open('/tmp/y.sh', 'w+').write(t)\nsubprocess.run('cd /tmp && . /tmp/y.sh', shell=True)\n",
            // Spelled another way where it is written (review of R47-11).
            "open('/tmp/y\\x2esh', 'w').write(t)\nsubprocess.run(['sh', '/tmp/y.sh'])\n",
            "open('/tmp/y\\N{FULL STOP}sh', 'w').write(t)\nsubprocess.run(['sh', '/tmp/y.sh'])\n",
        ] {
            assert!(refused(code), "{code}");
        }
    }

    #[test]
    fn a_file_written_as_data_or_read_is_not() {
        for code in [
            "open('/tmp/log.txt', 'a').write(x)\nsubprocess.run(['sh', 'tools/g.sh', '/tmp/log.txt'])\n",
            "open('tools/g.sh').read()\nsubprocess.run(['sh', 'tools/g.sh'])\n",
            "open('/tmp/out.json', 'w').write(x)\nsubprocess.run('jq . /tmp/out.json', shell=True)\n",
        ] {
            assert!(!refused(code), "{code}");
        }
    }
}
