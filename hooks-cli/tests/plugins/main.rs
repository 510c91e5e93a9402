//! Plugins through the real `hooks` binary: Python and native plugins, their
//! inventory (list / doctor trial loads), gateway hooks. Shared helpers are
//! in `tests/common/`.

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

mod gateway_hooks;
mod inventory;
mod native_plugins;
mod python_faults;
mod python_plugins;
