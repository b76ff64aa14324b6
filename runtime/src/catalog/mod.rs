//! Stage `catalog`: the loaded plugins under the names clients use, and
//! its lifecycle. `load` gives it `Plugin`s; it builds a catalog of them
//! (this file), swaps each new one in atomically (`lifecycle`, the first
//! load in `lifecycle/start.rs`), tells subscribers what changed
//! (`first_load`), lists plugins still compiling (`pending`, `awaiting`),
//! swaps in Cranelift's code for Winch's (`optimize`), plugins fetched
//! from sources (`fetched`, `claims`) and reloads what changes on disk
//! (`watch`). `serve` routes every request through the current catalog.
//!
//! The catalog: every tool, resource, resource template and prompt of
//! every loaded plugin under the name (or URI) clients use, in a
//! deterministic order.
//!
//! Naming rule: a tool keeps the name its plugin gives it, unless two or more
//! plugins export the same name; then, under the default `[server]
//! tool_clash = "qualify"` (`clash`), each of them is offered as
//! `<plugin>.<name>`, where `<plugin>` is the file stem with characters
//! outside `A-Z a-z 0-9 _ -` replaced by `_`. Under `"prefix"` the plugin
//! that already serves the plain name keeps it and only the others are
//! qualified; under `"refuse"` the others' tools of that name are left out.
//! Should a qualified name still
//! clash, or exceed 128 characters, the tool of the plugin whose file name
//! sorts later is left out and a warning is logged. Tools are listed sorted
//! by name (byte order). Prompts follow the same rule.
//!
//! A resource keeps the URI its plugin gives it; when plugins list the same
//! URI (or the same URI template), the plugin whose file name sorts first
//! serves it and the others' entries are left out, with a warning: a URI is
//! the resource's identity, which clients keep and which tool results and
//! views refer to, so it is never rewritten. Resources are listed sorted by
//! URI; templates in plugin order, then the plugin's order, which is also
//! the order a URI no resource has is matched against them.

pub(crate) mod awaiting;
pub(crate) mod claims;
pub(crate) mod clash;
pub(crate) mod fetched;
pub(crate) mod first_load;
pub(crate) mod lifecycle;
pub(crate) mod optimize;
pub(crate) mod pending;
pub(crate) mod watch;

use std::collections::HashMap;
use std::sync::Arc;

use crate::policy::ToolClash;

use crate::catalog::pending::PendingPlugin;
use crate::definitions::output::ToolInfo;
use crate::definitions::schema::{check_tool_name, plugin_prefix};
use crate::definitions::served::{PromptInfo, ResourceInfo, TemplateInfo};
use crate::definitions::tool::PluginTool;
use crate::load::plugin::Plugin;

/// A resource, and the plugin that serves it.
#[derive(Debug, Clone)]
pub struct ResourceEntry {
    /// The resource as its plugin lists it.
    pub info: ResourceInfo,
    /// The plugin.
    pub plugin: Arc<Plugin>,
}

/// A resource template, and the plugin that serves it.
#[derive(Debug, Clone)]
pub struct TemplateEntry {
    /// The template as its plugin lists it.
    pub info: TemplateInfo,
    /// The plugin.
    pub plugin: Arc<Plugin>,
}

/// A prompt under the name clients get it by, and the plugin that serves it.
#[derive(Debug, Clone)]
pub struct PromptEntry {
    /// The name clients use (qualified on a clash, as tools are).
    pub name: String,
    /// The prompt as its plugin lists it.
    pub info: PromptInfo,
    /// The plugin.
    pub plugin: Arc<Plugin>,
}

/// What kind of entry the catalog left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A tool.
    Tool,
    /// A resource.
    Resource,
    /// A resource template.
    Template,
    /// A prompt.
    Prompt,
}

impl std::fmt::Display for EntryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EntryKind::Tool => "tool",
            EntryKind::Resource => "resource",
            EntryKind::Template => "resource template",
            EntryKind::Prompt => "prompt",
        })
    }
}

/// Why the catalog left an entry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// The name clients would use (qualified on a clash) breaks the naming
    /// rule, e.g. it is too long.
    InvalidName {
        /// What is wrong with it.
        problem: String,
    },
    /// An earlier plugin already has the name clients would use.
    NameTaken {
        /// The name clients would use.
        name: String,
        /// The plugin that has it.
        owner: Arc<str>,
    },
    /// Another plugin already serves a tool of this name, and `[server]
    /// tool_clash = "refuse"` keeps it theirs.
    Shadows {
        /// The plugin that serves it.
        owner: Arc<str>,
    },
    /// An earlier plugin already serves the URI (or URI template).
    AlreadyServed {
        /// The plugin that serves it.
        owner: Arc<str>,
    },
}

/// An entry of a plugin that the catalog left out, and why. Its text (as
/// logged) is `tool "x" of plugin "p" left out: <why>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEntry {
    /// What it is.
    pub kind: EntryKind,
    /// Its name as the plugin gives it (for a resource its URI, for a
    /// template its URI template).
    pub name: String,
    /// The plugin that lists it.
    pub plugin: Arc<str>,
    /// Why it was left out.
    pub reason: SkipReason,
}

impl std::fmt::Display for SkippedEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (kind, name, plugin) = (self.kind, &self.name, &self.plugin);
        write!(f, "{kind} {name:?} of plugin {plugin:?} left out: ")?;
        match &self.reason {
            SkipReason::InvalidName { problem } => f.write_str(problem),
            SkipReason::NameTaken { name, owner } => {
                write!(f, "the name {name:?} is already taken by plugin {owner:?}")
            }
            SkipReason::Shadows { owner } => write!(
                f,
                "plugin {owner:?} already serves a tool of this name, and `[server] tool_clash = \"refuse\"` keeps it theirs"
            ),
            SkipReason::AlreadyServed { owner } => {
                let what = match kind {
                    EntryKind::Template => "template",
                    _ => "URI",
                };
                write!(f, "plugin {owner:?} already serves this {what}")
            }
        }
    }
}

/// Where a catalog entry's calls go.
#[derive(Debug, Clone)]
pub struct ToolRoute {
    /// The plugin.
    pub plugin: Arc<Plugin>,
    /// The index of the tool in `plugin.tools`.
    pub index: usize,
}

impl ToolRoute {
    /// The tool's definition.
    pub fn tool(&self) -> &PluginTool {
        &self.plugin.tools[self.index]
    }
}

/// An immutable set of tools. A new catalog replaces the old one whole, so a
/// call keeps the version it started with.
#[derive(Debug, Default)]
pub struct Catalog {
    infos: Vec<ToolInfo>,
    /// Where each of `infos` is served; `None` for a tool of a plugin
    /// still loading, listed from its cached list.
    routes: Vec<Option<ToolRoute>>,
    by_name: HashMap<String, usize>,
    /// The tools listed from a cached list, by the name clients use: the
    /// plugin still loading and the tool's index in its list.
    pending: HashMap<String, (Arc<PendingPlugin>, usize)>,
    plugins: Vec<Arc<Plugin>>,
    resources: Vec<ResourceEntry>,
    by_uri: HashMap<String, usize>,
    templates: Vec<TemplateEntry>,
    prompts: Vec<PromptEntry>,
    by_prompt: HashMap<String, usize>,
}

impl Catalog {
    /// Builds the catalog from loaded plugins (any order) and returns the
    /// entries left out, with the reason.
    pub fn build(plugins: Vec<Arc<Plugin>>) -> (Catalog, Vec<SkippedEntry>) {
        Self::build_with(plugins, Vec::new(), ToolClash::Qualify, None)
    }

    /// [`Catalog::build`], with the tools of plugins still loading listed
    /// from their cached lists (`pending`), clashing names following
    /// `clash`, and `before` (the catalog it replaces) saying who kept a
    /// clashing name so far.
    pub(crate) fn build_with(
        mut plugins: Vec<Arc<Plugin>>,
        mut pending: Vec<Arc<PendingPlugin>>,
        clash: ToolClash,
        before: Option<&Catalog>,
    ) -> (Catalog, Vec<SkippedEntry>) {
        plugins.sort_by(|a, b| a.path.cmp(&b.path));
        pending.sort_by(|a, b| a.path.cmp(&b.path));
        let mut sources: Vec<Source<'_>> = plugins
            .iter()
            .map(Source::Loaded)
            .chain(pending.iter().map(Source::Pending))
            .collect();
        sources.sort_by(|a, b| a.path().cmp(b.path()));
        let mut exporters: HashMap<&str, Vec<Arc<str>>> = HashMap::new();
        for source in &sources {
            for tool in source.tool_names() {
                let names = exporters.entry(tool).or_default();
                if !names.contains(source.name()) {
                    names.push(source.name().clone());
                }
            }
        }
        let keepers = match clash {
            ToolClash::Qualify => HashMap::new(),
            ToolClash::Prefix | ToolClash::Refuse => clash::keepers(
                exporters
                    .iter()
                    .filter(|(_, e)| e.len() > 1)
                    .map(|(tool, e)| (*tool, e.as_slice())),
                |tool| before.and_then(|b| b.plain_owner(tool)),
            ),
        };
        let mut entries: Vec<(String, Source<'_>, usize)> = Vec::new();
        let mut taken: HashMap<String, Arc<str>> = HashMap::new();
        let mut skipped = Vec::new();
        for source in &sources {
            let plugin_name = source.name();
            for (index, tool) in source.tool_names().enumerate() {
                let skip = |reason| SkippedEntry {
                    kind: EntryKind::Tool,
                    name: tool.to_owned(),
                    plugin: plugin_name.clone(),
                    reason,
                };
                let qualified = || format!("{}.{}", plugin_prefix(plugin_name), tool);
                let name = match keepers.get(tool) {
                    _ if exporters[tool].len() < 2 => tool.to_owned(),
                    None => qualified(),
                    Some(keeper) if keeper == plugin_name => tool.to_owned(),
                    Some(keeper) if clash == ToolClash::Refuse => {
                        skipped.push(skip(SkipReason::Shadows {
                            owner: keeper.clone(),
                        }));
                        continue;
                    }
                    Some(keeper) => {
                        let name = qualified();
                        if before.is_none_or(|b| !b.by_name.contains_key(&name)) {
                            tracing::warn!(
                                plugin = %plugin_name,
                                tool,
                                owner = %keeper,
                                "tool {tool:?} of plugin {plugin_name:?} is offered as {name:?}: plugin {keeper:?} already serves {tool:?} (`[server] tool_clash = \"prefix\"`)"
                            );
                        }
                        name
                    }
                };
                if let Err(problem) = check_tool_name(&name) {
                    let problem = problem.to_string();
                    skipped.push(skip(SkipReason::InvalidName { problem }));
                    continue;
                }
                if let Some(owner) = taken.get(&name) {
                    let owner = owner.clone();
                    skipped.push(skip(SkipReason::NameTaken { name, owner }));
                    continue;
                }
                taken.insert(name.clone(), plugin_name.clone());
                entries.push((name, *source, index));
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut catalog = Catalog {
            plugins: plugins.clone(),
            ..Catalog::default()
        };
        for (name, source, index) in entries {
            catalog.by_name.insert(name.clone(), catalog.infos.len());
            match source {
                Source::Loaded(plugin) => {
                    let target = ToolRoute {
                        plugin: plugin.clone(),
                        index,
                    };
                    catalog.infos.push(plugin.tool_info(index, name));
                    catalog.routes.push(Some(target));
                }
                Source::Pending(waiting) => {
                    catalog
                        .pending
                        .insert(name.clone(), (waiting.clone(), index));
                    catalog.infos.push(ToolInfo {
                        name,
                        ..waiting.tools[index].clone()
                    });
                    catalog.routes.push(None);
                }
            }
        }
        catalog.add_served(&mut skipped);
        (catalog, skipped)
    }

    /// The plugin whose tool `tool` is served under that plain name.
    fn plain_owner(&self, tool: &str) -> Option<Arc<str>> {
        let index = *self.by_name.get(tool)?;
        match &self.routes[index] {
            Some(route) => Some(route.plugin.name.clone()),
            None => self.pending.get(tool).map(|(p, _)| p.name.clone()),
        }
    }

    /// Adds every plugin's resources, templates and prompts (plugins are
    /// sorted by path), leaving out what an earlier plugin already serves.
    fn add_served(&mut self, skipped: &mut Vec<SkippedEntry>) {
        let mut prompt_exporters: HashMap<&str, usize> = HashMap::new();
        for plugin in &self.plugins {
            for prompt in &plugin.served.prompts {
                *prompt_exporters.entry(prompt.name.as_str()).or_default() += 1;
            }
        }
        let mut uri_owner: HashMap<String, Arc<str>> = HashMap::new();
        let mut template_owner: HashMap<String, Arc<str>> = HashMap::new();
        let mut prompts: Vec<PromptEntry> = Vec::new();
        let mut prompt_owner: HashMap<String, Arc<str>> = HashMap::new();
        for plugin in &self.plugins {
            let skip = |kind, name: &String, reason| SkippedEntry {
                kind,
                name: name.clone(),
                plugin: plugin.name.clone(),
                reason,
            };
            for info in &plugin.served.resources {
                if let Some(owner) = uri_owner.get(&info.uri) {
                    let reason = SkipReason::AlreadyServed {
                        owner: owner.clone(),
                    };
                    skipped.push(skip(EntryKind::Resource, &info.uri, reason));
                    continue;
                }
                uri_owner.insert(info.uri.clone(), plugin.name.clone());
                self.resources.push(ResourceEntry {
                    info: info.clone(),
                    plugin: plugin.clone(),
                });
            }
            for info in &plugin.served.templates {
                if let Some(owner) = template_owner.get(&info.uri_template) {
                    let reason = SkipReason::AlreadyServed {
                        owner: owner.clone(),
                    };
                    skipped.push(skip(EntryKind::Template, &info.uri_template, reason));
                    continue;
                }
                template_owner.insert(info.uri_template.clone(), plugin.name.clone());
                self.templates.push(TemplateEntry {
                    info: info.clone(),
                    plugin: plugin.clone(),
                });
            }
            for info in &plugin.served.prompts {
                let name = if prompt_exporters[info.name.as_str()] > 1 {
                    format!("{}.{}", plugin_prefix(&plugin.name), info.name)
                } else {
                    info.name.clone()
                };
                if let Err(problem) = check_tool_name(&name) {
                    let problem = problem.to_string();
                    let reason = SkipReason::InvalidName { problem };
                    skipped.push(skip(EntryKind::Prompt, &info.name, reason));
                    continue;
                }
                if let Some(owner) = prompt_owner.get(&name) {
                    let reason = SkipReason::NameTaken {
                        name,
                        owner: owner.clone(),
                    };
                    skipped.push(skip(EntryKind::Prompt, &info.name, reason));
                    continue;
                }
                prompt_owner.insert(name.clone(), plugin.name.clone());
                prompts.push(PromptEntry {
                    name,
                    info: info.clone(),
                    plugin: plugin.clone(),
                });
            }
        }
        self.resources.sort_by(|a, b| a.info.uri.cmp(&b.info.uri));
        self.by_uri = self
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| (r.info.uri.clone(), i))
            .collect();
        prompts.sort_by(|a, b| a.name.cmp(&b.name));
        self.by_prompt = prompts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        self.prompts = prompts;
    }

    /// Every resource, sorted by URI.
    pub fn resources(&self) -> &[ResourceEntry] {
        &self.resources
    }

    /// Every resource template, in plugin order.
    pub fn templates(&self) -> &[TemplateEntry] {
        &self.templates
    }

    /// Every prompt, sorted by name.
    pub fn prompts(&self) -> &[PromptEntry] {
        &self.prompts
    }

    /// The prompt clients call `name`.
    pub fn prompt(&self, name: &str) -> Option<&PromptEntry> {
        self.by_prompt.get(name).map(|&i| &self.prompts[i])
    }

    /// The listed resource at `uri`.
    pub fn resource(&self, uri: &str) -> Option<&ResourceEntry> {
        self.by_uri.get(uri).map(|&i| &self.resources[i])
    }

    /// The plugin that serves `uri`: the one that lists it, else the first
    /// with a template that matches it.
    pub fn resource_plugin(&self, uri: &str) -> Option<&Arc<Plugin>> {
        self.resource(uri).map(|r| &r.plugin).or_else(|| {
            self.templates
                .iter()
                .find(|t| t.info.matches(uri))
                .map(|t| &t.plugin)
        })
    }

    /// The template with this URI template.
    pub fn template(&self, uri_template: &str) -> Option<&TemplateEntry> {
        self.templates
            .iter()
            .find(|t| t.info.uri_template == uri_template)
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> &[ToolInfo] {
        &self.infos
    }

    /// The tool called `name`, if its plugin has loaded.
    pub fn get(&self, name: &str) -> Option<(&ToolInfo, &ToolRoute)> {
        let &i = self.by_name.get(name)?;
        Some((&self.infos[i], self.routes[i].as_ref()?))
    }

    /// The plugin still loading whose cached list lists the tool `name`,
    /// and the tool as that list gives it (under its plugin's own name).
    pub fn pending(&self, name: &str) -> Option<(&Arc<PendingPlugin>, &ToolInfo)> {
        self.pending
            .get(name)
            .map(|(plugin, index)| (plugin, &plugin.tools[*index]))
    }

    /// The loaded plugins, sorted by file path.
    pub fn plugins(&self) -> &[Arc<Plugin>] {
        &self.plugins
    }
}

/// A plugin whose tools a catalog lists: loaded, or still loading and
/// listed from its cached list.
#[derive(Clone, Copy)]
enum Source<'a> {
    Loaded(&'a Arc<Plugin>),
    Pending(&'a Arc<PendingPlugin>),
}

impl<'a> Source<'a> {
    fn name(&self) -> &'a Arc<str> {
        match self {
            Source::Loaded(p) => &p.name,
            Source::Pending(p) => &p.name,
        }
    }

    fn path(&self) -> &'a std::path::Path {
        match self {
            Source::Loaded(p) => &p.path,
            Source::Pending(p) => &p.path,
        }
    }

    fn tool_names(&self) -> Box<dyn Iterator<Item = &'a str> + 'a> {
        match self {
            Source::Loaded(p) => Box::new(p.tools.iter().map(|t| t.name.as_str())),
            Source::Pending(p) => Box::new(p.tools.iter().map(|t| t.name.as_str())),
        }
    }
}

/// Counters of the catalog's changes, each bumped when its part changed:
/// what clients are told (`list_changed`, `resources/updated`) follows them.
/// Several changes may coalesce into one bump.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Generations {
    /// The tool list.
    pub tools: u64,
    /// The resource or template list.
    pub resources: u64,
    /// The prompt list.
    pub prompts: u64,
    /// The set of plugin versions (any plugin added, removed or replaced),
    /// after which a subscribed resource may read differently.
    pub plugins: u64,
}

impl Generations {
    /// These counters, each bumped where `new` differs from `old`; `None`
    /// when nothing differs.
    pub fn after(self, old: &Catalog, new: &Catalog) -> Option<Generations> {
        let bump = |n: u64, changed: bool| n + u64::from(changed);
        let versions = |c: &Catalog| {
            c.plugins()
                .iter()
                .map(|p| (p.path.clone(), p.digest))
                .collect::<Vec<_>>()
        };
        fn resources(c: &Catalog) -> (Vec<&ResourceInfo>, Vec<&TemplateInfo>) {
            (
                c.resources().iter().map(|r| &r.info).collect(),
                c.templates().iter().map(|t| &t.info).collect(),
            )
        }
        fn prompts(c: &Catalog) -> Vec<(&String, &PromptInfo)> {
            c.prompts().iter().map(|p| (&p.name, &p.info)).collect()
        }
        let next = Generations {
            tools: bump(self.tools, old.tools() != new.tools()),
            resources: bump(self.resources, resources(old) != resources(new)),
            prompts: bump(self.prompts, prompts(old) != prompts(new)),
            plugins: bump(self.plugins, versions(old) != versions(new)),
        };
        (next != self).then_some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_entry_reads_as_the_line_logged_for_it() {
        let entry = |kind, name: &str, reason| SkippedEntry {
            kind,
            name: name.into(),
            plugin: "b".into(),
            reason,
        };
        let taken = || SkipReason::NameTaken {
            name: "a.t".into(),
            owner: "a".into(),
        };
        let served = || SkipReason::AlreadyServed { owner: "a".into() };
        let lines = [
            entry(EntryKind::Tool, "t", taken()),
            entry(
                EntryKind::Prompt,
                "p",
                SkipReason::InvalidName {
                    problem: "too long".into(),
                },
            ),
            entry(EntryKind::Resource, "x://r", served()),
            entry(EntryKind::Template, "x://{id}", served()),
        ]
        .map(|e| e.to_string());
        assert_eq!(
            lines,
            [
                r#"tool "t" of plugin "b" left out: the name "a.t" is already taken by plugin "a""#,
                r#"prompt "p" of plugin "b" left out: too long"#,
                r#"resource "x://r" of plugin "b" left out: plugin "a" already serves this URI"#,
                r#"resource template "x://{id}" of plugin "b" left out: plugin "a" already serves this template"#,
            ]
        );
    }
}
