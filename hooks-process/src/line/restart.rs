//! [`RestartBudget`]: how soon a worker that died may be started again.

use std::time::{Duration, Instant};

/// The restart policy of a long-lived worker: a worker that dies is started
/// again at the next request, but not sooner than `min_interval` after its
/// previous start, so one that dies at once is not restarted in a busy loop.
#[derive(Debug, Clone)]
pub struct RestartBudget {
    min_interval: Duration,
    last_start: Option<Instant>,
    restarts: u64,
}

impl RestartBudget {
    /// A budget allowing one start per `min_interval`.
    pub fn new(min_interval: Duration) -> RestartBudget {
        RestartBudget {
            min_interval,
            last_start: None,
            restarts: 0,
        }
    }

    /// Records a start now (the first one is not a restart).
    pub fn started(&mut self) {
        if self.last_start.is_some() {
            self.restarts += 1;
        }
        self.last_start = Some(Instant::now());
    }

    /// `Ok` when a start is allowed now; else how long until it is.
    pub fn check(&self) -> Result<(), Duration> {
        match self.last_start {
            Some(last) if last.elapsed() < self.min_interval => {
                Err(self.min_interval - last.elapsed())
            }
            _ => Ok(()),
        }
    }

    /// How many restarts (starts after the first) were recorded.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// The minimum interval between two starts.
    pub fn min_interval(&self) -> Duration {
        self.min_interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_is_held_back_until_the_interval_passed() {
        let mut budget = RestartBudget::new(Duration::from_secs(3600));
        assert!(budget.check().is_ok());
        budget.started();
        assert!(budget.check().is_err());
        assert_eq!(budget.restarts(), 0);
        let mut quick = RestartBudget::new(Duration::ZERO);
        quick.started();
        assert!(quick.check().is_ok());
        quick.started();
        assert_eq!(quick.restarts(), 1);
    }
}
