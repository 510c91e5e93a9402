//! What differs between a binding computed now and the approved one, said
//! for people (the reason a hook asks again).

use super::Binding;

impl Binding {
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
        for (path, hash) in &self.files {
            match approved.files.get(path) {
                Some(old) if old == hash => {}
                Some(_) => changes.push(format!("{} changed", path.display())),
                None => changes.push(format!("{} is new", path.display())),
            }
        }
        for path in approved
            .files
            .keys()
            .filter(|p| !self.files.contains_key(*p))
        {
            changes.push(format!("{} is no longer run", path.display()));
        }
        if self.tree != approved.tree {
            changes.push("a file of its hook tree changed".to_owned());
        }
        if self.request != approved.request {
            changes.push("its request (URL, headers or allowed env vars) changed".to_owned());
        }
        for (name, hash) in &self.env {
            match approved.env.get(name) {
                Some(old) if old == hash => {}
                Some(_) => changes.push(format!("the value of env {name} changed")),
                None => changes.push(format!("env {name} is new")),
            }
        }
        for name in approved.env.keys().filter(|n| !self.env.contains_key(*n)) {
            changes.push(format!("env {name} is no longer set"));
        }
        for (path, hash) in &self.definitions {
            match approved.definitions.get(path) {
                Some(old) if old == hash => {}
                Some(_) => changes.push(format!("{} changed", path.display())),
                None => changes.push(format!("{} is new", path.display())),
            }
        }
        for path in approved
            .definitions
            .keys()
            .filter(|p| !self.definitions.contains_key(*p))
        {
            changes.push(format!("{} is no longer run", path.display()));
        }
        for (path, hash) in &self.mentioned {
            match approved.mentioned.get(path) {
                Some(old) if old == hash => {}
                Some(_) => changes.push(format!("{} (named by its code) changed", path.display())),
                None => changes.push(format!("its code names {}", path.display())),
            }
        }
        for path in approved
            .mentioned
            .keys()
            .filter(|p| !self.mentioned.contains_key(*p))
        {
            changes.push(format!("its code no longer names {}", path.display()));
        }
        changes
    }
}
