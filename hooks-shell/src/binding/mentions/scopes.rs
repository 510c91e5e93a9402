//! The manifests a loader reads beside the code it loads (red team round
//! 8, R8-3): node resolves `import "#util"` through the `imports` map of
//! the nearest `package.json`, and the package's own name (`import
//! "proj/util"`) through its `exports`; Deno and Bun read `deno.json`'s
//! import map and `tsconfig.json`'s `paths`. No word of the script names
//! them, so a JavaScript or TypeScript file read binds the nearest of each
//! from its folder up to the project, read in turn for the files they name
//! (`./src/u.js`, conditions nested, patterns as globs).

use std::path::Path;

use super::{Kind, Names};

/// Files node, Deno, Bun or a TypeScript runner loads through a scope
/// manifest.
const SCRIPT_EXTENSIONS: [&str; 8] = ["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"];

/// The manifests of a script's scope: the nearest of each is read.
const SCOPE_MANIFESTS: [&str; 5] = [
    "package.json",
    "deno.json",
    "deno.jsonc",
    "tsconfig.json",
    "jsconfig.json",
];

impl Names {
    /// Binds the nearest scope manifest of each name from the folder of
    /// `file` (a script) up to the project.
    pub(super) fn bind_scope_manifests(&mut self, file: &Path) {
        let script = file
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SCRIPT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
        if !script || !file.starts_with(&self.project) {
            return;
        }
        let mut wanted: Vec<&str> = SCOPE_MANIFESTS.to_vec();
        let mut folder = file.parent();
        while let Some(here) = folder {
            if !here.starts_with(&self.project) || wanted.is_empty() {
                break;
            }
            let listing = self.listing(here);
            let (present, absent): (Vec<&str>, Vec<&str>) = wanted
                .into_iter()
                .partition(|name| listing.get(*name) == Some(&Kind::File));
            for name in present {
                self.add_file(here.join(name));
            }
            wanted = absent;
            folder = here.parent();
        }
    }
}
