//! A replica's tasks when it stops (SIGTERM, issue 46): it makes no new
//! task ([`Tasks::close`]), lets the tasks it runs finish within
//! `--shutdown-timeout`, and ends those still running then as `failed`,
//! saying the replica shut down, in the record every replica reads
//! ([`Tasks::hand_over`]). Other replicas' pollers thus see a terminal
//! state at once, never `working`, nor a lease that times out later.
//!
//! A task is not run again elsewhere: its guest may have acted already
//! (a tool call is not idempotent), so the client decides.

use std::time::Duration;

use futures::future::join_all;
use rmcp::ErrorData as McpError;
use rmcp::model::TaskPayload;
use tokio::time::Instant;

use super::shared::{self, Shared};
use super::{Records, Tasks, json_size, object, short};

/// How a task still running when its replica shut down reads: its status
/// message and its error's message start with this.
pub const SHUT_DOWN: &str = "the replica running this task shut down before the task ended";

/// How long the records of the tasks failed at the deadline may take to
/// be written, past it (each store operation has its own timeout too).
const LAST_WRITES: Duration = Duration::from_secs(5);

/// What became of the tasks a replica ran when it stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandOver {
    /// Running when the shutdown began.
    pub running: usize,
    /// Still running at the deadline, and so failed.
    pub failed: usize,
    /// Whose end could not be written in the shared store (the store did
    /// not answer): they read `failed`, lost, once their lease expires.
    pub unrecorded: usize,
    /// Kept in this process alone (no shared store): they end with it.
    pub dropped: usize,
}

impl Tasks {
    /// Makes no new task from now on: a call that would become one runs as
    /// an ordinary call, and a tool that runs only as a task is refused.
    pub fn close(&self) {
        self.store().closing = true;
    }

    /// Waits until `deadline` for the tasks this process runs to end and,
    /// with a shared store, for their ends to be written there; then fails
    /// those still running, saying the replica shut down after `waited`,
    /// and writes that (within a few seconds more). Without a shared store
    /// nothing could read a task once the process ends, so it waits for
    /// none.
    pub async fn hand_over(&self, deadline: Instant, waited: Duration) -> HandOver {
        let running = self.running();
        let Records::Shared(shared) = &self.records else {
            return HandOver {
                running: running.len(),
                dropped: running.len(),
                ..HandOver::default()
            };
        };
        let settled = async {
            loop {
                let notified = self.settled.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.unsettled().is_empty() {
                    return;
                }
                notified.await;
            }
        };
        let mut over = HandOver {
            running: running.len(),
            ..HandOver::default()
        };
        if tokio::time::timeout_at(deadline, settled).await.is_ok() {
            return over;
        }
        let why = format!(
            "{SHUT_DOWN} (it waited {} s for it, its --shutdown-timeout)",
            waited.as_secs()
        );
        for task_id in self.running() {
            self.fail_here(&task_id, &why);
            over.failed += 1;
        }
        let unsettled = self.unsettled();
        let writes = join_all(unsettled.iter().map(|id| write_end(self, shared, id)));
        let written = tokio::time::timeout(LAST_WRITES, writes).await;
        over.unrecorded = match written {
            Ok(done) => done.into_iter().filter(|ok| !ok).count(),
            Err(_) => self.unsettled().len(),
        };
        over
    }

    /// The ids of the tasks this process runs that have not ended.
    fn running(&self) -> Vec<String> {
        let store = self.store();
        store
            .entries
            .iter()
            .filter(|(_, entry)| entry.terminal.is_none())
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// The ids of the tasks whose end is not yet written in the shared
    /// store.
    fn unsettled(&self) -> Vec<String> {
        let store = self.store();
        store
            .entries
            .iter()
            .filter(|(_, entry)| entry.shared.is_some() && !entry.recorded)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Stops the run of a task that has not ended and fails it, saying
    /// `why`.
    fn fail_here(&self, task_id: &str, why: &str) {
        let mut store = self.store();
        let Some(entry) = store.entries.get_mut(task_id) else {
            return;
        };
        if entry.terminal.is_some() {
            return;
        }
        if let Some(abort) = entry.abort.take() {
            abort.abort();
        }
        let payload = TaskPayload::Failed {
            error: object(serde_json::to_value(McpError::internal_error(
                why.to_string(),
                None,
            ))),
        };
        let bytes = json_size(&payload);
        entry.terminal = Some(payload);
        entry.bytes = bytes;
        entry.task.status_message = Some(why.to_string());
        entry.pending.clear();
        entry.touch();
        store.stored_bytes += bytes;
        tracing::warn!(task = short(task_id), "{why}");
    }
}

/// Writes the end of a task this replica ran; whether it is written.
async fn write_end(tasks: &Tasks, shared: &Shared, task_id: &str) -> bool {
    match shared::settle(tasks, shared, task_id).await {
        Ok(written) => written,
        Err(e) => {
            tracing::warn!(task = short(task_id), error = %e, "a task's end was not written in the shared store");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    //! Two `Tasks` on one embedded store stand for two replicas, as in
    //! `shared`'s tests; the first one shuts down.
    use std::future::pending;

    use rmcp::model::{CallToolResult, ContentBlock, TaskStatus};
    use tokio::sync::oneshot;

    use super::super::{Finished, StoreFull};
    use super::*;
    use crate::config::TaskSettings;
    use crate::runtime::store::Store;

    async fn replicas() -> (Tasks, Tasks, String, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::embedded(dir.path()).await.unwrap();
        let a = Tasks::shared(TaskSettings::default(), store.clone());
        let b = Tasks::shared(TaskSettings::default(), store);
        let id = a.create(Duration::from_secs(60)).await.unwrap().task_id;
        (a, b, id, dir)
    }

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(600)
    }

    #[tokio::test]
    async fn a_closed_store_makes_no_task() {
        let (a, _b, _id, _dir) = replicas().await;
        a.close();
        assert_eq!(a.room().await, Err(StoreFull::Closing));
        assert_eq!(
            a.create(Duration::from_secs(1)).await.unwrap_err(),
            StoreFull::Closing
        );
    }

    #[tokio::test]
    async fn a_task_that_ends_in_time_is_read_completed_on_another_replica() {
        let (a, b, id, _dir) = replicas().await;
        let (finish, finished) = oneshot::channel::<()>();
        a.run(&id, async move {
            let _ = finished.await;
            Finished::Completed(CallToolResult::success(vec![ContentBlock::text("done")]))
        });
        a.close();
        let handing = tokio::spawn({
            let a = a.clone();
            async move { a.hand_over(far(), Duration::from_secs(600)).await }
        });
        tokio::task::yield_now().await;
        assert!(!handing.is_finished(), "it waits for the running task");
        finish.send(()).unwrap();
        let over = handing.await.unwrap();
        assert_eq!(
            over,
            HandOver {
                running: 1,
                ..HandOver::default()
            }
        );
        // Written before the hand-over returned: read at once.
        let done = b.get(&id).await.unwrap();
        assert_eq!(done.status(), TaskStatus::Completed, "{done:?}");
    }

    #[tokio::test]
    async fn a_task_still_running_at_the_deadline_reads_failed_as_shut_down() {
        let (a, b, id, _dir) = replicas().await;
        let (dropped_tx, dropped_rx) = oneshot::channel::<()>();
        a.run(&id, async move {
            let _dropped = dropped_tx;
            pending::<Finished>().await
        });
        a.close();
        let over = a
            .hand_over(Instant::now() + Duration::from_millis(50), Duration::ZERO)
            .await;
        assert_eq!(
            over,
            HandOver {
                running: 1,
                failed: 1,
                ..HandOver::default()
            }
        );
        // The run was stopped, and its end is written: read at once, long
        // before a lease would expire.
        assert!(dropped_rx.await.is_err());
        let failed = b.get(&id).await.unwrap();
        assert_eq!(failed.status(), TaskStatus::Failed);
        let message = failed.task.status_message.clone().unwrap_or_default();
        assert!(message.starts_with(SHUT_DOWN), "{message}");
        let value = serde_json::to_value(&failed).unwrap();
        assert!(
            value["error"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(SHUT_DOWN)),
            "{value}"
        );
    }

    #[tokio::test]
    async fn without_a_shared_store_nothing_is_waited_for() {
        let tasks = Tasks::new(TaskSettings::default());
        let id = tasks.create(Duration::from_secs(60)).await.unwrap().task_id;
        tasks.run(&id, pending::<Finished>());
        let over = tasks.hand_over(far(), Duration::from_secs(600)).await;
        assert_eq!(
            over,
            HandOver {
                running: 1,
                dropped: 1,
                ..HandOver::default()
            }
        );
    }
}
