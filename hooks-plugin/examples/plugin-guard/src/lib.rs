//! A native hooks plugin on `hermes-hooks-plugin-sdk`: blocks `terminal` commands
//! that contain `rm -rf`, lets everything else through.
//!
//! This file is the one `hooks-plugin/sdk/README.md` walks through.

use hermes_hooks_plugin_sdk::{PluginContext, RegisterError, ToolDecision, events};

fn register(ctx: &mut PluginContext) -> Result<(), RegisterError> {
    ctx.register_hook(events::PRE_TOOL_CALL, |call| {
        let command = call
            .args
            .get("command")
            .and_then(|c| c.as_str())
            .unwrap_or("");
        if call.tool_name == "terminal" && command.contains("rm -rf") {
            ToolDecision::block(format!("plugin-guard: refusing `{command}`"))
        } else {
            ToolDecision::Allow
        }
    })
}

hermes_hooks_plugin_sdk::export_plugin!(register);

#[cfg(test)]
mod tests {
    use hermes_hooks_plugin_sdk::TestPlugin;
    use serde_json::json;

    #[test]
    fn blocks_rm_rf_on_terminal_only() {
        let plugin = TestPlugin::new(super::register).expect("registers");
        let call = |tool: &str, command: &str| {
            plugin.call(
                "pre_tool_call",
                json!({"tool_name": tool, "args": {"command": command}}),
            )
        };
        assert_eq!(
            call("terminal", "rm -rf /"),
            Ok(Some(
                json!({"action": "block", "message": "plugin-guard: refusing `rm -rf /`"})
            ))
        );
        assert_eq!(call("terminal", "ls"), Ok(None));
        assert_eq!(call("read_file", "rm -rf /"), Ok(None));
    }
}
