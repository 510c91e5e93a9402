//! Release tooling: `cargo xtask release-check`, `cargo xtask dist` and
//! `cargo xtask bump VERSION`. Every check works on a workspace root given as a
//! path, so the tests run them on temporary copies, never on the real tree.

pub mod bump;
pub mod check;
pub mod dist;
pub mod features;
pub mod layers;
pub mod msrv;
pub mod registry;
pub mod semver;
pub mod workspace;

#[cfg(test)]
mod api_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tooling_tests;
