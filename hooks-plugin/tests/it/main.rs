//! Integration tests of hooks-plugin against real libraries: the example
//! fixture plugin (built once per run with a nested cargo) and deliberately
//! broken raw plugins (compiled with rustc).

mod abi_errors;
mod calls;
mod discovery;
mod python;
mod support;
