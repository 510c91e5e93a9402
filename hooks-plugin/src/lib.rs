//! # hooks-plugin
//!
//! Native plugins: dylibs loaded with libloading that register in-process hook
//! callbacks with hooks-core.
