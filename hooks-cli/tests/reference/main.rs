//! The 0.20.1 reference through the real `hooks` binary: the conformance
//! suite (every documented event and merge shape), the comparison table,
//! the JSON schemas. Shared helpers are in `tests/common/`.

#[allow(dead_code, unused_imports)]
#[path = "../common/dialects.rs"]
mod dialects;
#[allow(dead_code, unused_imports)]
#[path = "../common/harness.rs"]
mod harness;
#[allow(dead_code, unused_imports)]
#[path = "../common/project_fixtures.rs"]
mod project_fixtures;
#[allow(dead_code, unused_imports)]
#[path = "../common/support.rs"]
mod support;

mod conformance;
mod reference;
mod schemas;
