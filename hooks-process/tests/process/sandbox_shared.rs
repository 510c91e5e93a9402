//! Sandboxed hooks share one held network namespace (where Landlock scopes
//! abstract unix sockets, ABI 6): two `project` hooks running at once still
//! cannot reach each other, nor the host, through an abstract unix socket
//! (which belongs to the network namespace), and have no usable network.
#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};

use hermes_hooks_process::sandbox::{Profile, Support};

use crate::sandbox::{World, stdout};

/// Listens on `\0<name>-hook`, says so with a file in the project, waits for a caller.
const LISTENER: &str = r#"
import os, socket, sys
name = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + name + "-hook")
s.listen(1)
print("NS", os.readlink("/proc/self/ns/net"), flush=True)
open("listening", "w").close()
s.settimeout(4)
try:
    s.accept()
    print("ACCEPTED")
except OSError:
    print("NO-CALLER")
"#;

/// Waits for the listener, then tries its socket, the host's, and UDP to loopback.
const CALLER: &str = r#"
import os, socket, sys, time
name = sys.argv[1]
print("NS", os.readlink("/proc/self/ns/net"), flush=True)
for _ in range(200):
    if os.path.exists("listening"):
        break
    time.sleep(0.02)
else:
    print("NO-LISTENER")
for who in ["hook", "host"]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\0" + name + "-" + who)
        print("CONNECTED-" + who)
    except OSError as error:
        print("DENIED-" + who, error.errno)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("127.0.0.1", 9))
    print("UDP-SENT")
except OSError as error:
    print("UDP-DENIED", error.errno)
"#;

fn namespace_of(out: &str) -> Option<&str> {
    out.lines().find_map(|line| line.strip_prefix("NS "))
}

#[tokio::test]
async fn hooks_sharing_the_network_namespace_cannot_reach_each_other_or_the_host() {
    if !test_support::python_available() {
        return;
    }
    let world = World::new();
    // The namespaces are held from a process's second sandboxed spawn on.
    let warm = world.run(Profile::Strict, "true").await;
    assert_eq!(warm.exit_code, Some(0), "{warm:?}");
    let name = format!("hermes-sandbox-shared-{}", std::process::id());
    let host_address = SocketAddr::from_abstract_name(format!("{name}-host")).unwrap();
    let host = UnixListener::bind_addr(&host_address).expect("the host's abstract socket");
    host.set_nonblocking(true).unwrap();
    std::fs::write(world.project.join("listener.py"), LISTENER).unwrap();
    std::fs::write(world.project.join("caller.py"), CALLER).unwrap();
    let (listen, call) = (
        format!("python3 listener.py {name}"),
        format!("python3 caller.py {name}"),
    );
    let (listener, caller) = tokio::join!(
        world.run(Profile::Project, &listen),
        world.run(Profile::Project, &call),
    );
    let (heard, called) = (stdout(&listener), stdout(&caller));
    assert!(!called.contains("NO-LISTENER"), "{listener:?} {caller:?}");
    assert!(called.contains("DENIED-hook"), "{caller:?}");
    assert!(called.contains("DENIED-host"), "{caller:?}");
    assert!(called.contains("UDP-DENIED"), "{caller:?}");
    assert!(
        heard.contains("NO-CALLER") && !heard.contains("ACCEPTED"),
        "{listener:?}"
    );
    assert!(host.accept().is_err(), "a hook reached the host's socket");
    let ours = std::fs::read_link("/proc/self/ns/net").unwrap();
    let (listener_ns, caller_ns) = (namespace_of(&heard), namespace_of(&called));
    assert!(
        listener_ns.is_some() && caller_ns.is_some(),
        "{listener:?} {caller:?}"
    );
    assert_ne!(
        listener_ns,
        Some(ours.to_str().unwrap()),
        "the host's network"
    );
    if Support::detect().landlock_abi >= 6 {
        // The scenario this guards: both in the one held namespace.
        assert_eq!(listener_ns, caller_ns, "{listener:?} {caller:?}");
    }
}
