//! What each imported interface of a plugin gives it, as the sandbox sees
//! it: the grouping `inspect` reports and the capabilities annotate.

/// The package of the WIT contract, without its version.
pub const PACKAGE: &str = "mcp-wasm-host:plugin";

/// The labels of the WASI state interfaces the host provides, by package
/// (`wit/wasi/`): a prerelease label links only exactly.
pub const STATE_LABELS: &[(&str, &[&str])] = &[
    ("wasi:keyvalue", &["0.2.0-draft", "0.2.0-draft2"]),
    (
        "wasi:config",
        &["0.2.0-draft", "0.2.0-draft-2024-09-27", "0.2.0-rc.1"],
    ),
    ("wasi:logging", &["0.1.0-draft"]),
];

/// Whether the host provides the imported interface `import` at all: not
/// an [`ImportKind::Other`], nor a WASI state interface at a label it does
/// not serve (`wasi:keyvalue/store@0.2.0`, say).
pub fn provided(import: &str) -> bool {
    if ImportKind::of(import) == ImportKind::Other {
        return false;
    }
    let (name, version) = import.split_once('@').unwrap_or((import, ""));
    let package = name.split_once('/').map_or(name, |(p, _)| p);
    match STATE_LABELS.iter().find(|(p, _)| *p == package) {
        Some((_, labels)) => labels.contains(&version),
        None => true,
    }
}

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
    /// `wasi:keyvalue/*`: buckets in the state store, granted only through
    /// the policy's `keyvalue` section.
    Keyvalue,
    /// `wasi:config/*`: configuration values, only those the policy's
    /// `config` section sets.
    Config,
    /// This host's own `mcp-wasm-host:plugin/*` interfaces (`host`: logging
    /// and progress; `client`: sampling and elicitation, granted by the
    /// policy's `client` section; and the shared `types`), and
    /// `wasi:logging`, which goes where the `host` interface's log does.
    Host,
    /// Anything else; a component that needs an interface the host does not
    /// provide fails to link.
    Other,
}

impl ImportKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [ImportKind; 12] = [
        ImportKind::Filesystem,
        ImportKind::Sockets,
        ImportKind::Http,
        ImportKind::Environment,
        ImportKind::Clocks,
        ImportKind::Random,
        ImportKind::Cli,
        ImportKind::Io,
        ImportKind::Keyvalue,
        ImportKind::Config,
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
            "wasi:keyvalue" => ImportKind::Keyvalue,
            "wasi:config" => ImportKind::Config,
            "wasi:logging" | PACKAGE => ImportKind::Host,
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
            ImportKind::Keyvalue => "keyvalue",
            ImportKind::Config => "config",
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
            ImportKind::of("wasi:keyvalue/store@0.2.0-draft2"),
            ImportKind::Keyvalue
        );
        assert_eq!(
            ImportKind::of("wasi:config/store@0.2.0-rc.1"),
            ImportKind::Config
        );
        assert_eq!(
            ImportKind::of("wasi:logging/logging@0.1.0-draft"),
            ImportKind::Host
        );
        assert_eq!(
            ImportKind::of("wasi:blobstore/types@0.2.0"),
            ImportKind::Other
        );
        assert_eq!(ImportKind::of("bare-function"), ImportKind::Other);
    }

    #[test]
    fn a_state_interface_is_provided_only_at_the_labels_the_host_serves() {
        for (import, provided_here) in [
            ("wasi:keyvalue/store@0.2.0-draft", true),
            ("wasi:keyvalue/atomics@0.2.0-draft2", true),
            ("wasi:keyvalue/store@0.2.0", false),
            ("wasi:keyvalue/store@0.2.0-draft3", false),
            ("wasi:config/store@0.2.0-draft-2024-09-27", true),
            ("wasi:config/store@0.2.0-rc.2", false),
            ("wasi:logging/logging@0.1.0-draft", true),
            ("wasi:logging/logging@0.1.0", false),
            ("wasi:cli/stdout@0.2.6", true),
            ("wasi:blobstore/types@0.2.0", false),
        ] {
            assert_eq!(provided(import), provided_here, "{import}");
        }
    }
}
