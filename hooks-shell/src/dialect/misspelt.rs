//! A dead tool name a keystroke or two from a real one (`Bsh`, `Bahs`,
//! `Rad`) was meant as that tool (red team round 11, R11-2): a fail-closed
//! guard with such a name guards the tool it is nearest to.

/// The most edits (a letter inserted, deleted or changed, two neighbours
/// swapped; letter case ignored) between a misspelt name and the name meant.
const MOST_EDITS: usize = 2;

/// The one tool `name` is a misspelling of, among `spellings` (each known
/// spelling with the tool it means): at most [`MOST_EDITS`] edits away and
/// at most one edit for every two letters of `name` (`Ed` is not `Edit`),
/// and nearer to that tool than to any other. `None` when no tool is that
/// near, or two tools are equally near.
pub(super) fn misspelling_of<'a>(
    name: &str,
    spellings: impl Iterator<Item = (&'a str, &'static str)>,
) -> Option<&'static str> {
    let name = name.trim().to_ascii_lowercase();
    let most = MOST_EDITS.min(name.chars().count() / 2);
    let mut nearest: Option<(usize, &'static str)> = None;
    let mut tied = false;
    for (spelling, meant) in spellings {
        let edits = strsim::osa_distance(&name, &spelling.to_ascii_lowercase());
        if edits > most {
            continue;
        }
        match nearest {
            Some((best, _)) if edits > best => {}
            Some((best, tool)) if edits == best => tied |= tool != meant,
            _ => {
                nearest = Some((edits, meant));
                tied = false;
            }
        }
    }
    nearest.filter(|_| !tied).map(|(_, meant)| meant)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: &[(&str, &str)] = &[
        ("Bash", "Bash"),
        ("Read", "Read"),
        ("Edit", "Edit"),
        ("terminal", "Bash"),
        ("todo", "todo"),
    ];

    fn of(name: &str) -> Option<&'static str> {
        misspelling_of(name, TOOLS.iter().copied())
    }

    #[test]
    fn a_name_an_edit_or_two_from_one_tool_means_it() {
        assert_eq!(of("Bsh"), Some("Bash"));
        assert_eq!(of("Bahs"), Some("Bash"));
        assert_eq!(of("BSAH"), Some("Bash"));
        assert_eq!(of("termnial"), Some("Bash"));
        assert_eq!(of("Rad"), Some("Read"));
    }

    #[test]
    fn a_far_short_or_ambiguous_name_means_nothing() {
        assert_eq!(of("shell_exec"), None);
        assert_eq!(of("Ed"), None, "two edits in two letters");
        assert_eq!(of("X"), None);
        // `Reit` is two edits from both `Read` and `Edit`.
        assert_eq!(of("Reit"), None);
    }
}
