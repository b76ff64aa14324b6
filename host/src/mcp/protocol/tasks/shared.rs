//! Tasks in the store the replicas share (issue 46): each task's record
//! (its state, and its result once it ends) under `r/ID` in the store's
//! `tasks()` namespace until its TTL, the lease of the replica running it
//! under `task-lease/ID` in `limits()` (so that the `tasks()` namespace's
//! size counts records alone, for `max_tasks` and `max_task_store_size`
//! across the cluster), and the other replicas' cancellations and answers
//! for the running replica on the `tasks()` namespace's `events` topic.
//!
//! The running replica takes the lease with a compare-and-swap when it
//! makes the task and renews it every third of its length; after each
//! change of the task it writes the record, with a compare-and-swap so that
//! a cancellation or a lost lease written by another replica is never
//! overwritten. A record that is neither ended nor leased reads `failed`:
//! its replica was lost. A replica that cancels a task it does not run
//! marks the record cancelled and publishes the cancellation; the running
//! replica drops the run when the message arrives, or, if the message was
//! missed, when it next renews the lease and reads the record.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{DetailedTask, InputResponses, TaskPayload};
use rmcp::task_manager::current_timestamp;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use super::{Tasks, now_ms, object, short};
use crate::runtime::store::{Heard, Namespace, Size, Store, StoreError, StoreName, Swap};

/// The status message of a task whose replica's lease expired.
pub(super) const LOST: &str = "the replica running this task was lost (its lease in the shared store expired before the task ended)";

/// The topic of the messages to the replicas running tasks.
const EVENTS: &[u8] = b"events";

/// How many times a compare-and-swap is tried again after a conflict.
const RETRIES: usize = 8;

/// Why the shared store did not do what the tasks asked.
#[derive(Debug, thiserror::Error)]
pub(super) enum SharedError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A record or message that does not encode as JSON.
    #[error("a task's record does not encode: {0}")]
    Encode(#[from] serde_json::Error),
    /// A new task's id is leased already (128 random bits collided).
    #[error("the task {0} is leased already")]
    Leased(String),
    /// The record changed under every try.
    #[error("the task {0} changed {RETRIES} times while it was being written")]
    Busy(String),
}

/// A task's record in the shared store.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Record {
    /// When it expires, in wall-clock milliseconds since the epoch: its
    /// `ttlMs` after its creation.
    pub(super) expires_at_ms: u64,
    /// Its state, as `tasks/get` answers it.
    pub(super) task: DetailedTask,
}

/// A message to the replica running a task.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
enum Event {
    /// Stop the run: the task is cancelled.
    #[serde(rename_all = "camelCase")]
    Cancel { task_id: String },
    /// The client's answers to the task's open requests.
    #[serde(rename_all = "camelCase")]
    Update {
        task_id: String,
        responses: InputResponses,
    },
}

/// Whether a task has ended.
pub(super) fn ended(task: &DetailedTask) -> bool {
    matches!(
        task.payload,
        TaskPayload::Completed { .. } | TaskPayload::Failed { .. } | TaskPayload::Cancelled
    )
}

/// The store the replicas share, as the tasks use it.
#[derive(Debug)]
pub(super) struct Shared {
    store: Store,
    ns: Namespace,
    /// Where the leases are.
    leases: Namespace,
    /// This replica's name in its leases: random, made at start.
    replica: String,
    lease: Duration,
}

impl Shared {
    /// Tasks in `store`, leased for `lease`.
    pub(super) fn new(store: Store, lease: Duration) -> Shared {
        Shared {
            store,
            ns: Namespace::tasks(),
            leases: Namespace::limits(),
            replica: super::super::fanout::message::replica_name(),
            lease: lease.max(Duration::from_millis(30)),
        }
    }

    /// This replica's name in its leases.
    pub(super) fn replica(&self) -> &str {
        &self.replica
    }

    /// The store's name, for the log.
    pub(super) fn store_name(&self) -> &StoreName {
        self.store.name()
    }

    fn record_key(task_id: &str) -> String {
        format!("r/{task_id}")
    }

    fn lease_key(task_id: &str) -> String {
        format!("task-lease/{task_id}")
    }

    /// What is left of a record's TTL (at least a millisecond).
    fn ttl(record: &Record) -> Duration {
        Duration::from_millis(record.expires_at_ms.saturating_sub(now_ms()).max(1))
    }

    fn encode(record: &Record) -> Result<Vec<u8>, SharedError> {
        Ok(serde_json::to_vec(record)?)
    }

    /// A task's record, as stored and as read.
    pub(super) async fn read(
        &self,
        task_id: &str,
    ) -> Result<Option<(Vec<u8>, Record)>, StoreError> {
        let Some(bytes) = self.store.get(&self.ns, Self::record_key(task_id)).await? else {
            return Ok(None);
        };
        // A record this server cannot read (written by another version)
        // is not a task it knows.
        Ok(serde_json::from_slice(&bytes)
            .ok()
            .map(|record| (bytes, record)))
    }

    /// How many tasks the cluster keeps, and the bytes of their records
    /// (an upper bound: expired records count until Redis sweeps them).
    pub(super) async fn size(&self) -> Result<Size, SharedError> {
        Ok(self.store.size(&self.ns).await?)
    }

    /// Takes the lease of a new task and writes its first record.
    pub(super) async fn create(&self, record: &Record) -> Result<(), SharedError> {
        let id = &record.task.task.task_id;
        let lease = self
            .store
            .compare_and_swap(
                &self.leases,
                Self::lease_key(id),
                None,
                &self.replica,
                Some(self.lease),
            )
            .await?;
        if let Swap::Conflict { .. } = lease {
            return Err(SharedError::Leased(short(id).to_string()));
        }
        let bytes = Self::encode(record)?;
        self.store
            .set(
                &self.ns,
                Self::record_key(id),
                bytes,
                Some(Self::ttl(record)),
            )
            .await?;
        Ok(())
    }

    /// Replaces the record `old` (`None`: no record) by `record`, unless
    /// it changed meanwhile.
    async fn swap(&self, old: Option<&[u8]>, record: &Record) -> Result<Swap, SharedError> {
        let id = &record.task.task.task_id;
        let bytes = Self::encode(record)?;
        let swap = self
            .store
            .compare_and_swap(
                &self.ns,
                Self::record_key(id),
                old,
                bytes,
                Some(Self::ttl(record)),
            )
            .await?;
        Ok(swap)
    }

    /// Renews this replica's lease of a task; takes it again if it
    /// expired meanwhile (the record says whether the task was declared
    /// lost then). Whether this replica holds it.
    async fn renew(&self, task_id: &str) -> Result<bool, StoreError> {
        let key = Self::lease_key(task_id);
        let mine = self.replica.as_bytes();
        for expected in [Some(mine), None] {
            let swap = self
                .store
                .compare_and_swap(&self.leases, &key, expected, mine, Some(self.lease))
                .await?;
            if swap == Swap::Swapped {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Lets a task's lease go once its record says it ended.
    async fn release(&self, task_id: &str) {
        if let Err(e) = self
            .store
            .delete(&self.leases, Self::lease_key(task_id))
            .await
        {
            // It expires on its own.
            tracing::debug!(task = short(task_id), error = %e, "a task's lease stays until it expires");
        }
    }

    /// The state of a task that has not ended, read by a replica that does
    /// not run it: as recorded while its lease is held, or `failed` (and
    /// so recorded) once it is not. `None` if the record expired meanwhile.
    pub(super) async fn unless_lost(
        &self,
        task_id: &str,
        mut bytes: Vec<u8>,
        mut record: Record,
    ) -> Result<Option<DetailedTask>, SharedError> {
        for _ in 0..RETRIES {
            if ended(&record.task)
                || self
                    .store
                    .exists(&self.leases, Self::lease_key(task_id))
                    .await?
            {
                return Ok(Some(record.task));
            }
            let lost = ending(&record, failed(LOST), LOST);
            match self.swap(Some(&bytes), &lost).await? {
                Swap::Swapped => {
                    tracing::warn!(task = short(task_id), "{LOST}");
                    return Ok(Some(lost.task));
                }
                Swap::Conflict { current: None } => return Ok(None),
                Swap::Conflict {
                    current: Some(current),
                } => match serde_json::from_slice(&current) {
                    Ok(decoded) => (bytes, record) = (current, decoded),
                    Err(_) => return Ok(None),
                },
            }
        }
        Ok(Some(record.task))
    }

    /// Marks a task this replica does not run cancelled, saying `why`, and
    /// tells the replica running it. Whether the task exists (an ended one
    /// is left as it is).
    pub(super) async fn cancel(&self, task_id: &str, why: &str) -> Result<bool, SharedError> {
        for _ in 0..RETRIES {
            let Some((bytes, record)) = self.read(task_id).await? else {
                return Ok(false);
            };
            if ended(&record.task) {
                return Ok(true);
            }
            let cancelled = ending(&record, TaskPayload::Cancelled, why);
            if self.swap(Some(&bytes), &cancelled).await? == Swap::Swapped {
                tracing::info!(task = short(task_id), "task cancelled in the shared store");
                self.publish(&Event::Cancel {
                    task_id: task_id.to_string(),
                })
                .await?;
                return Ok(true);
            }
        }
        Err(SharedError::Busy(short(task_id).to_string()))
    }

    /// Hands the client's answers to the replica running the task.
    pub(super) async fn answer(
        &self,
        task_id: &str,
        responses: InputResponses,
    ) -> Result<(), SharedError> {
        self.publish(&Event::Update {
            task_id: task_id.to_string(),
            responses,
        })
        .await
    }

    async fn publish(&self, event: &Event) -> Result<(), SharedError> {
        let message = serde_json::to_vec(event)?;
        self.store.publish(&self.ns, EVENTS, message).await?;
        Ok(())
    }
}

/// The `failed` payload of an error saying `message`.
pub(super) fn failed(message: &str) -> TaskPayload {
    TaskPayload::Failed {
        error: object(serde_json::to_value(McpError::internal_error(
            message.to_string(),
            None,
        ))),
    }
}

/// `record`, ended with `payload` and the status message `why`.
fn ending(record: &Record, payload: TaskPayload, why: &str) -> Record {
    let mut task = record.task.task.clone();
    task.status_message = Some(why.to_string());
    task.last_updated_at = current_timestamp();
    Record {
        expires_at_ms: record.expires_at_ms,
        task: DetailedTask::new(task, payload),
    }
}

/// Keeps the shared record and lease of the task `task_id` this replica
/// runs: renews the lease every third of its length, writes the record
/// after each change (`changed`), and stops the run if another replica
/// ended the task (cancelled it, or found its lease lost). Ends once the
/// task's end is recorded, or the task expired.
pub(super) async fn keep(tasks: Tasks, shared: Arc<Shared>, task_id: String, changed: Arc<Notify>) {
    let mut renewal = tokio::time::interval(shared.lease / 3);
    renewal.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    renewal.tick().await;
    loop {
        let renew = tokio::select! {
            () = changed.notified() => false,
            _ = renewal.tick() => true,
        };
        if renew && let Err(e) = shared.renew(&task_id).await {
            tracing::warn!(task = short(&task_id), error = %e, "a task's lease was not renewed");
        }
        match settle(&tasks, &shared, &task_id).await {
            Ok(true) => return,
            Ok(false) => {}
            // Tried again at the next change or renewal.
            Err(e) => {
                tracing::warn!(task = short(&task_id), error = %e, "a task's record was not written");
            }
        }
    }
}

/// Writes this replica's state of the task `task_id` over its record; once
/// the task's end is recorded (or it expired), lets its lease go and notes
/// that. Whether it is.
pub(super) async fn settle(
    tasks: &Tasks,
    shared: &Shared,
    task_id: &str,
) -> Result<bool, SharedError> {
    let ended = match tasks.snapshot(task_id) {
        Some(mine) => write(tasks, shared, task_id, &mine).await?,
        // Expired here: the record expires in the store too.
        None => true,
    };
    if ended {
        shared.release(task_id).await;
        tasks.recorded(task_id);
    }
    Ok(ended)
}

/// Writes this replica's state of a task over its record. Whether the
/// task's end is recorded (its own, or one another replica wrote, which
/// stops the run here).
async fn write(
    tasks: &Tasks,
    shared: &Shared,
    task_id: &str,
    mine: &Record,
) -> Result<bool, SharedError> {
    let new = Shared::encode(mine)?;
    for _ in 0..RETRIES {
        let Some((bytes, current)) = shared.read(task_id).await? else {
            if mine.expires_at_ms <= now_ms() {
                // Expired in the store.
                return Ok(true);
            }
            // The store lost it (a Redis restarted without persistence):
            // this replica, which runs the task, writes it again.
            if shared.swap(None, mine).await? == Swap::Swapped {
                tracing::info!(
                    task = short(task_id),
                    "a task's record, lost by the shared store, is written again"
                );
                return Ok(ended(&mine.task));
            }
            continue;
        };
        if ended(&current.task) {
            if !ended(&mine.task) {
                let why = current
                    .task
                    .task
                    .status_message
                    .clone()
                    .unwrap_or_else(|| super::CANCELLED.to_string());
                let _ = tasks.cancel_here(task_id, &why);
            }
            return Ok(true);
        }
        if bytes == new || shared.swap(Some(&bytes), mine).await? == Swap::Swapped {
            return Ok(ended(&mine.task));
        }
    }
    Ok(false)
}

/// Follows the other replicas' messages to the tasks this replica runs,
/// for as long as the server runs. After a gap (a dropped connection,
/// missed messages), cancellations still arrive at lease renewal; answers
/// published in the gap are lost, and the client's next `tasks/update`
/// brings them.
pub(super) async fn listen(tasks: Tasks, shared: Arc<Shared>) {
    shared
        .store
        .follow(&shared.ns, EVENTS, "other replicas' messages for tasks", |heard| match heard {
            Heard::Message(bytes) => heard_event(&tasks, bytes),
            Heard::Gap(e) => {
                tracing::info!(error = %e, "missed messages for tasks; cancellations arrive at lease renewal");
            }
        })
        .await
}

/// Acts on one message, if it is for a task this replica runs.
fn heard_event(tasks: &Tasks, bytes: &[u8]) {
    match serde_json::from_slice::<Event>(bytes) {
        Ok(Event::Cancel { task_id }) => {
            if tasks.here(&task_id).is_some() {
                let _ = tasks.cancel_here(&task_id, super::CANCELLED);
            }
        }
        Ok(Event::Update { task_id, responses }) => {
            if tasks.here(&task_id).is_some() {
                let _ = tasks.update_here(&task_id, responses);
            }
        }
        Err(e) => tracing::debug!(error = %e, "a message for tasks this server cannot read"),
    }
}

#[cfg(test)]
mod tests {
    //! Two `Tasks` on one embedded store stand for two replicas: the same
    //! records, leases and messages as on Redis, within one process.
    use std::future::pending;

    use rmcp::model::{CallToolResult, ContentBlock, TaskStatus};
    use tokio::sync::oneshot;

    use super::super::{Finished, Tasks};
    use super::*;
    use crate::config::TaskSettings;

    /// Two replicas, with a task made (not yet run) on the first.
    async fn replicas(lease: Duration) -> (Tasks, Tasks, String, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::embedded(dir.path()).await.unwrap();
        let settings = TaskSettings {
            lease,
            ..TaskSettings::default()
        };
        let a = Tasks::shared(settings, store.clone());
        let b = Tasks::shared(settings, store);
        let id = a.create(Duration::from_secs(60)).await.unwrap().task_id;
        (a, b, id, dir)
    }

    /// `tasks/get` on `tasks` until `done` holds (within a minute, far
    /// beyond what it takes).
    async fn until(tasks: &Tasks, id: &str, done: impl Fn(TaskStatus) -> bool) -> DetailedTask {
        let poll = async {
            loop {
                let got = tasks.get(id).await.unwrap();
                if done(got.status()) {
                    return got;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(60), poll)
            .await
            .expect("the task never reached the state the test waits for")
    }

    #[tokio::test]
    async fn a_result_made_on_one_replica_is_read_on_another() {
        let (a, b, id, _dir) = replicas(Duration::from_secs(10)).await;
        assert_eq!(b.get(&id).await.unwrap().status(), TaskStatus::Working);
        a.run(&id, async {
            Finished::Completed(CallToolResult::success(vec![ContentBlock::text("done")]))
        });
        let done = until(&b, &id, |s| s != TaskStatus::Working).await;
        assert_eq!(done.status(), TaskStatus::Completed);
        let value = serde_json::to_value(&done).unwrap();
        assert_eq!(value["result"]["content"][0]["text"], "done");
        assert_eq!(b.get("nope").await.unwrap_err().code.0, -32602);
    }

    #[tokio::test]
    async fn a_cancel_on_another_replica_drops_the_run() {
        let (a, b, id, _dir) = replicas(Duration::from_secs(10)).await;
        let (dropped_tx, dropped_rx) = oneshot::channel::<()>();
        a.run(&id, async move {
            let _dropped = dropped_tx;
            pending::<Finished>().await
        });
        b.cancel(&id).await.unwrap();
        // The run's future is dropped on the replica running it.
        assert!(dropped_rx.await.is_err());
        assert_eq!(a.get(&id).await.unwrap().status(), TaskStatus::Cancelled);
        assert_eq!(b.get(&id).await.unwrap().status(), TaskStatus::Cancelled);
    }

    #[tokio::test]
    async fn a_task_whose_lease_expires_reads_failed_as_lost() {
        let (_a, b, id, _dir) = replicas(Duration::from_millis(50)).await;
        // Made, but no replica runs it or renews its lease: as if its
        // replica died.
        let lost = until(&b, &id, |s| s != TaskStatus::Working).await;
        assert_eq!(lost.status(), TaskStatus::Failed);
        assert_eq!(lost.task.status_message.as_deref(), Some(LOST));
        let value = serde_json::to_value(&lost).unwrap();
        assert_eq!(value["error"]["message"], LOST);
    }

    #[tokio::test]
    async fn a_running_task_keeps_its_lease() {
        // Long enough that a renewal delayed by a loaded machine (the
        // embedded store writes to disk, in the test's one thread) never
        // lets it lapse: with 500 ms it did, at a load average of 20.
        let lease = Duration::from_secs(3);
        let (a, b, id, _dir) = replicas(lease).await;
        let (finish, finished) = oneshot::channel::<()>();
        a.run(&id, async move {
            let _ = finished.await;
            Finished::Completed(CallToolResult::success(vec![]))
        });
        // Two lease lengths pass (renewed every third of one): it is never
        // read as lost.
        let started = std::time::Instant::now();
        while started.elapsed() < 2 * lease {
            tokio::time::sleep(Duration::from_millis(250)).await;
            assert_eq!(b.get(&id).await.unwrap().status(), TaskStatus::Working);
        }
        finish.send(()).unwrap();
        let done = until(&b, &id, |s| s != TaskStatus::Working).await;
        assert_eq!(done.status(), TaskStatus::Completed);
    }
}
