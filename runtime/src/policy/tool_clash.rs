//! `[server] tool_clash`: the policy's choice of what becomes of a tool
//! name two or more plugins export (the catalog applies it, `catalog/clash.rs`).

/// What the catalog does when plugins export the same tool name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolClash {
    /// Every exporter's tool is offered as `<plugin>.<name>` (the rule
    /// before there was a choice, and the default).
    #[default]
    Qualify,
    /// The plugin that already serves the name keeps it; a plugin that
    /// comes later is offered as `<plugin>.<name>`.
    Prefix,
    /// The plugin that already serves the name keeps it; a plugin that
    /// comes later does not get that tool served at all.
    Refuse,
}

impl ToolClash {
    /// Its value in the policy file.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolClash::Qualify => "qualify",
            ToolClash::Prefix => "prefix",
            ToolClash::Refuse => "refuse",
        }
    }
}
