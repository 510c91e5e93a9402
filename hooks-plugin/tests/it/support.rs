//! Building the fixture libraries and laying out temporary Hermes homes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use hermes_hooks_core::Config;
use tempfile::TempDir;

/// The workspace root (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_owned)
}

/// Where the nested builds put their output: `fixture-plugin` in the target
/// directory (`CARGO_TARGET_DIR` honoured), so the nested cargo never waits
/// for the build lock the outer `cargo test` holds.
fn fixture_target_dir() -> PathBuf {
    test_support::fixture_target_dir()
}

fn library_file_name(stem: &str) -> String {
    format!(
        "{}{stem}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// The library of the example plugin `package` (debug build), as the outer
/// cargo built it for this package's dev-dependencies.
pub fn example_library(package: &str) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| build_examples(false));
    built_library(dir, package)
}

/// An example plugin's library built with optimisations (for benchmarks), once per run.
#[allow(dead_code)] // used by benches/call.rs, which includes this file
pub fn example_library_release(package: &str) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| build_examples(true));
    built_library(dir, package)
}

/// Builds every example; returns the directory holding the libraries.
fn build_examples(release: bool) -> PathBuf {
    test_support::example_plugins(release)
}

fn built_library(dir: &Path, package: &str) -> PathBuf {
    let library = dir.join(library_file_name(&package.replace('-', "_")));
    assert!(
        library.is_file(),
        "{} missing after build",
        library.display()
    );
    library
}

/// A broken raw plugin (`wrong_version`, `short_table` or `no_entry`), compiled once per run.
pub fn raw_library(variant: &'static str) -> PathBuf {
    static BUILT: OnceLock<std::sync::Mutex<Vec<(&'static str, PathBuf)>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, library)) = built.iter().find(|(name, _)| *name == variant) {
        return library.clone();
    }
    let out_dir = fixture_target_dir().join(format!("raw-{variant}"));
    std::fs::create_dir_all(&out_dir).expect("create raw fixture dir");
    let library = out_dir.join(library_file_name(&format!("raw_{variant}")));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/raw_plugin.rs");
    let output = Command::new(rustc())
        .args([
            "--crate-type",
            "cdylib",
            "--edition",
            "2021",
            "--cfg",
            variant,
        ])
        .arg("-o")
        .arg(&library)
        .arg(&source)
        .output()
        .expect("rustc runs");
    assert!(
        output.status.success(),
        "compiling raw plugin {variant} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    built.push((variant, library.clone()));
    library
}

/// `rustc` next to the cargo running the tests (same toolchain), else from PATH.
fn rustc() -> PathBuf {
    let beside_cargo = Path::new(env!("CARGO")).with_file_name("rustc");
    if beside_cargo.is_file() {
        beside_cargo
    } else {
        PathBuf::from("rustc")
    }
}

/// A temporary Hermes home.
pub struct Home {
    /// Owns the directory.
    pub dir: TempDir,
}

impl Home {
    /// An empty home.
    pub fn new() -> Home {
        Home {
            dir: TempDir::new().expect("temp dir"),
        }
    }

    /// The home's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Creates `plugins/<folder>` with `files` (name, contents); returns the folder.
    pub fn plugin(&self, folder: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.path().join("plugins").join(folder);
        std::fs::create_dir_all(&dir).expect("create plugin dir");
        for (name, contents) in files {
            std::fs::write(dir.join(name), contents).expect("write plugin file");
        }
        dir
    }

    /// A plugin folder holding a copy of the guard example's library, named
    /// relatively in plugin.yaml.
    pub fn example_plugin(&self, folder: &str, extra_yaml: &str) -> PathBuf {
        let dir = self.plugin(folder, &[]);
        let file_name = library_file_name("plugin_guard");
        std::fs::copy(example_library("plugin-guard"), dir.join(&file_name)).expect("copy library");
        let yaml = format!("name: {folder}\nversion: 1.0\nlibrary: {file_name}\n{extra_yaml}");
        std::fs::write(dir.join("plugin.yaml"), yaml).expect("write plugin.yaml");
        dir
    }

    /// A config from YAML text, as if it were `<home>/config.yaml`.
    pub fn config(&self, yaml: &str) -> Config {
        let path = self.path().join("config.yaml");
        Config::parse(self.path(), &path, yaml).expect("valid config")
    }
}
