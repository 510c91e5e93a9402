//! The folder of a script itself, however its text spells it
//! (`$(dirname "$0")`, `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`,
//! `${BASH_SOURCE%/*}`), and the variables it sets to that folder: read as
//! the folder, so the files it sources or runs from there are found
//! (R42-7, R43-8).

use std::path::Path;

/// The variables `text` sets once to its script's own folder
/// (`SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"`), and
/// that folder (R42-7).
pub(super) fn own_folders(text: &str, dir: &Path) -> Vec<(String, String)> {
    static ASSIGNED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?m)^\s*(?:(?:export|local|readonly|declare)\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$",
        )
        .expect("valid regex")
    });
    let mut found: Vec<(String, String)> = Vec::new();
    let mut twice = Vec::new();
    for assigned in ASSIGNED.captures_iter(text) {
        let name = assigned[1].to_owned();
        if found.iter().any(|(known, _)| *known == name) {
            twice.push(name.clone());
        }
        let value = assigned[2].trim();
        // `"$(…)"`: a substitution's own quotes stay (shlex does not read it).
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value)
            .to_owned();
        // `L=$D/lib.sh` of a `D` found before (R43-8).
        let folder = beside(&with_folder(&value, &found), dir);
        if folder != value && !folder.contains('$') {
            found.push((name, folder));
        } else {
            twice.push(name);
        }
    }
    found.retain(|(name, _)| !twice.contains(name));
    found
}

/// `word` with a leading `$NAME` / `${NAME}` of `folders` as its folder.
pub(super) fn with_folder(word: &str, folders: &[(String, String)]) -> String {
    for (name, folder) in folders {
        for spelling in [format!("${{{name}}}"), format!("${name}")] {
            if let Some(rest) = word.strip_prefix(&spelling)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return format!("{folder}{rest}");
            }
        }
    }
    word.to_owned()
}

/// `text` with each spelling of the folder of the script itself that
/// [`beside`] reads (`$(dirname "$0")`, `$(cd "$(dirname "$0")" && pwd)`...)
/// as `dir`, wherever it stands.
pub(super) fn with_own_folder(text: &str, dir: &Path) -> String {
    static ITSELF: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(&itself()).expect("valid regex"));
    let folder = dir.display().to_string();
    ITSELF
        .replace_all(text, regex::NoExpand(&folder))
        .into_owned()
}

/// A spelling of the folder of the script itself: `$(dirname "$0")`,
/// `$(dirname -- "${BASH_SOURCE[0]}")`, `$(cd "$(dirname "$0")" && pwd)`,
/// `${BASH_SOURCE%/*}`, `${0%/*}`.
fn itself() -> String {
    // `"$0"`, `"${BASH_SOURCE[0]}"`, or its real path (`"$(realpath "$0")"`,
    // `"$(readlink -f "$0")"`: R43-8).
    let own = r#"\$(?:0|\{0\}|\{?BASH_SOURCE(?:\[0\])?\}?)"#;
    let dirname = format!(
        r#"dirname\s+(?:--\s+)?"?(?:{own}|\$\(\s*(?:realpath|readlink\s+-[fem])\s+(?:--\s+)?"?{own}"?\s*\))"?\s*"#
    );
    let quiet = r#"(?:\s*(?:>\s*/dev/null|&>\s*/dev/null|2>&1))*"#;
    format!(
        r#"(?:\$\(\s*{dirname}\)|\$\(\s*cd\s+(?:--\s+)?"?\$\(\s*{dirname}\)"?{quiet}\s*&&\s*pwd(?:\s+-P)?\s*\)|\$\{{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}})"#
    )
}

/// `word` with a leading folder of the script itself (`$(dirname "$0")`,
/// `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`, `${BASH_SOURCE%/*}`)
/// as `dir`, the folder of the script that sources it (R42-7).
pub(super) fn beside(word: &str, dir: &Path) -> String {
    static LEADING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(&format!("^{}(/.*)?$", itself())).expect("valid regex")
    });
    match LEADING.captures(word) {
        Some(found) => format!(
            "{}{}",
            dir.display(),
            found.get(1).map_or("", |rest| rest.as_str())
        ),
        None => word.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_own_folder_is_read_in_each_spelling() {
        let dir = Path::new("/p/.claude/hooks");
        for word in [
            r#"$(dirname "$0")/lib.sh"#,
            "$(dirname $0)/lib.sh",
            r#"$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"#,
            r#"$(cd "$(dirname "$0")" && pwd)/lib.sh"#,
            r#"$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )/lib.sh"#,
            "${BASH_SOURCE%/*}/lib.sh",
            "${0%/*}/lib.sh",
            r#"$(dirname "$(realpath "$0")")/lib.sh"#,
            r#"$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"#,
        ] {
            assert_eq!(beside(word, dir), "/p/.claude/hooks/lib.sh", "{word}");
        }
        assert_eq!(beside("$(dirname x)/lib.sh", dir), "$(dirname x)/lib.sh");
    }

    #[test]
    fn a_variable_set_once_to_the_scripts_folder_names_it() {
        let dir = Path::new("/p/h");
        let text = "#!/bin/bash\nSCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n\
                    source \"$SCRIPT_DIR/lib.sh\"\nTWICE=\"$(dirname \"$0\")\"\nTWICE=/x\n";
        let folders = own_folders(text, dir);
        assert_eq!(folders, vec![("SCRIPT_DIR".to_owned(), "/p/h".to_owned())]);
        assert_eq!(with_folder("$SCRIPT_DIR/lib.sh", &folders), "/p/h/lib.sh");
        assert_eq!(with_folder("${SCRIPT_DIR}/lib.sh", &folders), "/p/h/lib.sh");
        assert_eq!(with_folder("$TWICE/lib.sh", &folders), "$TWICE/lib.sh");
        let chained = own_folders("D=$(dirname \"$0\")\nL=$D/lib.sh\n", dir);
        assert_eq!(with_folder("$L", &chained), "/p/h/lib.sh");
    }
}
