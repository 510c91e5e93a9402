//! Where the hidden paths really are. Landlock grants by the file a path
//! leads to, so a secret store reached through a link (`~/.ssh ->
//! dotfiles/ssh`, a `~/.config` that is a link) is hidden where it leads
//! too, else a rule on `~/dotfiles` would grant it. The links met on the
//! way are kept from being re-pointed by a hook that may write where they
//! are: a re-pointed link would move what the next run hides, not the
//! secret.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
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
    real_hidden_by(Walker::for_paths(hidden), hidden)
}

fn real_hidden_by(mut walker: Walker, hidden: &[PathBuf]) -> RealHidden {
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
/// per walker, and each folder a path is in walked once (the hidden paths
/// share their folders: the home, `.config`, `.local/share`), so a path
/// costs the look at its last part. A folder many paths are in is read
/// once instead: a name it does not hold costs nothing more (most secret
/// stores are not there). Paths are keyed by their bytes (hashing a `Path`
/// parses its components).
#[derive(Default)]
struct Walker {
    seen: HashMap<OsString, Node>,
    /// Where each folder (as spelled) of the paths resolved so far leads.
    folders: HashMap<OsString, Walked>,
    /// The folders (as spelled) that hold at least [`CROWDED`] of the paths.
    crowded: HashSet<OsString>,
    /// The names in each crowded folder (by where it leads), read once.
    listings: HashMap<OsString, HashSet<OsString>>,
}

/// How many paths of a folder make reading it cheaper than looking at each.
const CROWDED: usize = 6;

/// Where a walk led.
#[derive(Default)]
struct Walked {
    /// The path it led to (the rest as spelled past a missing part);
    /// `None` past [`MAX_LINKS`] links.
    real: Option<PathBuf>,
    /// The links met on the way, in order.
    links: Vec<PathBuf>,
    /// How many links were followed.
    followed: usize,
    /// Whether a missing part was met (nothing past it was looked at).
    missing: bool,
}

impl Walker {
    /// A walker for `paths`, the folders holding many of them marked crowded.
    fn for_paths(paths: &[PathBuf]) -> Walker {
        let mut counts: HashMap<&OsStr, usize> = HashMap::new();
        for folder in paths.iter().filter_map(|path| path.parent()) {
            *counts.entry(folder.as_os_str()).or_default() += 1;
        }
        Walker {
            crowded: (counts.into_iter())
                .filter(|(_, count)| *count >= CROWDED)
                .map(|(folder, _)| folder.to_os_string())
                .collect(),
            ..Walker::default()
        }
    }

    fn node(&mut self, path: &Path) -> Node {
        if let Some(node) = self.seen.get(path.as_os_str()) {
            return node.clone();
        }
        let unlisted = match (path.parent(), path.file_name()) {
            (Some(folder), Some(name)) => {
                (self.listings.get(folder.as_os_str())).is_some_and(|names| !names.contains(name))
            }
            _ => false,
        };
        let looked = if unlisted {
            Err(std::io::ErrorKind::NotFound.into())
        } else {
            std::fs::symlink_metadata(path)
        };
        let node = match looked {
            Ok(metadata) if metadata.file_type().is_symlink() => match std::fs::read_link(path) {
                Ok(target) => Node::Link(target),
                Err(_) => Node::Missing,
            },
            Ok(metadata) if metadata.is_dir() => Node::Folder,
            Ok(_) => Node::Other,
            Err(_) => Node::Missing,
        };
        self.seen
            .insert(path.as_os_str().to_os_string(), node.clone());
        node
    }

    /// Whether `real` (a path [`Walker::resolve`] returned) is a folder.
    fn is_folder(&mut self, real: &Path) -> bool {
        matches!(self.node(real), Node::Folder)
    }

    /// Where absolute `path` leads, each link met added to `links`; `None`
    /// for a path that goes through more than [`MAX_LINKS`] links. The
    /// folder it is in is walked once per walker, its last part each time.
    fn resolve(&mut self, path: &Path, links: &mut Vec<PathBuf>) -> Option<PathBuf> {
        let (Some(Component::Normal(name)), Some(folder)) =
            (path.components().next_back(), path.parent())
        else {
            let walked = self.walk(path);
            links.extend(walked.links);
            return walked.real;
        };
        if !self.folders.contains_key(folder.as_os_str()) {
            let walked = self.walk(folder);
            if let (Some(real), false) = (&walked.real, walked.missing)
                && self.crowded.contains(folder.as_os_str())
                && let Ok(entries) = std::fs::read_dir(real)
            {
                let names = entries.flatten().map(|entry| entry.file_name());
                (self.listings).insert(real.as_os_str().to_os_string(), names.collect());
            }
            self.folders
                .insert(folder.as_os_str().to_os_string(), walked);
        }
        let walked = &self.folders[folder.as_os_str()];
        links.extend(walked.links.iter().cloned());
        let real = walked.real.clone()?;
        let followed = walked.followed;
        if walked.missing {
            return Some(real.join(name));
        }
        let mut pending = vec![Part::Name(name.to_os_string())];
        let rest = self.walk_from(real, followed, &mut pending);
        links.extend(rest.links);
        rest.real
    }

    /// Where absolute `path` leads, walked from the root.
    fn walk(&mut self, path: &Path) -> Walked {
        let mut pending = Vec::new();
        push_parts(&mut pending, path);
        self.walk_from(PathBuf::from("/"), 0, &mut pending)
    }

    /// Walks the `pending` parts from `real`, `followed` links already
    /// followed.
    fn walk_from(
        &mut self,
        mut real: PathBuf,
        mut followed: usize,
        pending: &mut Vec<Part>,
    ) -> Walked {
        let mut links = Vec::new();
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
                        return Walked {
                            links,
                            followed,
                            ..Walked::default()
                        };
                    }
                    links.push(next);
                    push_parts(pending, &target);
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
                    return Walked {
                        real: Some(real),
                        links,
                        followed,
                        missing: true,
                    };
                }
            }
        }
        Walked {
            real: Some(real),
            links,
            followed,
            ..Walked::default()
        }
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
    fn a_crowded_folder_read_once_leads_where_each_look_would() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(home.join("dotfiles/aws")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".netrc"), "x").unwrap();
        symlink("dotfiles/aws", home.join(".aws")).unwrap();
        symlink("../vault", home.join(".ssh/key")).unwrap();
        let names = [
            ".ssh", ".aws", ".netrc", ".a", ".b", ".c", ".d", ".e", ".aws/x",
        ];
        let hidden: Vec<PathBuf> = names.iter().map(|name| home.join(name)).collect();
        let walker = Walker::for_paths(&hidden);
        assert!(walker.crowded.contains(home.as_os_str()));
        let read_once = real_hidden_by(walker, &hidden);
        assert_eq!(read_once, real_hidden_by(Walker::default(), &hidden));
        assert!(read_once.hidden.contains(&home.join("dotfiles/aws/x")));
        assert!(read_once.hidden.contains(&home.join("vault")));
        assert_eq!(read_once.links, [home.join(".ssh/key"), home.join(".aws")]);
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
