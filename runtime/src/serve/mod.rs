//! Stage `serve`: a client's request admitted. A tool call (`admission`),
//! a resource read, a prompt or a completion (`served_requests`) is routed
//! through the current `catalog` to its plugin, held to the plugin's
//! `rate` limits, argument bounds, input schema and access scopes, given
//! one of the plugin's slots within its deadline, run by `call`, and
//! recorded in one audit line (`receipt`), which also goes back with a
//! tool's result.

pub(crate) mod admission;
pub(crate) mod rate;
pub(crate) mod receipt;
pub(crate) mod rounded;
pub(crate) mod served_requests;
