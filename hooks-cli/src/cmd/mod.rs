//! One module per subcommand.

pub mod events;
