//! The events of a call that may become a task: until it does, its log
//! lines, progress and requests to the client go where an ordinary call's
//! go (the request's notifications, or the 2026-07-28 rounds); once it is a
//! task, its progress becomes the task's status message and its requests to
//! the client wait, open on the task, for the client's `tasks/update`.
#![allow(deprecated)] // rmcp marks sampling and roots deprecated (SEP-2577); clients still use them.

use std::sync::{Arc, OnceLock};

use rmcp::model::{ClientCapabilities, InputRequest, ListRootsRequest};
use serde_json::Value;

use super::requests::{OutgoingError, check_capability};
use super::rounds::{
    ReadError, elicitation_input, read_elicited, read_roots, read_sampled, sampling_input,
};
use crate::mcp::protocol::tasks::Tasks;
use crate::runtime::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationRequest,
    LogLevel, Progress, RequestAt, Root, SampledMessage, SamplingRequest,
};

/// A call's events before and after it becomes a task.
pub struct TaskEvents {
    /// Where they go while the call is not a task.
    before: Arc<dyn CallEvents>,
    capabilities: Option<ClientCapabilities>,
    tasks: Tasks,
    /// The task, once the call is one.
    task: OnceLock<String>,
}

impl std::fmt::Debug for TaskEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskEvents")
            .field("task", &self.task.get())
            .finish_non_exhaustive()
    }
}

impl TaskEvents {
    /// Events that go to `before` until [`TaskEvents::become_task`].
    pub fn new(
        before: Arc<dyn CallEvents>,
        capabilities: Option<ClientCapabilities>,
        tasks: Tasks,
    ) -> TaskEvents {
        TaskEvents {
            before,
            capabilities,
            tasks,
            task: OnceLock::new(),
        }
    }

    /// From now on the call is the task `task_id`.
    pub fn become_task(&self, task_id: &str) {
        let _ = self.task.set(task_id.to_string());
    }

    /// Asks the client through the task and waits for its answer.
    async fn ask<T>(
        &self,
        task_id: &str,
        kind: ClientRequestKind,
        key: &str,
        request: Result<InputRequest, OutgoingError>,
        read: impl FnOnce(Value) -> Result<T, ReadError>,
    ) -> Result<T, ClientRequestError> {
        check_capability(self.capabilities.as_ref(), kind)?;
        let request = request.map_err(|e| ClientRequestError::Failed(e.to_string()))?;
        let answer = self
            .tasks
            .ask(task_id, key, request)
            .map_err(|e| ClientRequestError::Failed(e.to_string()))?;
        // Dropped with the run (the task was cancelled or timed out): the
        // request is closed with it.
        let open = OpenRequest {
            tasks: &self.tasks,
            task_id,
            key,
        };
        let value = answer.await.map_err(|_| {
            ClientRequestError::Failed("the task ended before the client answered".into())
        })?;
        drop(open);
        read(value).map_err(|problem| {
            ClientRequestError::Failed(format!(
                "the client's answer does not fit the request: {problem}"
            ))
        })
    }
}

/// Closes a task's open request when its waiter goes.
struct OpenRequest<'a> {
    tasks: &'a Tasks,
    task_id: &'a str,
    key: &'a str,
}

impl Drop for OpenRequest<'_> {
    fn drop(&mut self) {
        self.tasks.settle(self.task_id, self.key);
    }
}

/// A progress report as a task's status message.
fn progress_message(progress: &Progress) -> String {
    let done = match progress.total {
        Some(total) if total > 0.0 => format!("{:.0}%", 100.0 * progress.progress / total),
        _ => format!("{}", progress.progress),
    };
    match &progress.message {
        Some(message) => format!("{done}: {message}"),
        None => done,
    }
}

impl CallEvents for TaskEvents {
    fn log(&self, plugin: &str, tool: &str, level: LogLevel, message: &str) {
        // A task's log lines are in the server's log; its request, which
        // notifications would belong to, has been answered.
        if self.task.get().is_none() {
            self.before.log(plugin, tool, level, message);
        }
    }

    fn progress(&self, plugin: &str, tool: &str, progress: Progress) {
        match self.task.get() {
            Some(task) => self.tasks.progress(task, progress_message(&progress)),
            None => self.before.progress(plugin, tool, progress),
        }
    }

    fn client_supports(&self, kind: ClientRequestKind) -> Result<(), ClientRequestError> {
        self.before.client_supports(kind)
    }

    fn create_message(
        &self,
        at: RequestAt<'_>,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SampledMessage, ClientRequestError>> {
        match self.task.get() {
            None => self.before.create_message(at, request),
            Some(task) => {
                let key = at.key.to_string();
                Box::pin(async move {
                    let input = sampling_input(&request);
                    self.ask(task, ClientRequestKind::Sampling, &key, input, read_sampled)
                        .await
                })
            }
        }
    }

    fn elicit(
        &self,
        at: RequestAt<'_>,
        request: ElicitationRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientRequestError>> {
        match self.task.get() {
            None => self.before.elicit(at, request),
            Some(task) => {
                let key = at.key.to_string();
                Box::pin(async move {
                    let input = elicitation_input(&request);
                    self.ask(
                        task,
                        ClientRequestKind::Elicitation,
                        &key,
                        input,
                        read_elicited,
                    )
                    .await
                })
            }
        }
    }

    fn list_roots(
        &self,
        at: RequestAt<'_>,
    ) -> BoxFuture<'_, Result<Vec<Root>, ClientRequestError>> {
        match self.task.get() {
            None => self.before.list_roots(at),
            Some(task) => {
                let key = at.key.to_string();
                Box::pin(async move {
                    let input = Ok(InputRequest::ListRoots(ListRootsRequest::default()));
                    self.ask(task, ClientRequestKind::Roots, &key, input, read_roots)
                        .await
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_as_a_status_message() {
        let p = |progress, total, message: Option<&str>| Progress {
            progress,
            total,
            message: message.map(str::to_string),
        };
        assert_eq!(
            progress_message(&p(3.0, Some(4.0), Some("rendering"))),
            "75%: rendering"
        );
        assert_eq!(progress_message(&p(7.0, None, None)), "7");
    }
}
