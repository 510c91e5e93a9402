//! The interpreter named for Python code is started as the user wrote it,
//! unless it is a version-manager shim whose choice is known and unchanged.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness;
use crate::support::TempHome;

/// A guard plugin that imports its rules from a directory only the site's
/// `python3` wrapper puts on `PYTHONPATH`, and that wrapper as the interpreter.
fn home_with_a_wrapper() -> (TempHome, String) {
    let home = TempHome::new();
    let lib = home.user_home.join("site-rules");
    std::fs::create_dir_all(&lib).expect("mkdir");
    std::fs::write(
        lib.join("guardrules.py"),
        "import re\nDESTRUCTIVE = re.compile(r'rm\\s+-rf?\\s+/')\n",
    )
    .expect("write");
    std::fs::create_dir_all(home.user_home.join("bin")).expect("mkdir");
    let wrapper = home.script(
        "../bin/python3",
        &format!(
            "#!/bin/sh\nPYTHONPATH='{}'\nexport PYTHONPATH\nexec python3 \"$@\"\n",
            lib.display()
        ),
    );
    home.write("plugins/guard/plugin.yaml", "name: guard\n");
    home.write(
        "plugins/guard/__init__.py",
        "import guardrules\n\
         def block(tool_name, args, **kwargs):\n\
         \x20   if guardrules.DESTRUCTIVE.search(str(args.get('command', ''))):\n\
         \x20       return {'action': 'block', 'message': 'blocked by the site guard'}\n\
         def register(ctx):\n\
         \x20   ctx.register_hook('pre_tool_call', block)\n",
    );
    home.config("plugins:\n  enabled: [guard]\n");
    (home, wrapper.display().to_string())
}

fn emit_rm(home: &TempHome, python: &str) -> Value {
    let payload = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}});
    let mut command = harness::emit_json(home, "pre_tool_call", &payload);
    command.env("HERMES_HOOKS_PYTHON", python);
    let run = harness::within(command, Duration::from_secs(120)).expect("hooks finishes");
    run.json()["outcome"].clone()
}

#[test]
fn a_wrapper_interpreter_keeps_guarding_on_every_start() {
    if !harness::python_available() {
        return;
    }
    let (home, wrapper) = home_with_a_wrapper();
    // The first start goes through the wrapper; every later one must too (it
    // used to be skipped for the `sys.executable` it reported, so the guard's
    // import failed and `rm -rf /` went through).
    for start in 1..=3 {
        let outcome = emit_rm(&home, &wrapper);
        assert_eq!(
            outcome["action"], "block",
            "start {start}: the guard must still load: {outcome}"
        );
    }
    // `list` and `doctor` start Python through it as well.
    let mut doctor = harness::command(&home, &["doctor"]);
    doctor.env("HERMES_HOOKS_PYTHON", &wrapper);
    let run = harness::within(doctor, Duration::from_secs(120)).expect("doctor finishes");
    let text = run.stdout();
    assert!(text.contains("registers: pre_tool_call"), "{text}");
    assert_eq!(emit_rm(&home, &wrapper)["action"], "block");
}
