//! Variables that steer what runs given a value in shell text where no
//! reading follows it (red team round 58, H58-1): a `for` loop's variable
//! (`for PATH in "tools:$PATH"`), a `read`, `mapfile`, `getopts`, `select`
//! or `printf -v` target, a name written with quotes or a backslash
//! (`export PA\\TH=…`). Such text cannot be approved.

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

#[cfg(test)]
mod tests {
    use super::steering_given_unread;

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
