//! HostOptions: mechanisms left out, the callback timeout, typed warnings, named reports.

use std::time::Duration;

use hermes_hooks::host::DEFAULT_FLUSH_BOUND;
use hermes_hooks::{Host, HostOptions, Mechanism};

use super::{TempHome, runtime};

fn names(host: &Host) -> Vec<&'static str> {
    host.mechanisms().iter().map(|m| m.mechanism).collect()
}

#[test]
fn a_skipped_mechanism_is_not_loaded() {
    let home = TempHome::new();
    home.two_shell_hooks();
    runtime().block_on(async {
        let all = Host::load(HostOptions::new().home(home.path()).accept_hooks(true))
            .await
            .expect("loads");
        assert_eq!(names(&all), ["plugins", "shell", "outbound", "gateway"]);

        let options = HostOptions::new()
            .home(home.path())
            .accept_hooks(true)
            .skip(Mechanism::Shell);
        let host = Host::load(options).await.expect("loads");
        assert_eq!(names(&host), ["plugins", "outbound", "gateway"]);

        let options = HostOptions::new()
            .home(home.path())
            .accept_hooks(true)
            .only([Mechanism::Shell]);
        let host = Host::load(options).await.expect("loads");
        // The host's own closures always have their place (first in the bus).
        assert_eq!(names(&host), ["plugins", "shell"]);
        assert_eq!(host.describe(), "0 plugin(s), 2 shell hook(s)");
    });
}

#[test]
fn the_callback_timeout_overrides_the_config() {
    let home = TempHome::new();
    home.config("plugins:\n  hook_callback_timeout: 30\n");
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(home.path()))
            .await
            .expect("loads");
        assert_eq!(
            host.callbacks().settings().callback_timeout,
            Some(Duration::from_secs(30))
        );
        let options = HostOptions::new()
            .home(home.path())
            .callback_timeout(Some(Duration::from_millis(250)));
        let host = Host::load(options).await.expect("loads");
        assert_eq!(
            host.callbacks().settings().callback_timeout,
            Some(Duration::from_millis(250))
        );
        let options = HostOptions::new().home(home.path()).callback_timeout(None);
        let host = Host::load(options).await.expect("loads");
        assert_eq!(host.callbacks().settings().callback_timeout, None);
    });
}

#[test]
fn a_warning_names_its_mechanism_file_and_key() {
    let home = TempHome::new();
    home.config("hooks:\n  pre_tool_call:\n    - command: /bin/true\n      timeout: soon\n");
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(home.path()).accept_hooks(true))
            .await
            .expect("loads");
        let warning = host
            .warnings()
            .iter()
            .find(|w| w.mechanism == "shell")
            .unwrap_or_else(|| panic!("{:?}", host.warnings()));
        assert_eq!(
            warning.file.as_deref(),
            Some(home.path().join("config.yaml").as_path())
        );
        let key = warning.key.as_deref().expect("a key");
        assert!(key.starts_with("hooks.pre_tool_call[0]"), "{key}");
        // Displayed as the `hooks` command prints it: file, then the message.
        let shown = warning.to_string();
        assert!(
            shown.starts_with(&home.path().join("config.yaml").display().to_string()),
            "{shown}"
        );
        assert!(shown.contains(&warning.message), "{shown}");
    });
}

#[test]
fn flush_and_shutdown_return_named_reports() {
    let home = TempHome::new();
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(home.path()))
            .await
            .expect("loads");
        let flushed = host.flush(Duration::from_secs(1)).await;
        assert_eq!(flushed.pending, 0);
        assert!(flushed.deliveries.is_empty() && flushed.totals.total() == 0);
        let report = host.shutdown(Duration::from_secs(1)).await;
        assert_eq!(report.abandoned, 0);
        assert!(report.observers_drained);
        assert!(report.spool.is_none());
    });
}

#[test]
fn load_blocking_loads_off_the_async_threads() {
    let home = TempHome::new();
    home.two_shell_hooks();
    let runtime = runtime();
    let _entered = runtime.enter();
    let host = Host::load_blocking(HostOptions::new().home(home.path()).accept_hooks(true))
        .expect("loads");
    assert_eq!(
        host.describe(),
        "0 plugin(s), 2 shell hook(s), 0 webhook target(s), 0 gateway hook(s)"
    );
}

#[test]
fn close_is_bounded_by_the_flush_bound_of_the_options() {
    let home = TempHome::new();
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(home.path()))
            .await
            .expect("loads");
        assert_eq!(host.flush_bound(), DEFAULT_FLUSH_BOUND);
        let bound = Duration::from_millis(300);
        let host = Host::load(HostOptions::new().home(home.path()).flush_bound(bound))
            .await
            .expect("loads");
        assert_eq!(host.flush_bound(), bound);
        let report = host.close().await;
        assert_eq!(report.abandoned, 0);
        assert!(report.observers_drained);
    });
}
