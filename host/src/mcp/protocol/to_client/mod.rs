//! A call's traffic to the client, in one place: what a guest run sends
//! the client that made the call, and how its requests reach the client and
//! its answers come back. Log messages and progress as notifications
//! ([`notifications`]), requests to the client mapped to MCP and checked
//! against the client's capabilities ([`requests`]), the 2026-07-28 rounds
//! that carry them in `InputRequiredResult` ([`rounds`]), and the events of
//! a call that becomes a task ([`task_run`]). It imports nothing else of
//! the protocol room but the task store.

pub mod notifications;
pub mod requests;
pub mod rounds;
pub mod task_run;
