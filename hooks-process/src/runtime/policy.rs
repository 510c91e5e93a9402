//! The scheduling policy of a [`Background`](super::Background)'s threads:
//! `SCHED_BATCH` on Linux, so that waking one never preempts the thread that
//! woke it.
//!
//! A webhook emit, a queued shell hook or a gateway event wakes a runtime
//! thread from the agent's own thread. With the default policy the woken
//! thread may preempt its waker at once when the scheduler puts it on the
//! same CPU, and the agent's call waits a scheduler slice (measured: emit p99
//! 3 runs of 8 over 10 µs beside one busy neighbour, 32 µs at worst; with
//! `SCHED_BATCH` 0 of 8, 5.8 µs at worst; docs/benchmarks/issue-19-quiet-runs.md). `SCHED_BATCH`
//! keeps the thread's nice value and its share of the CPU; it only gives up
//! wake-up preemption, which background work does not need. The processes
//! hooks start never inherit it: they are forked from the supervisor's
//! spawner thread, which takes the process's own policy
//! ([`take_the_process_policy`]).

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
    policy_of("/proc/thread-self/stat") == Some(SCHED_BATCH)
}

/// `SCHED_BATCH`'s number in `/proc/*/stat`.
const SCHED_BATCH: u32 = 3;

/// The scheduling policy in a `/proc/<pid>[/task/<tid>]/stat` file.
fn policy_of(stat: &str) -> Option<u32> {
    // Field 41 is the policy; the fields after the command (in parentheses,
    // which may hold spaces) start at 3.
    let stat = std::fs::read_to_string(stat).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(41 - 3)?.parse().ok()
}

/// Puts the calling thread back under the process's own policy (its main
/// thread's) when it is at `SCHED_BATCH` only because it was started from a
/// runtime thread: what the process supervisor's spawner thread does, so a
/// hook's process never inherits our policy.
pub(crate) fn take_the_process_policy() {
    #[cfg(target_os = "linux")]
    {
        let main = policy_of("/proc/self/stat");
        if is_batch()
            && let Some(main) = main.filter(|main| *main != SCHED_BATCH)
            && let Err(error) = set_policy(main as libc::c_int)
        {
            tracing::debug!("[hooks] the spawner thread stays at SCHED_BATCH: {error}");
        }
    }
}

#[cfg(target_os = "linux")]
fn set_batch() -> std::io::Result<()> {
    set_policy(libc::SCHED_BATCH)
}

/// Sets the calling thread's policy (a normal one: static priority 0).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn set_policy(policy: libc::c_int) -> std::io::Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `sched_setscheduler` with pid 0 changes the calling thread's
    // policy only; `param` is an initialised `sched_param` that outlives the
    // call, and nothing else is read or written.
    let done = unsafe { libc::sched_setscheduler(0, policy, &param) };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
