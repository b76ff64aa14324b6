//! The runtime's errors: why a plugin did not load, and why a call failed.
//!
//! Every message is meant to be read by a person (or a model): it names the
//! file or the plugin and tool, and the cause in plain words.

use std::path::PathBuf;

/// Why a plugin file was not loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: cannot read the file: {source}", path.display())]
    Read {
        /// The plugin file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not WebAssembly at all.
    #[error("{}: not a WebAssembly file (it does not start with the \\0asm magic number)", path.display())]
    NotWasm {
        /// The plugin file.
        path: PathBuf,
    },
    /// The file is a core module, not a component.
    #[error(
        "{}: this is a core WebAssembly module, not a component; build it for wasm32-wasip2 (or wrap it with `wasm-tools component new`)",
        path.display()
    )]
    CoreModule {
        /// The plugin file.
        path: PathBuf,
    },
    /// wasmtime could not compile the component.
    #[error("{}: the component is invalid or corrupt: {reason}", path.display())]
    Compile {
        /// The plugin file.
        path: PathBuf,
        /// wasmtime's explanation.
        reason: String,
    },
    /// The component imports something the host does not provide.
    #[error("{}: the component needs an import the host does not provide: {reason}", path.display())]
    Link {
        /// The plugin file.
        path: PathBuf,
        /// wasmtime's explanation.
        reason: String,
    },
    /// The component does not export the tools interface this host speaks.
    #[error(
        "{}: the component does not target the world `mcp-wasm-host:plugin/plugin@{}` (built for another world or an incompatible version?): {reason}",
        path.display(),
        super::WIT_VERSION
    )]
    World {
        /// The plugin file.
        path: PathBuf,
        /// wasmtime's explanation.
        reason: String,
    },
    /// Calling the plugin's `list-tools` failed.
    #[error("{}: listing its tools failed: {reason}", path.display())]
    ListTools {
        /// The plugin file.
        path: PathBuf,
        /// The cause.
        reason: String,
    },
    /// A tool definition breaks the rules.
    #[error("{}: tool {tool:?}: {problem}", path.display())]
    InvalidTool {
        /// The plugin file.
        path: PathBuf,
        /// The tool's name as the plugin gave it.
        tool: String,
        /// What is wrong.
        problem: String,
    },
    /// The plugin exports no tools.
    #[error("{}: the plugin exports no tools", path.display())]
    NoTools {
        /// The plugin file.
        path: PathBuf,
    },
    /// The plugins directory itself could not be read.
    #[error("{}: cannot read the plugins directory: {source}", path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Why a call did not produce a tool result.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No tool has this name.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The arguments do not match the tool's input schema; no guest code ran.
    #[error("invalid arguments for tool {tool:?}: {}", problems.join("; "))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Each violation, with its JSON pointer.
        problems: Vec<String>,
    },
    /// The tool ran and failed.
    #[error(transparent)]
    Failed(#[from] ToolFailure),
}

/// A failed call: which plugin and tool, and why.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ToolFailure {
    /// The plugin (its file stem).
    pub plugin: String,
    /// The tool, as the plugin names it.
    pub tool: String,
    /// What went wrong.
    pub cause: FailureCause,
}

/// What went wrong in a failed call.
#[derive(Debug, Clone, PartialEq)]
pub enum FailureCause {
    /// A Rust guest panicked; the message comes from its stderr.
    Panic {
        /// The panic message.
        message: String,
        /// Where, as `file:line:column`.
        location: Option<String>,
    },
    /// The guest ran out of memory (a failed allocation).
    OutOfMemory(String),
    /// The guest trapped (unreachable, out-of-bounds access, stack overflow…).
    Trap(String),
    /// The guest returned an error.
    Guest {
        /// Which kind of error.
        kind: GuestErrorKind,
        /// The guest's message.
        message: String,
    },
    /// The guest returned something the host cannot pass on.
    BadOutput(String),
    /// The host failed while running the call.
    Host(String),
}

/// The kinds of error a guest can return, as in the WIT `tool-error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuestErrorKind {
    /// Arguments matched the schema but cannot be used.
    InvalidArguments,
    /// The plugin does not know the tool.
    UnknownTool,
    /// The sandbox denied an access.
    Denied,
    /// Any other failure.
    Failed,
}

impl ToolFailure {
    fn describe(&self) -> String {
        let (plugin, tool) = (&self.plugin, &self.tool);
        match &self.cause {
            FailureCause::Panic { message, location } => match location {
                Some(at) => {
                    format!("plugin {plugin:?} panicked in tool {tool:?}: {message} at {at}")
                }
                None => format!("plugin {plugin:?} panicked in tool {tool:?}: {message}"),
            },
            FailureCause::OutOfMemory(m) => {
                format!("plugin {plugin:?} ran out of memory in tool {tool:?}: {m}")
            }
            FailureCause::Trap(m) => format!("plugin {plugin:?} trapped in tool {tool:?}: {m}"),
            FailureCause::Guest { kind, message } => {
                let what = match kind {
                    GuestErrorKind::InvalidArguments => "rejected its arguments",
                    GuestErrorKind::UnknownTool => "does not know this tool",
                    GuestErrorKind::Denied => "was denied access",
                    GuestErrorKind::Failed => "failed",
                };
                format!("tool {tool:?} of plugin {plugin:?} {what}: {message}")
            }
            FailureCause::BadOutput(m) => {
                format!("tool {tool:?} of plugin {plugin:?} returned an invalid result: {m}")
            }
            FailureCause::Host(m) => {
                format!("the host failed while running tool {tool:?} of plugin {plugin:?}: {m}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(cause: FailureCause) -> String {
        ToolFailure {
            plugin: "text".into(),
            tool: "regex".into(),
            cause,
        }
        .to_string()
    }

    #[test]
    fn messages_name_plugin_tool_and_cause() {
        assert_eq!(
            failure(FailureCause::Panic {
                message: "index out of bounds".into(),
                location: Some("src/lib.rs:42:5".into())
            }),
            "plugin \"text\" panicked in tool \"regex\": index out of bounds at src/lib.rs:42:5"
        );
        assert_eq!(
            failure(FailureCause::Guest {
                kind: GuestErrorKind::InvalidArguments,
                message: "unclosed group".into()
            }),
            "tool \"regex\" of plugin \"text\" rejected its arguments: unclosed group"
        );
        assert!(failure(FailureCause::Trap("stack overflow".into())).ends_with(": stack overflow"));
    }
}
