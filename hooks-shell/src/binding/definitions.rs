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
use super::search_path::with_project;
use super::shell::{shell_script, simple_commands};
use super::wrappers::{change_folder, run_folders, unwrap};
use cargo_config::cargo_config_files;
use follow::follow_includes;
pub(crate) use make_text::makefile_from_input;
pub(crate) use node::code_reaches as node_code_reaches;
pub(super) use node::node_tool;
use npm::package_scripts;
use options::Options;
use table::PROGRAMS;

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
    /// How its options are read.
    options: Options,
    /// Whether it looks for its manifests in the folders above too, when
    /// the one it runs in has none (all but `make`): those found are bound.
    upward: bool,
    /// A linter or formatter whose settings are code (`eslint`, `prettier`):
    /// read where it runs, but no runner of the folder's definitions (it is
    /// given any file, wherever the tool call names one).
    settings_only: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Includes {
    None,
    Make,
    Just,
}

/// The most definition files one command's reading reads (a makefile
/// whose recipes run make on itself is read that often at most).
pub(super) const MAX_READS: usize = 256;

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
    /// Why what the command reads cannot be named exactly (an option
    /// spelling or a wrapper this reading does not take apart, code given
    /// inline): its approval then binds the hook tree too.
    pub opaque: Option<String>,
    /// Why a recipe or script it runs names a file computed when it runs
    /// (`sh $$(printf tools/g.%s sh)` in a `Makefile`): it cannot be
    /// approved (R44-12).
    pub computed: Option<String>,
    /// The folder the command starts in, which `$CLAUDE_PROJECT_DIR`
    /// names (R37-5).
    pub(crate) top: PathBuf,
    /// How many recipes deep the reading is (`$(MAKE)` in a recipe).
    pub(crate) nesting: usize,
    /// How many definition files were read (at most [`MAX_READS`]).
    pub(crate) reads: usize,
    /// Whether the commands read are ones code starts (`subprocess.run`):
    /// a Python they start imports from the folder it runs in, for the
    /// user's hook too (its `PYTHONSAFEPATH` is the command's: H52-7).
    pub(crate) code_started: bool,
    /// Whether that code feeds what it starts (`input=`, `stdin=`,
    /// `.communicate(`, `.stdin.write`): a Python reading its program
    /// from its input gets it from the code (H53-3).
    pub(crate) feeds_input: bool,
    /// Whether the makefile being read is read with others for one run
    /// (`make -f a.mk -f b.mk`): a rule of another may add prerequisites
    /// to a target of its own, so its `$^` is not what it writes.
    pub(crate) makefiles_together: bool,
    /// Folders whose entries' names and kinds are bound: a glob of npm's
    /// `workspaces` (`pk/*`) or cargo's vendored sources may pick a folder
    /// added there later.
    pub(crate) listed: Vec<PathBuf>,
    /// The environment the program being read was given (`CARGO_HOME=ch
    /// make`, `export X=v; npm test`, a makefile's `export X = v`), which
    /// what it runs inherits: its recipes and scripts are read with it
    /// (red team round 70, C-01g).
    pub(crate) inherited: Vec<(String, String)>,
    /// What a `just` command line sets (`just X=v b`, `--set X v`), which
    /// wins over the justfile's own values.
    pub(crate) overrides: Vec<(String, String)>,
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

    /// With what the scripts of `found` execute in turn (`make` in a
    /// script); an error when a recipe or script it runs computes a name.
    pub(super) fn with_scripts(
        mut self,
        found: &super::Identified,
    ) -> Result<Reached, super::BindError> {
        if let Some(why) = &self.computed {
            return Err(super::BindError::Computed(why.clone()));
        }
        for root in &found.definitions {
            self.add(root.clone());
        }
        Ok(self)
    }

    fn unsure(&mut self, program: &str, why: &str) {
        self.opaque
            .get_or_insert_with(|| format!("{program}: {why}"));
    }
}

/// The definitions `raw` (a command line, run in `cwd`) executes: see the
/// module documentation. `project_hook`: bind a node tool's absence too.
pub fn reached(raw: &str, cwd: &Path, project_hook: bool) -> Reached {
    let mut found = Reached {
        top: cwd.to_path_buf(),
        ..Reached::default()
    };
    reached_within(raw, cwd, project_hook, &mut found, 0);
    node::fed_code(raw, cwd, &mut found);
    found
}

/// [`reached`] of the commands code starts (shell lines); `feeds_input`:
/// the code feeds them input.
pub(crate) fn reached_from_code(raw: &str, cwd: &Path, feeds_input: bool) -> Reached {
    let mut found = Reached {
        top: cwd.to_path_buf(),
        code_started: true,
        feeds_input,
        ..Reached::default()
    };
    // The files they run, as a recipe's (`["python3", "tools"]`, a zip
    // app: round 55, H55-8), then the definitions they execute.
    follow::recipe_files(raw, cwd, &mut found);
    reached_within(raw, cwd, false, &mut found, 0);
    found
}

/// Whether `next` is `words` read again with values the text gives its
/// names (each word the same, or one holding an expansion).
fn read_again(words: &[String], next: &[String]) -> bool {
    words != next
        && words.len() == next.len()
        && words
            .iter()
            .zip(next)
            .all(|(word, value)| word == value || word.contains(['$', '`']))
}

/// Why one of `words` (a program, a folder or file it reads) is named only
/// when the command runs: a word the shell reading left unexpanded (`$d`,
/// `` `…` ``, `$(…)`); the folder it runs in (`$PWD`, `$(pwd)`) is known.
fn computed_place<'a>(words: impl IntoIterator<Item = &'a String>) -> Option<String> {
    let word = words
        .into_iter()
        .find(|word| crate::binding::wrappers::computed(word))?;
    Some(format!(
        "it runs, or reads the definitions of, a program, folder or file named only when it runs \
         (`{word}`)"
    ))
}

/// Whether the shell expands `word` (a glob, braces) to other words.
fn wrappers_expand(word: &str) -> bool {
    crate::binding::wrappers::expands(word)
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
    // What `raw` sets stays in `raw`: the commands after the program that
    // ran it do not get it.
    let entry = found.inherited.clone();
    read_commands(raw, cwd, project_hook, found, depth);
    found.inherited = entry;
}

/// [`reached_within`], the environment `found.inherited` given.
fn read_commands(raw: &str, cwd: &Path, project_hook: bool, found: &mut Reached, depth: usize) {
    // Past a name computed when it runs, nothing more read matters: it
    // cannot be approved (round 56: scripts running each other stalled).
    if depth > MAX_NESTING || found.computed.is_some() {
        return;
    }
    let mut bases = vec![cwd.to_path_buf()];
    let commands = simple_commands(raw);
    // `export CARGO_HOME=ch; cargo build`: variables exported before a
    // program are its environment too (round 69), after those it was
    // given.
    let mut exported: Vec<(String, String)> = found.inherited.clone();
    for (at, words) in commands.iter().enumerate() {
        // `d=a; make -C $d`: read again right after with the value the
        // text gives (`make -C a`): the literal `$d` is no folder it names.
        let again = commands
            .get(at + 1)
            .is_some_and(|next| read_again(words, next));
        set_all(&mut exported, environment_set(words));
        // `export $(cat vars.txt)`: names known only when it runs.
        if let Some(why) = shell_env::exports_computed(words) {
            found.computed.get_or_insert(why);
            return;
        }
        // `. ./env.sh; cargo build`: what the sourced file exports.
        for base in bases.clone() {
            let sourced = sourced::environment(words, &base, found);
            set_all(&mut exported, sourced);
        }
        let unwrapped = unwrap(words);
        if let Some(why) = crate::binding::shell::unread_reason(words) {
            found.computed.get_or_insert(why);
            return;
        }
        // What it runs (`sh -c`, a recipe, a script) inherits its
        // environment.
        found.inherited = exported.clone();
        set_all(&mut found.inherited, unwrapped.assignments.iter().cloned());
        if let Some(why) = &unwrapped.unsure {
            found.unsure("a wrapper", why);
        }
        let words = unwrapped.words;
        let Some(first) = words.first() else { continue };
        // A folder a wrapper runs it in named by a word the reading could
        // not expand (`env -C $d`): read literally, it bound nothing (round
        // 65).
        if let Some(why) = computed_place(&unwrapped.chdir).filter(|_| !again) {
            found.computed.get_or_insert(why);
            return;
        }
        let heres: Vec<PathBuf> = bases
            .iter()
            .flat_map(|base| run_folders(base, &unwrapped.chdir))
            .collect();
        // `eval export X=v`, `X=v eval cargo build`: its words are shell
        // text, what it sets stays for the commands after it (round 73).
        if first == "eval" {
            let text = words[1..].join(" ");
            for command in simple_commands(&text) {
                set_all(&mut exported, environment_set(&command));
            }
            for here in &heres {
                reached_within(&text, here, project_hook, found, depth + 1);
            }
            continue;
        }
        if let Some(script) = shell_script(&words) {
            if let Some(why) = moved_by_arguments::moves(script) {
                found.computed.get_or_insert(why);
                return;
            }
            for here in &heres {
                reached_within(script, here, project_hook, found, depth + 1);
            }
            continue;
        }
        if let Some(inner) = launchers::launched(&words) {
            for here in &heres {
                reached_within(&inner, here, project_hook, found, depth + 1);
            }
            continue;
        }
        // `python3 -c "…run(['make', 'lint'])"`: what its code starts (H52-5).
        let started = super::identify::inline_started(&base_name(first), &words[1..]);
        if !started.is_empty() {
            let outer = std::mem::replace(&mut found.code_started, true);
            for here in &heres {
                reached_within(&started.join("\n"), here, project_hook, found, depth + 1);
            }
            found.code_started = outer;
        }
        if matches!(first.as_str(), "cd" | "pushd") {
            // `cd ?`, `cd {a,b}`: a folder of the project the shell picks
            // (round 66); one of the home folder's (`cd ~/b?n`) is the
            // user's own.
            let picked = words[1..]
                .iter()
                .find(|w| !w.contains('$') && !w.starts_with(['~', '/']) && wrappers_expand(w));
            if let Some(word) = picked.filter(|_| !again) {
                found.computed.get_or_insert(format!(
                    "it changes to a folder the shell picks when it runs (`{word}`)"
                ));
                return;
            }
            match change_folder(&words[1..]) {
                // A folder past the system's path limit: nothing there can
                // be named to bind it (round 72, LP-01..03: the reading
                // failed and bound nothing).
                Ok(dir) if heres.iter().any(|base| too_long(&base.join(&dir))) => {
                    found.computed.get_or_insert_with(|| {
                        format!(
                            "it changes to a folder whose path is longer than the system allows \
                             ({PATH_LIMIT} bytes): what it runs there cannot be read"
                        )
                    });
                    return;
                }
                Ok(dir) => {
                    // Where it was stays too: a `cd` in a subshell (`(cd a &&
                    // make); make`) does not move the commands after it.
                    for base in &heres {
                        for moved in run_folders(base, std::slice::from_ref(&dir)) {
                            if !bases.contains(&moved) && bases.len() < 8 {
                                bases.push(moved);
                            }
                        }
                    }
                }
                Err(why) => found.unsure(first, &why),
            }
            continue;
        }
        // `python3 -m pylint`: the tool its module is (round 62).
        let (name, words) = match python::module_tool(&words) {
            Some(tool) => tool,
            None => (base_name(first), words.clone()),
        };
        if let Some(why) = package_runners::unread(&name, &words[1..]) {
            found.computed.get_or_insert(why);
            return;
        }
        if let Some(program) = PROGRAMS.iter().find(|p| p.names.contains(&name.as_str())) {
            let environment = found.inherited.clone();
            let read = options::read(program.options, &words[1..], &environment);
            if let Some(why) = &read.unsure {
                found.unsure(&name, why);
            }
            if let Some(why) =
                computed_place(read.chdir.iter().chain(&read.files).chain(&read.manifests))
                    .filter(|_| !again)
            {
                found.computed.get_or_insert(why);
                return;
            }
            for here in &heres {
                program_reaches(program, &read, here, (project_hook, depth), found);
                if program.names.contains(&"pip") {
                    let args = with_project(&words[1..], &found.top.clone(), here);
                    pip::local_projects(&args, &unwrapped.assignments, here, found);
                }
            }
        } else if (project_hook || found.code_started)
            && matches!(name.as_str(), "python" | "python3")
        {
            for here in &heres {
                let at = (here.as_path(), project_hook);
                let environment = found.inherited.clone();
                python::python_modules(&words[1..], &environment, at, found);
            }
        } else if matches!(name.as_str(), "node" | "nodejs") {
            for here in &heres {
                node::node_files(&words[1..], here, found);
            }
        } else if name == "git"
            && let Some(at) = words.iter().position(|word| word == "-C")
            && words
                .get(at + 1)
                .is_some_and(|folder| crate::binding::wrappers::computed(folder))
            && !again
        {
            // `git -C ? status`: a repository the shell picks (round 66).
            found.computed.get_or_insert_with(|| {
                format!(
                    "git runs in a folder named only when it runs (`{}`)",
                    words[at + 1]
                )
            });
            return;
        } else if name == "git" {
            // What the repository's settings make it run (round 62).
            for here in &heres {
                let at = (project_hook, depth);
                let environment = found.inherited.clone();
                git_config::read(&words[1..], &environment, here, at, found);
            }
        }
    }
}

/// The longest path the system takes (`PATH_MAX`, with its NUL).
const PATH_LIMIT: usize = 4096;

/// Whether `path` is longer than the system takes.
fn too_long(path: &Path) -> bool {
    path.as_os_str().len() >= PATH_LIMIT
}

/// Whether `program` (a base name) is in the table, a linter reading its
/// settings where it runs too.
fn in_table(program: &str) -> bool {
    PROGRAMS.iter().any(|known| known.names.contains(&program))
}

/// Whether `program` (a base name) runs the definitions of the folder it
/// runs in (a Makefile, a `package.json`, a `pom.xml`...: the table).
pub(crate) fn runs_folder_definitions(program: &str) -> bool {
    PROGRAMS
        .iter()
        .any(|known| known.names.contains(&program) && !known.settings_only)
}

mod cargo_code;
mod cargo_config;
mod follow;
mod git_config;
mod git_hooks;
mod git_reaches;
mod husky;
mod just_env;
mod launchers;
mod make_text;
mod moved_by_arguments;
mod node;
mod node_specs;
mod npm;
mod options;
mod package_runners;
mod pip;
mod pre_commit_hook;
mod python;
mod reaches;
mod shell_env;
mod sourced;
use reaches::program_reaches;
use shell_env::{environment_set, set_all};
#[cfg(test)]
mod spellings;
mod table;
#[cfg(test)]
mod tests;
mod tool_code;
mod toolchain;
mod walk;
pub(super) mod workspaces;
