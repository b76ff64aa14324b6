//! A call's budget for the server's own log: how many lines and bytes one
//! call may write there (its `host.log` messages, its captured stdout and
//! stderr, and the per-report debug lines), so that no plugin can fill the
//! disk or the terminal behind the server. Past the budget, lines are counted
//! instead of written, and the call ends with one line saying how much was
//! dropped.

use crate::policy::limits::Limits;

/// What is left of one call's log budget, and what was dropped past it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogBudget {
    lines_left: u64,
    bytes_left: u64,
    /// Lines not written because the budget was used up.
    pub dropped_lines: u64,
    /// Their bytes.
    pub dropped_bytes: u64,
}

impl LogBudget {
    /// The budget `limits` give one call.
    pub fn new(limits: &Limits) -> Self {
        LogBudget {
            lines_left: limits.log_lines,
            bytes_left: limits.log_bytes,
            dropped_lines: 0,
            dropped_bytes: 0,
        }
    }

    /// Whether a line of `len` bytes may be written, taking it from the
    /// budget if so and counting it as dropped if not. Once one line is
    /// refused, every later one is too, so the log never has holes.
    pub fn admit(&mut self, len: usize) -> bool {
        let len = len as u64;
        if self.dropped_lines == 0 && self.lines_left > 0 && len <= self.bytes_left {
            self.lines_left -= 1;
            self.bytes_left -= len;
            true
        } else {
            self.dropped_lines += 1;
            self.dropped_bytes += len;
            false
        }
    }

    /// Whether anything was dropped.
    pub fn exceeded(&self) -> bool {
        self.dropped_lines > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(lines: u64, bytes: u64) -> LogBudget {
        LogBudget::new(&Limits {
            log_lines: lines,
            log_bytes: bytes,
            ..Limits::default()
        })
    }

    #[test]
    fn lines_are_admitted_until_either_bound_is_reached() {
        let mut b = budget(3, 1000);
        assert!(b.admit(10) && b.admit(10) && b.admit(10));
        assert!(!b.admit(1));
        assert_eq!((b.dropped_lines, b.dropped_bytes), (1, 1));
        let mut b = budget(100, 25);
        assert!(b.admit(10) && b.admit(10));
        assert!(!b.admit(10));
        assert!(b.exceeded());
    }

    #[test]
    fn after_the_first_refusal_everything_is_counted_not_written() {
        let mut b = budget(100, 25);
        assert!(b.admit(20));
        assert!(!b.admit(10));
        // It would fit, but the log must not skip a line and go on.
        assert!(!b.admit(1));
        assert_eq!((b.dropped_lines, b.dropped_bytes), (2, 11));
    }

    #[test]
    fn a_zero_budget_writes_nothing() {
        let mut b = budget(0, 0);
        assert!(!b.admit(0));
        assert!(!budget(5, 0).clone().admit(1));
    }
}
