//! A plugin's tool list checked as it loads: held to its policy's bounds
//! before any of it is parsed, then each definition's name, description,
//! icons and schemas (compiled here) checked in one pass.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use crate::definitions::icons;
use crate::definitions::output::TaskSupport;
use crate::definitions::schema::{MAX_TOOL_NAME, Schema, check_tool_name};
use crate::definitions::served::Listing;
use crate::definitions::tool::PluginTool;
use crate::error::{LoadError, clip};
use crate::load::bindings::types as wit;
use crate::policy::Policy;
use crate::policy::limits::spec::key;
use crate::units::{bytes, count};

/// The bytes a tool definition adds to its plugin's tool list: its name,
/// title, description, schemas and icons.
pub(super) fn definition_size(def: &wit::ToolDefinition) -> u64 {
    let optional = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    (def.name.len()
        + optional(&def.title)
        + def.description.len()
        + def.input_schema.len()
        + optional(&def.output_schema)
        + optional(&def.annotations.title)
        + icons::size(&def.icons)) as u64
}

/// Holds a plugin's tool list to its policy's bounds (`max_tools`,
/// `max_schema_size`, `max_tool_list_size`) before any of it is parsed or
/// compiled: compiling a schema costs many times its size in host memory.
pub(super) fn check_bounds(
    path: &Path,
    policy: &Policy,
    defs: &[wit::ToolDefinition],
    listing: &Listing,
) -> Result<(), LoadError> {
    let limits = &policy.limits;
    let over = |key: &str, what: String, limit: String| LoadError::ToolListTooLarge {
        path: path.to_owned(),
        what,
        limit,
        hint: policy.raise_hint(key),
    };
    if defs.len() as u64 > u64::from(limits.max_tools) {
        return Err(over(
            key::MAX_TOOLS,
            format!("it lists {} tools", count(defs.len() as u64)),
            count(limits.max_tools.into()),
        ));
    }
    for def in defs {
        let schemas = [
            ("input schema", Some(&def.input_schema)),
            ("output schema", def.output_schema.as_ref()),
        ];
        for (which, schema) in schemas {
            if let Some(schema) = schema
                && schema.len() as u64 > limits.max_schema_bytes
            {
                return Err(over(
                    key::MAX_SCHEMA_SIZE,
                    format!(
                        "tool {:?}: its {which} is {}",
                        clip(def.name.clone(), MAX_TOOL_NAME),
                        bytes(schema.len() as u64)
                    ),
                    bytes(limits.max_schema_bytes),
                ));
            }
        }
    }
    let (entries, served_bytes) = listing.size();
    if entries as u64 > u64::from(limits.max_tools) {
        return Err(over(
            key::MAX_TOOLS,
            format!(
                "it lists {} resources, templates or prompts of one kind",
                count(entries as u64)
            ),
            count(limits.max_tools.into()),
        ));
    }
    let tools: u64 = defs.iter().map(definition_size).sum();
    let total = tools + served_bytes;
    if total > limits.max_tool_list_bytes {
        let what = if served_bytes == 0 {
            format!(
                "its tool list (names, titles, descriptions, schemas and icons) is {}",
                bytes(total)
            )
        } else {
            format!(
                "its tool, resource and prompt lists (names, titles, descriptions, URIs, schemas and icons) are {}",
                bytes(total)
            )
        };
        return Err(over(
            key::MAX_TOOL_LIST_SIZE,
            what,
            bytes(limits.max_tool_list_bytes),
        ));
    }
    Ok(())
}

/// Checks each definition (its name, unique in the plugin; its description;
/// its schemas, compiled here) in one pass over the list.
pub(super) fn validate(
    path: &Path,
    defs: Vec<wit::ToolDefinition>,
    serves: bool,
) -> Result<Vec<PluginTool>, LoadError> {
    if defs.is_empty() && !serves {
        return Err(LoadError::NoTools {
            path: path.to_owned(),
        });
    }
    let mut tools: Vec<PluginTool> = Vec::with_capacity(defs.len());
    let mut names: HashSet<String> = HashSet::with_capacity(defs.len());
    for def in defs {
        let invalid = |problem: String| LoadError::InvalidTool {
            path: path.to_owned(),
            tool: clip(def.name.clone(), MAX_TOOL_NAME),
            problem,
        };
        check_tool_name(&def.name).map_err(|e| invalid(e.to_string()))?;
        if !names.insert(def.name.clone()) {
            return Err(invalid("the plugin lists this tool name twice".into()));
        }
        if def.description.trim().is_empty() {
            return Err(invalid(
                "the description is empty; clients and models need one".into(),
            ));
        }
        icons::check(&def.icons).map_err(|e| invalid(e.to_string()))?;
        let input = Schema::compile_object("input schema", &def.input_schema)
            .map_err(|e| invalid(e.to_string()))?;
        let output = def
            .output_schema
            .as_deref()
            .map(|s| Schema::compile_object("output schema", s))
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        tools.push(PluginTool {
            hints: def.annotations.into(),
            input,
            output: output.map(Arc::new),
            name: def.name,
            title: def.title,
            description: def.description,
            icons: def.icons.into_iter().map(Into::into).collect(),
            task_support: match def.task_support {
                wit::TaskSupport::Forbidden => TaskSupport::Forbidden,
                wit::TaskSupport::Optional => TaskSupport::Optional,
                wit::TaskSupport::Required => TaskSupport::Required,
            },
        });
    }
    Ok(tools)
}
