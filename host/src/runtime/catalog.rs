//! The catalog: every tool of every loaded plugin under the name clients
//! call it by, in a deterministic order.
//!
//! Naming rule: a tool keeps the name its plugin gives it, unless two or more
//! plugins export the same name; then each of them is offered as
//! `<plugin>.<name>`, where `<plugin>` is the file stem with characters
//! outside `A-Z a-z 0-9 _ -` replaced by `_`. Should a qualified name still
//! clash, or exceed 128 characters, the tool of the plugin whose file name
//! sorts later is left out and a warning is logged. Tools are listed sorted
//! by name (byte order).

use std::collections::HashMap;
use std::sync::Arc;

use super::output::ToolInfo;
use super::plugin::Plugin;
use super::schema::{check_tool_name, plugin_prefix};
use super::tool::PluginTool;

/// Where a catalog entry's calls go.
#[derive(Debug, Clone)]
pub struct Target {
    /// The plugin.
    pub plugin: Arc<Plugin>,
    /// The index of the tool in `plugin.tools`.
    pub index: usize,
}

impl Target {
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
    targets: Vec<Target>,
    by_name: HashMap<String, usize>,
    plugins: Vec<Arc<Plugin>>,
}

impl Catalog {
    /// Builds the catalog from loaded plugins (any order) and returns the
    /// names left out, with the reason.
    pub fn build(mut plugins: Vec<Arc<Plugin>>) -> (Catalog, Vec<String>) {
        plugins.sort_by(|a, b| a.path.cmp(&b.path));
        let mut exporters: HashMap<&str, usize> = HashMap::new();
        for plugin in &plugins {
            for tool in &plugin.tools {
                *exporters.entry(tool.name.as_str()).or_default() += 1;
            }
        }
        let mut entries: Vec<(String, Target)> = Vec::new();
        let mut taken: HashMap<String, Arc<str>> = HashMap::new();
        let mut skipped = Vec::new();
        for plugin in &plugins {
            for (index, tool) in plugin.tools.iter().enumerate() {
                let name = if exporters[tool.name.as_str()] > 1 {
                    format!("{}.{}", plugin_prefix(&plugin.name), tool.name)
                } else {
                    tool.name.clone()
                };
                if let Err(problem) = check_tool_name(&name) {
                    skipped.push(format!(
                        "tool {:?} of plugin {:?} left out: {problem}",
                        tool.name, plugin.name
                    ));
                    continue;
                }
                if let Some(owner) = taken.get(&name) {
                    skipped.push(format!(
                        "tool {:?} of plugin {:?} left out: the name {name:?} is already taken by plugin {owner:?}",
                        tool.name, plugin.name
                    ));
                    continue;
                }
                taken.insert(name.clone(), plugin.name.clone());
                entries.push((
                    name,
                    Target {
                        plugin: plugin.clone(),
                        index,
                    },
                ));
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut catalog = Catalog {
            plugins,
            ..Catalog::default()
        };
        for (name, target) in entries {
            let tool = target.tool();
            catalog.by_name.insert(name.clone(), catalog.infos.len());
            catalog.infos.push(ToolInfo {
                name,
                plugin: target.plugin.name.to_string(),
                title: tool.title.clone(),
                description: tool.description.clone(),
                input_schema: tool.input.json.clone(),
                output_schema: tool.output.as_ref().map(|s| s.json.clone()),
                hints: tool.hints.clone(),
                icons: tool.icons.clone(),
                task_support: tool.task_support,
            });
            catalog.targets.push(target);
        }
        (catalog, skipped)
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> &[ToolInfo] {
        &self.infos
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<(&ToolInfo, &Target)> {
        self.by_name
            .get(name)
            .map(|&i| (&self.infos[i], &self.targets[i]))
    }

    /// The loaded plugins, sorted by file path.
    pub fn plugins(&self) -> &[Arc<Plugin>] {
        &self.plugins
    }
}
