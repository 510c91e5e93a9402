//! Where the hidden paths really are. Landlock grants by the file a path
//! leads to, so a secret store reached through a link (`~/.ssh ->
//! dotfiles/ssh`, a `~/.config` that is a link) is hidden where it leads
//! too, else a rule on `~/dotfiles` would grant it. The links met on the
//! way are kept from being re-pointed by a hook that may write where they
//! are: a re-pointed link would move what the next run hides, not the
//! secret.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// How many links one path may go through (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// The hidden paths as spelled and where each leads, with the links met.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RealHidden {
    /// Every hidden path as spelled, then, for each one a link leads
    /// elsewhere, where it leads (its links followed; for a path that does
    /// not exist, its deepest existing folder resolved and the rest as
    /// spelled), unless that is a device.
    pub hidden: Vec<PathBuf>,
    /// Each link met on the way to a hidden path, named with its folder
    /// resolved (the link itself not followed).
    pub links: Vec<PathBuf>,
}

/// `hidden` and where each of its paths really is (see [`RealHidden`]).
/// A link right inside a hidden folder (stow's `~/.ssh/id_ed25519 ->
/// ../dotfiles/ssh/.ssh/id_ed25519`) leads to a secret too: where it leads
/// is hidden as well (one level only: a deeper one is not looked for). A
/// relative path is kept as spelled only.
pub(crate) fn real_hidden(hidden: &[PathBuf]) -> RealHidden {
    let mut walker = Walker::default();
    let mut out = RealHidden {
        hidden: hidden.to_vec(),
        links: Vec::new(),
    };
    for path in hidden.iter().filter(|path| path.is_absolute()) {
        let Some(real) = out.add(&mut walker, path) else {
            continue;
        };
        if walker.is_folder(&real) {
            for link in links_in(&real) {
                out.add(&mut walker, &link);
            }
        }
    }
    out
}

impl RealHidden {
    /// Adds where `path` leads (unless it is spelled so) and the links on
    /// the way; returns where it leads.
    fn add(&mut self, walker: &mut Walker, path: &Path) -> Option<PathBuf> {
        let mut links = Vec::new();
        let real = walker.resolve(path, &mut links);
        for link in links {
            if !self.links.contains(&link) {
                self.links.push(link);
            }
        }
        let real = real?;
        // Most lead where they are spelled: compared as bytes first.
        let elsewhere = real.as_os_str() != path.as_os_str();
        if elsewhere && may_hold_secrets(&real) && !self.hidden.contains(&real) {
            self.hidden.push(real.clone());
        }
        Some(real)
    }
}

/// The links right inside folder `dir`.
fn links_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_symlink()))
        .map(|entry| entry.path())
        .collect()
}

/// Whether `real` may hold a secret: a file, a folder, or nothing yet; not
/// a device (a shell history linked to `/dev/null` hides no `/dev`).
fn may_hold_secrets(real: &Path) -> bool {
    std::fs::metadata(real).map_or(true, |metadata| metadata.is_file() || metadata.is_dir())
}

/// What a path is, as `lstat` (and `readlink`) saw it.
#[derive(Clone)]
enum Node {
    /// Not there (or not reachable: a file on the way, no permission).
    Missing,
    /// A symbolic link, with what it holds.
    Link(PathBuf),
    /// A folder.
    Folder,
    /// Any other file.
    Other,
}

/// One part of a path still to walk.
enum Part {
    Root,
    Parent,
    Name(OsString),
}

/// Resolves paths one component at a time, each component looked at once
/// per walker (the hidden paths share their first folders).
#[derive(Default)]
struct Walker {
    seen: HashMap<PathBuf, Node>,
}

impl Walker {
    fn node(&mut self, path: &Path) -> Node {
        if let Some(node) = self.seen.get(path) {
            return node.clone();
        }
        let node = match std::fs::symlink_metadata(path) {
            Ok(metadata) if metadata.file_type().is_symlink() => match std::fs::read_link(path) {
                Ok(target) => Node::Link(target),
                Err(_) => Node::Missing,
            },
            Ok(metadata) if metadata.is_dir() => Node::Folder,
            Ok(_) => Node::Other,
            Err(_) => Node::Missing,
        };
        self.seen.insert(path.to_path_buf(), node.clone());
        node
    }

    /// Whether `real` (a path [`Walker::resolve`] returned) is a folder.
    fn is_folder(&mut self, real: &Path) -> bool {
        matches!(self.node(real), Node::Folder)
    }

    /// Where absolute `path` leads, each link met added to `links`; `None`
    /// for a path that goes through more than [`MAX_LINKS`] links.
    fn resolve(&mut self, path: &Path, links: &mut Vec<PathBuf>) -> Option<PathBuf> {
        let mut pending = Vec::new();
        push_parts(&mut pending, path);
        let mut real = PathBuf::from("/");
        let mut followed = 0;
        while let Some(part) = pending.pop() {
            let name = match part {
                Part::Root => {
                    real = PathBuf::from("/");
                    continue;
                }
                Part::Parent => {
                    real.pop();
                    continue;
                }
                Part::Name(name) => name,
            };
            let next = real.join(&name);
            match self.node(&next) {
                Node::Folder | Node::Other => real = next,
                Node::Link(target) => {
                    followed += 1;
                    if followed > MAX_LINKS {
                        return None;
                    }
                    links.push(next);
                    push_parts(&mut pending, &target);
                }
                Node::Missing => {
                    // The rest as spelled: nothing there to follow.
                    real = next;
                    while let Some(part) = pending.pop() {
                        match part {
                            Part::Root => real = PathBuf::from("/"),
                            Part::Parent => {
                                real.pop();
                            }
                            Part::Name(name) => real.push(name),
                        }
                    }
                }
            }
        }
        Some(real)
    }
}

/// Pushes the parts of `path` onto `pending` so that its first part is popped first.
fn push_parts(pending: &mut Vec<Part>, path: &Path) {
    let parts: Vec<Part> = path
        .components()
        .filter_map(|component| match component {
            Component::RootDir | Component::Prefix(_) => Some(Part::Root),
            Component::CurDir => None,
            Component::ParentDir => Some(Part::Parent),
            Component::Normal(name) => Some(Part::Name(name.to_os_string())),
        })
        .collect();
    pending.extend(parts.into_iter().rev());
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn a_hidden_path_behind_links_is_hidden_where_it_leads() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        std::fs::create_dir_all(home.join("dotfiles/ssh")).unwrap();
        std::fs::create_dir_all(home.join("dotfiles/config")).unwrap();
        std::fs::create_dir_all(root.join("data")).unwrap();
        symlink("dotfiles/ssh", home.join(".ssh")).unwrap();
        symlink("dotfiles/config", home.join(".config")).unwrap();
        symlink("../data/x", home.join("chain")).unwrap();
        symlink(root.join("data/aws"), root.join("data/x")).unwrap();
        symlink("chain", home.join(".aws")).unwrap();
        symlink("loop", home.join("loop")).unwrap();
        symlink("/dev/null", home.join(".bash_history")).unwrap();
        // Stow's way: a real folder whose files are links.
        std::fs::create_dir_all(home.join(".gnupg")).unwrap();
        std::fs::write(home.join("vault-key"), "KEY").unwrap();
        symlink("../vault-key", home.join(".gnupg/key")).unwrap();
        let hidden = [
            home.join(".ssh"),
            home.join(".config/gh"),
            home.join(".aws"),
            home.join(".gnupg"),
            home.join("loop/x"),
            home.join("dotfiles/../.ssh"),
            home.join(".bash_history"),
            PathBuf::from("relative"),
        ];
        let real = real_hidden(&hidden);
        let mut expected = hidden.to_vec();
        expected.extend([
            home.join("dotfiles/ssh"),
            home.join("dotfiles/config/gh"),
            root.join("data/aws"),
            home.join("vault-key"),
        ]);
        assert_eq!(real.hidden, expected);
        assert_eq!(
            real.links,
            [
                home.join(".ssh"),
                home.join(".config"),
                home.join(".aws"),
                home.join("chain"),
                root.join("data/x"),
                home.join(".gnupg/key"),
                home.join("loop"),
                home.join(".bash_history"),
            ]
        );
    }

    #[test]
    fn a_path_without_links_is_kept_as_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".ssh")).unwrap();
        let hidden = [root.join(".ssh"), root.join(".aws/credentials")];
        assert_eq!(
            real_hidden(&hidden),
            RealHidden {
                hidden: hidden.to_vec(),
                links: Vec::new(),
            }
        );
    }
}
