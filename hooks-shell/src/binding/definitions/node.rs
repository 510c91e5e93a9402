//! What Node loads of the folder it runs in by a relative name (red team
//! round 52, H52-4, H52-6): `node tools/m` runs `tools/m.js`, inline code
//! (`node -e 'require("./m")'`) resolves `./m` from that folder, as does
//! any code's `require(path.resolve("m"))` or `require(process.cwd() +
//! "/m")`, and `-r ./x` / `--import ./x` preload a file there. Each file
//! Node may pick for such a name (`m`, `m.js`, `m.cjs`, `m.mjs`, `m.json`,
//! `m.node`, `m/index.js`, `m/package.json`...) is bound, present or
//! absent: a repository adding or changing one asks again.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::Reached;
pub(crate) use super::node_specs::cwd_specs;

/// The endings Node tries after a name, in its order, then a folder's.
const TRIED: [&str; 9] = [
    "",
    ".js",
    ".cjs",
    ".mjs",
    ".json",
    ".node",
    "/index.js",
    "/index.json",
    "/package.json",
];

/// Node's options whose value is code.
const CODE_OPTIONS: [&str; 4] = ["-e", "--eval", "-p", "--print"];

/// Node's options whose value is a file it loads first.
const PRELOADS: [&str; 5] = [
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
];

/// Node's other options that take a value as the next word.
const VALUED: [&str; 6] = [
    "--input-type",
    "--conditions",
    "-C",
    "--env-file",
    "--title",
    "--stack-size",
];

/// Binds what `args` (a `node`'s, run in `dir`) loads of `dir` by a
/// relative name: its script, inline code's relative requires, preloads.
pub(super) fn node_files(args: &[String], dir: &Path, found: &mut Reached) {
    let mut words = args.iter();
    let mut inline = false;
    while let Some(word) = words.next() {
        let (option, attached) = match word.split_once('=') {
            Some((option, value)) if option.starts_with("--") => (option, Some(value.to_owned())),
            _ => (word.as_str(), None),
        };
        let takes = CODE_OPTIONS.contains(&option)
            || PRELOADS.contains(&option)
            || VALUED.contains(&option);
        if takes {
            let Some(value) = attached.or_else(|| words.next().cloned()) else {
                break;
            };
            if CODE_OPTIONS.contains(&option) {
                inline = true;
                for spec in cwd_specs(&value, true) {
                    bind_spec(&spec, dir, found);
                }
            } else if PRELOADS.contains(&option) && is_relative(&value) {
                bind_spec(&value, dir, found);
            } else if option == "--env-file" {
                // It may set `NODE_OPTIONS` (a preload) for the run.
                found.add(dir.join(&value));
            }
            continue;
        }
        // A redirection (`<<E`, `< f`, `2>&1`): its file is no script.
        if word
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .starts_with(['<', '>', '&'])
        {
            if word.trim_end_matches(['<', '>', '&', '-', '|']).is_empty()
                || word
                    .chars()
                    .all(|c| c.is_ascii_digit() || "<>&".contains(c))
            {
                words.next();
            }
            continue;
        }
        if word == "--" || !word.starts_with('-') {
            let script = match word.as_str() {
                "--" => words.next(),
                _ => Some(word),
            };
            if let Some(script) = script.filter(|_| !inline)
                && !script.starts_with(['/', '~', '$'])
                && script != "-"
            {
                bind_spec(script, dir, found);
            }
            break;
        }
    }
}

/// Binds what Node code fed on its input (`node <<E`, `echo … | node`)
/// in the shell text `raw` loads from `dir` by a relative name: the text's
/// every relative `require`, as no reading here tells which text is fed.
pub(super) fn fed_code(raw: &str, dir: &Path, found: &mut Reached) {
    static NODE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(?:node|nodejs)\b").expect("valid regex"));
    if (raw.contains("<<") || raw.contains('|')) && NODE.is_match(raw) {
        for spec in cwd_specs(raw, true) {
            bind_spec(&spec, dir, found);
        }
    }
}

/// Binds each file Node may load for `spec` from `dir`.
pub(crate) fn bind_spec(spec: &str, dir: &Path, found: &mut Reached) {
    let base = spec.trim_end_matches('/');
    let base = base.strip_prefix("./").unwrap_or(base);
    if base.is_empty() || base.contains("://") || base.starts_with(['/', '~', '$']) {
        return;
    }
    for ending in TRIED {
        let path = dir.join(format!("{base}{ending}"));
        // A folder is bound by the files Node reads in it, not as a tree.
        if !path.is_dir() {
            found.add(path);
        }
    }
}

/// Whether a preload's `value` names a file, not a package.
fn is_relative(value: &str) -> bool {
    value.starts_with("./") || value.starts_with("../")
}

#[cfg(test)]
mod tests {
    use super::super::reached;

    #[test]
    fn node_binds_what_it_loads_of_its_folder_by_a_relative_name() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("tools")).expect("mkdir");
        for (command, file) in [
            ("node tools/m", "tools/m.js"),
            ("node tools/m --fast", "tools/m.cjs"),
            ("node -e 'require(\"./m\")'", "m.js"),
            ("node -e 'try{require(\"./m\")}catch(e){}'", "m.json"),
            ("node --eval='import(\"./tools/m\")'", "tools/m.mjs"),
            ("node -p 'require(\"./tools\")'", "tools/index.js"),
            ("node -r ./pre x.js", "pre.js"),
            ("node --import=./pre.mjs x.js", "pre.mjs"),
            ("node --env-file .env x.js", ".env"),
            ("node <<E\nrequire(\"./m\")\nE", "m.js"),
            ("echo 'require(\"./tools/m\")' | node", "tools/m.js"),
        ] {
            let found = reached(command, root, false);
            assert!(
                found.roots.contains(&root.join(file)),
                "{command}: {found:?}"
            );
        }
        // A package, an absolute script, no relative name: nothing here.
        for command in [
            "node -e 'require(\"fs\")'",
            "node /opt/x.js",
            "node ~/.claude/hooks/x.js",
            "node --version",
        ] {
            assert!(reached(command, root, false).is_empty(), "{command}");
        }
    }
}
