//! Plugins through the real `hooks` binary: Python and native plugins,
//! gateway hooks, the 0.20.1 conformance suite and the reference comparison.
//! Shared helpers are in `tests/common/`.

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
mod gateway_hooks;
mod native_plugins;
mod python_faults;
mod python_plugins;
mod reference;
mod schemas;
