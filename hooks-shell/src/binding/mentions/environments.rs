//! A Python environment a project hook's code reaches: bound whole by
//! metadata, never read as a tree (R27-1); what its own files say of the
//! project's code it runs (an editable install, a link into the project, a
//! `.pth` import line, a console script: red team round 28, R28-1 to
//! R28-3) is read and bound ([`crate::binding::environment`]).

use std::path::PathBuf;

use super::{Names, read};

impl Names {
    /// Binds the Python `environment` whole (by metadata, never read as a
    /// tree: R27-1), its own files that lead into the project read as code,
    /// and the project code they lead to (an editable install, a link into
    /// the project: R28-1 to R28-3) bound with every code file it holds.
    pub(super) fn add_environment(&mut self, environment: PathBuf) {
        if !self.files.insert(environment.clone()) {
            return;
        }
        let reaching = crate::binding::environment::reaching(&environment, &self.project);
        for file in reaching.read {
            self.queue.push((file, None));
        }
        for path in reaching.whole {
            if path.is_dir() {
                // Bound whole by what each entry is, a file added too
                // (a new `.pth` in a site folder: R28b-1).
                self.files.insert(path.clone());
                for file in read::code_files_under(&path) {
                    self.add_file(file);
                }
                self.add_place(path, true);
            } else {
                self.add_file(path);
            }
        }
    }
}
