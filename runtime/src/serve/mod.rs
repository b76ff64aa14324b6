//! Stage `serve`: a client's request admitted. A tool call (`tools`), a
//! resource read, a prompt or a completion (`optional_exports`) is routed
//! through the current `catalog` to its plugin and taken through one
//! pipeline (`admission`): the plugin's `rate` limits, its argument bounds
//! and the capabilities' inbound checks (a tool call then its input schema,
//! numbers a double `rounded` held as written), one of the plugin's slots
//! within its deadline, the run by `call`, and one audit line (`receipt`),
//! which also goes back with a tool's result.

pub(crate) mod admission;
pub(crate) mod optional_exports;
pub(crate) mod rate;
pub(crate) mod receipt;
pub(crate) mod rounded;
pub(crate) mod tools;
