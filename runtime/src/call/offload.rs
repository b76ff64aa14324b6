//! Host work on a call's path that can take long (checking arguments and
//! structured content against a plugin's schemas) runs off the async worker
//! threads, a few jobs per plugin at a time, and within the call's deadline:
//! neither fuel nor the epoch deadline reaches host code, so this is what
//! keeps `ping` and other plugins' calls prompt while one plugin's schemas
//! are slow to check.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Semaphore;

/// Jobs of one plugin that may run on the blocking pool at once; more wait
/// (within their deadline). One plugin's slow schemas thus hold at most this
/// many threads, and other plugins never wait for them.
pub const JOBS_PER_PLUGIN: usize = 2;

/// A plugin's share of the blocking pool.
#[derive(Debug, Clone)]
pub struct Lane(Arc<Semaphore>);

impl Default for Lane {
    fn default() -> Self {
        Lane(Arc::new(Semaphore::new(JOBS_PER_PLUGIN)))
    }
}

/// The deadline passed before the work was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the deadline passed before the host finished checking the call")]
pub struct Expired;

/// Runs `work` on the blocking pool in `lane`, and waits for it until
/// `deadline`. A job still running then is left to finish on its own thread
/// (Rust cannot stop a thread), and its result is discarded: the lane's
/// bound is what keeps such leftovers from piling up.
pub async fn run<T, F>(lane: &Lane, deadline: Instant, work: F) -> Result<T, Expired>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let deadline = tokio::time::Instant::from_std(deadline);
    let Ok(Ok(permit)) = tokio::time::timeout_at(deadline, lane.0.clone().acquire_owned()).await
    else {
        return Err(Expired);
    };
    let job = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work()
    });
    match tokio::time::timeout_at(deadline, job).await {
        Ok(Ok(value)) => Ok(value),
        // The job panicked: the checks run here are written not to, so treat
        // it as work that could not be done rather than crash.
        Ok(Err(_)) | Err(_) => Err(Expired),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_returns_its_value_before_the_deadline() {
        let lane = Lane::default();
        let far = Instant::now() + Duration::from_secs(600);
        assert_eq!(run(&lane, far, || 6 * 7).await, Ok(42));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_past_the_deadline_is_left_behind_and_its_lane_freed_when_it_ends() {
        let lane = Lane::default();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let soon = Instant::now() + Duration::from_millis(50);
        let outcome = run(&lane, soon, move || {
            // Blocks until the test lets it go, after the caller gave up.
            let _ = go_rx.recv();
        })
        .await;
        assert_eq!(outcome, Err(Expired));
        assert_eq!(lane.0.available_permits(), JOBS_PER_PLUGIN - 1);
        go_tx.send(()).unwrap();
        while lane.0.available_permits() < JOBS_PER_PLUGIN {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_lane_makes_later_jobs_wait_and_never_blocks_other_lanes() {
        let busy = Lane::default();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release_rx = Arc::new(std::sync::Mutex::new(release_rx));
        let far = Instant::now() + Duration::from_secs(600);
        let mut hogs = Vec::new();
        for _ in 0..JOBS_PER_PLUGIN {
            let (lane, rx) = (busy.clone(), release_rx.clone());
            hogs.push(tokio::spawn(async move {
                run(&lane, far, move || {
                    let _ = rx.lock().unwrap().recv();
                })
                .await
            }));
        }
        while busy.0.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        // The busy lane is full: a job there waits until its deadline.
        let soon = Instant::now() + Duration::from_millis(20);
        assert_eq!(run(&busy, soon, || ()).await, Err(Expired));
        // Another plugin's lane is free.
        assert_eq!(run(&Lane::default(), far, || 1).await, Ok(1));
        for _ in 0..JOBS_PER_PLUGIN {
            release_tx.send(()).unwrap();
        }
        for hog in hogs {
            assert_eq!(hog.await.unwrap(), Ok(()));
        }
    }
}
