//! A tool as its plugin defines it, once loading has validated it: what a
//! call checks its arguments and result against.

use std::sync::Arc;

use crate::definitions::icons::Icon;
use crate::definitions::output::{TaskSupport, ToolHints};
use crate::definitions::schema::Schema;

/// A tool as the plugin defines it, validated.
#[derive(Debug)]
pub struct PluginTool {
    /// The name the plugin knows it by.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What it does.
    pub description: String,
    /// Its compiled input schema.
    pub input: Schema,
    /// Its compiled output schema, if any.
    pub output: Option<Arc<Schema>>,
    /// Behaviour hints.
    pub hints: ToolHints,
    /// Icons a client may show (none for a 0.1.x plugin).
    pub icons: Vec<Icon>,
    /// Whether a call may run as a task (never for a 0.1.x plugin).
    pub task_support: TaskSupport,
}
