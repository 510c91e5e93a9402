//! The words of code a shell word or a code file holds, read for the copy
//! rule (`copies.rs`): the folder the hook runs in, as code names it, is
//! read as `.` (R29-3, R30-14, R31-4).

/// The words of code a shell word holds (`import shutil;
/// shutil.copytree('.', '/tmp/x')`, `sys.path.insert(0, '/tmp/x/lib')`),
/// the working folder as Python names it read as `.` (the shell's words
/// of `-c` code come split already); none for another plain word.
pub(super) fn code_words(word: &str) -> Vec<&str> {
    let split = |c: char| c.is_whitespace() || "'\"(),;[]".contains(c);
    // `os.getcwd`, `os.getcwdb`, `os.curdir`, `Path.cwd`, `pathlib.Path.cwd`
    // (R30-14), as called or imported alone; the variables holding it
    // (`os.environ["PWD"]`, `CLAUDE_PROJECT_DIR`) and the script's own
    // folder (`__file__`), which it holds (R31-4).
    let cwd = |part: &str| {
        let last = part.rsplit('.').next().unwrap_or(part);
        matches!(
            last,
            "getcwd"
                | "getcwdb"
                | "curdir"
                | "PWD"
                | "CLAUDE_PROJECT_DIR"
                | "__file__"
                | "argv"
                | "getfile"
        ) || last == "cwd" && (part == "cwd" || part.ends_with("Path.cwd"))
    };
    if !word.contains(split) {
        return if cwd(word) { vec!["."] } else { Vec::new() };
    }
    let parts = word.split(split).filter(|part| !part.is_empty());
    let mut words: Vec<&str> = parts
        .map(|part| if cwd(part) { "." } else { part })
        .collect();
    // `Path()`, `Path('')`, `abspath('')`, `realpath("")`: the folder it
    // runs in; `sys.path[0]`, `sys.argv[0]`, `inspect.getfile`: the
    // script's folder (R31-4, R32-9).
    let here = [
        "Path()",
        "Path('')",
        "Path(\"\")",
        "sys.path[0]",
        "path('')",
        "path(\"\")",
    ];
    if here.iter().any(|spelled| word.contains(spelled)) {
        words.push(".");
    }
    words
}

#[cfg(test)]
mod tests {
    use super::code_words;

    #[test]
    fn code_names_the_folder_it_runs_in_as_dot() {
        let code =
            "import shutil, os; shutil.copytree('.', '/tmp/x'); shutil.copytree(os.getcwd(), d)";
        let words = code_words(code);
        assert!(
            words.contains(&".") && words.contains(&"/tmp/x"),
            "{words:?}"
        );
        assert_eq!(words.iter().filter(|w| **w == ".").count(), 2, "{words:?}");
        assert!(code_words("plain/word").is_empty());
        assert_eq!(code_words("os.getcwd"), ["."]);
        for spelled in [
            "pathlib.Path.cwd()",
            "os.getcwdb()",
            "from os import getcwd",
        ] {
            assert!(code_words(spelled).contains(&"."), "{spelled}");
        }
    }
}
