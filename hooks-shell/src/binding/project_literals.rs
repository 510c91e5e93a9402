//! Whether the user's code names a path of the folder it runs in as a
//! literal: a folder it puts on its module path (`sys.path.append('tools')`,
//! `site.addsitedir('tools')`, `perl -Itools`), a module it runs there
//! (`python3 -m tools.m`, `subprocess.run([...], cwd='tools')`), a package
//! Node finds in `node_modules` (`require("x")`), a folder Node runs
//! (`node tools`). Such code loads the project's code (red team round 49:
//! q13, q08, q20, q23, q25, q29, ple03, ple07, ne02, ne06, n30): the
//! project's files it names are bound as a project hook's are
//! ([`super::Subject::mentions_project`]).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// The most literals of one line looked up.
const MAX_LOOKED_UP: usize = 512;

/// The most lines of one text read.
const MAX_LINES: usize = 100_000;

/// Whether the code `text` names, as a quoted literal on a line that
/// loads code or moves where it is looked for (`sys.path`, `site.addsitedir`,
/// `"-m"`, `cwd=`, `chdir`, `runpy`, `require(…)`, `import(…)`, `use lib`,
/// `@INC`, `do`, `$LOAD_PATH`...), a path that exists under `folder` (the
/// folder it runs in, a project's): as written, as a dotted module
/// (`tools.m`), or as a package in `node_modules`. A name only read or
/// compared (`open("README.md")`, `path.startswith("src/")`) binds nothing
/// (red team round 51, U51-1..6).
pub(super) fn code_names_project_path(text: &str, folder: &Path) -> bool {
    static LOADS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"sys\.path|addsitedir|PYTHONPATH|NODE_PATH|NODE_OPTIONS|PERL5LIB|PERL5OPT|RUBYLIB|['"]-[mIrM]['"]|\bcwd\b|chdir|runpy|import_module|spec_from_file_location|\bexec(?:file)?\s*\(|\brequire(?:_relative)?\b|\bimport\s*\(|createRequire|\buse\s+lib\b|@INC|\bdo\s|\$LOAD_PATH|\bload\s"#)
            .expect("valid regex")
    });
    text.lines()
        .take(MAX_LINES)
        .filter(|line| LOADS.is_match(line))
        .any(|line| quoted_names(line, folder))
}

/// Whether a piece of `line` between two quotes, whichever quote opened it
/// (`"require("x")"` once a shell's escapes are read), names a path under
/// `folder`.
fn quoted_names(line: &str, folder: &Path) -> bool {
    line.split(['\'', '"', '`'])
        .filter(|piece| !piece.is_empty() && piece.len() <= 200)
        .filter(|piece| !piece.contains(char::is_whitespace))
        .take(MAX_LOOKED_UP)
        .any(|name| names_under(name, folder))
}

/// Whether the hook's shell `command` names a path under `folder` as an
/// interpreter's word (`perl -Itools`, `-Mm`, `python3 -m tools.m`, `node
/// tools`), or in inline code it gives one (`node -e 'require("x")'`).
pub(super) fn command_names_project_path(command: &str, folder: &Path) -> bool {
    static WORDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|\s)-[IMm]\s*([^\s'";|&]+)|(?:^|[\s;&|(])(?:node|perl|python3?|ruby)\s+([^\s'";|&-][^\s'";|&]*)"#)
            .expect("valid regex")
    });
    static INLINE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[\s;&|(/])(?:node|perl|python3?|ruby)\s[^;|&]*-[A-Za-z]*[ceEp]\b")
            .expect("valid regex")
    });
    // A script file a program reads (`sed -f F`, `make -C D`, sqlite3's
    // `.read F`: red team round 51, o13, o18, o22).
    static SCRIPTS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:(?:^|[\s;&|(])(?:sed|gdb|vim|vi|nvim|ex|make|gmake|jq|sqlite3|psql)\b[^;|&\n]*?\s(?:-[fxSCL]|--file|--directory|--from-file|-init)[\s=]*|\.read\s+)["']?([^\s'";|&]+)"#)
            .expect("valid regex")
    });
    // A variable given a path of the folder (`GIT_CONFIG_GLOBAL=tools/gc
    // git status`, as code's `env={"GIT_CONFIG_GLOBAL": "tools/gc"}` gives
    // it: round 56, c10): the file a program it starts reads.
    static ASSIGNS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s;&|(])[A-Za-z_][A-Za-z0-9_.]*=['"]?([^\s'";|&]+)"#)
            .expect("valid regex")
    });
    let unescaped = with_plain_values(&command.replace("\\\"", "\""));
    // `-Mlib=tools,vendor`: `use lib` of each (round 56, c21); a word
    // quoted whole (`'-Mlib=tools'`, as code's commands are written) too.
    let unquoted = unescaped.replace(['\'', '"'], " ");
    let words = WORDS
        .captures_iter(&unquoted)
        .chain(SCRIPTS.captures_iter(&unquoted))
        .filter_map(|found| found.iter().skip(1).flatten().next())
        .take(MAX_LOOKED_UP)
        .any(|name| {
            let name = name.as_str();
            match name.strip_prefix("lib=") {
                Some(dirs) => dirs.split(',').any(|dir| names_under(dir, folder)),
                None => names_under(name, folder),
            }
        })
        || ASSIGNS
            .captures_iter(&unescaped.replace(['\'', '"'], ""))
            .take(MAX_LOOKED_UP)
            .any(|found| found[1].split(':').any(|part| names_under(part, folder)));
    // Code given on an interpreter's input too (`python3 - <<E`, `echo … |
    // node`: round 51, e35, f15).
    let fed = unescaped.contains("<<") || unescaped.contains('|');
    words || ((INLINE.is_match(&unescaped) || fed) && code_names_project_path(&unescaped, folder))
}

/// `command` with each `$NAME` of a name it sets to plain text (`f=tools/s.sed;
/// sed -f "$f"`: red team round 51, q07) as that text.
fn with_plain_values(command: &str) -> String {
    static SETS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)=([^\s;&|'"$`()]+)"#)
            .expect("valid regex")
    });
    let mut text = command.to_owned();
    for found in SETS.captures_iter(command).take(MAX_LOOKED_UP) {
        let (name, value) = (&found[1], &found[2]);
        for spelled in [
            format!("\"${name}\""),
            format!("${{{name}}}"),
            format!("${name}"),
        ] {
            text = text.replace(&spelled, value);
        }
    }
    text
}

/// Whether the literal `name` names a path under `folder`; `${X:-tools}`,
/// `${X:+tools}` as the word they may be (red team round 51, z18).
fn names_under(name: &str, folder: &Path) -> bool {
    static DEFAULTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=+]([^}]*)\}(.*)$").expect("valid regex")
    });
    let spelled = DEFAULTED
        .captures(name)
        .map(|found| format!("{}{}", &found[1], &found[2]));
    let name = spelled.as_deref().unwrap_or(name);
    // `~/project/tools/gc`, `$HOME/project/…` when the folder is under the
    // home folder (round 58, H58-7).
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let in_folder = ["~/", "$HOME/", "${HOME}/"]
        .iter()
        .find_map(|prefix| name.strip_prefix(prefix))
        .zip(home)
        .and_then(|(rest, home)| {
            home.join(rest)
                .strip_prefix(folder)
                .ok()
                .map(Path::to_path_buf)
        });
    let in_folder = in_folder.map(|path| path.to_string_lossy().into_owned());
    let name = in_folder.as_deref().unwrap_or(name);
    let name = name.trim_start_matches("./").trim_end_matches('/');
    let plain = !name.is_empty()
        && !matches!(name, "." | "..")
        && !name.starts_with(['/', '~', '$', '-', '{', '%', '@', '#'])
        && !name.contains("://")
        && !name.contains('\\');
    if !plain {
        return false;
    }
    // `sys.path.append(glob.glob('t*ls')[0])`: what it matches (round 51, a14).
    if name.contains(['*', '?', '[']) {
        return !super::globbing::glob_matches(folder, name).is_empty();
    }
    let mut paths = vec![folder.join(name)];
    // `tools.m`, Perl's `Tools::M`: a module's file; `x`: Node's package.
    let dotted = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-' | '@'));
    if dotted {
        let module = name.replace("::", "/").replace('.', "/");
        paths.push(folder.join(format!("{module}.py")));
        paths.push(folder.join(format!("{module}.pm")));
        paths.push(folder.join(&module).join("__init__.py"));
        paths.push(folder.join("node_modules").join(name));
    }
    paths.iter().any(|path| path.symlink_metadata().is_ok())
}

#[cfg(test)]
mod tests {
    use super::{code_names_project_path, command_names_project_path};

    #[test]
    fn code_naming_a_path_of_the_project_is_found() {
        let folder = tempfile::tempdir().expect("a folder");
        for path in [
            "tools/m.py",
            "pkg/__init__.py",
            "node_modules/x/index.js",
            "lib/M.pm",
        ] {
            let path = folder.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
            std::fs::write(path, "").expect("a file");
        }
        for code in [
            "import sys\nsys.path.append('tools')\nimport m\n",
            "subprocess.run([sys.executable, '-m', 'tools.m'])",
            "subprocess.run(['python3', '-c', 'import m'], cwd=\"tools\")",
            "import sys; sys.path.insert(0, 'pkg')",
            "os.chdir('tools')\nsubprocess.run(['sh', 'g.sh'])\n",
            "require(\"x\")",
            "use lib 'lib'; use M;",
        ] {
            assert!(code_names_project_path(code, folder.path()), "{code}");
        }
        for code in [
            "print('hello')",
            "open('/tmp/log', 'a')",
            "subprocess.run(['git', 'status'])",
            "os.path.join(here, '.')",
            "x = '.tool_input.file_path'",
            // Round 51, U51-1..6: read or compared, no code loaded.
            "protected = ['tools/m.py', 'pkg/']\nif path.startswith('pkg/'): pass\n",
            "readme = open('tools/m.py').read()",
            "os.path.exists('tools/m.py') and os.path.isdir('pkg')",
            "fs.existsSync('tools') && fs.existsSync('lib/M.pm')",
        ] {
            assert!(!code_names_project_path(code, folder.path()), "{code}");
        }
        for command in [
            "perl -Itools -e 'require q(m.pl)'",
            "perl -I lib -MM -e 1",
            "node tools",
            "python3 -m tools.m",
            "perl -I${X:-tools} -e 'require q(m.pl)'",
            "sqlite3 :memory: \".read tools/m.py\"",
            "echo | sed -f tools/m.py",
            "make -s -C tools",
            "f=tools/m.py; echo | sed -f \"$f\"",
            "node -e \"require(\\\"x\\\")\"",
            // A variable a program it starts reads a file by (round 56, c10).
            "GIT_CONFIG_GLOBAL=tools/m.py git status --short",
            "GIT_CONFIG_GLOBAL='pkg' git status",
            "MAKEFILES=/tmp/a.mk:tools/m.py make -s lint",
        ] {
            assert!(
                command_names_project_path(command, folder.path()),
                "{command}"
            );
        }
        for command in [
            "cat > /tmp/in.json; jq -r '.tool_input.file_path'",
            "node ~/.claude/hooks/x.js",
            "grep -q \"tools\" /tmp/log; sh ~/bin/g.sh",
            "python3 -c 'print(1)'",
            "LANG=C GIT_CONFIG_GLOBAL=/tmp/gc f=$(jq -r .x) git status",
        ] {
            assert!(
                !command_names_project_path(command, folder.path()),
                "{command}"
            );
        }
    }
}
