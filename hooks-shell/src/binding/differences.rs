//! What differs between a binding computed now and the approved one, said
//! for people (the reason a hook asks again).

use std::collections::BTreeMap;
use std::fmt::Display;

use super::Binding;

/// How one map's changes are said: an entry changed, new, gone.
struct Said<K> {
    changed: fn(&K) -> String,
    new: fn(&K) -> String,
    gone: fn(&K) -> String,
}

/// What differs between `now` and `approved`, said as `said` says it.
fn map_changes<K: Ord, V: PartialEq>(
    now: &BTreeMap<K, V>,
    approved: &BTreeMap<K, V>,
    said: &Said<K>,
    changes: &mut Vec<String>,
) {
    for (key, value) in now {
        match approved.get(key) {
            Some(old) if old == value => {}
            Some(_) => changes.push((said.changed)(key)),
            None => changes.push((said.new)(key)),
        }
    }
    for key in approved.keys().filter(|k| !now.contains_key(*k)) {
        changes.push((said.gone)(key));
    }
}

fn shown(path: &impl AsRef<std::path::Path>) -> impl Display + '_ {
    path.as_ref().display()
}

impl Binding {
    /// The files this (approved) binding runs, and the definitions it runs
    /// (a `Makefile`), whose content differs now, said as
    /// [`Binding::differences`] says them: read before all the hook
    /// reaches is read again, so a script swapped for one too large or
    /// intricate to read is "changed" at once instead of costing the
    /// reading's budget on every run (red team round 64, U-01).
    pub fn changed_files(&self) -> Vec<String> {
        let run = self
            .files
            .iter()
            .filter(|(file, hash)| **hash != super::run_file_digest(file));
        let definitions = self.definitions.iter().filter(|(root, hash)| {
            super::tree_sha256(std::slice::from_ref(*root))
                .ok()
                .as_ref()
                != Some(*hash)
        });
        run.chain(definitions)
            .map(|(file, _)| format!("{} changed", shown(file)))
            .collect()
    }

    /// What differs from `other` (the approved binding), for messages.
    pub fn differences(&self, approved: &Binding) -> Vec<String> {
        let mut changes = Vec::new();
        if self.project != approved.project {
            changes.push(format!(
                "approved in another project ({})",
                approved
                    .project
                    .as_ref()
                    .map_or("none".to_owned(), |p| p.display().to_string())
            ));
        }
        let run = Said {
            changed: |p: &std::path::PathBuf| format!("{} changed", shown(p)),
            new: |p| format!("{} is new", shown(p)),
            gone: |p| format!("{} is no longer run", shown(p)),
        };
        map_changes(&self.files, &approved.files, &run, &mut changes);
        if self.tree != approved.tree {
            changes.push("a file of its hook tree changed".to_owned());
        }
        if self.request != approved.request {
            changes.push("its request (URL, headers or allowed env vars) changed".to_owned());
        }
        let env = Said {
            changed: |name: &String| format!("the value of env {name} changed"),
            new: |name| format!("env {name} is new"),
            gone: |name| format!("env {name} is no longer set"),
        };
        map_changes(&self.env, &approved.env, &env, &mut changes);
        map_changes(&self.definitions, &approved.definitions, &run, &mut changes);
        let named = Said {
            changed: |p: &std::path::PathBuf| format!("{} (named by its code) changed", shown(p)),
            new: |p| format!("its code names {}", shown(p)),
            gone: |p| format!("its code no longer names {}", shown(p)),
        };
        map_changes(&self.mentioned, &approved.mentioned, &named, &mut changes);
        changes
    }
}
