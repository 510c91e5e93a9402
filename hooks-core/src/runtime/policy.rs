//! The scheduling policy of a [`Background`](super::Background)'s threads:
//! `SCHED_BATCH` on Linux, so that waking one never preempts the thread that
//! woke it.
//!
//! A webhook emit, a queued shell hook or a gateway event wakes a runtime
//! thread from the agent's own thread. With the default policy the woken
//! thread may preempt its waker at once when the scheduler puts it on the
//! same CPU, and the agent's call waits a scheduler slice (measured: emit p99
//! 3 runs of 8 over 10 µs beside one busy neighbour, 32 µs at worst; with
//! `SCHED_BATCH` 0 of 8, 5.8 µs at worst; BENCHMARKS.md). `SCHED_BATCH`
//! keeps the thread's nice value and its share of the CPU; it only gives up
//! wake-up preemption, which background work does not need.

/// Puts the calling thread under `SCHED_BATCH` (Linux; elsewhere nothing).
/// A refusal is logged and the thread keeps its policy.
pub(crate) fn run_as_batch() {
    #[cfg(target_os = "linux")]
    if let Err(error) = set_batch() {
        tracing::debug!("[hooks] runtime thread stays at its scheduling policy: {error}");
    }
}

/// Whether the calling thread runs under `SCHED_BATCH` (always false off Linux).
pub fn is_batch() -> bool {
    #[cfg(target_os = "linux")]
    {
        // Field 41 of /proc/thread-self/stat is the policy; the fields
        // after the command (in parentheses, which may hold spaces) start at 3.
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
        let policy = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(41 - 3));
        policy == Some("3")
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn set_batch() -> std::io::Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `sched_setscheduler` with pid 0 changes the calling thread's
    // policy only; `param` is an initialised `sched_param` that outlives the
    // call, and nothing else is read or written.
    let done = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
