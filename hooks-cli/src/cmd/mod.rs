//! One module per subcommand.

pub mod approve;
pub mod completions;
pub mod deliver;
pub mod doctor;
pub mod emit;
pub mod events;
pub mod list;
pub mod listen;
pub mod metrics;
pub mod replay;
pub mod revoke;
pub mod spool;
pub mod test;
