//! What an operator view needs about a native plugin library: a serialisable
//! description, and the trust statement every such view should carry.
//!
//! Loading a library runs its code, and a broken one may abort or hang the
//! process that loads it. A CLI that diagnoses plugins should therefore call
//! [`inspect_native`] in a child process (e.g. a hidden subcommand that prints
//! the description as JSON) and read the result, so a crash is a finding
//! rather than the end of the command.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::LoadError;
use crate::plugin::{NativePlugin, PromptSection};

/// One paragraph for every view that lists native plugins.
pub const NATIVE_TRUST_NOTE: &str = "Native plugins run with full trust inside the agent's process: \
they can read and change anything the agent can, and a plugin that crashes, hangs or corrupts \
memory takes the agent with it. The host checks everything a library hands over and blocks a \
pre_tool_call whose plugin fails or times out, but it cannot contain the library itself. Enable \
only plugins you would run as the agent's own code; for isolation, use shell hooks, which run in \
their own process under a timeout that kills them.";

/// A native plugin library as it describes itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NativePluginInfo {
    /// The library file that was inspected.
    pub library: PathBuf,
    /// The name the library declares.
    pub name: String,
    /// The plugin ABI version it speaks.
    pub abi_version: u32,
    /// The size of its table (see `abi::TABLE_SIZE`).
    pub table_size: usize,
    /// The events it registers, in order.
    pub hooks: Vec<String>,
    /// The system-prompt sections it declares.
    pub prompt_sections: Vec<PromptSection>,
}

impl NativePluginInfo {
    /// The description of an already loaded plugin.
    pub fn of(plugin: &NativePlugin) -> Self {
        NativePluginInfo {
            library: plugin.library().to_owned(),
            name: plugin.declared_name().to_owned(),
            abi_version: plugin.abi_version(),
            table_size: plugin.table_size(),
            hooks: plugin.hooks().to_vec(),
            prompt_sections: plugin.prompt_sections().to_vec(),
        }
    }
}

/// Loads the library at `library` into this process and describes it.
///
/// The library stays loaded (libraries are never unloaded) and its code ran:
/// call this in a throwaway child process when the library is not trusted
/// to behave.
pub fn inspect_native(library: &Path) -> Result<NativePluginInfo, LoadError> {
    NativePlugin::load(library).map(|plugin| NativePluginInfo::of(&plugin))
}
