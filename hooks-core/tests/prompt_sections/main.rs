//! System-prompt sections: the reference's tests (its test cases §7.11, 309–311),
//! budget edges, restore round trips, and a golden comparison with Python.

mod golden;
mod reference_cases;
mod restore;

use hermes_hooks_core::prompt::RenderedSections;

const AFTER_MEMORY: &str = "after_memory";

fn skipped_lines(rendered: &RenderedSections) -> Vec<String> {
    rendered.skipped.iter().map(ToString::to_string).collect()
}

fn accepted_ids(rendered: &RenderedSections) -> Vec<&str> {
    rendered.accepted.iter().map(|s| s.id.as_str()).collect()
}
