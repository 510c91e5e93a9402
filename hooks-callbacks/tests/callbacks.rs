//! Integration tests of in-process callbacks (`hermes_hooks_callbacks`), ported
//! from the reference's plugin-hook and stream-hook suites (§7.8, §7.10).

mod callbacks {
    pub mod bounded;
    pub mod handoff;
    pub mod isolation;
    pub mod registration;
    pub mod runs;
    pub mod stream;
    pub mod support;
}
