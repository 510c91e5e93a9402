//! A native hooks plugin on `hermes-hooks-plugin-sdk` whose `pre_tool_call` hook
//! never returns. The host abandons it at `plugins.hook_callback_timeout`
//! and blocks the tool call (a timed-out `pre_tool_call` fails closed); the
//! stuck thread stays behind, which is why native plugins are trusted code.

use std::time::Duration;

use hermes_hooks_plugin_sdk::{PluginContext, RegisterError, ToolDecision, events};

fn register(ctx: &mut PluginContext) -> Result<(), RegisterError> {
    ctx.register_hook(events::PRE_TOOL_CALL, |_call| -> ToolDecision {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    })
}

hermes_hooks_plugin_sdk::export_plugin!(register);

#[cfg(test)]
mod tests {
    use hermes_hooks_plugin_sdk::TestPlugin;

    #[test]
    fn registers_pre_tool_call() {
        // Calling the hook would never return; registration is what can be checked here.
        let plugin = TestPlugin::new(super::register).expect("registers");
        assert_eq!(plugin.hooks(), ["pre_tool_call"]);
    }
}
