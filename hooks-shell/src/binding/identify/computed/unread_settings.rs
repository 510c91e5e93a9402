//! Shell settings and definitions after which no reading can tell what
//! the text runs: extglob patterns (R43-7, R44-9), `nocaseglob` (R44-3),
//! `BASH_ARGV0` (R44-4), `command_not_found_handle` (R42-1).

use std::collections::BTreeSet;

/// Why `text` (whose functions are `functions`) cannot be read for what
/// it runs, by a setting above; `None` when it has none.
pub(super) fn why(text: &str, functions: &BTreeSet<String>) -> Option<String> {
    // `shopt -s extglob; sh tools/@(g).sh`: a pattern no reading matches (R43-7).
    // `shopt -s "ext"glob`, `ext\glob` (R44-9).
    let plain: String = text
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect();
    if plain.contains("extglob")
        && ["@(", "!(", "+(", "?(", "*("]
            .iter()
            .any(|p| text.contains(p))
    {
        return Some("it matches names with extglob patterns, which no reading follows".into());
    }
    // `shopt -s nocaseglob; sh tools/G.s?`: names matched in any case (R44-3).
    if plain.contains("nocaseglob") {
        return Some("it matches names in any case (nocaseglob), which no reading follows".into());
    }
    // `BASH_ARGV0=x` sets `$0`, which names the script's own folder (R44-4).
    if text.contains("BASH_ARGV0") {
        return Some("it sets BASH_ARGV0, which changes what `$0` names".into());
    }
    // Run with the words of every command not found (R42-1).
    if functions.contains("command_not_found_handle") {
        return Some(
            "it defines command_not_found_handle, which runs what no reading can name".into(),
        );
    }
    None
}
