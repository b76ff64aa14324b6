//! Waiting for a state the test needs, with one deadline for every wait:
//! [`eventually`] polls a check until it holds, and fails the test, saying
//! what it waited for, once [`DEADLINE`] (or the deadline given) has
//! passed. A test never sleeps for a fixed time instead.
#![allow(dead_code, clippy::unwrap_used)]

use std::time::{Duration, Instant};

/// How long any wait of the harness lasts before the test fails: a safety
/// net against a hung server on a loaded machine, never a performance
/// assertion. Every poll loop, message wait and HTTP timeout uses it.
pub const DEADLINE: Duration = Duration::from_secs(300);

/// The first pause between two polls; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(5);
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// Polls `check` until it gives `Some`, and returns that; once `deadline`
/// has passed the test fails with `what` (called then, so it can show the
/// state that never came, such as the server's log).
#[track_caller]
pub fn eventually<T>(
    deadline: Duration,
    what: impl FnOnce() -> String,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    let start = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        if let Some(done) = check() {
            return done;
        }
        assert!(
            start.elapsed() < deadline,
            "not within {deadline:?}: {}",
            what()
        );
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// [`eventually`] for a test on a tokio runtime: the check is async, and
/// the pauses yield to the runtime.
pub async fn eventually_async<T, F: Future<Output = Option<T>>>(
    deadline: Duration,
    what: impl FnOnce() -> String,
    mut check: impl FnMut() -> F,
) -> T {
    let start = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        if let Some(done) = check().await {
            return done;
        }
        assert!(
            start.elapsed() < deadline,
            "not within {deadline:?}: {}",
            what()
        );
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

#[test]
fn eventually_returns_what_the_check_gives_and_fails_past_its_deadline() {
    let mut polls = 0;
    let got = eventually(
        DEADLINE,
        || "three polls".into(),
        || {
            polls += 1;
            (polls == 3).then_some(polls)
        },
    );
    assert_eq!(got, 3);
    let failed = std::panic::catch_unwind(|| {
        eventually(Duration::from_millis(20), || "never".into(), || None::<()>)
    });
    let message = *failed.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("never"), "{message}");
}
