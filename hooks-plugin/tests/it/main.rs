//! Integration tests of hooks-plugin against real libraries: the SDK's
//! example plugins (`hooks-plugin/examples/`, built once per run with a
//! nested cargo) and deliberately broken raw plugins (compiled with rustc).

mod abi_errors;
mod calls;
mod discovery;
mod library_file;
mod panic_abort;
mod python;
mod python_faults;
mod python_hermes_api;
mod python_joint;
mod python_observers;
mod python_shim;
mod python_worker;
mod required;
mod support;
