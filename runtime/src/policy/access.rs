//! Who may use a plugin's tools, resources and prompts: the scopes a
//! plugin's policy asks for ([`Access`], per plugin and per tool), and the
//! caller they are checked against ([`Principal`]: a subject and the scopes
//! it was granted). Plain data: whoever serves a client (the MCP side, from
//! an OAuth access token) builds the principal; the runtime never sees a
//! token or a transport.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// An authenticated caller: who it is and what it was granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The caller's stable identifier (an access token's `sub`); it goes
    /// into the audit log, never the token.
    pub subject: Arc<str>,
    /// The scopes the caller was granted.
    pub scopes: BTreeSet<String>,
}

/// The scopes a plugin's policy asks for: a caller needs one of them to see
/// or use what the plugin serves. A tool may have its own list instead.
/// Only enforced for callers that come with a [`Principal`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// Any of these grants the plugin (its tools, resources, prompts and
    /// completions); empty: nothing grants it.
    pub scopes: Vec<String>,
    /// Per tool (the plugin's own name for it): any of these grants that
    /// tool, in place of [`Access::scopes`].
    pub tool_scopes: BTreeMap<String, Vec<String>>,
}

/// Why a principal may not use something: the scopes that would grant it
/// and the policy key that lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    /// Any one of these would grant it (empty: no scope does yet).
    pub needed: Vec<String>,
    /// The policy key that lists them, e.g. `plugins.calc.scopes`.
    pub key: String,
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.needed.is_empty() {
            write!(
                f,
                "no OAuth scope grants it: list one in `{}` of the policy file",
                self.key
            )
        } else {
            let needed: Vec<String> = self.needed.iter().map(|s| format!("{s:?}")).collect();
            write!(
                f,
                "it needs the OAuth scope {} (granted by `{}` in the policy file)",
                needed.join(" or "),
                self.key
            )
        }
    }
}

impl Access {
    /// Whether `principal` may use the plugin as a whole (its resources,
    /// prompts and completions); `section` is its policy section, e.g.
    /// `plugins.calc`, for the denial.
    pub fn allows_plugin(&self, principal: &Principal, section: &str) -> Result<(), Denied> {
        check(&self.scopes, principal, || format!("{section}.scopes"))
    }

    /// Whether `principal` may see and call `tool` (the plugin's own name).
    pub fn allows_tool(
        &self,
        principal: &Principal,
        section: &str,
        tool: &str,
    ) -> Result<(), Denied> {
        match self.tool_scopes.get(tool) {
            Some(scopes) => check(scopes, principal, || {
                format!("{section}.tool_scopes.{}", key_part(tool))
            }),
            None => self.allows_plugin(principal, section),
        }
    }

    /// Every scope this policy names, for the scopes a server supports.
    pub fn all_scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes
            .iter()
            .chain(self.tool_scopes.values().flatten())
            .map(String::as_str)
    }
}

fn check(
    needed: &[String],
    principal: &Principal,
    key: impl FnOnce() -> String,
) -> Result<(), Denied> {
    if needed.iter().any(|s| principal.scopes.contains(s)) {
        Ok(())
    } else {
        Err(Denied {
            needed: needed.to_vec(),
            key: key(),
        })
    }
}

/// A tool name as a TOML key: bare if it can be, quoted otherwise.
fn key_part(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(scopes: &[&str]) -> Principal {
        Principal {
            subject: "alice".into(),
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn any_listed_scope_grants_and_a_tool_list_replaces_the_plugins() {
        let access = Access {
            scopes: vec!["calc".into(), "all".into()],
            tool_scopes: [("divide".to_string(), vec!["calc.admin".to_string()])].into(),
        };
        let calc = principal(&["calc"]);
        assert!(access.allows_plugin(&calc, "plugins.calc").is_ok());
        assert!(access.allows_tool(&calc, "plugins.calc", "add").is_ok());
        let denied = access
            .allows_tool(&calc, "plugins.calc", "divide")
            .unwrap_err();
        assert_eq!(denied.key, "plugins.calc.tool_scopes.divide");
        assert_eq!(
            denied.to_string(),
            "it needs the OAuth scope \"calc.admin\" (granted by `plugins.calc.tool_scopes.divide` in the policy file)"
        );
        let admin = principal(&["calc.admin"]);
        assert!(access.allows_tool(&admin, "plugins.calc", "divide").is_ok());
        assert!(access.allows_tool(&admin, "plugins.calc", "add").is_err());
        let none = principal(&[]);
        let denied = access.allows_plugin(&none, "plugins.calc").unwrap_err();
        assert!(
            denied.to_string().contains("\"calc\" or \"all\""),
            "{denied}"
        );
    }

    #[test]
    fn a_plugin_without_scopes_is_denied_and_says_where_to_grant_it() {
        let denied = Access::default()
            .allows_tool(&principal(&["calc"]), "plugins.x", "t.1")
            .unwrap_err();
        assert_eq!(denied.key, "plugins.x.scopes");
        assert!(denied.to_string().contains("no OAuth scope grants it"));
        let access = Access {
            tool_scopes: [("t.1".to_string(), vec!["s".to_string()])].into(),
            ..Access::default()
        };
        let denied = access
            .allows_tool(&principal(&[]), "plugins.x", "t.1")
            .unwrap_err();
        assert_eq!(denied.key, "plugins.x.tool_scopes.\"t.1\"");
    }
}
