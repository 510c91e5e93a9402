//! The modules packages declare as entry points (pytest's `pytest11`
//! plugins, a tool's own groups), read when an environment's code loads
//! them (red team rounds 29 and 30: R29-5, R30-8).

use std::path::PathBuf;
use std::sync::LazyLock;

use regex::Regex;

use super::{Kind, Names};

/// Words of code that loads the modules packages declare as entry
/// points (pytest's `pytest11` plugins, through pluggy).
pub(super) const LOADS_ENTRY_POINTS: [&str; 4] = [
    "entry_points",
    "iter_entry_points",
    "load_setuptools_entrypoints",
    "distributions",
];

impl Names {
    /// Reads, once, the modules the environments' packages declare as entry
    /// points other than scripts (`[pytest11]` plugins): code read loads
    /// them by their declarations.
    pub(super) fn read_entry_points(&mut self) {
        if std::mem::replace(&mut self.environments.entry_points_read, true) {
            return;
        }
        let sites = self.environments.sites.clone();
        let mut modules: Vec<String> = Vec::new();
        // The project's top and working folder are on the module path
        // too: a package's metadata there declares entry points (R30-8).
        let tops = [self.project.clone(), self.cwd.clone()];
        for site in sites.iter().chain(&tops) {
            let listing = self.listing(site);
            let metadata = listing.iter().filter(|(name, kind)| {
                **kind == Kind::Folder
                    && (name.ends_with(".dist-info") || name.ends_with(".egg-info"))
            });
            for (name, _) in metadata {
                let file = site.join(name).join("entry_points.txt");
                if tops.contains(site) && file.is_file() {
                    self.add_file(file.clone());
                }
                if std::fs::metadata(&file).is_ok_and(|m| m.len() > 1 << 20) {
                    self.environment_unread(); // too large to read each run
                    return;
                }
                let text = std::fs::read(&file).ok();
                let text = String::from_utf8_lossy(&text.unwrap_or_default()).into_owned();
                modules.extend(entry_point_modules(&text));
            }
        }
        let bases: Vec<(usize, PathBuf)> = sites.into_iter().map(|site| (0, site)).collect();
        let roots = self.environments.project_roots.clone();
        let words: Vec<&str> = modules.iter().map(String::as_str).collect();
        self.modules_from(&bases, &roots, &words);
    }
}

impl Names {
    /// Reads the `entry_points.txt` of each package's metadata at the
    /// project's top and in the working folder: Python finds it there and
    /// a library loads the modules it names (`x = tools.boot:f`, R32-12).
    pub(super) fn with_top_entry_points(mut self) -> Names {
        for folder in [self.project.clone(), self.cwd.clone()] {
            let listing = self.listing(&folder);
            let metadata = listing.iter().filter(|(name, kind)| {
                **kind == Kind::Folder
                    && (name.ends_with(".dist-info") || name.ends_with(".egg-info"))
            });
            for (name, _) in metadata {
                let file = folder.join(name).join("entry_points.txt");
                if file.is_file() {
                    self.add_run_file(file, None);
                }
            }
        }
        self
    }
}

impl Names {
    /// Reads, once, every file of each package's metadata at the project's
    /// top and in the working folder when `text` (code) reads metadata
    /// beyond entry points (`read_text("top_level.txt")`,
    /// `metadata("ok").get_all("Provides-Extra")`, `files("ok")`): what
    /// they say is data the code acts on (R32-12).
    pub(super) fn metadata_read(&mut self, text: &str) {
        static READS: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b(?:read_text|metadata|files|distribution|get_metadata\w*|get_distribution|requires|locate_file|_path)\s*\(")
                .expect("valid regex")
        });
        if self.environments.metadata_read || !READS.is_match(text) {
            return;
        }
        self.environments.metadata_read = true;
        for folder in [self.project.clone(), self.cwd.clone()] {
            let listing = self.listing(&folder);
            let metadata = listing.iter().filter(|(name, kind)| {
                **kind == Kind::Folder && super::super::python_shadows::is_package_metadata(name)
            });
            for (name, _) in metadata {
                let files = std::fs::read_dir(folder.join(name))
                    .into_iter()
                    .flatten()
                    .flatten();
                for file in files.take(64).map(|entry| entry.path()) {
                    if file.is_file() {
                        self.add_run_file(file, None);
                    }
                }
            }
        }
    }
}

/// The modules an `entry_points.txt` declares outside its script groups
/// (`evil = evilplugin.hooks:main [extra]` → `evilplugin.hooks`).
fn entry_point_modules(text: &str) -> Vec<String> {
    let mut group = "";
    let mut modules = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            group = name.trim();
        } else if let Some((_, value)) = line.split_once('=')
            && !matches!(group, "console_scripts" | "gui_scripts")
        {
            let module = value.split([':', '[']).next().unwrap_or_default().trim();
            modules.push(module.to_owned());
        }
    }
    modules
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_entry_point_names_its_module_outside_the_script_groups() {
        let declared = "[console_scripts]\nx = tool.cli:main\n\n[pytest11]\nevil = evilplugin.hooks:main [extra]\n";
        assert_eq!(super::entry_point_modules(declared), ["evilplugin.hooks"]);
    }
}
