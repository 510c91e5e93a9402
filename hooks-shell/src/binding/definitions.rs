//! Programs that run the project's own definitions: `npm run lint`, `make
//! fmt`, `cargo xtask`, `uv run`, `npx eslint` run code from the manifests
//! and `node_modules` of the folder they run in, not from the program's own
//! file. [`PROGRAMS`] is the one table of them: for each, the manifests it
//! reads (bound present or absent: creating one later is a change), what a
//! subcommand adds, and whether it executes a `node_modules/.bin` tool.
//!
//! A node tool is bound by its `node_modules/.bin/<tool>` file and its
//! package folder (a tree, bounded like a hook tree). Its absence is bound
//! only for a project's hooks: the user's own `npx prettier` stays valid in
//! every folder until one has its own `prettier`, which then shadows the
//! installed one and needs an approval in that project.

use std::path::{Path, PathBuf};

use super::identify::base_name;
use super::shell::{shell_script, simple_commands, skip_prefixes};
use follow::{follow_includes, package_scripts};

/// How a program picks the node tool it executes.
#[derive(Clone, Copy)]
enum NodeTool {
    /// It executes none.
    None,
    /// Its first non-option word (`npx eslint`).
    First,
    /// The word after one of these subcommands (`npm exec eslint`).
    After(&'static [&'static str]),
}

/// A program that runs the definitions of the folder it runs in.
struct Program {
    /// Its names (as [`base_name`] gives them).
    names: &'static [&'static str],
    /// The files and folders it reads, relative to where it runs.
    manifests: &'static [&'static str],
    /// What some subcommands also run (`cargo xtask`: the `xtask` folder).
    extra: &'static [(&'static str, &'static [&'static str])],
    /// Whether it reads `include` lines (`make`) or `import` lines (`just`).
    includes: Includes,
    /// The node tool it may execute.
    node_tool: NodeTool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Includes {
    None,
    Make,
    Just,
}

const NPM: &[&str] = &[
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    ".npmrc",
];
const PNPM: &[&str] = &[
    "package.json",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    ".npmrc",
    ".pnpmfile.cjs",
];
const YARN: &[&str] = &[
    "package.json",
    "yarn.lock",
    ".yarnrc.yml",
    ".yarnrc",
    ".pnp.cjs",
    ".yarn/releases",
    ".yarn/plugins",
];
const BUN: &[&str] = &["package.json", "bun.lockb", "bun.lock", "bunfig.toml"];
const MAKE: &[&str] = &["GNUmakefile", "makefile", "Makefile"];
const GRADLE: &[&str] = &[
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "gradle.properties",
    "gradle/wrapper",
    "buildSrc",
];

/// The table (see the module documentation).
const PROGRAMS: &[Program] = &[
    node(&["npm"], NPM, NodeTool::After(&["exec", "x"])),
    node(&["npx"], NPM, NodeTool::First),
    node(&["pnpm"], PNPM, NodeTool::After(&["exec", "dlx", "x"])),
    node(&["pnpx"], PNPM, NodeTool::First),
    node(&["yarn"], YARN, NodeTool::After(&["exec", "dlx", "run"])),
    node(&["bun"], BUN, NodeTool::After(&["x", "exec"])),
    node(&["bunx"], BUN, NodeTool::First),
    Program {
        includes: Includes::Make,
        ..plain(&["make", "gmake"], MAKE)
    },
    Program {
        includes: Includes::Just,
        ..plain(
            &["just"],
            &["justfile", ".justfile", "Justfile", "JUSTFILE", ".env"],
        )
    },
    Program {
        extra: &[("run", &["src"]), ("xtask", &["xtask"])],
        ..plain(
            &["cargo"],
            &[
                "Cargo.toml",
                "Cargo.lock",
                ".cargo/config.toml",
                ".cargo/config",
                "build.rs",
                "rust-toolchain.toml",
                "rust-toolchain",
            ],
        )
    },
    plain(
        &["uv"],
        &["pyproject.toml", "uv.lock", "uv.toml", ".python-version"],
    ),
    plain(
        &["poetry"],
        &["pyproject.toml", "poetry.lock", "poetry.toml"],
    ),
    plain(&["pdm"], &["pyproject.toml", "pdm.lock", "pdm.toml"]),
    plain(&["hatch"], &["pyproject.toml", "hatch.toml"]),
    plain(&["pipenv"], &["Pipfile", "Pipfile.lock"]),
    plain(&["tox"], &["tox.ini", "pyproject.toml", "setup.cfg"]),
    plain(&["nox"], &["noxfile.py"]),
    plain(
        &["task", "go-task"],
        &[
            "Taskfile.yml",
            "Taskfile.yaml",
            "taskfile.yml",
            "taskfile.yaml",
            "Taskfile.dist.yml",
            "Taskfile.dist.yaml",
            "taskfile.dist.yml",
            "taskfile.dist.yaml",
        ],
    ),
    plain(
        &["rake"],
        &[
            "Rakefile",
            "rakefile",
            "Rakefile.rb",
            "rakefile.rb",
            "rakelib",
        ],
    ),
    plain(&["bundle"], &["Gemfile", "Gemfile.lock", ".bundle/config"]),
    plain(&["gradle", "gradlew"], GRADLE),
    plain(&["mvn", "mvnw"], &["pom.xml", ".mvn"]),
    plain(&["composer"], &["composer.json", "composer.lock"]),
    plain(&["deno"], &["deno.json", "deno.jsonc", "deno.lock"]),
    plain(&["go"], &["go.mod", "go.sum", "go.work"]),
];

const fn plain(names: &'static [&'static str], manifests: &'static [&'static str]) -> Program {
    Program {
        names,
        manifests,
        extra: &[],
        includes: Includes::None,
        node_tool: NodeTool::None,
    }
}

const fn node(
    names: &'static [&'static str],
    manifests: &'static [&'static str],
    node_tool: NodeTool,
) -> Program {
    Program {
        node_tool,
        ..plain(names, manifests)
    }
}

/// Options that name the folder a program runs its definitions in.
const DIR_OPTIONS: [&str; 6] = ["-C", "--directory", "--prefix", "--cwd", "--dir", "--root"];
/// Options that name the definitions file itself.
const FILE_OPTIONS: [&str; 7] = [
    "-f",
    "--file",
    "--makefile",
    "--justfile",
    "--manifest-path",
    "--taskfile",
    "--gemfile",
];
/// The most files an `include` chain adds.
pub(super) const MAX_INCLUDED: usize = 64;

/// What [`reached`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reached {
    /// Each manifest, included file, node tool and package folder, present
    /// or not (a missing one is bound as missing).
    pub roots: Vec<PathBuf>,
    /// The `node_modules/.bin` tools among them that exist (they shadow
    /// the installed program of that name).
    pub shadowing: Vec<PathBuf>,
}

impl Reached {
    /// Whether the command runs nothing of the folder it runs in.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    pub(super) fn add(&mut self, path: PathBuf) {
        if !self.roots.contains(&path) {
            self.roots.push(path);
        }
    }
}

/// The definitions `raw` (a command line, run in `cwd`) executes: see the
/// module documentation. `project_hook`: bind a node tool's absence too.
pub fn reached(raw: &str, cwd: &Path, project_hook: bool) -> Reached {
    let mut found = Reached::default();
    reached_within(raw, cwd, project_hook, &mut found, 0);
    found
}

/// How deep `sh -c` strings and `package.json` scripts are followed.
const MAX_NESTING: usize = 4;

pub(super) fn reached_within(
    raw: &str,
    cwd: &Path,
    project_hook: bool,
    found: &mut Reached,
    depth: usize,
) {
    if depth > MAX_NESTING {
        return;
    }
    let mut base = cwd.to_path_buf();
    for words in simple_commands(raw) {
        let words = skip_prefixes(&words);
        let Some(first) = words.first() else { continue };
        if let Some(script) = shell_script(&words) {
            reached_within(script, &base, project_hook, found, depth + 1);
            continue;
        }
        if first == "cd" {
            if let Some(dir) = words.get(1) {
                base = base.join(hermes_hooks_core::home::expand_tilde(dir));
            }
            continue;
        }
        let name = base_name(first);
        if let Some(program) = PROGRAMS.iter().find(|p| p.names.contains(&name.as_str())) {
            program_reaches(program, &words[1..], &base, (project_hook, depth), found);
        }
    }
}

fn program_reaches(
    program: &Program,
    args: &[String],
    base: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    let mut dir = base.to_path_buf();
    let mut named_files = Vec::new();
    let mut plain_words = Vec::new();
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let (option, inline) = match word.split_once('=') {
            Some((option, value)) if word.starts_with("--") => (option, Some(value.to_owned())),
            _ => (word.as_str(), None),
        };
        let takes_dir = DIR_OPTIONS.contains(&option);
        let takes_file = FILE_OPTIONS.contains(&option);
        if takes_dir || takes_file {
            let Some(value) = inline.or_else(|| iter.next().cloned()) else {
                break;
            };
            if takes_dir {
                dir = dir.join(hermes_hooks_core::home::expand_tilde(&value));
            } else {
                named_files.push(value);
            }
        } else if !word.starts_with('-') {
            plain_words.push(word.clone());
        }
    }
    let tool = match program.node_tool {
        NodeTool::None => None,
        NodeTool::First => plain_words.first(),
        NodeTool::After(subcommands) => plain_words
            .split_first()
            .filter(|(sub, _)| subcommands.contains(&sub.as_str()))
            .and_then(|(_, rest)| rest.first()),
    };
    if let Some(tool) = tool {
        node_tool(tool, &dir, project_hook, found);
        return;
    }
    for manifest in program.manifests {
        found.add(dir.join(manifest));
    }
    for (subcommand, roots) in program.extra {
        if plain_words.first().is_some_and(|w| w == subcommand) {
            roots.iter().for_each(|root| found.add(dir.join(root)));
        }
    }
    if program.manifests.first() == Some(&"package.json") {
        package_scripts(&plain_words, &dir, (project_hook, depth), found);
    }
    let mut files: Vec<PathBuf> = named_files.iter().map(|f| dir.join(f)).collect();
    files.extend(program.manifests.iter().map(|m| dir.join(m)));
    for file in files {
        found.add(file.clone());
        if program.includes != Includes::None {
            follow_includes(&file, &dir, program.includes, found, 0);
        }
    }
}

/// `node_modules/.bin/<tool>` of the nearest folder from `dir` up that has
/// one, and its package folder; for a project's hook, `dir`'s own path when
/// there is none (creating it later is a change).
pub(super) fn node_tool(tool: &str, dir: &Path, project_hook: bool, found: &mut Reached) {
    // `eslint@8`, `@scope/cli@1`: the bin is the package's last name part.
    let name = tool
        .rsplit_once('@')
        .filter(|(head, _)| !head.is_empty())
        .map_or(tool, |(head, _)| head);
    let name = name.rsplit('/').next().unwrap_or(name);
    if name.is_empty() || name.contains("..") {
        return;
    }
    let bin = dir
        .ancestors()
        .map(|folder| folder.join("node_modules/.bin").join(name))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_ok());
    let Some(bin) = bin else {
        if project_hook {
            found.add(dir.join("node_modules/.bin").join(name));
        }
        return;
    };
    found.add(bin.clone());
    found.shadowing.push(bin.clone());
    if let Some(package) = package_folder(&bin, name) {
        found.add(package);
    }
}

/// The package folder a `.bin` entry belongs to: the folder right under a
/// `node_modules` (or `node_modules/@scope`) that its link target is in;
/// for a shim that is no link, `node_modules/<name>` when it exists.
fn package_folder(bin: &Path, name: &str) -> Option<PathBuf> {
    let modules = bin.parent()?.parent()?;
    let target = std::fs::canonicalize(bin).ok()?;
    if std::fs::symlink_metadata(bin).is_ok_and(|m| m.file_type().is_symlink()) {
        let mut child = target.as_path();
        for folder in target.ancestors().skip(1) {
            let in_modules = folder.file_name().is_some_and(|n| n == "node_modules");
            let in_scope = folder.file_name().is_some_and(|n| {
                n.to_string_lossy().starts_with('@')
                    && folder
                        .parent()
                        .and_then(Path::file_name)
                        .is_some_and(|p| p == "node_modules")
            });
            if in_modules || in_scope {
                return Some(child.to_path_buf());
            }
            child = folder;
        }
        return None;
    }
    let package = modules.join(name);
    package.is_dir().then_some(package)
}

mod follow;
#[cfg(test)]
mod tests;
