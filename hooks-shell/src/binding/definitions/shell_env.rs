//! The environment a shell's commands give the programs after them:
//! `export X=v`, `X=v; export X`, `set -a` (red team rounds 69 and 70),
//! and one name set again taking its new value.

/// The builtins that set variables for the commands after them.
const SETTERS: [&str; 5] = ["export", "readonly", "declare", "typeset", "local"];

/// The variables `words` (one command) sets for the programs after it:
/// `export X=v`, `readonly`/`declare -x` ones, and a command of
/// assignments alone (`X=v; export X`, `set -a`: each read as exported,
/// which binds more, never less; round 70).
pub(super) fn environment_set(words: &[String]) -> Vec<(String, String)> {
    let assignment = |word: &String| {
        let (name, value) = word.split_once('=')?;
        let named = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        named.then(|| (name.to_owned(), value.to_owned()))
    };
    // `CARGO_HOME=ch export CARGO_HOME`: assignments before the builtin too.
    let first = words.iter().position(|word| assignment(word).is_none());
    let setting = first.is_some_and(|at| SETTERS.contains(&words[at].as_str()));
    match setting {
        true => words.iter().filter_map(assignment).collect(),
        false if words.iter().all(|word| assignment(word).is_some()) => {
            words.iter().filter_map(assignment).collect()
        }
        false => Vec::new(),
    }
}

/// `environment` with each of `set`, a name set again taking its new
/// value (readings look a name up once).
pub(super) fn set_all(
    environment: &mut Vec<(String, String)>,
    set: impl IntoIterator<Item = (String, String)>,
) {
    for (name, value) in set {
        environment.retain(|(known, _)| *known != name);
        environment.push((name, value));
    }
}

/// Why `words` (one command) exports variables whose names are known
/// only when it runs (`export $(cat vars.txt)`, `export $(xargs <
/// .env)`, `declare -x "$n=v"`): what they steer cannot be read.
pub(super) fn exports_computed(words: &[String]) -> Option<String> {
    let first = words.first()?;
    if !SETTERS.contains(&first.as_str()) {
        return None;
    }
    let computed = words[1..]
        .iter()
        .filter(|word| !word.starts_with('-'))
        .find(|word| {
            let name = word.split('=').next().unwrap_or(word);
            name.contains(['$', '`'])
        })?;
    Some(format!(
        "it exports variables whose names are known only when it runs (`{first} {computed}`)"
    ))
}

/// The `NAME=value` lines of a dotenv-style file `path` (`export ` and
/// quotes around a value left out; just's and tox's `.env`): none when it
/// is missing, an error when it is there but cannot be read whole (a FIFO,
/// too large: what it sets would go unread).
pub(super) fn env_file(path: &std::path::Path) -> Result<Vec<(String, String)>, String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(Vec::new());
    }
    let text = super::follow::read_definition(path).ok_or_else(|| {
        format!(
            "{} cannot be read whole, so the variables it sets cannot be read",
            path.display()
        )
    })?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let (name, value) = line
                .strip_prefix("export ")
                .unwrap_or(line)
                .split_once('=')?;
            let name = name.trim();
            let named =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let value = value.trim().trim_matches(['"', '\'']);
            named.then(|| (name.to_owned(), value.to_owned()))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::env_file;

    #[test]
    fn a_dotenv_file_is_read_or_refused_never_skipped() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert_eq!(env_file(&dir.path().join("none")), Ok(Vec::new()));
        let file = dir.path().join(".env");
        std::fs::write(&file, "export A=\"1\"\n# c\nB=2\n").expect("write");
        let read = env_file(&file).expect("read");
        assert_eq!(
            read,
            [
                ("A".to_owned(), "1".to_owned()),
                ("B".to_owned(), "2".to_owned())
            ]
        );
        // A folder (or a FIFO) where the file should be: not read, refused.
        std::fs::create_dir(dir.path().join("d.env")).expect("dir");
        assert!(env_file(&dir.path().join("d.env")).is_err());
    }
}
