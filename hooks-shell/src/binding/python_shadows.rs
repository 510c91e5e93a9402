//! Python's own modules a project's file may stand in for (red team round
//! 21, R21b-1). A project hook `python3 check.py` (or `-m` / `-c` run in
//! the project) puts the script's folder first on the module path, before
//! the standard library: `subprocess` imports `selectors`, so a
//! `selectors.py` added there after the approval ran inside the approved
//! hook, though the script names neither. What that folder holds under a
//! standard module's name is bound as one digest: adding, changing or
//! removing any such file or package asks again.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::BindError;

/// The name the digest is bound under, in the folder it covers (shown when
/// it changes).
pub(super) const SHADOWS_KEY: &str = "<files named as Python's standard modules>";

/// The most entries of the folder listed.
const MAX_LISTED: usize = 10_000;

/// The key and digest binding what `folder` holds under the standard
/// modules' names: each file or folder whose name up to its first `.` is
/// one (`selectors.py`, `json/`, `ssl.cpython-311-x86_64-linux-gnu.so`,
/// `random.pyc`), by its content (a folder as a tree).
pub(super) fn shadows(folder: &Path) -> Result<(PathBuf, String), BindError> {
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .take(MAX_LISTED)
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            )
        })
        .filter(|(name, _)| {
            let stem = name.split('.').next().unwrap_or_default();
            STANDARD_MODULES.binary_search(&stem).is_ok()
        })
        .collect();
    found.sort();
    let mut digest = Sha256::new();
    for (name, path) in found {
        let hash = if path.is_dir() {
            super::tree_sha256(std::slice::from_ref(&path))?
        } else {
            crate::fingerprint::content_or_metadata(&path)
        };
        digest.update(format!("{name}\0{hash}\n"));
    }
    Ok((folder.join(SHADOWS_KEY), hex::encode(digest.finalize())))
}

/// The folder of `project` a Python run by `words` (in `cwd`, executing
/// `found`'s code) puts first on its module path: its script's folder
/// (where links lead, as Python finds it), or with `-m` / `-c` the folder
/// it runs in; none with `-I` / `-P`, when no Python runs, or when that
/// folder is not the project's.
pub(super) fn first_on_path(
    words: Option<&[String]>,
    cwd: &Path,
    found: &super::Identified,
    project: &Path,
) -> Option<PathBuf> {
    let folder = first_folder(words, cwd, found)?;
    let real_project = std::fs::canonicalize(project).ok();
    let real = std::fs::canonicalize(&folder).ok();
    let inside = [Some(&folder), real.as_ref()]
        .into_iter()
        .flatten()
        .any(|path| {
            path.starts_with(project) || real_project.as_ref().is_some_and(|p| path.starts_with(p))
        });
    inside.then_some(folder)
}

fn first_folder(
    words: Option<&[String]>,
    cwd: &Path,
    found: &super::Identified,
) -> Option<PathBuf> {
    let words = words.unwrap_or_default();
    let python = words
        .first()
        .is_some_and(|word| super::identify::base_name(word).starts_with("python"));
    let options: Vec<&str> = words
        .iter()
        .skip(1)
        .map(String::as_str)
        .take_while(|word| word.starts_with('-'))
        .collect();
    if options.iter().any(|option| matches!(*option, "-I" | "-P")) {
        return None;
    }
    let inline = options.iter().any(|option| matches!(*option, "-m" | "-c"));
    match &found.code {
        _ if python && inline => Some(cwd.to_path_buf()),
        Some(code) if python || code.path.extension().is_some_and(|e| e == "py") => {
            let script = std::fs::canonicalize(&code.path).unwrap_or_else(|_| code.path.clone());
            script.parent().map(Path::to_path_buf)
        }
        _ => None,
    }
}

/// `sys.stdlib_module_names` of CPython 3.11, with the few later versions
/// add; sorted.
const STANDARD_MODULES: &[&str] = &[
    "__future__",
    "_abc",
    "_aix_support",
    "_ast",
    "_asyncio",
    "_bisect",
    "_blake2",
    "_bootsubprocess",
    "_bz2",
    "_codecs",
    "_codecs_cn",
    "_codecs_hk",
    "_codecs_iso2022",
    "_codecs_jp",
    "_codecs_kr",
    "_codecs_tw",
    "_collections",
    "_collections_abc",
    "_colorize",
    "_compat_pickle",
    "_compression",
    "_contextvars",
    "_crypt",
    "_csv",
    "_ctypes",
    "_curses",
    "_curses_panel",
    "_datetime",
    "_dbm",
    "_decimal",
    "_elementtree",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_functools",
    "_gdbm",
    "_hashlib",
    "_heapq",
    "_imp",
    "_io",
    "_json",
    "_locale",
    "_lsprof",
    "_lzma",
    "_markupbase",
    "_md5",
    "_msi",
    "_multibytecodec",
    "_multiprocessing",
    "_opcode",
    "_opcode_metadata",
    "_operator",
    "_osx_support",
    "_overlapped",
    "_pickle",
    "_posixshmem",
    "_posixsubprocess",
    "_py_abc",
    "_pydecimal",
    "_pyio",
    "_pyrepl",
    "_queue",
    "_random",
    "_scproxy",
    "_sha1",
    "_sha256",
    "_sha3",
    "_sha512",
    "_signal",
    "_sitebuiltins",
    "_socket",
    "_sqlite3",
    "_sre",
    "_ssl",
    "_stat",
    "_statistics",
    "_string",
    "_strptime",
    "_struct",
    "_symtable",
    "_sysconfig",
    "_thread",
    "_threading_local",
    "_tkinter",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_uuid",
    "_warnings",
    "_weakref",
    "_weakrefset",
    "_winapi",
    "_zoneinfo",
    "abc",
    "aifc",
    "annotationlib",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "compression",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_named_as_a_standard_module_changes_the_digest_and_others_do_not() {
        assert!(STANDARD_MODULES.windows(2).all(|pair| pair[0] < pair[1]));
        let folder = tempfile::tempdir().expect("folder");
        std::fs::write(folder.path().join("check.py"), "import subprocess\n").expect("check");
        let (key, before) = shadows(folder.path()).expect("digest");
        assert_eq!(key, folder.path().join(SHADOWS_KEY));
        std::fs::write(folder.path().join("helper.py"), "x = 1\n").expect("helper");
        assert_eq!(shadows(folder.path()).expect("digest").1, before);
        for name in ["selectors.py", "random.pyc", "json/__init__.py"] {
            let path = folder.path().join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
            std::fs::write(&path, "").expect("shadow");
            let after = shadows(folder.path()).expect("digest").1;
            assert_ne!(after, before, "{name}");
            std::fs::write(&path, "import os\n").expect("edited");
            assert_ne!(shadows(folder.path()).expect("digest").1, after, "{name}");
        }
    }
}
