//! Cross-crate integration tests live in `it/`; this library is empty on purpose
//! (cargo needs a target for the package).
