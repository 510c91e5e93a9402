//! Cross-crate integration tests: one binary, one module per area.

mod bus;
mod every_mechanism;
