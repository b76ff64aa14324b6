//! Profiles (`[profiles.NAME]` in the policy file): each names the part of
//! the catalog one kind of client is served, by plugin, by tool name or
//! pattern, by annotation (read-only tools only, say), and by resource URI
//! and prompt name, with exclusions. A connection bound to a profile (see
//! [`crate::mcp::McpServer::bound_to`]) lists, calls, reads, gets and
//! completes only what its profile admits. [`Profiles`] is the set the
//! server serves from, replaced when the policy file is reloaded.
//!
//! Over HTTP with OAuth, a profile may also be bound to callers, by a
//! token's subject (`subjects`) or scopes (`scopes`): such a caller is
//! served only what every profile bound to it admits, on any endpoint.
//!
//! Parsing is strict: an unknown key, an empty pattern or an unknown
//! annotation refuses the file, naming the key. What cannot be known when
//! the file is read (a plugin that is not loaded yet, a pattern matching
//! nothing the plugins serve) is reported once the plugins have loaded
//! ([`Profile::report`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use tokio::sync::watch;

use crate::runtime::{Catalog, Principal, ToolHints};
use crate::source::PluginName;

mod glob;

pub use glob::Glob;

/// A `[profiles.NAME]` section as written.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProfileSpec {
    plugins: Option<Vec<String>>,
    #[serde(default)]
    exclude_plugins: Vec<String>,
    tools: Option<Vec<String>>,
    #[serde(default)]
    exclude_tools: Vec<String>,
    #[serde(default)]
    annotations: Vec<String>,
    resources: Option<Vec<String>>,
    #[serde(default)]
    exclude_resources: Vec<String>,
    prompts: Option<Vec<String>>,
    #[serde(default)]
    exclude_prompts: Vec<String>,
    #[serde(default)]
    subjects: Vec<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

/// A tool annotation a profile can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Annotation {
    /// `readOnlyHint: true`.
    ReadOnly,
    /// `idempotentHint: true`.
    Idempotent,
    /// Read-only, or `destructiveHint: false` (MCP's default is `true`).
    NonDestructive,
    /// `openWorldHint: false` (MCP's default is `true`).
    ClosedWorld,
}

/// The names of [`Annotation`]s, as the policy file writes them.
const ANNOTATIONS: [(&str, Annotation); 4] = [
    ("read_only", Annotation::ReadOnly),
    ("idempotent", Annotation::Idempotent),
    ("non_destructive", Annotation::NonDestructive),
    ("closed_world", Annotation::ClosedWorld),
];

impl Annotation {
    fn holds(self, hints: &ToolHints) -> bool {
        match self {
            Annotation::ReadOnly => hints.read_only == Some(true),
            Annotation::Idempotent => hints.idempotent == Some(true),
            Annotation::NonDestructive => {
                hints.read_only == Some(true) || hints.destructive == Some(false)
            }
            Annotation::ClosedWorld => hints.open_world == Some(false),
        }
    }
}

/// One profile, checked: what it admits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    name: String,
    /// Only these plugins, if set.
    plugins: Option<Vec<String>>,
    exclude_plugins: Vec<String>,
    tools: Option<Vec<Glob>>,
    exclude_tools: Vec<Glob>,
    annotations: Vec<Annotation>,
    resources: Option<Vec<Glob>>,
    exclude_resources: Vec<Glob>,
    prompts: Option<Vec<Glob>>,
    exclude_prompts: Vec<Glob>,
    /// The OAuth subjects (a token's `sub`) bound to the profile.
    subjects: Vec<String>,
    /// The OAuth scopes whose holders are bound to the profile.
    scopes: Vec<String>,
}

/// Whether `name` passes an optional allow-list and a deny-list.
fn passes(only: Option<&[Glob]>, except: &[Glob], names: &[&str]) -> bool {
    let any = |globs: &[Glob]| globs.iter().any(|g| names.iter().any(|n| g.matches(n)));
    only.is_none_or(any) && !any(except)
}

impl Profile {
    /// A profile that admits nothing: what a connection bound to a profile
    /// that a reload removed is served.
    pub fn nothing(name: &str) -> Profile {
        Profile {
            name: name.to_string(),
            plugins: Some(Vec::new()),
            exclude_plugins: Vec::new(),
            tools: None,
            exclude_tools: Vec::new(),
            annotations: Vec::new(),
            resources: None,
            exclude_resources: Vec::new(),
            prompts: None,
            exclude_prompts: Vec::new(),
            subjects: Vec::new(),
            scopes: Vec::new(),
        }
    }

    /// Whether the profile is bound to `principal`: its subject is one of
    /// the profile's `subjects`, or it holds one of its `scopes`.
    pub fn binds(&self, principal: &Principal) -> bool {
        self.subjects.iter().any(|s| **s == *principal.subject)
            || self.scopes.iter().any(|s| principal.scopes.contains(s))
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The OAuth scopes whose holders the profile binds.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the profile admits anything of `plugin`.
    pub fn admits_plugin(&self, plugin: &str) -> bool {
        self.plugins
            .as_ref()
            .is_none_or(|only| only.iter().any(|p| p == plugin))
            && !self.exclude_plugins.iter().any(|p| p == plugin)
    }

    /// Whether the profile admits the tool clients call `served`, which
    /// `plugin` calls `own`, with `hints`. A pattern matches either name.
    pub fn admits_tool(&self, plugin: &str, served: &str, own: &str, hints: &ToolHints) -> bool {
        self.admits_plugin(plugin)
            && passes(self.tools.as_deref(), &self.exclude_tools, &[served, own])
            && self.annotations.iter().all(|a| a.holds(hints))
    }

    /// Whether the profile admits the resource at `uri` (or the template
    /// `uri`) of `plugin`.
    pub fn admits_resource(&self, plugin: &str, uri: &str) -> bool {
        self.admits_plugin(plugin)
            && passes(self.resources.as_deref(), &self.exclude_resources, &[uri])
    }

    /// Whether the profile admits the prompt `name` of `plugin`.
    pub fn admits_prompt(&self, plugin: &str, name: &str) -> bool {
        self.admits_plugin(plugin)
            && passes(self.prompts.as_deref(), &self.exclude_prompts, &[name])
    }

    /// The served names of the tools of `catalog` the profile admits, in
    /// the catalog's order.
    pub fn tool_names<'c>(&self, catalog: &'c Catalog) -> Vec<&'c str> {
        catalog
            .tools()
            .iter()
            .filter(|t| {
                let own = catalog
                    .get(&t.name)
                    .map(|(_, route)| route.tool().name.as_str())
                    .or_else(|| catalog.pending(&t.name).map(|(_, tool)| tool.name.as_str()))
                    .unwrap_or(&t.name);
                self.admits_tool(&t.plugin, &t.name, own, &t.hints)
            })
            .map(|t| t.name.as_str())
            .collect()
    }

    /// What the profile names that `catalog` does not serve: plugins not
    /// loaded (they may come later) and patterns matching nothing, one
    /// line each, naming the key.
    pub fn report(&self, catalog: &Catalog) -> Vec<String> {
        let key = |k: &str| format!("profiles.{}.{k}", self.name);
        let mut lines = Vec::new();
        let loaded: Vec<&str> = catalog.plugins().iter().map(|p| &*p.name).collect();
        let named = self.plugins.iter().flatten().map(|p| ("plugins", p));
        for (k, plugin) in named.chain(self.exclude_plugins.iter().map(|p| ("exclude_plugins", p)))
        {
            if !loaded.contains(&plugin.as_str()) {
                lines.push(format!(
                    "`{}`: no plugin {plugin:?} is loaded (it may come later)",
                    key(k)
                ));
            }
        }
        let tools: Vec<&str> = catalog
            .tools()
            .iter()
            .flat_map(|t| {
                let own = catalog.get(&t.name).map(|(_, r)| r.tool().name.as_str());
                std::iter::once(t.name.as_str()).chain(own)
            })
            .collect();
        let uris: Vec<&str> = catalog
            .resources()
            .iter()
            .map(|r| r.info.uri.as_str())
            .chain(
                catalog
                    .templates()
                    .iter()
                    .map(|t| t.info.uri_template.as_str()),
            )
            .collect();
        let prompts: Vec<&str> = catalog.prompts().iter().map(|p| p.name.as_str()).collect();
        let groups = [
            (
                "tools",
                self.tools.as_deref().unwrap_or_default(),
                &tools,
                "tool",
            ),
            ("exclude_tools", &self.exclude_tools[..], &tools, "tool"),
            (
                "resources",
                self.resources.as_deref().unwrap_or_default(),
                &uris,
                "resource",
            ),
            (
                "exclude_resources",
                &self.exclude_resources[..],
                &uris,
                "resource",
            ),
            (
                "prompts",
                self.prompts.as_deref().unwrap_or_default(),
                &prompts,
                "prompt",
            ),
            (
                "exclude_prompts",
                &self.exclude_prompts[..],
                &prompts,
                "prompt",
            ),
        ];
        for (k, globs, names, what) in groups {
            for glob in globs {
                if !names.iter().any(|n| glob.matches(n)) {
                    lines.push(format!(
                        "`{}`: {:?} matches no {what}",
                        key(k),
                        glob.to_string()
                    ));
                }
            }
        }
        lines
    }
}

impl super::Config {
    /// What the profiles name that `catalog` does not serve
    /// ([`Profile::report`]), and the profiles that bind OAuth callers
    /// when the server checks no OAuth token (so they bind no one), one
    /// line each, naming the key.
    pub fn profile_report(&self, catalog: &Catalog) -> Vec<String> {
        let oauth = self.server.oauth.is_some();
        self.profiles
            .values()
            .flat_map(|profile| {
                let unbound = [("subjects", &profile.subjects), ("scopes", &profile.scopes)]
                    .into_iter()
                    .filter(|(_, list)| !oauth && !list.is_empty())
                    .map(|(k, _)| {
                        format!(
                            "`profiles.{}.{k}`: binds no caller: the server checks no OAuth token (`[server.oauth]` is not set)",
                            profile.name
                        )
                    });
                profile.report(catalog).into_iter().chain(unbound)
            })
            .collect()
    }
}

/// A key of a profile and what is wrong with it.
type Problem = (String, String);

impl ProfileSpec {
    /// Checks the section `[profiles.name]` and makes its profile.
    pub(super) fn check(&self, name: &str) -> Result<Profile, Problem> {
        let key = |k: &str| format!("profiles.{name}.{k}");
        check_name(name).map_err(|p| (format!("profiles.{name:?}"), p))?;
        let plugins = |k: &str, list: &[String]| -> Result<Vec<String>, Problem> {
            for plugin in list {
                PluginName::parse(plugin).map_err(|e| (key(k), e.to_string()))?;
            }
            Ok(list.to_vec())
        };
        let globs = |k: &str, list: &[String]| -> Result<Vec<Glob>, Problem> {
            list.iter()
                .map(|p| {
                    Glob::new(p).ok_or_else(|| {
                        (
                            key(k),
                            "an empty pattern matches nothing; remove it".to_string(),
                        )
                    })
                })
                .collect()
        };
        let annotations = self
            .annotations
            .iter()
            .map(|a| {
                ANNOTATIONS
                    .iter()
                    .find(|(n, _)| n == a)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| {
                        let known: Vec<&str> = ANNOTATIONS.iter().map(|(n, _)| *n).collect();
                        (
                            key("annotations"),
                            format!(
                                "unknown annotation {a:?}; expected one of {}",
                                known.join(", ")
                            ),
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        let only =
            |k: &str, list: &Option<Vec<String>>| list.as_deref().map(|l| globs(k, l)).transpose();
        let callers = |k: &str, list: &[String]| -> Result<Vec<String>, Problem> {
            match list.iter().find(|c| c.is_empty()) {
                Some(_) => Err((
                    key(k),
                    "an empty entry binds no caller; remove it".to_string(),
                )),
                None => Ok(list.to_vec()),
            }
        };
        Ok(Profile {
            name: name.to_string(),
            plugins: self
                .plugins
                .as_deref()
                .map(|l| plugins("plugins", l))
                .transpose()?,
            exclude_plugins: plugins("exclude_plugins", &self.exclude_plugins)?,
            tools: only("tools", &self.tools)?,
            exclude_tools: globs("exclude_tools", &self.exclude_tools)?,
            annotations,
            resources: only("resources", &self.resources)?,
            exclude_resources: globs("exclude_resources", &self.exclude_resources)?,
            prompts: only("prompts", &self.prompts)?,
            exclude_prompts: globs("exclude_prompts", &self.exclude_prompts)?,
            subjects: callers("subjects", &self.subjects)?,
            scopes: callers("scopes", &self.scopes)?,
        })
    }
}

/// The longest profile name.
const MAX_PROFILE_NAME: usize = 64;

/// A profile name is a path segment of its HTTP endpoint (`/mcp/NAME`):
/// 1 to 64 characters of `A-Z a-z 0-9 _ -`.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_PROFILE_NAME {
        return Err(format!(
            "a profile name has 1 to {MAX_PROFILE_NAME} characters; rename the section"
        ));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
    {
        Some(c) => Err(format!(
            "{name:?} is not a profile name: it holds {c:?} (a profile name is made of A-Z, a-z, 0-9, _ and -); rename the section"
        )),
        None => Ok(()),
    }
}

/// The profiles by name.
pub type ProfileMap = BTreeMap<String, Arc<Profile>>;

/// The profiles of `map` bound to `principal`, in name order.
pub fn bound_for(map: &ProfileMap, principal: &Principal) -> Vec<Arc<Profile>> {
    map.values()
        .filter(|p| p.binds(principal))
        .cloned()
        .collect()
}

/// The profiles the server serves from, shared by every connection and
/// replaced when the policy file is reloaded. Cheap to clone; clones share
/// the set.
#[derive(Debug, Clone)]
pub struct Profiles {
    current: Arc<watch::Sender<Arc<ProfileMap>>>,
}

impl Default for Profiles {
    fn default() -> Self {
        Profiles::new(ProfileMap::new())
    }
}

impl Profiles {
    /// A set holding `profiles`.
    pub fn new(profiles: ProfileMap) -> Profiles {
        Profiles {
            current: Arc::new(watch::Sender::new(Arc::new(profiles))),
        }
    }

    /// The profile called `name` now, if there is one.
    pub fn get(&self, name: &str) -> Option<Arc<Profile>> {
        self.current.borrow().get(name).cloned()
    }

    /// The names of the profiles now.
    pub fn names(&self) -> Vec<String> {
        self.current.borrow().keys().cloned().collect()
    }

    /// Serves `profiles` from now on (a reloaded policy file's). Nothing
    /// is sent when they are the same as before.
    pub fn replace(&self, profiles: ProfileMap) {
        self.current.send_if_modified(|now| {
            let changed = **now != profiles;
            if changed {
                *now = Arc::new(profiles);
            }
            changed
        });
    }

    /// The profiles bound to `principal` now (see [`Profile::binds`]), in
    /// name order.
    pub fn bound_for(&self, principal: &Principal) -> Vec<Arc<Profile>> {
        bound_for(&self.current.borrow(), principal)
    }

    /// Follows the set's replacements.
    pub fn subscribe(&self) -> watch::Receiver<Arc<ProfileMap>> {
        self.current.subscribe()
    }
}

#[cfg(test)]
mod tests;
