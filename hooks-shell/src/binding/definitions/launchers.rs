//! Programs that start another command from their own words (red team
//! round 53, H53-4): `xargs make -s`, `find . -exec make {} \;`, `script
//! -qc 'make lint'`, `watch make`, `flock F make`. What the started
//! command runs of the folder it runs in is read as if it stood alone.

use crate::binding::identify::base_name;

/// `xargs` options that take the next word as their value.
const XARGS_VALUED: [&str; 9] = ["-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E", "-e"];

/// The shell text of the command `words` (assignments and wrappers read
/// through) starts, when its program is a launcher.
pub(super) fn launched(words: &[String]) -> Option<String> {
    let (program, args) = words.split_first()?;
    let inner: Vec<String> = match base_name(program).as_str() {
        "xargs" => after_options(args, &XARGS_VALUED),
        "find" => {
            let at = args
                .iter()
                .position(|w| matches!(w.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))?;
            args[at + 1..]
                .iter()
                .take_while(|w| !matches!(w.as_str(), ";" | "\\;" | "+"))
                .cloned()
                .collect()
        }
        "script" => {
            let at = args.iter().position(|w| {
                w == "--command" || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))
            })?;
            return args.get(at + 1).cloned();
        }
        "watch" => after_options(args, &["-n", "-d", "--interval"]),
        "flock" => {
            let rest = after_options(args, &["-w", "-E", "--timeout", "--conflict-exit-code"]);
            // `flock FILE command…`, or `flock FILE -c text`.
            let (_, command) = rest.split_first()?;
            if let Some(at) = command.iter().position(|w| w == "-c" || w == "--command") {
                return command.get(at + 1).cloned();
            }
            command.to_vec()
        }
        _ => return None,
    };
    (!inner.is_empty()).then(|| {
        inner
            .iter()
            .map(|word| shlex::try_quote(word).map_or_else(|_| word.clone(), |q| q.into_owned()))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// `args` from the first word that is no option or option value on.
fn after_options(args: &[String], valued: &[&str]) -> Vec<String> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if valued.contains(&word.as_str()) {
            words.next();
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        let mut rest = vec![word.clone()];
        rest.extend(words.cloned());
        return rest;
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::super::reached;

    #[test]
    fn a_command_a_launcher_starts_is_read() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        for command in [
            "echo lint | xargs make -s",
            "echo lint | xargs -n 1 -P 2 make -s",
            "find . -maxdepth 0 -exec make -s lint \\;",
            "script -qc 'make -s lint' /dev/null",
            "flock /tmp/l make -s lint",
            "flock /tmp/l -c 'make -s lint'",
        ] {
            let found = reached(command, root, false);
            assert!(
                found.roots.contains(&root.join("Makefile")),
                "{command}: {found:?}"
            );
        }
    }
}
