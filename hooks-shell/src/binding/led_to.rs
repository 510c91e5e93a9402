//! Project code a Python environment leads to (an editable install's
//! `.pth` folder, `.egg-link` or `__editable__` finder, a link into the
//! project: red team round 28, R28-1 to R28-3) in a git checkout: bound by
//! the repository's code in it, not by its documents (red team round 28c,
//! R28c-5: a flat layout's `.pth` names the project's top, and an edit of
//! `README.md` asked again).
//!
//! In a checkout, the folder is bound by every entry's name (a new module,
//! `.pth` or package asks again), where each link leads, the content of
//! each file git tracks that is code ([`is_code_file`]: by extension or
//! name, the execute bit, `#!`, ELF), and every other entry by what it is
//! (metadata): what git does not track, what the checkout's index lists
//! that is neither code nor a document, and anything under an installed
//! package's `*.dist-info` or `*.egg-info` (entry points name code to run).
//! Only a tracked document (`README.md`, `docs/*.rst`, an image, a
//! `LICENSE`) is bound by its name alone: Python imports none of them, and
//! a document the project's code reads is bound by content where that code
//! names it. `.git` folders are left out, as hook trees leave them out:
//! git's own files change with every `git status` and no import reaches
//! them. Outside a checkout, or with an index that cannot be read, every
//! entry is bound by what it is ([`super::environment::digest`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::BindError;
use super::environment::{LED_TO_KEY, MAX_ENTRIES};
use super::git_index::{self, Checkout};
use super::mentions::is_code_file;

/// What the digest of a led-to folder in a git checkout is named for.
pub(super) const KEY: &str = "project code a Python environment leads to, each name and the content of each tracked code file, each untracked entry by what it is";

/// The most bytes of code hashed by content for one folder; past it, a
/// code file is bound by what it is (any change still asks again).
const MAX_HASHED: u64 = super::MAX_TREE_BYTES;

/// Extensions of documents, bound by name alone when tracked.
const DOCUMENT_EXTENSIONS: [&str; 19] = [
    "md", "markdown", "rst", "txt", "adoc", "asciidoc", "org", "rtf", "pdf", "png", "jpg", "jpeg",
    "gif", "svg", "webp", "ico", "bmp", "csv", "tsv",
];

/// Names (without extension) of documents, bound by name alone when tracked.
const DOCUMENT_NAMES: [&str; 14] = [
    "readme",
    "license",
    "licence",
    "copying",
    "notice",
    "authors",
    "contributors",
    "changelog",
    "changes",
    "history",
    "news",
    "todo",
    "maintainers",
    "codeowners",
];

/// The key and digest binding `folder` of `project`, project code an
/// environment leads to (see the module documentation).
pub(super) fn bind(folder: &Path, project: &Path) -> Result<(PathBuf, String), BindError> {
    let tracked = match git_index::checkout(project) {
        Checkout::Tracks(_) => git_index::paths_under(project, folder),
        Checkout::Outside | Checkout::Unreadable => None,
    };
    match tracked {
        Some(files) => {
            let digest = digest(folder, &Tracked::new(files), MAX_ENTRIES)?;
            Ok((folder.join(format!("<{KEY}>")), digest))
        }
        None => {
            let digest = super::environment::digest(folder)?;
            Ok((folder.join(format!("<{LED_TO_KEY}>")), digest))
        }
    }
}

/// What the checkout's index lists under a folder, as paths relative to it.
struct Tracked {
    /// The files (and links, and submodules) it lists.
    files: BTreeSet<Vec<u8>>,
    /// The folders holding any of them.
    folders: BTreeSet<Vec<u8>>,
}

impl Tracked {
    /// The index's `files` and the folders above each.
    fn new(files: BTreeSet<Vec<u8>>) -> Tracked {
        let mut folders = BTreeSet::new();
        for path in &files {
            for (at, byte) in path.iter().enumerate() {
                if *byte == b'/' {
                    folders.insert(path[..at].to_vec());
                }
            }
        }
        Tracked { files, folders }
    }

    /// Whether the index lists the file at `relative`.
    fn file(&self, relative: &[u8]) -> bool {
        self.files.contains(relative)
    }

    /// Whether the index lists anything at or under the folder `relative`
    /// (a submodule is listed as one entry).
    fn folder(&self, relative: &[u8]) -> bool {
        self.folders.contains(relative) || self.files.contains(relative)
    }
}

/// Whether the file at `relative` (its path under the folder bound) is a
/// document: by its extension or name, and not under an installed
/// package's metadata folder.
fn is_document(relative: &Path) -> bool {
    let metadata_folder = relative.parent().is_some_and(|parent| {
        parent.components().any(|part| {
            let part = part.as_os_str().to_string_lossy().to_ascii_lowercase();
            part.ends_with(".dist-info") || part.ends_with(".egg-info")
        })
    });
    if metadata_folder {
        return false;
    }
    let name = relative
        .file_name()
        .map(|name| name.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name.as_str(), ""));
    DOCUMENT_EXTENSIONS.contains(&extension)
        || DOCUMENT_NAMES.contains(&stem)
        || DOCUMENT_NAMES.contains(&name.as_str())
}

/// What binds the entry at `path` (`relative` under the folder), not a
/// link, the walk's hashed bytes counted in `hashed`.
fn entry_stamp(
    path: &Path,
    relative: &Path,
    metadata: &std::fs::Metadata,
    tracked: &Tracked,
    hashed: &mut u64,
) -> String {
    let by_metadata = || crate::fingerprint::metadata_stamp(path).unwrap_or_default();
    let bytes = relative.as_os_str().as_encoded_bytes();
    if metadata.is_dir() {
        // A tracked folder's times move with every file written in it
        // (an editor's swap file); its names are bound entry by entry.
        return match tracked.folder(bytes) {
            true => "folder".to_owned(),
            false => by_metadata(),
        };
    }
    if !metadata.is_file() || !tracked.file(bytes) {
        return by_metadata();
    }
    if is_code_file(path) {
        *hashed = hashed.saturating_add(metadata.len());
        let content = match *hashed <= MAX_HASHED {
            true => {
                super::cache::cached_file(path, || crate::fingerprint::content_or_metadata(path))
            }
            false => by_metadata(),
        };
        return format!("code {content}");
    }
    match is_document(relative) {
        true => "document".to_owned(),
        false => by_metadata(),
    }
}

/// The digest of the folder `root` as [`Tracked`] says (see the module
/// documentation), links never followed; more than `max_entries` entries,
/// and it cannot be bound.
fn digest(root: &Path, tracked: &Tracked, max_entries: usize) -> Result<String, BindError> {
    let mut hash = Sha256::new();
    let mut stack = vec![root.to_path_buf()];
    let (mut seen, mut hashed) = (0usize, 0u64);
    while let Some(dir) = stack.pop() {
        let listing = std::fs::read_dir(&dir).map_err(|_| BindError::Unlistable(dir.clone()))?;
        let mut entries: Vec<PathBuf> = listing.flatten().map(|entry| entry.path()).collect();
        entries.sort();
        for path in entries {
            if path.file_name().is_some_and(|name| name == ".git") {
                continue;
            }
            seen += 1;
            if seen > max_entries {
                return Err(BindError::TreeTooLarge(root.to_path_buf()));
            }
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let line = entry_line(&path, relative, tracked, &mut hashed, &mut stack);
            hash.update(line);
        }
    }
    Ok(hex::encode(hash.finalize()))
}

/// The line binding the entry at `path` (`relative` under the folder
/// bound), a folder pushed on `stack` to be walked.
fn entry_line(
    path: &Path,
    relative: &Path,
    tracked: &Tracked,
    hashed: &mut u64,
    stack: &mut Vec<PathBuf>,
) -> String {
    let (to, stamp) = match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_symlink() => {
            let to = std::fs::read_link(path).unwrap_or_default();
            (to.display().to_string(), "link".to_owned())
        }
        Ok(metadata) => {
            if metadata.is_dir() {
                stack.push(path.to_path_buf());
            }
            let stamp = entry_stamp(path, relative, &metadata, tracked, hashed);
            (String::new(), stamp)
        }
        Err(_) => (String::new(), "missing".to_owned()),
    };
    format!("{}\0{to}\0{stamp}\n", relative.display())
}

/// The digest binding `path`, a folder or file of `project`, as [`bind`]
/// binds a folder in a git checkout (a file as an entry of its folder),
/// `listed` every path the checkout lists under `project`, relative to it
/// (R30-18: a copy of the project's folders run outside it).
pub(super) fn digest_in_checkout(
    path: &Path,
    project: &Path,
    listed: &BTreeSet<Vec<u8>>,
) -> Result<String, BindError> {
    let under = |folder: &Path| {
        let mut prefix = folder.as_os_str().as_encoded_bytes().to_vec();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        let paths = listed
            .iter()
            .filter_map(|path| path.strip_prefix(prefix.as_slice()));
        Tracked::new(paths.map(<[u8]>::to_vec).collect())
    };
    let relative = path.strip_prefix(project).unwrap_or(path);
    if path.is_dir() {
        return digest(path, &under(relative), MAX_ENTRIES);
    }
    let name = Path::new(relative.file_name().unwrap_or_default());
    let tracked = under(relative.parent().unwrap_or(Path::new("")));
    let line = entry_line(path, name, &tracked, &mut 0, &mut Vec::new());
    Ok(hex::encode(Sha256::digest(line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `git` with `args` in `folder`; `false` when it cannot run.
    fn git(folder: &Path, args: &[&str]) -> bool {
        std::process::Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(folder)
            .output()
            .is_ok_and(|out| out.status.success())
    }

    /// Writes `text` to `relative` under `base`.
    fn write(base: &Path, relative: &str, text: &str) {
        let path = base.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// A flat-layout project committed to git, its `.venv` ignored; `None`
    /// when git cannot run.
    fn flat_checkout() -> Option<tempfile::TempDir> {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        write(p, "README.md", "# r\n");
        write(p, "docs/guide.rst", "Guide\n");
        write(p, "mod.py", "X = 1\n");
        write(p, "pkg/__init__.py", "");
        write(p, "config.yaml", "a: 1\n");
        write(p, "acme.egg-info/entry_points.txt", "[console_scripts]\n");
        write(p, ".gitignore", ".venv/\n");
        write(p, ".venv/pyvenv.cfg", "home = /usr/bin\n");
        if !git(p, &["init", "-q"]) {
            eprintln!("skipped: no git");
            return None;
        }
        assert!(git(p, &["add", "-A"]));
        assert!(git(p, &["commit", "-qm", "init"]));
        Some(dir)
    }

    /// Appends `text` to `relative` under `base`.
    fn append(base: &Path, relative: &str, text: &str) {
        let path = base.join(relative);
        let mut old = std::fs::read_to_string(&path).unwrap_or_default();
        old.push_str(text);
        std::fs::write(path, old).expect("append");
    }

    #[test]
    fn a_tracked_document_binds_by_name_and_code_by_content() {
        let Some(dir) = flat_checkout() else { return };
        let p = dir.path();
        let (key, before) = bind(p, p).expect("bound");
        assert!(key.ends_with(format!("<{KEY}>")), "{key:?}");
        // Documents and git's own files: no question.
        append(p, "README.md", "more\n");
        append(p, "docs/guide.rst", "more\n");
        assert!(git(p, &["add", "README.md"]));
        write(p, ".git/FETCH_HEAD", "x\n");
        assert_eq!(bind(p, p).expect("bound").1, before);
        // Each of these asks again; undone, those bound by name or content
        // bind as before.
        type Change = fn(&Path);
        let changes: [(&str, Change, Change, bool); 9] = [
            (
                "code edited",
                |p| append(p, "mod.py", "Y = 2\n"),
                |p| write(p, "mod.py", "X = 1\n"),
                true,
            ),
            (
                "a new module",
                |p| write(p, "new.py", ""),
                |p| std::fs::remove_file(p.join("new.py")).expect("rm"),
                true,
            ),
            (
                "a new untracked document",
                |p| write(p, "notes.md", ""),
                |p| std::fs::remove_file(p.join("notes.md")).expect("rm"),
                true,
            ),
            (
                "a new namespace folder",
                |p| std::fs::create_dir(p.join("ns")).expect("mkdir"),
                |p| std::fs::remove_dir(p.join("ns")).expect("rmdir"),
                true,
            ),
            (
                "a document made executable",
                |p| chmod(&p.join("README.md"), 0o755),
                |p| chmod(&p.join("README.md"), 0o644),
                true,
            ),
            (
                "a tracked setting edited",
                |p| append(p, "config.yaml", "b: 2\n"),
                |p| write(p, "config.yaml", "a: 1\n"),
                false,
            ),
            (
                "an installed package's entry points",
                |p| append(p, "acme.egg-info/entry_points.txt", "x = os:system\n"),
                |p| write(p, "acme.egg-info/entry_points.txt", "[console_scripts]\n"),
                false,
            ),
            (
                "a link added",
                |p| std::os::unix::fs::symlink("/tmp", p.join("pkg/sub")).expect("link"),
                |p| std::fs::remove_file(p.join("pkg/sub")).expect("rm"),
                true,
            ),
            (
                "the untracked environment changed",
                |p| write(p, ".venv/lib/evil.py", ""),
                |p| std::fs::remove_dir_all(p.join(".venv/lib")).expect("rm"),
                false,
            ),
        ];
        for (what, change, undo, as_before) in changes {
            let base = bind(p, p).expect("bound").1;
            change(p);
            assert_ne!(bind(p, p).expect("bound").1, base, "{what}");
            undo(p);
            if as_before {
                assert_eq!(bind(p, p).expect("bound").1, base, "{what} undone");
            }
        }
        // Code edited back to the same bytes binds as before.
        write(p, "mod.py", "X = 1\n");
        let code = bind(p, p).expect("bound").1;
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(p, "mod.py", "X = 1\n");
        assert_eq!(bind(p, p).expect("bound").1, code, "same content");
        // Same size, the old modification time: the content still tells.
        let mtime = std::fs::metadata(p.join("mod.py"))
            .and_then(|m| m.modified())
            .expect("mtime");
        write(p, "mod.py", "X = 2\n");
        let file = std::fs::File::options()
            .write(true)
            .open(p.join("mod.py"))
            .expect("open");
        file.set_modified(mtime).expect("set mtime");
        assert_ne!(bind(p, p).expect("bound").1, code, "same size and mtime");
    }

    /// Sets the permission bits of `path`.
    fn chmod(path: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    fn an_untracked_document_binds_by_what_it_is() {
        let Some(dir) = flat_checkout() else { return };
        let p = dir.path();
        write(p, "local.md", "mine\n");
        let before = bind(p, p).expect("bound").1;
        append(p, "local.md", "more\n");
        assert_ne!(bind(p, p).expect("bound").1, before);
    }

    #[test]
    fn outside_a_checkout_or_with_an_unreadable_index_every_entry_binds_by_what_it_is() {
        let Some(dir) = flat_checkout() else { return };
        let p = dir.path();
        std::fs::write(p.join(".git/index"), "not an index").expect("index");
        let (key, before) = bind(p, p).expect("bound");
        assert!(key.ends_with(format!("<{LED_TO_KEY}>")), "{key:?}");
        append(p, "README.md", "more\n");
        assert_ne!(bind(p, p).expect("bound").1, before, "unreadable index");
        std::fs::remove_dir_all(p.join(".git")).expect("no checkout");
        let (key, before) = bind(p, p).expect("bound");
        assert!(key.ends_with(format!("<{LED_TO_KEY}>")), "{key:?}");
        append(p, "README.md", "more\n");
        assert_ne!(bind(p, p).expect("bound").1, before, "outside a checkout");
    }

    #[test]
    fn a_folder_under_the_checkouts_top_and_too_many_entries() {
        let Some(dir) = flat_checkout() else { return };
        let p = dir.path();
        write(p, "src/acme/__init__.py", "");
        write(p, "src/README.md", "# src\n");
        assert!(git(p, &["add", "src"]));
        let src = p.join("src");
        let before = bind(&src, p).expect("bound").1;
        append(p, "src/README.md", "more\n");
        assert_eq!(bind(&src, p).expect("bound").1, before, "document");
        append(p, "src/acme/__init__.py", "X = 1\n");
        assert_ne!(bind(&src, p).expect("bound").1, before, "code");
        let tracked = Tracked::new(git_index::paths_under(p, &src).expect("index"));
        assert!(tracked.file(b"acme/__init__.py") && tracked.folder(b"acme"));
        assert!(!tracked.file(b"src/acme/__init__.py"));
        assert!(matches!(
            digest(&src, &tracked, 2),
            Err(BindError::TreeTooLarge(_))
        ));
    }

    #[test]
    fn the_project_itself_binds_as_a_folder_it_leads_to() {
        // A flat layout's `.pth` names the project's top (R28c-5): a
        // document edit keeps the binding, a code edit changes it.
        let Some(dir) = flat_checkout() else { return };
        let p = dir.path();
        let bind = |p: &Path| {
            let mut bound = std::collections::BTreeMap::new();
            super::super::environment::bind_folder(p, p, &mut bound).expect("bound");
            bound
        };
        let before = bind(p);
        assert_eq!(before.len(), 1, "{before:?}");
        append(p, "README.md", "more\n");
        assert_eq!(bind(p), before);
        append(p, "mod.py", "X = 2\n");
        assert_ne!(bind(p), before);
    }

    #[test]
    fn documents_by_extension_or_name_outside_package_metadata() {
        for document in ["README.md", "docs/a.RST", "LICENSE", "COPYING.txt", "x.png"] {
            assert!(is_document(Path::new(document)), "{document}");
        }
        for other in [
            "a.py",
            "config.yaml",
            "pytest.ini",
            "x.egg-info/entry_points.txt",
            "y.dist-info/README.md",
            ".pylintrc",
        ] {
            assert!(!is_document(Path::new(other)), "{other}");
        }
    }
}
