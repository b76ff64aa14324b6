//! Tool errors.

use std::error::Error as StdError;
use std::fmt::{self, Write as _};

use crate::Output;

/// What a tool handler returns: the tool's output, or why it failed.
pub type ToolResult = Result<Output, ToolError>;

/// Why a tool call failed.
///
/// The host turns every case into a result with `isError: true` whose text is
/// the message, so write messages for the model that called the tool.
///
/// Any [`std::error::Error`] converts into [`ToolError::Failed`] (or
/// [`ToolError::Denied`] for an I/O "permission denied" or a
/// [`store::Error::AccessDenied`](crate::store::Error::AccessDenied) anywhere
/// in its source chain), so `?` works in a handler:
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
///
/// fn parse(text: &str) -> Result<u32, ToolError> {
///     Ok(text.trim().parse::<u32>()?)
/// }
/// assert_eq!(
///     parse("x"),
///     Err(ToolError::Failed("invalid digit found in string".into()))
/// );
/// ```
///
/// Like `anyhow::Error`, `ToolError` does not implement
/// [`std::error::Error`] itself; that is what makes the blanket conversion
/// possible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// The arguments matched the schema but cannot be used, for example a
    /// regular expression that does not compile. The router also returns this
    /// when the arguments do not deserialize into the handler's type.
    InvalidArguments(String),
    /// The plugin was asked for a tool it does not have; holds the tool's
    /// name.
    UnknownTool(String),
    /// Access to a file, directory, variable or other capability was denied
    /// by the sandbox.
    Denied(String),
    /// Any other failure.
    Failed(String),
}

impl ToolError {
    /// The arguments cannot be used; `message` says why.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::InvalidArguments(message.into())
    }

    /// The tool failed; `message` says why.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed(message.into())
    }

    /// The sandbox denied access to something the tool needs.
    pub fn denied(message: impl Into<String>) -> Self {
        Self::Denied(message.into())
    }

    /// The plugin has no tool called `name`.
    pub fn unknown_tool(name: impl Into<String>) -> Self {
        Self::UnknownTool(name.into())
    }

    /// The message (or, for [`ToolError::UnknownTool`], the tool's name)
    /// without the kind.
    pub fn message(&self) -> &str {
        match self {
            Self::InvalidArguments(m)
            | Self::UnknownTool(m)
            | Self::Denied(m)
            | Self::Failed(m) => m,
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidArguments(m) => write!(f, "invalid arguments: {m}"),
            Self::UnknownTool(name) => write!(f, "unknown tool: {name}"),
            Self::Denied(m) => write!(f, "denied: {m}"),
            Self::Failed(m) => f.write_str(m),
        }
    }
}

impl<E: StdError + 'static> From<E> for ToolError {
    /// Converts any error into [`ToolError::Failed`], with its `Display` text
    /// followed by those of its sources (`outer: inner: innermost`). An
    /// [`std::io::Error`] of kind `PermissionDenied` or a
    /// [`store::Error::AccessDenied`](crate::store::Error::AccessDenied)
    /// anywhere in the chain makes it [`ToolError::Denied`] instead.
    fn from(error: E) -> Self {
        let mut message = error.to_string();
        let mut denied = is_denied(&error);
        let mut source = error.source();
        while let Some(cause) = source {
            denied |= is_denied(cause);
            let text = cause.to_string();
            // Many errors already include their source's text in their own.
            if !text.is_empty() && !message.ends_with(&text) {
                let _ = write!(message, ": {text}");
            }
            source = cause.source();
        }
        if denied {
            Self::Denied(message)
        } else {
            Self::Failed(message)
        }
    }
}

/// Whether `error` is a denial by the sandbox or the policy.
fn is_denied(error: &(dyn StdError + 'static)) -> bool {
    error
        .downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::PermissionDenied)
        || matches!(
            error.downcast_ref::<crate::store::Error>(),
            Some(crate::store::Error::AccessDenied { .. })
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("cannot read the config")
        }
    }

    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn std_error_becomes_failed_with_source_chain() {
        let inner = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let error = ToolError::from(Outer(inner));
        assert_eq!(
            error,
            ToolError::Failed("cannot read the config: no such file".into())
        );
    }

    #[test]
    fn permission_denied_becomes_denied() {
        let inner = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let error = ToolError::from(Outer(inner));
        assert!(matches!(error, ToolError::Denied(_)), "{error:?}");
    }

    #[test]
    fn question_mark_converts() {
        fn parse() -> Result<u8, ToolError> {
            Ok("300".parse::<u8>()?)
        }
        assert_eq!(
            parse(),
            Err(ToolError::failed("number too large to fit in target type"))
        );
    }

    #[test]
    fn display_names_the_kind() {
        assert_eq!(
            ToolError::invalid_arguments("bad regex").to_string(),
            "invalid arguments: bad regex"
        );
        assert_eq!(ToolError::unknown_tool("x").to_string(), "unknown tool: x");
        assert_eq!(ToolError::denied("no").message(), "no");
    }
}
