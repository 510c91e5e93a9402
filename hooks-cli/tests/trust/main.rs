//! Consent and what it binds, project hooks, imported dialects, the sandbox
//! and the guards, through the real `hooks` binary. Shared helpers are in
//! `tests/common/`.

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

mod code_names;
mod consent;
mod copied_guard;
mod cwd_shadowing;
mod definitions_binding;
mod dialect_exec;
mod dialect_imports;
mod dialect_records;
mod dialect_scripts;
mod exec_only;
mod failclosed_sandbox_denial;
mod failclosed_silenced_guard;
mod failclosed_silenced_outside;
mod failclosed_silenced_reach;
mod guard_evasions;
mod guard_evasions_round6;
mod guard_path_rules;
mod home_links;
mod interpreter_shims;
mod linked_tool_folder;
mod option_spellings;
mod project_is_home;
mod project_reach;
mod rewritten_input;
mod round10_guards;
mod round10_memory;
mod round10_paths;
mod round11;
mod round11_guards;
mod round11_matchers;
mod round11_verdicts;
mod round12_names;
mod round13;
mod round14;
mod round14_native_matchers;
mod round15;
mod round16;
mod round17;
mod round18;
mod round19;
mod round20;
mod round21;
mod round22;
mod round23;
mod round24;
mod round25;
mod round25a;
mod round25b;
mod round26;
mod round27;
mod round28;
mod round28b;
mod round29_led_to;
mod round5;
mod round6_shapes;
mod round7;
mod round8;
mod round8_guards;
mod round8_lexical;
mod round8_modules;
mod round9_guards;
mod round9_paths;
mod sandbox;
mod sandbox_git;
mod sealed_tree;
mod session_env;
mod tree_binding;
mod trust;
mod trust_http;
mod unsandboxed_project;
mod user_hooks_in_project;
