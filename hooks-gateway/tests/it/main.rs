//! Integration tests of hooks-gateway: discovery, Python workers and executable
//! handlers, run against real `python3` and `sh` handlers in temporary homes.

mod discovery;
mod emit;
mod executable;
mod faults;
mod interpreter;
mod lanes;
mod runtime;
mod support;
mod worker;
