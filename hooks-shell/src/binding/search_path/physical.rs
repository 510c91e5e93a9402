//! Where a path of a hook's text leads, links followed: a word inside the
//! project by name may lead out of it through a link (`out -> /tmp/x`, red
//! team R30-11), and a copy there is a copy outside.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where paths lead, links followed, against the project's own folder:
/// each folder is resolved once.
pub(super) struct Physical {
    project: PathBuf,
    real_project: Option<PathBuf>,
    resolved: HashMap<PathBuf, bool>,
}

impl Physical {
    pub(super) fn of(project: &Path) -> Physical {
        Physical {
            project: project.to_path_buf(),
            real_project: std::fs::canonicalize(project).ok(),
            resolved: HashMap::new(),
        }
    }

    /// Whether `path` lies outside the project, by name or where the
    /// nearest existing folder holding it leads.
    pub(super) fn outside(&mut self, path: &Path) -> bool {
        let path = crate::binding::normalize(path);
        if !path.starts_with(&self.project) {
            return true;
        }
        let Some(real_project) = self.real_project.clone() else {
            return false;
        };
        for folder in path.ancestors() {
            if folder == self.project {
                return false;
            }
            if let Some(outside) = self.resolved.get(folder) {
                return *outside;
            }
            let Ok(meta) = std::fs::symlink_metadata(folder) else {
                continue;
            };
            // A link that leads nowhere yet (`out -> /tmp/x`, made by the
            // hook's own run) may lead anywhere: outside.
            let outside = meta.file_type().is_symlink()
                && std::fs::canonicalize(folder)
                    .map_or(true, |real| !real.starts_with(&real_project))
                || self.outside_above(folder);
            self.resolved.insert(folder.to_path_buf(), outside);
            return outside;
        }
        false
    }

    /// Whether a folder above `path` (inside the project by name) leads
    /// outside it.
    fn outside_above(&mut self, path: &Path) -> bool {
        path.parent()
            .is_some_and(|parent| parent != self.project && self.outside(parent))
    }

    /// Whether the relative word `word`, from `cwd`, is a path leading out
    /// of the project: by `..` or through a link (R30-11).
    pub(super) fn relative_outside(&mut self, cwd: &Path, word: &str) -> bool {
        if word.is_empty()
            || word.starts_with(['/', '$', '~', '-'])
            || word.contains(['=', '`', '\\', '\n'])
            || word.contains(['*', '?', '[', '{'])
            || word.contains("://")
        {
            return false;
        }
        // Most words name nothing: one look at their first part tells.
        let first = word.split('/').next().unwrap_or(word);
        if first != ".." && std::fs::symlink_metadata(cwd.join(first)).is_err() {
            return false;
        }
        cwd.starts_with(&self.project) && self.outside(&cwd.join(word))
    }
}

#[cfg(test)]
mod tests {
    use super::Physical;

    #[test]
    fn a_word_through_a_link_out_of_the_project_or_above_it_is_outside() {
        let top = tempfile::tempdir().expect("temp");
        let project = top.path().join("project");
        let elsewhere = top.path().join("elsewhere");
        std::fs::create_dir_all(project.join("lib/deep")).expect("lib");
        std::fs::create_dir_all(&elsewhere).expect("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, project.join("out")).expect("link");
        std::os::unix::fs::symlink("lib", project.join("inner")).expect("link");
        let later = top.path().join("later");
        std::os::unix::fs::symlink(later, project.join("dangling")).expect("link");
        let mut physical = Physical::of(&project);
        for word in [
            "out",
            "out/c",
            "out/c/check.py",
            "..",
            "../x",
            "lib/../../x",
            "dangling/c",
        ] {
            assert!(physical.relative_outside(&project, word), "{word}");
        }
        for word in [
            "lib",
            "lib/deep/x.py",
            "inner/deep",
            "missing/x",
            "$D/x",
            "/tmp/x",
            "o*",
        ] {
            assert!(!physical.relative_outside(&project, word), "{word}");
        }
    }
}
