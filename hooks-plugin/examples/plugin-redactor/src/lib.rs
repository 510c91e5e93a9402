//! A native hooks plugin on `hermes-hooks-plugin-sdk`: masks OpenAI-style API keys
//! (`sk-` and 32 or more letters and digits) in every tool result before the
//! model sees it (`transform_tool_result`), as the documentation's Python
//! example does.

use hermes_hooks_plugin_sdk::{PluginContext, RegisterError, events};
use regex::Regex;

fn register(ctx: &mut PluginContext) -> Result<(), RegisterError> {
    let secret = Regex::new(r"sk-[A-Za-z0-9]{32,}").expect("a valid pattern");
    ctx.register_hook(events::TRANSFORM_TOOL_RESULT, move |tool| {
        // `None` leaves the result alone; a string replaces it.
        secret
            .is_match(&tool.result)
            .then(|| secret.replace_all(&tool.result, "[REDACTED]").into_owned())
    })
}

hermes_hooks_plugin_sdk::export_plugin!(register);

#[cfg(test)]
mod tests {
    use hermes_hooks_plugin_sdk::TestPlugin;
    use serde_json::json;

    #[test]
    fn keys_are_masked_and_clean_results_left_alone() {
        let plugin = TestPlugin::new(super::register).expect("registers");
        let key = format!("sk-{}", "a1B2".repeat(9));
        let reply = plugin.call(
            "transform_tool_result",
            json!({"tool_name": "terminal", "result": format!("export KEY={key}; echo ok")}),
        );
        assert_eq!(reply, Ok(Some(json!("export KEY=[REDACTED]; echo ok"))));
        let short = plugin.call(
            "transform_tool_result",
            json!({"tool_name": "terminal", "result": "sk-short"}),
        );
        assert_eq!(short, Ok(None));
    }
}
