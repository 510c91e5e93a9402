//! Variables that steer what runs given a value in shell text where no
//! reading follows it (red team round 58, H58-1): a `for` loop's variable
//! (`for PATH in "tools:$PATH"`), a `read`, `mapfile`, `getopts`, `select`
//! or `printf -v` target, a name written with quotes or a backslash
//! (`export PA\\TH=…`); and a trap running a folder's code set in text that
//! moves to a folder named when it runs. Such text cannot be approved.

use std::sync::LazyLock;

use regex::Regex;

/// Why shell `text` gives a variable that steers what runs (`PATH`,
/// `BASH_ENV`, `GIT_*`) a value in a way no reading follows: as a `for`
/// loop's variable, by `read`, `mapfile`, `getopts`, `select` or `printf
/// -v`, or through a name written with quotes or a backslash (`export
/// PA\TH=…`, `export "PA""TH=…"`; round 58, H58-1).
pub(super) fn steering_given_unread(text: &str) -> Option<String> {
    static GIVEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\b(?:for|select)\s+([A-Za-z_]\w*)\s+in\b|\b(?:read|mapfile|readarray|getopts)\b[^;&|\n]*?\s([A-Za-z_]\w*)\s*(?:[;&|<\n]|$)|\bprintf\s+-v\s*['"]?([A-Za-z_]\w*)|\b(?:export|declare|typeset|readonly|local)\s+(?:-\w+\s+)*([^\s=]*['"\\][^\s=]*)="#)
            .expect("valid regex")
    });
    GIVEN.captures_iter(text).find_map(|found| {
        let name: String = (1..=4)
            .find_map(|group| found.get(group))?
            .as_str()
            .chars()
            .filter(|c| !"\\\"'".contains(*c))
            .collect();
        let steering = name == "PATH" || crate::dialect::code_env::steers_code(&name);
        steering.then(|| {
            format!(
                "it gives `{name}`, which steers what runs, a value no reading follows (`{}`)",
                &found[0].trim()
            )
        })
    })
}

/// Why shell `text` sets a trap running a program that runs a folder's
/// code (`make`, `npm`, `git`...) and moves to a folder named when it runs
/// (`trap 'make -s lint' EXIT; cd "$(dirname "$f")"`): the trap runs
/// there, after the move (round 58, x14, w28, w29).
pub(super) fn trap_after_move(text: &str) -> Option<String> {
    static TRAP: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\btrap\s+(?:"([^"]*)"|'([^']*)')"#).expect("valid regex"));
    // A move to a folder named when it runs: a substitution or a variable
    // other than the project's own (`cd "$CLAUDE_PROJECT_DIR"` is no move).
    static COMPUTED_MOVE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(?:cd|pushd)\s+([^;&|\n]*)").expect("valid regex"));
    static OWN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\{?(?:CLAUDE_PROJECT_DIR|PWD|HOME|OLDPWD)\}?").expect("valid regex")
    });
    let moves = COMPUTED_MOVE.captures_iter(text).any(|found| {
        let to = OWN.replace_all(&found[1], "");
        to.contains(['$', '`'])
    });
    if !moves {
        return None;
    }
    TRAP.captures_iter(text).find_map(|found| {
        let trapped = found.get(1).or(found.get(2))?.as_str();
        let runs = crate::binding::shell::simple_commands(trapped)
            .iter()
            .filter_map(|words| crate::binding::shell::skip_prefixes(words).first().cloned())
            .any(|program| {
                let program = super::super::base_name(&program);
                crate::binding::definitions::runs_folder_definitions(&program)
                    || matches!(program.as_str(), "git" | "sh" | "bash" | "python3" | "node")
            });
        runs.then(|| {
            format!(
                "its trap `{}` runs in a folder named when it runs, whose code no reading binds",
                found[0].trim()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{steering_given_unread, trap_after_move};

    #[test]
    fn a_trap_running_make_after_a_computed_move_is_found() {
        let text = "f=$(jq -r .x); trap \"make -s lint\" EXIT; cd \"$(dirname \"$f\")\"";
        assert!(trap_after_move(text).is_some());
        assert_eq!(trap_after_move("trap 'make -s lint' EXIT; cd tools"), None);
        assert_eq!(trap_after_move("trap 'rm -f $t' EXIT; cd \"$d\""), None);
        let own = "cd \"$CLAUDE_PROJECT_DIR\" && trap 'sh tools/guard.sh' EXIT";
        assert_eq!(trap_after_move(own), None);
    }

    #[test]
    fn steering_variables_given_out_of_sight_are_found() {
        for text in [
            "for PATH in \"tools:$PATH\"; do lint-helper; done",
            "echo x | { read -r PATH; lint-helper; }",
            "printf -v PATH 'tools:%s' \"$PATH\"; lint-helper",
            "export PA\\TH=\"tools:$PATH\"; lint-helper",
            "export \"PA\"\"TH=tools:$PATH\"; lint-helper",
        ] {
            assert!(steering_given_unread(text).is_some(), "{text}");
        }
        for text in [
            "for f in *.py; do ruff \"$f\"; done",
            "read -r line; echo \"$line\"",
            "export PATH=\"$HOME/bin:$PATH\"",
            "printf -v msg '%s' x",
        ] {
            assert_eq!(steering_given_unread(text), None, "{text}");
        }
    }
}
