//! The server's task store (MCP's tasks extension, `io.modelcontextprotocol/tasks`,
//! SEP-2663): each task's state, its open requests to the client, and its
//! result once it ends, in memory, bounded in count and bytes and dropped
//! after its TTL. `tasks/get`, `tasks/update` and `tasks/cancel` read and
//! change it; a task's run reports to it.
//!
//! The seam between one server and replicas is [`Records`]: in memory
//! alone, or also in a store the replicas share ([`shared`]), where any
//! replica reads, updates and cancels any task. The replica running a task
//! keeps its run, its open requests and the bounds' accounting in memory
//! either way; with a shared store it writes the task's record there after
//! each change, under a lease it renews. On SIGTERM a replica hands its
//! tasks over ([`shutdown`]).
//!
//! rmcp's own `TaskManager` keeps tasks too, but has no bound on how many
//! tasks or result bytes it holds, and its cancellation is cooperative; a
//! task here is the guest's call future, which `tasks/cancel` drops, and
//! that stops the guest at once.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolResult, DetailedTask, InputRequest, InputResponses, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use rmcp::task_manager::current_timestamp;
use serde_json::Value;
use tokio::sync::{Notify, oneshot};

use crate::runtime::store::Store as StateStore;

use crate::config::TaskSettings;

mod shared;
mod shutdown;

use shared::{Record, Shared, ended};
pub use shutdown::{HandOver, SHUT_DOWN};

/// How a task's run ended.
#[derive(Debug)]
pub enum Finished {
    /// The tool's result (`isError` results included): status `completed`.
    Completed(CallToolResult),
    /// The JSON-RPC error the call would have answered with: status
    /// `failed`.
    Failed(McpError),
}

/// Why no task could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreFull {
    /// As many tasks as `[server] max_tasks` are kept.
    #[error(
        "the server keeps its maximum of {0} tasks (`[server] max_tasks`); try again when some have expired"
    )]
    Count(usize),
    /// The finished tasks' results fill `[server] max_task_store_size`.
    #[error(
        "the finished tasks' results fill the server's task store ({0} bytes, `[server] max_task_store_size`); try again when some have expired"
    )]
    Bytes(u64),
    /// The system gave no random bytes for the task's id.
    #[error("the server cannot make a task id: the system gave no random bytes")]
    NoRandom,
    /// The store the replicas share tasks in failed.
    #[error("the shared task store failed: {0}")]
    Shared(String),
    /// The server is shutting down ([`Tasks::close`]).
    #[error("the server is shutting down and makes no new tasks")]
    Closing,
}

/// The server's tasks; cheap to clone, the clones share them.
#[derive(Debug, Clone)]
pub struct Tasks {
    settings: TaskSettings,
    store: Arc<Mutex<Store>>,
    records: Records,
    /// Woken when a task's end is recorded in the shared store.
    settled: Arc<Notify>,
}

/// Where tasks' records are kept for `tasks/get`, `tasks/update` and
/// `tasks/cancel`.
#[derive(Debug, Clone)]
enum Records {
    /// In this process alone: a single server.
    Memory,
    /// Also in the store the replicas share.
    Shared(Arc<Shared>),
}

#[derive(Debug, Default)]
struct Store {
    entries: HashMap<String, Entry>,
    /// The bytes of every finished task's result or error.
    stored_bytes: u64,
    /// No new tasks: the server is shutting down.
    closing: bool,
}

#[derive(Debug)]
struct Entry {
    /// The task's fields; its status is derived from `terminal` and
    /// `pending` when it is read.
    task: Task,
    terminal: Option<TaskPayload>,
    /// The size of `terminal`, as JSON.
    bytes: u64,
    /// When the task may be dropped: its `ttlMs` after its creation.
    expires: Instant,
    /// Requests to the client the run waits on, by key.
    pending: BTreeMap<String, (InputRequest, oneshot::Sender<Value>)>,
    /// Stops the run.
    abort: Option<tokio::task::AbortHandle>,
    /// When its record is written to a shared store: the wall-clock
    /// milliseconds it expires at, and what wakes its writer.
    shared: Option<(u64, Arc<Notify>)>,
    /// Whether its end is written in the shared store.
    recorded: bool,
}

impl Entry {
    fn touch(&mut self) {
        self.task.last_updated_at = current_timestamp();
        self.changed();
    }

    /// Wakes the writer of its shared record, if any.
    fn changed(&self) {
        if let Some((_, changed)) = &self.shared {
            changed.notify_one();
        }
    }

    fn detailed(&self) -> DetailedTask {
        let payload = match &self.terminal {
            Some(payload) => payload.clone(),
            None if !self.pending.is_empty() => TaskPayload::InputRequired {
                input_requests: self
                    .pending
                    .iter()
                    .map(|(k, (request, _))| (k.clone(), request.clone()))
                    .collect(),
            },
            None => TaskPayload::Working,
        };
        DetailedTask::new(self.task.clone(), payload)
    }
}

/// The start of a task id, enough to tell tasks apart in the server log
/// without writing down the whole id, which is the key to the task.
pub fn short(task_id: &str) -> &str {
    task_id.get(..8).unwrap_or(task_id)
}

/// `-32602` for a task id the server does not know (SEP-2663).
fn unknown(task_id: &str) -> McpError {
    // Echoed clipped: the client chose the id's length.
    let shown: String = task_id.chars().take(64).collect();
    let more = if shown.len() < task_id.len() {
        "…"
    } else {
        ""
    };
    McpError::invalid_params(
        format!("no task has the id {shown:?}{more} (it never existed here, or it expired)"),
        Some(serde_json::json!({ "taskId": format!("{shown}{more}") })),
    )
}

/// The payload's size as JSON, which the store's byte bound counts.
fn json_size(payload: &TaskPayload) -> u64 {
    let value = match payload {
        TaskPayload::Completed { result } => serde_json::to_vec(result),
        TaskPayload::Failed { error } => serde_json::to_vec(error),
        _ => Ok(Vec::new()),
    };
    value.map_or(0, |v| v.len() as u64)
}

fn object(value: Result<Value, serde_json::Error>) -> JsonObject {
    match value {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

/// Wall-clock milliseconds since the epoch (the shared records' expiry;
/// replicas' clocks are assumed to agree to well within a task's TTL).
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `work` with the shared store, failed if it takes longer than `within`.
async fn bounded<T>(
    shared: &Shared,
    within: Duration,
    work: impl Future<Output = Result<T, StoreFull>>,
) -> Result<T, StoreFull> {
    match tokio::time::timeout(within, work).await {
        Ok(done) => done,
        Err(_) => Err(StoreFull::Shared(format!(
            "the {} gave no answer within the call's timeout ({} ms)",
            shared.store_name(),
            within.as_millis()
        ))),
    }
}

/// `-32603` for a shared task store that failed.
fn store_failed(error: &impl std::fmt::Display) -> McpError {
    McpError::internal_error(format!("the shared task store failed: {error}"), None)
}

impl Tasks {
    /// An empty store kept as `settings` say, in this process alone.
    pub fn new(settings: TaskSettings) -> Tasks {
        Tasks {
            settings,
            store: Arc::default(),
            records: Records::Memory,
            settled: Arc::default(),
        }
    }

    /// Tasks whose records are kept in `store` too, which the replicas
    /// share: any replica reads, updates and cancels any task. Listens for
    /// the other replicas' cancellations and answers of the tasks run here.
    pub fn shared(settings: TaskSettings, store: StateStore) -> Tasks {
        let shared = Arc::new(Shared::new(store, settings.lease));
        tracing::info!(
            replica = shared.replica(),
            store = %shared.store_name(),
            "tasks are kept in the shared state store"
        );
        let tasks = Tasks {
            settings,
            store: Arc::default(),
            records: Records::Shared(shared.clone()),
            settled: Arc::default(),
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(shared::listen(tasks.clone(), shared));
            }
            Err(_) => tracing::warn!(
                "no async runtime: other replicas' cancellations reach tasks run here at lease renewal only"
            ),
        }
        tasks
    }

    /// How the store is kept.
    pub fn settings(&self) -> &TaskSettings {
        &self.settings
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops the tasks past their TTL. A run still going then (it cannot
    /// be: the TTL outlasts the run's deadline) is stopped.
    fn sweep(store: &mut Store) {
        let now = Instant::now();
        let mut freed = 0;
        store.entries.retain(|_, entry| {
            if now < entry.expires {
                return true;
            }
            if let Some(abort) = entry.abort.take() {
                abort.abort();
            }
            entry.changed();
            freed += entry.bytes;
            false
        });
        store.stored_bytes -= freed;
    }

    /// The task `task_id`, after dropping the expired ones; `-32602` if
    /// there is none.
    fn entry<'a>(store: &'a mut Store, task_id: &str) -> Result<&'a mut Entry, McpError> {
        Self::sweep(store);
        store
            .entries
            .get_mut(task_id)
            .ok_or_else(|| unknown(task_id))
    }

    /// Whether a new task would fit now: in this process, and with a
    /// shared store in the cluster.
    pub async fn room(&self) -> Result<(), StoreFull> {
        self.room_within(Duration::MAX).await
    }

    /// [`Tasks::room`], asking a shared store for at most `within` (the
    /// call's deadline): a store that has not answered by then failed.
    pub async fn room_within(&self, within: Duration) -> Result<(), StoreFull> {
        {
            let mut store = self.store();
            Self::sweep(&mut store);
            self.check_room(&store)?;
        }
        match &self.records {
            Records::Memory => Ok(()),
            Records::Shared(shared) => bounded(shared, within, self.cluster_room(shared)).await,
        }
    }

    fn check_room(&self, store: &Store) -> Result<(), StoreFull> {
        if store.closing {
            return Err(StoreFull::Closing);
        }
        if store.entries.len() >= self.settings.max_tasks {
            return Err(StoreFull::Count(self.settings.max_tasks));
        }
        if store.stored_bytes >= self.settings.max_store_bytes {
            return Err(StoreFull::Bytes(self.settings.max_store_bytes));
        }
        Ok(())
    }

    /// Makes a task that stays readable for `run_timeout` (its run's
    /// deadline) plus `[server] task_result_ttl`, and returns its seed state.
    /// It is readable through [`Tasks::get`] (on every replica, with a
    /// shared store) before this returns.
    pub async fn create(&self, run_timeout: Duration) -> Result<Task, StoreFull> {
        self.create_within(run_timeout, Duration::MAX).await
    }

    /// [`Tasks::create`], asking a shared store for at most `within` (the
    /// call's deadline): a store that has not answered by then failed, and
    /// no task is made.
    pub async fn create_within(
        &self,
        run_timeout: Duration,
        within: Duration,
    ) -> Result<Task, StoreFull> {
        let ttl = run_timeout.saturating_add(self.settings.result_ttl);
        let mut id = [0u8; 16];
        // The id is the key to the task: 128 random bits.
        if getrandom::fill(&mut id).is_err() {
            return Err(StoreFull::NoRandom);
        }
        let now = current_timestamp();
        let mut task = Task::new(hex::encode(id), TaskStatus::Working, now.clone(), now);
        task.ttl_ms = Some(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));
        task.poll_interval_ms = Some(
            u64::try_from(self.settings.poll_interval.as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
        );
        let expires_ms = now_ms().saturating_add(task.ttl_ms.unwrap_or(u64::MAX));
        let shared = match &self.records {
            Records::Memory => None,
            Records::Shared(_) => Some((expires_ms, Arc::new(Notify::new()))),
        };
        {
            let mut store = self.store();
            Self::sweep(&mut store);
            self.check_room(&store)?;
            store.entries.insert(
                task.task_id.clone(),
                Entry {
                    task: task.clone(),
                    terminal: None,
                    bytes: 0,
                    expires: Instant::now() + ttl,
                    pending: BTreeMap::new(),
                    abort: None,
                    shared,
                    recorded: false,
                },
            );
        }
        if let Records::Shared(shared) = &self.records {
            let record = Record {
                expires_at_ms: expires_ms,
                task: DetailedTask::new(task.clone(), TaskPayload::Working),
            };
            let written = async {
                self.cluster_room(shared).await?;
                shared
                    .create(&record)
                    .await
                    .map_err(|e| StoreFull::Shared(e.to_string()))
            };
            if let Err(full) = bounded(shared, within, written).await {
                // A lease or record written after all expires unread.
                self.forget(&task.task_id);
                return Err(full);
            }
        }
        Ok(task)
    }

    /// Whether the cluster's tasks leave room for one more: the bounds
    /// count every replica's tasks in the shared store (an upper bound,
    /// the safe direction), before the new task's record is written.
    async fn cluster_room(&self, shared: &Shared) -> Result<(), StoreFull> {
        let size = shared
            .size()
            .await
            .map_err(|e| StoreFull::Shared(e.to_string()))?;
        let max_tasks = u64::try_from(self.settings.max_tasks).unwrap_or(u64::MAX);
        if size.keys >= max_tasks {
            return Err(StoreFull::Count(self.settings.max_tasks));
        }
        if size.bytes >= self.settings.max_store_bytes {
            return Err(StoreFull::Bytes(self.settings.max_store_bytes));
        }
        Ok(())
    }

    /// Drops a task that could not be made.
    fn forget(&self, task_id: &str) {
        self.store().entries.remove(task_id);
    }

    /// Runs `run` as the task `task_id`'s work; its outcome becomes the
    /// task's terminal state. With a shared store, a writer keeps the
    /// task's record and lease there while it lives.
    pub fn run(&self, task_id: &str, run: impl Future<Output = Finished> + Send + 'static) {
        let tasks = self.clone();
        let id = task_id.to_string();
        let handle = tokio::spawn(async move {
            let finished = run.await;
            tasks.finish(&id, finished);
        });
        let mut store = self.store();
        let changed = match store.entries.get_mut(task_id) {
            Some(entry) if entry.terminal.is_none() => {
                entry.abort = Some(handle.abort_handle());
                entry.shared.as_ref().map(|(_, changed)| changed.clone())
            }
            Some(entry) => entry.shared.as_ref().map(|(_, changed)| changed.clone()),
            None => {
                handle.abort();
                None
            }
        };
        drop(store);
        if let (Records::Shared(shared), Some(changed)) = (&self.records, changed) {
            tokio::spawn(shared::keep(
                self.clone(),
                shared.clone(),
                task_id.to_string(),
                changed,
            ));
        }
    }

    /// Records how the task's run ended, unless it was cancelled first.
    fn finish(&self, task_id: &str, finished: Finished) {
        let payload = match finished {
            Finished::Completed(result) => TaskPayload::Completed {
                result: object(serde_json::to_value(&result)),
            },
            Finished::Failed(error) => TaskPayload::Failed {
                error: object(serde_json::to_value(&error)),
            },
        };
        let mut store = self.store();
        let Some(entry) = store.entries.get_mut(task_id) else {
            return;
        };
        if entry.terminal.is_some() {
            return;
        }
        let bytes = json_size(&payload);
        entry.terminal = Some(payload);
        entry.bytes = bytes;
        entry.pending.clear();
        entry.abort = None;
        entry.touch();
        store.stored_bytes += bytes;
    }

    /// The task as this process knows it, if it does.
    fn here(&self, task_id: &str) -> Option<DetailedTask> {
        let mut store = self.store();
        Self::sweep(&mut store);
        store.entries.get(task_id).map(Entry::detailed)
    }

    /// The record of a task this process runs, for its shared record.
    fn snapshot(&self, task_id: &str) -> Option<Record> {
        let mut store = self.store();
        Self::sweep(&mut store);
        let entry = store.entries.get(task_id)?;
        let (expires_at_ms, _) = entry.shared.as_ref()?;
        Some(Record {
            expires_at_ms: *expires_at_ms,
            task: entry.detailed(),
        })
    }

    /// Notes that the end of the task `task_id` is written in the shared
    /// store (or that it expired), for [`Tasks::hand_over`].
    fn recorded(&self, task_id: &str) {
        if let Some(entry) = self.store().entries.get_mut(task_id) {
            entry.recorded = true;
        }
        self.settled.notify_waiters();
    }

    /// `tasks/get`: the task's state, with its open requests or its result.
    /// With a shared store: its record there, or this process's fresher
    /// state of a task it runs; a task whose replica's lease expired reads
    /// `failed`.
    pub async fn get(&self, task_id: &str) -> Result<DetailedTask, McpError> {
        let Records::Shared(shared) = &self.records else {
            return Ok(Self::entry(&mut self.store(), task_id)?.detailed());
        };
        let read = shared.read(task_id).await.map_err(|e| store_failed(&e))?;
        match (read, self.here(task_id)) {
            (Some((_, record)), _) if ended(&record.task) => Ok(record.task),
            (_, Some(here)) => Ok(here),
            (None, None) => Err(unknown(task_id)),
            (Some((bytes, record)), None) => shared
                .unless_lost(task_id, bytes, record)
                .await
                .map_err(|e| store_failed(&e))?
                .ok_or_else(|| unknown(task_id)),
        }
    }

    /// `tasks/update`: hands the client's answers to the run waiting on
    /// them; answers to requests that are not open are ignored (SEP-2663).
    /// With a shared store, answers for a task another replica runs are
    /// published to it.
    pub async fn update(&self, task_id: &str, responses: InputResponses) -> Result<(), McpError> {
        let Records::Shared(shared) = &self.records else {
            return self.update_here(task_id, responses);
        };
        if self.here(task_id).is_some() {
            return self.update_here(task_id, responses);
        }
        let read = shared.read(task_id).await.map_err(|e| store_failed(&e))?;
        if read.is_none() {
            return Err(unknown(task_id));
        }
        shared
            .answer(task_id, responses)
            .await
            .map_err(|e| store_failed(&e))
    }

    /// [`Tasks::update`] of a task this process knows.
    fn update_here(&self, task_id: &str, responses: InputResponses) -> Result<(), McpError> {
        let mut store = self.store();
        let entry = Self::entry(&mut store, task_id)?;
        for (key, response) in responses {
            if let Some((_, answer)) = entry.pending.remove(&key) {
                let _ = answer.send(response);
            }
        }
        entry.touch();
        Ok(())
    }

    /// `tasks/cancel`: stops the run at once (its guest with it) and marks
    /// the task `cancelled`; a task that has ended is left as it is. With a
    /// shared store, a task another replica runs is marked cancelled in its
    /// record, and that replica is told to stop it.
    pub async fn cancel(&self, task_id: &str) -> Result<(), McpError> {
        let Records::Shared(shared) = &self.records else {
            return self.cancel_here(task_id, CANCELLED);
        };
        if self.here(task_id).is_some() {
            return self.cancel_here(task_id, CANCELLED);
        }
        match shared.cancel(task_id, CANCELLED).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(unknown(task_id)),
            Err(e) => Err(store_failed(&e)),
        }
    }

    /// [`Tasks::cancel`] of a task this process knows, saying `why`.
    fn cancel_here(&self, task_id: &str, why: &str) -> Result<(), McpError> {
        let mut store = self.store();
        let entry = Self::entry(&mut store, task_id)?;
        if entry.terminal.is_none() {
            if let Some(abort) = entry.abort.take() {
                abort.abort();
            }
            entry.terminal = Some(TaskPayload::Cancelled);
            entry.task.status_message = Some(why.into());
            entry.pending.clear();
            entry.touch();
            tracing::info!(task = short(task_id), why, "task cancelled");
        }
        Ok(())
    }

    /// Opens a request to the client under `key`; the receiver gets the
    /// client's answer from `tasks/update`.
    pub fn ask(
        &self,
        task_id: &str,
        key: &str,
        request: InputRequest,
    ) -> Result<oneshot::Receiver<Value>, AskError> {
        let mut store = self.store();
        let entry = store
            .entries
            .get_mut(task_id)
            .filter(|e| e.terminal.is_none())
            .ok_or(AskError::Ended)?;
        if entry.pending.contains_key(key) {
            return Err(AskError::KeyOpen(key.to_string()));
        }
        let (answer, receiver) = oneshot::channel();
        entry.pending.insert(key.to_string(), (request, answer));
        entry.touch();
        Ok(receiver)
    }

    /// Closes the request under `key` (answered, or abandoned).
    pub fn settle(&self, task_id: &str, key: &str) {
        let mut store = self.store();
        if let Some(entry) = store.entries.get_mut(task_id)
            && entry.pending.remove(key).is_some()
        {
            entry.changed();
        }
    }

    /// Sets the task's status message (the guest's progress).
    pub fn progress(&self, task_id: &str, message: String) {
        let mut store = self.store();
        if let Some(entry) = store.entries.get_mut(task_id)
            && entry.terminal.is_none()
        {
            entry.task.status_message = Some(message);
            entry.touch();
        }
    }
}

/// The status message of a task the client cancelled.
const CANCELLED: &str = "cancelled by the client";

/// Why a request to the client cannot be opened on a task.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AskError {
    /// The task has ended (or never was).
    #[error("the task has ended")]
    Ended,
    /// A request under the same key is open already.
    #[error("a request with the key {0:?} is already open")]
    KeyOpen(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock as Content;

    fn settings(max_tasks: usize, max_store_bytes: u64) -> TaskSettings {
        TaskSettings {
            max_tasks,
            max_store_bytes,
            ..TaskSettings::default()
        }
    }

    #[tokio::test]
    async fn a_task_runs_to_its_result_and_unknown_ids_are_invalid_params() {
        let tasks = Tasks::new(TaskSettings::default());
        let task = tasks.create(Duration::from_secs(60)).await.unwrap();
        assert_eq!(task.task_id.len(), 32);
        assert!(task.ttl_ms.unwrap() >= 60_000);
        assert_eq!(
            tasks.get(&task.task_id).await.unwrap().status(),
            TaskStatus::Working
        );
        let (go, wait) = oneshot::channel::<()>();
        tasks.run(&task.task_id, async move {
            let _ = wait.await;
            Finished::Completed(CallToolResult::success(vec![Content::text("done")]))
        });
        go.send(()).unwrap();
        let mut status = TaskStatus::Working;
        for _ in 0..1000 {
            status = tasks.get(&task.task_id).await.unwrap().status();
            if status != TaskStatus::Working {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(status, TaskStatus::Completed);
        let value = serde_json::to_value(tasks.get(&task.task_id).await.unwrap()).unwrap();
        assert_eq!(value["result"]["content"][0]["text"], "done");
        let e = tasks.get("nope").await.unwrap_err();
        assert_eq!(e.code.0, -32602);
        // A long unknown id is not echoed whole.
        let long = "a".repeat(100_000);
        let e = tasks.get(&long).await.unwrap_err();
        assert!(e.message.len() < 200, "{}", e.message.len());
        assert_eq!(tasks.cancel("nope").await.unwrap_err().code.0, -32602);
        // Cancelling an ended task changes nothing.
        tasks.cancel(&task.task_id).await.unwrap();
        assert_eq!(
            tasks.get(&task.task_id).await.unwrap().status(),
            TaskStatus::Completed
        );
    }

    #[tokio::test]
    async fn cancel_drops_the_run_and_open_requests() {
        let tasks = Tasks::new(TaskSettings::default());
        let task = tasks.create(Duration::from_secs(60)).await.unwrap();
        let id = task.task_id.clone();
        let (dropped_tx, dropped_rx) = oneshot::channel::<()>();
        struct OnDrop(Option<oneshot::Sender<()>>);
        impl Drop for OnDrop {
            fn drop(&mut self) {
                let _ = self.0.take().map(|s| s.send(()));
            }
        }
        let guard = OnDrop(Some(dropped_tx));
        tasks.run(&id, async move {
            let _guard = guard;
            std::future::pending::<Finished>().await
        });
        let answer = tasks
            .ask(&id, "k", InputRequest::ListRoots(Default::default()))
            .unwrap();
        assert_eq!(
            tasks.get(&id).await.unwrap().status(),
            TaskStatus::InputRequired
        );
        tasks.cancel(&id).await.unwrap();
        // The run's future is dropped: the guest stops.
        dropped_rx.await.unwrap();
        assert!(answer.await.is_err());
        assert_eq!(
            tasks.get(&id).await.unwrap().status(),
            TaskStatus::Cancelled
        );
    }

    #[tokio::test]
    async fn partial_answers_leave_the_other_requests_open() {
        let tasks = Tasks::new(TaskSettings::default());
        let id = tasks.create(Duration::from_secs(60)).await.unwrap().task_id;
        let a = tasks
            .ask(&id, "a", InputRequest::ListRoots(Default::default()))
            .unwrap();
        let _b = tasks
            .ask(&id, "b", InputRequest::ListRoots(Default::default()))
            .unwrap();
        assert!(
            tasks
                .ask(&id, "a", InputRequest::ListRoots(Default::default()))
                .is_err()
        );
        let mut responses = InputResponses::new();
        responses.insert("a".into(), serde_json::json!({"roots": []}));
        responses.insert("zzz".into(), serde_json::json!({}));
        tasks.update(&id, responses).await.unwrap();
        assert_eq!(a.await.unwrap(), serde_json::json!({"roots": []}));
        let value = serde_json::to_value(tasks.get(&id).await.unwrap()).unwrap();
        assert_eq!(value["status"], "input_required");
        let keys: Vec<&String> = value["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["b"]);
    }

    #[tokio::test]
    async fn the_store_is_bounded_in_count_and_bytes() {
        let tasks = Tasks::new(settings(2, 1 << 20));
        tasks.create(Duration::from_secs(1)).await.unwrap();
        tasks.create(Duration::from_secs(1)).await.unwrap();
        assert_eq!(tasks.room().await, Err(StoreFull::Count(2)));
        assert!(tasks.create(Duration::from_secs(1)).await.is_err());

        let tasks = Tasks::new(settings(10, 100));
        let id = tasks.create(Duration::from_secs(60)).await.unwrap().task_id;
        tasks.finish(
            &id,
            Finished::Completed(CallToolResult::success(vec![Content::text(
                "x".repeat(200),
            )])),
        );
        assert_eq!(tasks.room().await, Err(StoreFull::Bytes(100)));
    }

    #[tokio::test]
    async fn expired_tasks_are_dropped_and_free_their_bytes() {
        let tasks = Tasks::new(TaskSettings {
            result_ttl: Duration::from_millis(1),
            max_store_bytes: 100,
            ..TaskSettings::default()
        });
        let id = tasks.create(Duration::ZERO).await.unwrap().task_id;
        tasks.finish(
            &id,
            Finished::Completed(CallToolResult::success(vec![Content::text(
                "x".repeat(200),
            )])),
        );
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(tasks.get(&id).await.unwrap_err().code.0, -32602);
        assert_eq!(tasks.room().await, Ok(()));
    }
}
