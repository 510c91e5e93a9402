//! Repository automation.

fn main() {}
