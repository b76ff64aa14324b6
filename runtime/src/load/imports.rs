//! What each imported interface of a plugin gives it, as the sandbox sees
//! it: the grouping `inspect` reports and the capabilities annotate.

/// The package of the WIT contract, without its version.
pub const PACKAGE: &str = "mcp-wasm-host:plugin";

/// What an imported interface gives the guest, as the sandbox sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImportKind {
    /// `wasi:filesystem/*`: files, granted only through the policy's mounts.
    Filesystem,
    /// `wasi:sockets/*`: plain sockets, granted only through the policy's
    /// `sockets` allow-list.
    Sockets,
    /// `wasi:http/*`: outbound HTTP, granted only through the policy's
    /// `http` allow-list.
    Http,
    /// `wasi:cli/environment`: environment variables (and arguments), only
    /// those the policy grants.
    Environment,
    /// `wasi:clocks/*`: wall and monotonic clocks.
    Clocks,
    /// `wasi:random/*`: random numbers.
    Random,
    /// The rest of `wasi:cli/*`: stdio (captured into the log, stdin empty),
    /// terminal queries and `exit`.
    Cli,
    /// `wasi:io/*`: streams, polling and errors, the plumbing of the others.
    Io,
    /// This host's own `mcp-wasm-host:plugin/*` interfaces (`host`: logging
    /// and progress; `client`: sampling and elicitation, granted by the
    /// policy's `client` section; and the shared `types`).
    Host,
    /// Anything else; a component that needs an interface the host does not
    /// provide fails to link.
    Other,
}

impl ImportKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [ImportKind; 10] = [
        ImportKind::Filesystem,
        ImportKind::Sockets,
        ImportKind::Http,
        ImportKind::Environment,
        ImportKind::Clocks,
        ImportKind::Random,
        ImportKind::Cli,
        ImportKind::Io,
        ImportKind::Host,
        ImportKind::Other,
    ];

    /// What the imported name `import` (e.g. `wasi:sockets/tcp@0.2.6`) gives.
    pub fn of(import: &str) -> Self {
        let unversioned = import.split_once('@').map_or(import, |(n, _)| n);
        let (package, interface) = unversioned.split_once('/').unwrap_or((unversioned, ""));
        match package {
            "wasi:filesystem" => ImportKind::Filesystem,
            "wasi:sockets" => ImportKind::Sockets,
            "wasi:http" => ImportKind::Http,
            "wasi:cli" if interface == "environment" => ImportKind::Environment,
            "wasi:cli" => ImportKind::Cli,
            "wasi:clocks" => ImportKind::Clocks,
            "wasi:random" => ImportKind::Random,
            "wasi:io" => ImportKind::Io,
            PACKAGE => ImportKind::Host,
            _ => ImportKind::Other,
        }
    }

    /// A short stable name: `filesystem`, `sockets`, `environment`, …
    pub fn name(self) -> &'static str {
        match self {
            ImportKind::Filesystem => "filesystem",
            ImportKind::Sockets => "sockets",
            ImportKind::Http => "http",
            ImportKind::Environment => "environment",
            ImportKind::Clocks => "clocks",
            ImportKind::Random => "random",
            ImportKind::Cli => "cli",
            ImportKind::Io => "io",
            ImportKind::Host => "host",
            ImportKind::Other => "other",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_grouped_by_what_they_grant() {
        assert_eq!(
            ImportKind::of("wasi:filesystem/preopens@0.2.6"),
            ImportKind::Filesystem
        );
        assert_eq!(
            ImportKind::of("wasi:sockets/tcp@0.2.6"),
            ImportKind::Sockets
        );
        assert_eq!(
            ImportKind::of("wasi:cli/environment@0.2.6"),
            ImportKind::Environment
        );
        assert_eq!(ImportKind::of("wasi:cli/stderr@0.2.6"), ImportKind::Cli);
        assert_eq!(
            ImportKind::of("mcp-wasm-host:plugin/host@0.1.0"),
            ImportKind::Host
        );
        assert_eq!(ImportKind::of("wasi:http/types@0.2.6"), ImportKind::Http);
        assert_eq!(
            ImportKind::of("wasi:keyvalue/store@0.2.0"),
            ImportKind::Other
        );
        assert_eq!(ImportKind::of("bare-function"), ImportKind::Other);
    }
}
