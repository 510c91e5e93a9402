//! A `-c` text that moves to a folder its own arguments name: `sh -c 'cd
//! "$(dirname "$0")" && make -s lint' "$f"` runs the Makefile of the tool
//! call's folder, which no reading binds (red team round 58, H58-8).

/// Why a `-c` text moves to a folder its own arguments name (`sh -c 'cd
/// "$(dirname "$0")" && make' "$f"`: round 58, H58-8): a substitution
/// reading `$0`..`$9`, `$@` or `$*` where it changes folder (`cd`, `-C`).
pub(super) fn moves(script: &str) -> Option<String> {
    static POSITIONAL_IN_SUBSTITUTION: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"\$\([^)]*\$\{?[0-9@*]|`[^`]*\$\{?[0-9@*]"#).expect("valid regex")
        });
    static MOVES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:^|[;&|(\s])(?:cd|pushd)\s|\s-C\s*\S|--directory|--chdir")
            .expect("valid regex")
    });
    (POSITIONAL_IN_SUBSTITUTION.is_match(script) && MOVES.is_match(script)).then(|| {
        format!(
            "its shell text `{}` moves to a folder its arguments name when it runs",
            script.chars().take(80).collect::<String>()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::moves;

    #[test]
    fn a_move_to_a_folder_its_arguments_name_is_found() {
        for script in [
            "cd \"$(dirname \"$0\")\" && make -s lint",
            "make -s -C \"$(dirname \"$0\")\" lint",
            "cd `dirname \"$1\"`; make",
        ] {
            assert!(moves(script).is_some(), "{script}");
        }
        for script in [
            "make -s lint",
            "cd tools && make",
            "echo \"$(basename \"$0\")\"",
        ] {
            assert_eq!(moves(script), None, "{script}");
        }
    }
}
