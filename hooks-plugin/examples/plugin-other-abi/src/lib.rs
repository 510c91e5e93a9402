//! A library that says it speaks plugin ABI version 2, as a plugin built for
//! a future, incompatible host would. A host speaking version 1 must refuse
//! it with a warning naming the file and both versions, without calling
//! anything else: its entry symbol aborts the process if it is ever called,
//! so a host that did would not survive to print the warning.
//!
//! It is written by hand, without the SDK (which only exports its own
//! version); the two exported symbols are its only unsafe code.

/// The ABI version this library claims.
const OTHER_ABI_VERSION: u32 = 2;

/// The version symbol every hooks plugin exports; asked before anything else.
// SAFETY: exports a unique symbol with the ABI's signature `extern "C" fn() -> u32`.
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
pub extern "C" fn hermes_hooks_abi_version() -> u32 {
    OTHER_ABI_VERSION
}

/// The version-1 entry symbol: a version-1 host must never call it here.
// SAFETY: exports a unique symbol; it takes nothing and never returns.
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
pub extern "C" fn hermes_hooks_plugin_v1() -> *const u8 {
    eprintln!("plugin-other-abi: the host called the entry of an ABI-2 library; aborting");
    std::process::abort()
}
