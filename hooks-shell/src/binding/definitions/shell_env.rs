//! The environment a shell's commands give the programs after them:
//! `export X=v`, `X=v; export X`, `set -a` (red team rounds 69 and 70),
//! and one name set again taking its new value.

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
    let setting = first.is_some_and(|at| {
        matches!(
            words[at].as_str(),
            "export" | "readonly" | "declare" | "typeset" | "local"
        )
    });
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
    if !matches!(
        first.as_str(),
        "export" | "readonly" | "declare" | "typeset" | "local"
    ) {
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
