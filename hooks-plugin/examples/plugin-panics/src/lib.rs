//! A native hooks plugin on `hermes-hooks-plugin-sdk` whose `pre_tool_call` hook
//! always panics. The SDK catches the panic at the boundary and reports it
//! as a failed callback, so the host lives on and the tool call is blocked
//! (a failing `pre_tool_call` fails closed).

use hermes_hooks_plugin_sdk::{PluginContext, RegisterError, ToolDecision, events};

fn register(ctx: &mut PluginContext) -> Result<(), RegisterError> {
    ctx.register_hook(events::PRE_TOOL_CALL, |call| -> ToolDecision {
        panic!(
            "plugin-panics: deliberately panicking on {}",
            call.tool_name
        )
    })
}

hermes_hooks_plugin_sdk::export_plugin!(register);

#[cfg(test)]
mod tests {
    use hermes_hooks_plugin_sdk::TestPlugin;
    use serde_json::json;

    #[test]
    fn the_panic_is_a_failure_not_an_unwind() {
        let plugin = TestPlugin::new(super::register).expect("registers");
        let reply = plugin.call("pre_tool_call", json!({"tool_name": "terminal"}));
        assert_eq!(
            reply,
            Err("panicked: plugin-panics: deliberately panicking on terminal".to_owned())
        );
    }
}
