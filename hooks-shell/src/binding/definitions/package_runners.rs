//! `npx`, `npm exec` (`pnpm dlx`, `bunx`, `yarn dlx`) in the forms that
//! run what no reading binds (red team round 58, H58-10): a command line
//! of their own (`npx -c "eslint ."`, `--call`), run with the project's
//! tools first on `PATH`; a package named by a path (`npx ./tools/pkg`,
//! `file:tools/pkg`, `--package=./tools/pkg`), whose `bin` they run. Such a
//! command cannot be approved; `npx eslint` is read as before.

/// Why `name` given `args` runs what no reading binds, if it does.
pub(super) fn unread(name: &str, args: &[String]) -> Option<String> {
    let sub = args.iter().position(|word| !word.starts_with('-'));
    let args = match name {
        "npx" | "pnpx" | "bunx" => args,
        "npm" | "pnpm" | "yarn" | "bun" => match sub {
            Some(at) if matches!(args[at].as_str(), "exec" | "x" | "dlx") => &args[at + 1..],
            _ => return None,
        },
        _ => return None,
    };
    let by_path = |spec: &str| spec.starts_with(['.', '/', '~']) || spec.starts_with("file:");
    let mut words = args.iter().peekable();
    while let Some(word) = words.next() {
        let value = word.split_once('=').map(|(_, value)| value);
        let unread = match word.as_str() {
            "-c" | "--call" => true,
            "-p" | "--package" => words.peek().is_some_and(|next| by_path(next)),
            "--" => words.peek().is_some_and(|next| by_path(next)),
            _ if word.starts_with("--call=") => true,
            _ if word.starts_with("--package=") => value.is_some_and(by_path),
            _ if word.starts_with('-') => false,
            // The first word that is no option: the tool, or its package.
            tool => {
                if by_path(tool) {
                    return Some(said(name, tool));
                }
                return None;
            }
        };
        if unread {
            return Some(said(name, word));
        }
    }
    None
}

fn said(name: &str, word: &str) -> String {
    format!(
        "{name} {word} runs a command line, or a package by its path, that no reading binds; \
         run the tool by its name (`npx eslint`)"
    )
}

#[cfg(test)]
mod tests {
    use super::unread;

    fn words(text: &str) -> Vec<String> {
        shlex::split(text).expect("words")
    }

    #[test]
    fn command_lines_and_packages_by_path_are_unread() {
        for (name, args) in [
            ("npx", "-c 'eslint --version'"),
            ("npx", "--call 'eslint .'"),
            ("npm", "exec -c 'eslint .'"),
            ("npx", "--offline ./tools/pkg"),
            ("npx", "--offline -p ./tools/pkg lintpkg"),
            ("npm", "exec --offline --package=./tools/pkg -- lintpkg"),
            ("npx", "--offline file:tools/pkg"),
        ] {
            assert!(unread(name, &words(args)).is_some(), "{name} {args}");
        }
        for (name, args) in [
            ("npx", "eslint src/"),
            ("npx", "--yes prettier --write ./src/a.ts"),
            ("npx", "-p eslint eslint ."),
            ("npm", "exec eslint -- ./src"),
            ("npm", "run lint"),
            ("npm", "test"),
        ] {
            assert_eq!(unread(name, &words(args)), None, "{name} {args}");
        }
    }
}
