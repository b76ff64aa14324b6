//! Admission: the one path every request to a plugin takes, a tool call
//! (`tools`) as much as a resource read, a prompt or a completion
//! (`optional_exports`). In stages, each a method of [`Request`]:
//! 1. [`Request::admit`]: the plugin's rate limits (its own, then the
//!    caller's share), the arguments' size, and the capabilities' inbound
//!    checks (`block_secrets`), before any guest code runs (a tool call
//!    then checks its input schema, in `tools`);
//! 2. [`Request::run`]: one of the plugin's slots within the request's
//!    deadline, then the run in its sandbox (dropping its future stops the
//!    guest, and the request is audited as `cancelled`);
//! 3. [`Request::finish`] (or [`Request::stop`], for a request stopped on
//!    the way): one audit line, the request's receipt, however it ends,
//!    told to the observer too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::call::CallStats;
use crate::capabilities::Arguments as Inbound;
use crate::error::{FailureCause, ToolFailure};
use crate::load::plugin::Plugin;
use crate::observe::{InPhase, Observer, Phase};
use crate::policy::limits::spec::key;
use crate::serve::rate::Caller;
use crate::serve::receipt::{Receipt, Unfinished};

/// What a request is called where it shows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Names<'a> {
    /// In its receipt and audit line: the tool as the client called it,
    /// or the request and what it is about (`resources/read URI`).
    pub(crate) audited: &'a str,
    /// In its failures: the plugin's own name of the tool, or as audited.
    pub(crate) failed: &'a str,
    /// By the rate limiters and the observer: the plugin's own name of the
    /// tool, or the request's kind (one of [`crate::serve::rate::REQUESTS`]),
    /// never a client's free text.
    pub(crate) counted: &'a str,
}

/// One request to one plugin, on its way through admission.
pub(crate) struct Request<'a> {
    pub(crate) plugin: &'a Arc<Plugin>,
    pub(crate) names: Names<'a>,
    pub(crate) caller: &'a Caller,
    pub(crate) observer: &'a dyn Observer,
    /// When it arrived: its deadline and its duration count from here.
    pub(crate) started: Instant,
    /// How long it may take, waiting for a slot included: the plugin's
    /// `timeout`, or its `task_timeout` for a task.
    pub(crate) timeout: Duration,
    /// The arguments its audit line shows (a tool call's, when the
    /// plugin's policy sets `audit_arguments`).
    pub(crate) logged: Option<&'a Value>,
}

/// A request that failed (stopped on its way, or run and failed): why, and
/// the receipt of its audit line (boxed where returned: it is large, and
/// rare).
#[derive(Debug)]
pub(crate) struct Failed {
    pub(crate) failure: ToolFailure,
    pub(crate) receipt: Receipt,
}

/// A run's result and what it consumed, not yet audited: the user of the
/// pipeline may log a failure first ([`Request::finish`] audits it).
pub(crate) struct Ran<T> {
    pub(crate) result: Result<T, ToolFailure>,
    stats: CallStats,
}

impl Request<'_> {
    /// When the request runs out of time.
    pub(crate) fn deadline(&self) -> Instant {
        self.started + self.timeout
    }

    /// The request's failure because of `cause`.
    pub(crate) fn fail(&self, cause: FailureCause) -> ToolFailure {
        ToolFailure {
            plugin: self.plugin.name.to_string(),
            tool: self.names.failed.to_string(),
            cause,
        }
    }

    /// Ends the request with `outcome`: its receipt, written as its audit
    /// line (with its arguments when the policy asks for them, any secret
    /// redacted) and told to the observer with the `limit` that stopped it;
    /// `stats` when guest code ran.
    pub(crate) fn end(
        &self,
        outcome: &'static str,
        limit: Option<&'static str>,
        stats: Option<CallStats>,
    ) -> Receipt {
        let ran = stats.is_some();
        let receipt = Receipt::new(
            self.plugin,
            self.names.audited,
            outcome,
            self.started,
            stats,
            self.caller.subject(),
        );
        let arguments = self
            .logged
            .map(|a| self.plugin.policy.grants.redacted(a.to_string()));
        receipt.audit(arguments);
        self.observer
            .call_ended(&receipt.observed(self.names.counted, limit, ran));
        receipt
    }

    /// Stops the request before its guest runs, because of `cause`: its
    /// outcome and limit are the cause's.
    pub(crate) fn stop(&self, cause: FailureCause) -> Box<Failed> {
        let failure = self.fail(cause);
        let receipt = self.end(failure.cause.kind(), failure.cause.limit(), None);
        Box::new(Failed { failure, receipt })
    }

    /// Stage 1: the plugin's rate limits for what the request is counted
    /// as (its own quota, then the caller's share; in a shared store, by
    /// the request's deadline), the arguments' `size`
    /// in bytes against `max_argument_size`, and what they hold against
    /// the capabilities' inbound checks.
    pub(crate) async fn admit(&self, size: usize, inbound: Inbound<'_>) -> Result<(), Box<Failed>> {
        let policy = &self.plugin.policy;
        let limits = &policy.limits;
        let counted = self.names.counted;
        let client_per_minute = limits.client_rate_limit_per_minute;
        let deadline = self.deadline();
        if let Err(cause) = (self.plugin.rate)
            .check(counted, self.caller, client_per_minute, deadline)
            .await
        {
            return Err(self.stop(cause));
        }
        let size = size as u64;
        if size > limits.max_argument_bytes {
            return Err(self.stop(FailureCause::ArgumentsTooLarge {
                size,
                limit: limits.max_argument_bytes,
                hint: policy.raise_hint(key::MAX_ARGUMENT_SIZE),
            }));
        }
        if let Err(refused) = policy.grants.inbound(inbound) {
            return Err(self.stop(FailureCause::ArgumentsRefused {
                key: format!("{}.{}", policy.section, refused.key),
                problem: refused.problem,
                config_file: policy.config_file.to_string(),
            }));
        }
        Ok(())
    }

    /// Stage 2: waits for one of the plugin's slots, then runs `call` with
    /// the request's deadline. A slot not free by the deadline stops the
    /// request (`timeout`); if this future is dropped (the client
    /// cancelled), its guard writes the audit line (`cancelled`).
    pub(crate) async fn run<T>(
        &self,
        call: impl AsyncFnOnce(Instant) -> (Result<T, ToolFailure>, CallStats),
    ) -> Result<Ran<T>, Box<Failed>> {
        let deadline = self.deadline();
        let mut unfinished = Unfinished {
            plugin: self.plugin,
            tool: self.names.audited,
            label: self.names.counted,
            observer: self.observer,
            started: self.started,
            arguments: self.logged,
            subject: self.caller.subject(),
            armed: true,
        };
        let waiting = InPhase::enter(self.observer, &self.plugin.name, Phase::Waiting);
        let slot = tokio::time::timeout_at(deadline.into(), self.plugin.slots.acquire()).await;
        drop(waiting);
        let Ok(Ok(_slot)) = slot else {
            unfinished.armed = false;
            return Err(self.stop(FailureCause::Timeout {
                limit: self.timeout,
            }));
        };
        tracing::debug!(tool = self.names.audited, "running: got a slot");
        let running = InPhase::enter(self.observer, &self.plugin.name, Phase::Running);
        let (result, stats) = call(deadline).await;
        drop(running);
        unfinished.armed = false;
        // The deadline was this run's, a task's own when it runs as one.
        let result = result.map_err(|mut failure| {
            if let FailureCause::Timeout { limit } = &mut failure.cause {
                *limit = self.timeout;
            }
            failure
        });
        Ok(Ran { result, stats })
    }

    /// Stage 3: ends a run, audited: a failure with its cause's outcome
    /// and limit, a result with the outcome `outcome` gives it.
    pub(crate) fn finish<T>(
        &self,
        ran: Ran<T>,
        outcome: impl FnOnce(&T) -> &'static str,
    ) -> Result<(T, Receipt), Box<Failed>> {
        let Ran { result, stats } = ran;
        match result {
            Ok(value) => {
                let receipt = self.end(outcome(&value), None, Some(stats));
                Ok((value, receipt))
            }
            Err(failure) => {
                let cause = &failure.cause;
                let receipt = self.end(cause.kind(), cause.limit(), Some(stats));
                Err(Box::new(Failed { failure, receipt }))
            }
        }
    }
}
