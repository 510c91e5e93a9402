//! Python modules a project's file may stand in for (red team rounds 21
//! and 22: R21b-1, R22b-1 to R22b-13). A project hook whose Python puts a
//! project folder first on its module path (`python3 check.py` at the
//! project's top, `-m` / `-c`, `PYTHONPATH=src`) searches it before the
//! standard library and the installed packages: `subprocess` imports
//! `selectors`, `requests` imports `urllib3`, so a `selectors.py` or an
//! `urllib3/` added there after the approval ran inside the approved hook,
//! though its code names neither. What such a folder holds under the name
//! of a standard or installed module (a file, a package with its
//! `__init__.py`, a compiled copy in `__pycache__`) is bound as one digest:
//! adding, changing or removing any of it asks again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use sha2::{Digest, Sha256};

use super::BindError;

/// The most entries of one folder listed: a folder with more cannot be
/// bound (none of it may be missed, R22b-8).
const MAX_LISTED: usize = 200_000;

/// The most of a file read to see whether it runs Python.
const MAX_PEEK: u64 = 1 << 20;

/// The folders of `project` a Python the hook may run searches before the
/// standard library: the folder it runs in and its code's folder (where
/// links lead, as Python finds it) when Python may run (a `python*` word
/// anywhere in the command, a `.py` code file, or a file it runs naming
/// `python`: wrappers, `npm run`, `make`), and each `PYTHONPATH=` entry the
/// command sets. `-I` / `-P` are not trusted to isolate it (they may be
/// another option's value: R22b-2).
pub(super) fn first_on_path(
    words: Option<&[String]>,
    cwd: &Path,
    found: &super::Identified,
    project: &Path,
) -> Vec<PathBuf> {
    let words = words.unwrap_or_default();
    let pythonic = |word: &str| {
        word.split(['/', '=', ';', '&', '|', '(', ')', '"', '\'', ' '])
            .any(|part| part.starts_with("python"))
    };
    let code_py = found
        .code
        .as_ref()
        .is_some_and(|code| code.path.extension().is_some_and(|e| e == "py"));
    let runs = words.iter().any(|word| pythonic(word))
        || code_py
        || found.files.iter().any(|file| names_python(file));
    let mut folders = Vec::new();
    if runs {
        folders.push(cwd.to_path_buf());
        if let Some(code) = &found.code {
            let script = std::fs::canonicalize(&code.path).unwrap_or_else(|_| code.path.clone());
            folders.extend(script.parent().map(Path::to_path_buf));
        }
    }
    for word in words {
        if let Some(entries) = word.strip_prefix("PYTHONPATH=") {
            folders.extend(entries.split(':').map(|entry| cwd.join(entry)));
        }
    }
    let real_project = std::fs::canonicalize(project).ok();
    let mut kept: Vec<PathBuf> = Vec::new();
    for folder in folders {
        let folder = super::normalize(&folder);
        let real = std::fs::canonicalize(&folder).ok();
        let inside = [Some(&folder), real.as_ref()]
            .into_iter()
            .flatten()
            .any(|path| {
                path.starts_with(project)
                    || real_project.as_ref().is_some_and(|p| path.starts_with(p))
            });
        if inside && !kept.contains(&folder) {
            kept.push(folder);
        }
    }
    kept
}

/// Whether the file at `path` names Python (a wrapper that runs it).
fn names_python(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = hermes_hooks_core::regular_file::open_regular(path) else {
        return false;
    };
    let mut text = Vec::new();
    let _ = file.take(MAX_PEEK).read_to_end(&mut text);
    text.windows(6).any(|window| window == b"python")
}

/// The key and digest binding what `folder` holds under the name of a
/// standard or installed module: each file (`selectors.py`, `ssl.*.so`,
/// `random.pyc`) by its content, each package (`json/` with its
/// `__init__.py`) as a tree, each compiled copy in `__pycache__`; what is
/// not a regular file is bound as such, never opened (a FIFO, a link to
/// `/dev/zero`: R22b-11). The key names what was found (R22b-12).
pub(super) fn shadows(folder: &Path) -> Result<(PathBuf, String), BindError> {
    let mut found = standing_in(folder)?;
    for (name, path) in standing_in(&folder.join("__pycache__"))? {
        found.push((format!("__pycache__/{name}"), path));
    }
    found.sort();
    let mut digest = Sha256::new();
    for (name, path) in &found {
        let hash = match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => crate::fingerprint::content_or_metadata(path),
            Ok(meta) if meta.is_dir() => super::tree_sha256(std::slice::from_ref(path))?,
            _ => "not a regular file".to_owned(),
        };
        let link = std::fs::read_link(path)
            .map(|to| to.display().to_string())
            .unwrap_or_default();
        digest.update(format!("{name}\0{link}\0{hash}\n"));
    }
    let mut names: Vec<&str> = found
        .iter()
        .map(|(name, _)| name.as_str())
        .take(8)
        .collect();
    if found.len() > names.len() {
        names.push("…");
    }
    let shown = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    let key = folder.join(format!(
        "<Python modules standing in for installed ones: {shown}>"
    ));
    Ok((key, hex::encode(digest.finalize())))
}

/// The entries of `folder` named as a standard or installed module (up to
/// the first `.`): files, and folders holding an `__init__.py` (a folder
/// without one never hides a module found later on the path).
fn standing_in(folder: &Path) -> Result<Vec<(String, PathBuf)>, BindError> {
    let Ok(listing) = std::fs::read_dir(folder) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for (count, entry) in listing.flatten().enumerate() {
        if count >= MAX_LISTED {
            return Err(BindError::TreeTooLarge(folder.to_path_buf()));
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let stem = name.split('.').next().unwrap_or_default();
        if !(STANDARD_MODULES.binary_search(&stem).is_ok() || INSTALLED.contains(stem)) {
            continue;
        }
        let path = entry.path();
        let package = path.is_dir() && path.join("__init__.py").exists();
        if package || !path.is_dir() {
            found.push((name, path));
        }
    }
    Ok(found)
}

/// The top-level modules installed in the site folders a Python here may
/// read (`requests`, `urllib3`, `yaml`…), read once.
static INSTALLED: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    let mut names = BTreeSet::new();
    for site in super::python_sites::site_folders() {
        let Ok(listing) = std::fs::read_dir(&site) else {
            continue;
        };
        for entry in listing.flatten().take(20_000) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stem = name.split(['.', '-']).next().unwrap_or_default();
            let metadata = name.ends_with(".dist-info") || name.ends_with(".egg-info");
            if !stem.is_empty() && !metadata && !name.ends_with(".pth") && stem != "__pycache__" {
                names.insert(stem.to_owned());
            }
        }
    }
    names
});

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

    fn write(folder: &Path, name: &str, text: &str) {
        let path = folder.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        std::fs::write(&path, text).expect("file");
    }

    #[test]
    fn a_file_named_as_a_standard_module_changes_the_digest_and_others_do_not() {
        assert!(STANDARD_MODULES.windows(2).all(|pair| pair[0] < pair[1]));
        let folder = tempfile::tempdir().expect("folder");
        write(folder.path(), "check.py", "import subprocess\n");
        let (_, before) = shadows(folder.path()).expect("digest");
        write(folder.path(), "helper.py", "x = 1\n");
        write(folder.path(), "html/index.html", "<p>\n");
        assert_eq!(shadows(folder.path()).expect("digest").1, before);
        for name in [
            "selectors.py",
            "random.pyc",
            "json/__init__.py",
            "__pycache__/tempfile.cpython-311.pyc",
        ] {
            write(folder.path(), name, "");
            let (key, after) = shadows(folder.path()).expect("digest");
            assert_ne!(after, before, "{name}");
            let stem = name
                .trim_start_matches("__pycache__/")
                .split(['.', '/'])
                .next()
                .unwrap();
            assert!(key.to_string_lossy().contains(stem), "{key:?}");
            write(folder.path(), name, "import os\n");
            assert_ne!(shadows(folder.path()).expect("digest").1, after, "{name}");
        }
    }

    #[test]
    fn what_is_not_a_regular_file_is_bound_unopened() {
        let folder = tempfile::tempdir().expect("folder");
        std::os::unix::fs::symlink("/dev/zero", folder.path().join("selectors.py")).expect("link");
        nix::unistd::mkfifo(
            &folder.path().join("socket.py"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .expect("fifo");
        let (key, _) = shadows(folder.path()).expect("digest without opening either");
        assert!(key.to_string_lossy().contains("selectors.py"), "{key:?}");
    }
}
