//! An imported hook as consent sees it ([`Subject`]): keyed on its Hermes
//! event and [`ImportedHook::consent_command`], bound to its project, to the
//! files its command reaches and, when those cannot all be named, to its hook
//! tree (the file that configures it, the `hooks/` folder beside it, the
//! plugin root); an http hook to its whole request.

use std::path::PathBuf;

use hermes_hooks_core::HookEvent;
use hermes_hooks_core::home::expand_tilde;
use serde_json::json;

use super::direct::simple_argv;
use super::{Handler, ImportedHook, Scope};
use crate::binding::Subject;

impl ImportedHook {
    /// This hook as consent sees it.
    pub fn subject(&self) -> Subject {
        let line = match &self.handler {
            Handler::Command {
                command,
                args: None,
            } => Some(self.substitute_in_line(command)),
            _ => None,
        };
        let (words, request) = match &self.handler {
            Handler::Command {
                command,
                args: Some(args),
            } => {
                let mut words = vec![expand_tilde(&self.substitute(command))];
                words.extend(args.iter().map(|arg| self.substitute(arg)));
                (Some(words), None)
            }
            Handler::Command {
                command,
                args: None,
            } => {
                let line = self.substitute_in_line(command);
                let words = simple_argv(&line, &self.environment())
                    .or_else(|| shlex::split(&self.consent_command()));
                (words, None)
            }
            Handler::Http {
                url,
                headers,
                allowed_env_vars,
            } => {
                let request = json!({
                    "method": "POST",
                    "url": url,
                    "headers": headers.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
                    "allowed_env_vars": allowed_env_vars,
                });
                (None, Some(request))
            }
        };
        let tree = self.tree_roots(words.as_deref());
        Subject {
            event: self.event().map_or("", HookEvent::as_str).to_owned(),
            command: self.consent_command(),
            project: Some(self.project.clone()),
            words,
            cwd: self.cwd.clone(),
            tree,
            request,
            source: Some(self.source.clone()),
            env: self.settings_env.clone(),
            bind_tree: self.scope == Scope::Project,
            line,
        }
    }

    /// The hook tree of its source: the file, the `hooks/` folder beside it
    /// (or the folder it is in, when that is `hooks/`), the plugin root. For
    /// a project's file inside a folder of the project (`.claude/`,
    /// `.cursor/`, `.codex/`), that whole top-level folder instead of the
    /// file and `hooks/`: a script may reach any file there.
    ///
    /// A project's hook also binds each top-level folder of the project that
    /// holds a script its command names (`scripts/check.sh`,
    /// `python3 tools/check.py`): that script may run, source or import any
    /// file there ([`super::script_folders`]).
    fn tree_roots(&self, words: Option<&[String]>) -> Vec<PathBuf> {
        let tool_folder = (self.scope == Scope::Project)
            .then(|| self.source.strip_prefix(&self.project).ok())
            .flatten()
            .and_then(|inside| {
                let mut parts = inside.components();
                let top = parts.next()?;
                // A file right at the project's top has no folder of its own.
                parts.next().map(|_| self.project.join(top))
            });
        let mut roots = match (tool_folder, self.source.parent()) {
            (Some(folder), _) => vec![folder],
            (None, Some(dir)) => {
                let hooks = if dir.file_name().is_some_and(|n| n == "hooks") {
                    dir.to_path_buf()
                } else {
                    dir.join("hooks")
                };
                vec![self.source.clone(), hooks]
            }
            (None, None) => vec![self.source.clone()],
        };
        if let Some(root) = &self.plugin_root
            && !roots.contains(root)
        {
            roots.push(root.clone());
        }
        if self.scope == Scope::Project {
            let line = match &self.handler {
                Handler::Command { command, .. } => self.substitute_in_line(command),
                Handler::Http { .. } => String::new(),
            };
            for folder in super::script_folders::top_folders(&self.project, &self.cwd, &line, words)
            {
                if !roots.contains(&folder) {
                    roots.push(folder);
                }
            }
        }
        roots
    }
}
