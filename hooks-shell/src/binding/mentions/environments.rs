//! A Python environment a project hook's code reaches: bound whole by
//! metadata, never read as a tree (R27-1); what its own files say of the
//! project's code it runs (an editable install, a link into the project, a
//! `.pth` import line, a console script: red team round 28, R28-1 to
//! R28-3) is read and bound ([`crate::binding::environment`]).
//!
//! The environment's modules that code reaches are read too, as far as
//! imports go (red team round 28c, R28c-1 to R28c-7): what a `.pth` line,
//! `sitecustomize` (a module, a package, a `.pyc` with no source), a
//! console script, `python -m`, `-c` or the hook's own script imports
//! there, and what those import in turn. Installed code written by the
//! repository's own `pip install .` may name a project file that runs
//! later; read, it is bound ([`super::environment_code`]).

use foldhash::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Kind, Names, read};

/// The modules Python imports at start-up from any site folder.
const STARTUP_MODULES: [&str; 2] = ["sitecustomize", "usercustomize"];

/// What has been read of the environments a hook's code reaches.
#[derive(Clone, Debug, Default)]
pub(super) struct Reading {
    /// Each environment's site folders (`lib/python3.12/site-packages`).
    pub(super) sites: Vec<PathBuf>,
    /// The environments' files queued to be read, by the names they
    /// were reached by.
    pub(super) files: HashSet<PathBuf>,
    /// The same, links followed: what the budget counts.
    pub(super) real_files: HashSet<PathBuf>,
    /// Those not read yet.
    pub(super) pending: Vec<PathBuf>,
    /// Their bytes, against [`super::environment_code::MAX_BYTES`].
    pub(super) bytes: u64,
    /// Past the budget: the whole project is bound instead.
    pub(super) overflowed: bool,
    /// Each folder's modules and packages.
    index: HashMap<PathBuf, Arc<ModuleIndex>>,
    /// The names of every module and package of those folders: most
    /// words of code name none, and one look-up tells.
    module_names: HashSet<String>,
    /// The project's folders the environments' code may import from: its
    /// top, the working folder, its module roots, folders that code names.
    pub(super) project_roots: Vec<PathBuf>,
    /// The words of the environments' code that may name a module, looked
    /// up again in each folder found later.
    words: HashSet<String>,
    /// Whether the modules packages declare as entry points were read.
    pub(super) entry_points_read: bool,
    /// Whether the metadata at the project's top was read whole.
    pub(super) metadata_read: bool,
    /// The project's folder, links followed (once: thousands of paths
    /// are checked against it).
    pub(super) real_project: std::sync::OnceLock<Option<PathBuf>>,
}

impl Names {
    /// Binds the Python `environment` whole (by metadata, never read as a
    /// tree: R27-1), its own files that lead into the project read as code,
    /// the project code they lead to (an editable install, a link into
    /// the project: R28-1 to R28-3) bound with every code file it holds,
    /// and the modules it imports at start-up read (R28c-2).
    pub(super) fn add_environment(&mut self, environment: PathBuf) {
        if !self.files.insert(environment.clone()) {
            return;
        }
        let reaching = crate::binding::environment::reaching(&environment, &self.project);
        for file in reaching.read {
            // Read once for what it names; what a script of `bin/` imports
            // is read when the hook's code names the script (all of pip
            // for a hook running `python check.py` is too much).
            if !file.starts_with(environment.join("bin"))
                && !file.starts_with(environment.join("Scripts"))
            {
                self.read_environment_file(file.clone());
            }
            self.queue.push((file, None));
        }
        for path in reaching.whole.clone() {
            if path.is_dir() {
                // Bound whole by what each entry is, a file added too
                // (a new `.pth` in a site folder: R28b-1).
                self.files.insert(path.clone());
                // Not the environment's own (a flat layout leads to the
                // project's top, which holds it).
                for file in read::code_files_under(&path) {
                    if !self.in_environment(&file) {
                        self.add_file(file);
                    }
                }
                self.add_place(path, true);
            } else {
                self.add_file(path);
            }
        }
        if reaching.unread {
            self.environment_unread();
        }
        if reaching.installed_from_project {
            // Its build wrote code here that may run any of the project's
            // files by a name computed when it runs (R29-7): the project is
            // bound as a folder an environment leads to (its code by
            // content, its documents by name in a git checkout).
            self.files.insert(self.project.clone());
        }
        // Its code imports from the project's top, the working folder and
        // the module roots.
        let mut roots = vec![self.project.clone(), self.cwd.clone()];
        roots.extend(self.module_roots.iter().cloned());
        for root in roots {
            if !self.environments.project_roots.contains(&root) {
                self.environments.project_roots.push(root);
            }
        }
        for folder in reaching.whole.iter().filter(|path| path.is_dir()) {
            self.add_project_root(folder.clone());
        }
        let sites = site_folders(&environment);
        for site in sites.into_iter().chain(reaching.sites) {
            self.add_site(site);
        }
        for module in STARTUP_MODULES {
            self.environment_module(module, None);
        }
        // Words read before the environment was reached may import from it.
        let seen: Vec<(String, Option<PathBuf>)> = (self.seen.keys())
            .chain(self.seen_here.keys())
            .cloned()
            .collect();
        for (word, dir) in seen {
            self.environment_module(&word, dir.as_deref());
        }
    }

    /// Binds the environments a glob matches a file or folder of, wherever
    /// it stands in shell code or in code that runs programs or code
    /// (`wide`): `.venv/bin/pyth*3 check.py` in a script or a recipe,
    /// `PATH=$(echo .v*/bin):$PATH`, `V=${V:-.v*}` (R32-6),
    /// `shutil.which("python", path=glob.glob(".v*/bin")[0])` (R32-7).
    pub(super) fn environment_globs(&mut self, text: &str, dir: Option<&Path>, wide: bool) {
        if !wide {
            return;
        }
        for word in read::words(text).iter().filter(|word| read::is_glob(word)) {
            for path in self.glob_paths(word, dir) {
                let Some(environment) = self.tops.environment_of(&self.project, &path) else {
                    continue;
                };
                match path.is_file() {
                    true => self.add_file(path),
                    false => self.add_environment(environment),
                }
            }
        }
    }

    /// Binds the environment holding `path`, a file of it the hook's code
    /// names, and reads what it imports there.
    pub(super) fn add_environment_file(&mut self, environment: PathBuf, path: PathBuf) {
        self.add_environment(environment);
        self.read_environment_file(path);
    }

    /// Whether `path` lies in a Python environment of the project.
    pub(super) fn in_environment(&self, path: &Path) -> bool {
        self.tops.environment_of(&self.project, path).is_some()
    }

    /// Whether `folder` lies in an environment: its package files are then
    /// read (a package a module imports), and it is no place words are
    /// looked up in (every word of its code would be looked up there).
    pub(super) fn environment_package(&mut self, folder: &Path) -> bool {
        let Some(environment) = self.tops.environment_of(&self.project, folder) else {
            return false;
        };
        self.add_environment(environment);
        for file in self.package_files(folder) {
            self.read_environment_file(file);
        }
        true
    }

    /// Reads the modules of the environments reached that `word` (in code
    /// read in `dir`) may import ([`Names::environment_modules`]).
    pub(super) fn environment_module(&mut self, word: &str, dir: Option<&Path>) {
        self.environment_modules(&[word], dir);
    }

    /// Reads the modules of the environments reached that `words` (in code
    /// read in `dir`) may import: `acme.cli` from each site folder;
    /// `sibling`, `.sibling` and `..pkg.mod` from `dir` when it lies in one.
    /// Code of an environment imports from the project too (its top and
    /// working folder, a folder its code names): what it finds there is
    /// bound as the project's code.
    pub(super) fn environment_modules(&mut self, words: &[&str], dir: Option<&Path>) {
        if self.environments.sites.is_empty() || self.environments.overflowed {
            return;
        }
        // `entry_points(...)`, `md.entry_points()`, `dist.entry_points`.
        let last = |word: &&str| word.rsplit('.').next().unwrap_or_default().to_owned();
        if words
            .iter()
            .any(|word| super::entry_points::LOADS_ENTRY_POINTS.contains(&last(word).as_str()))
        {
            self.read_entry_points();
        }
        let sites: Vec<(usize, PathBuf)> = (self.environments.sites.iter())
            .map(|site| (0, site.clone()))
            .collect();
        // Code read in an environment imports from its own folder too
        // (`from . import real` names `real` alone).
        let Some(own) = dir.filter(|dir| self.in_environment(dir)) else {
            self.modules_from(&sites, &[], words);
            return;
        };
        // Its words are looked up in the sites and the project's folders
        // once (one found later looks every word read so far up), in each
        // file's own folders every time.
        let mut fresh = Vec::new();
        for word in words.iter().filter(|word| !word.contains('/')) {
            if !self.environments.words.contains(*word) {
                self.environments.words.insert((*word).to_owned());
                fresh.push(*word);
            }
        }
        let roots = self.environments.project_roots.clone();
        self.modules_from(&sites, &roots, &fresh);
        // A folder of the project this file names (`sys.path.insert(0,
        // 'vendor')`, `__import__('tools', fromlist=['boot'])`,
        // `os.chdir('tools')`): its other words may import from there
        // (R30-1, R30-2).
        let bare: Vec<&str> = words.iter().map(|w| w.trim_start_matches('.')).collect();
        // Made a site folder (`site.addsitedir('vendor')`), its `.pth`
        // files run too: the folder is bound by its names and what each
        // entry is, its code by content (R30-3).
        let site = words.iter().any(|word| word.ends_with("addsitedir"));
        for folder in self.named_project_folders(words, &roots) {
            self.modules_from(&[], std::slice::from_ref(&folder), &bare);
            if site {
                self.files.insert(folder);
            }
        }
        let folders = own.ancestors().take(4).map(Path::to_path_buf);
        let folders: Vec<PathBuf> = folders.take_while(|f| self.in_environment(f)).collect();
        let own: Vec<(usize, PathBuf)> = (folders.into_iter().enumerate())
            .map(|(up, folder)| (up + 1, folder))
            .collect();
        self.modules_from(&own, &[], words);
    }

    /// The folders of the project's `roots` that `words` name by their
    /// names alone (`vendor`).
    fn named_project_folders(&mut self, words: &[&str], roots: &[PathBuf]) -> Vec<PathBuf> {
        let mut folders = Vec::new();
        for root in roots {
            let index = self.module_index(root);
            let named = words.iter().filter(|word| index.packages.contains(**word));
            folders.extend(named.map(|word| root.join(word)));
        }
        folders.retain(|folder| !self.in_environment(folder) && !self.excluded(folder));
        folders.sort();
        folders.dedup();
        folders
    }

    /// Reads the modules `words` name in `bases` (each with how many dots
    /// a relative import needs to start there), and binds those they name
    /// in the project's `roots`.
    pub(super) fn modules_from(
        &mut self,
        bases: &[(usize, PathBuf)],
        roots: &[PathBuf],
        words: &[&str],
    ) {
        let indexed =
            |names: &mut Names, folder: &PathBuf| (folder.clone(), names.module_index(folder));
        let bases: Vec<_> = (bases.iter())
            .map(|(dots, folder)| (*dots, indexed(self, folder)))
            .collect();
        let roots: Vec<_> = roots.iter().map(|root| indexed(self, root)).collect();
        // `a,b` in a list; `tools.boot:main` names the module `tools.boot`.
        let words = words.iter().flat_map(|word| word.split(','));
        for word in words.filter_map(|word| word.split(':').next()) {
            let name = word.trim_start_matches('.');
            let dots = word.len() - name.len();
            let first = name.split('.').next().unwrap_or_default();
            let has = |index: &ModuleIndex| {
                index.modules.contains_key(first) || index.packages.contains(first)
            };
            if !self.environments.module_names.contains(first) || !is_identifier(first) {
                continue;
            }
            for (base_dots, (folder, index)) in &bases {
                // `x` from a site or the file's own folder and those above
                // it (`from .. import x`); `..x` from the folder above it.
                let fits = *base_dots == dots || (dots == 0 && *base_dots > 0);
                if fits && has(index) && name.split('.').all(is_identifier) {
                    let parts: Vec<&str> = name.split('.').collect();
                    for file in self.module_files(folder, &parts) {
                        self.read_environment_file(file);
                    }
                }
            }
            for (root, index) in &roots {
                if dots == 0 && has(index) && name.split('.').all(is_identifier) {
                    let parts: Vec<&str> = name.split('.').collect();
                    for file in self.module_files(root, &parts) {
                        self.add_file(file);
                    }
                }
            }
        }
    }

    /// Makes `site`, a folder of an environment, one its modules are
    /// looked up in, for the words read so far too.
    pub(super) fn add_site(&mut self, site: PathBuf) {
        if self.environments.sites.contains(&site) {
            return;
        }
        self.environments.sites.push(site.clone());
        let mut words: Vec<String> = self.environments.words.iter().cloned().collect();
        words.extend(
            self.seen
                .keys()
                .chain(self.seen_here.keys())
                .map(|(w, _)| w.clone()),
        );
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        self.modules_from(&[(0, site)], &[], &words);
    }

    /// Makes `root`, a folder of the project, one the environments' code
    /// imports from, for the words read so far too.
    pub(super) fn add_project_root(&mut self, root: PathBuf) {
        if self.environments.project_roots.contains(&root) {
            return;
        }
        self.environments.project_roots.push(root.clone());
        // Only the words its entries may be named by (most words are
        // none of them).
        let index = self.module_index(&root);
        let names = index.modules.keys().chain(&index.packages);
        let names: HashSet<&str> = names.map(String::as_str).collect();
        let words: Vec<String> = (self.environments.words.iter())
            .filter(|word| names.contains(head(word)))
            .cloned()
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        self.modules_from(&[], &[root], &words);
    }

    /// The files Python may run importing `parts` (`a.b.c`) from `base`:
    /// each package's `__init__` and the module itself, as source, a
    /// `.pyc` with no source, or an extension module.
    fn module_files(&mut self, base: &Path, parts: &[&str]) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut folder = base.to_path_buf();
        for part in parts {
            let index = self.module_index(&folder);
            files.extend(index.named(&folder, part));
            if !index.packages.contains(*part) {
                break;
            }
            folder.push(part);
            files.extend(self.package_files(&folder));
        }
        files
    }

    /// A package folder's `__init__` files.
    fn package_files(&mut self, folder: &Path) -> Vec<PathBuf> {
        self.module_index(folder).named(folder, "__init__")
    }

    /// The modules and packages of `folder`, indexed once.
    fn module_index(&mut self, folder: &Path) -> Arc<ModuleIndex> {
        if let Some(index) = self.environments.index.get(folder) {
            return Arc::clone(index);
        }
        let listing = self.listing(folder);
        let mut index = ModuleIndex::default();
        for (entry, kind) in listing.iter() {
            match kind {
                Kind::Folder => {
                    index.packages.insert(entry.clone());
                }
                Kind::File => {
                    if let Some((stem, rest)) = entry.split_once('.')
                        && is_module_suffix(rest)
                    {
                        let names = index.modules.entry(stem.to_owned()).or_default();
                        names.push(entry.clone());
                    }
                }
            }
        }
        let names = index.modules.keys().chain(&index.packages);
        (self.environments.module_names).extend(names.cloned());
        let index = Arc::new(index);
        (self.environments.index).insert(folder.to_path_buf(), Arc::clone(&index));
        index
    }
}

/// A folder's modules by name (`boot` → `boot.py`, `boot.pyc`) and its
/// sub-folders (packages).
#[derive(Debug, Default)]
pub(super) struct ModuleIndex {
    modules: HashMap<String, Vec<String>>,
    packages: HashSet<String>,
}

impl ModuleIndex {
    /// The files in `folder` (indexed here) Python imports as `name`.
    fn named(&self, folder: &Path, name: &str) -> Vec<PathBuf> {
        let names = self.modules.get(name).into_iter().flatten();
        names.map(|entry| folder.join(entry)).collect()
    }
}

/// Whether a file named `<module>.<rest>` is what Python imports as
/// `<module>`: `py`, a `pyc` with no source, an extension module
/// (`cpython-312-x86_64-linux-gnu.so`, `pyd`).
fn is_module_suffix(rest: &str) -> bool {
    let last = rest.rsplit('.').next().unwrap_or_default();
    rest == "py" || rest == "pyc" || last == "so" || last == "pyd"
}

/// The first part of a module name `word` (`tools` for `..tools.boot:f`).
fn head(word: &str) -> &str {
    let name = word.trim_start_matches('.');
    name.split(['.', ',', ':']).next().unwrap_or_default()
}

/// Whether `part` is a Python identifier.
fn is_identifier(part: &str) -> bool {
    let mut chars = part.chars();
    chars
        .next()
        .is_some_and(|first| first.is_alphabetic() || first == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The site folders of `environment`: `lib/python3.X/site-packages`
/// (`lib64` too) and Windows' `Lib/site-packages`.
fn site_folders(environment: &Path) -> Vec<PathBuf> {
    let mut sites = vec![environment.join("Lib/site-packages")];
    for lib in ["lib", "lib64"] {
        let Ok(listing) = std::fs::read_dir(environment.join(lib)) else {
            continue;
        };
        for entry in listing.flatten().take(100) {
            if entry.file_name().to_string_lossy().starts_with("python") {
                sites.push(entry.path().join("site-packages"));
            }
        }
    }
    sites.retain(|site| site.is_dir());
    sites
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_is_its_source_a_sourceless_pyc_or_an_extension() {
        for rest in [
            "py",
            "pyc",
            "cpython-312-x86_64-linux-gnu.so",
            "pyd",
            "abi3.so",
        ] {
            assert!(is_module_suffix(rest), "{rest}");
        }
        for rest in ["txt", "so.txt", "pyi", "py.bak"] {
            assert!(!is_module_suffix(rest), "{rest}");
        }
        assert!(is_identifier("_boot2") && !is_identifier("2boot") && !is_identifier(""));
    }
}
