//! The `hooks` command.

fn main() {}
