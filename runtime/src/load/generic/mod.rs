//! Generic components: a component that exports none of our `plugin`
//! interfaces is served as is, each exported function (of the world, and of
//! each exported interface) one tool, its schemas derived from its WIT types
//! and its description from its WIT doc comments.
//!
//! [`derive`] reads the component's exports into [`Generic`] (the functions
//! served and those left out, and why) and the tool definitions the loader
//! checks as it checks any plugin's; [`call`](crate::call) runs a function
//! through wasmtime's dynamic API with [`value`]'s conversions.

pub(crate) mod docs;
mod naming;
pub(crate) mod schema;
#[cfg(test)]
mod tests;
pub(crate) mod types;
pub(crate) mod value;

use std::collections::HashMap;

use serde_json::{Map, Value};
use wasmtime::Engine;
use wasmtime::component::types::{ComponentFunc, ComponentItem, Type};
use wasmtime::component::{Component, ComponentExportIndex, Val};

use crate::definitions::output::{Content, ToolOutput};
use crate::definitions::schema::{MAX_TOOL_NAME, check_tool_name};
use crate::load::bindings::types as wit;
use crate::policy::Policy;
use crate::policy::limits::spec::key;
use crate::units::bytes;
use naming::Exported;
use types::{Reader, Unservable, WitType};

/// The package of every interface of ours; a component that exports none
/// of them is generic.
const OUR_PACKAGE: &str = "mcp-wasm-host:plugin/";

/// Interfaces under this namespace are entry points for other hosts
/// (`wasi:cli/run`, `wasi:http/incoming-handler`), not tools.
const WASI: &str = "wasi:";

/// Functions a toolchain exports for its own use, not the author's: the
/// interface (a plain name, not a package's), the function and what it is.
/// They are left out, and said so, without a warning.
const TOOLCHAIN_EXPORTS: &[(&str, &str, &str)] = &[(
    "exports",
    "init",
    "componentize-py's build-time initializer (it ran when the component was built), not a function of the component's author",
)];

/// What toolchain added `exported` for its own use, if one did.
fn toolchain_export(exported: &Exported) -> Option<&'static str> {
    TOOLCHAIN_EXPORTS
        .iter()
        .find(|(interface, function, _)| {
            exported.interface.as_deref() == Some(*interface) && exported.function == *function
        })
        .map(|(_, _, what)| *what)
}

/// Whether `component` exports none of our interfaces, and so is served as
/// a generic component.
pub(crate) fn is_generic(component: &Component, engine: &Engine) -> bool {
    !component
        .component_type()
        .exports(engine)
        .any(|(name, _)| name.starts_with(OUR_PACKAGE))
}

/// One function served as a tool.
#[derive(Debug)]
pub(crate) struct Function {
    /// Where the component exports it.
    exported: Exported,
    /// Its index among the component's exports.
    index: ComponentExportIndex,
    /// Its parameters, in order.
    params: Vec<(String, WitType)>,
    /// Its result, if it returns one.
    result: Option<WitType>,
    /// Whether it is an `async` function (lifted with the async ABI: the
    /// component runs on the async engine, see `concurrent`).
    is_async: bool,
}

/// A function of a generic component that is not served, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The function as WIT tools name it (`local:kv/store@0.2.0#open`).
    pub function: String,
    /// Why, in a few words.
    pub reason: String,
    /// Whether a toolchain added it for its own use (see
    /// `TOOLCHAIN_EXPORTS`): logged at debug level, not as a warning.
    pub internal: bool,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "function `{}` is not served: {}",
            self.function, self.reason
        )
    }
}

/// A function served as a tool, as `inspect` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenericTool {
    /// The tool's name (before any qualification by the catalog).
    pub tool: String,
    /// The function as WIT tools name it (`local:time/clock@0.1.0#now`).
    pub function: String,
    /// Its WIT signature (`func(tz: string) -> string`).
    pub signature: String,
}

/// What serving a component as a generic one gave: its functions served,
/// in export order, and those left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenericSummary {
    /// The functions served.
    pub tools: Vec<GenericTool>,
    /// The functions left out.
    pub left_out: Vec<LeftOut>,
}

/// A generic component's served functions, by tool name.
#[derive(Debug, Default)]
pub(crate) struct Generic {
    functions: HashMap<String, Function>,
}

impl Generic {
    /// The function served as `tool`.
    pub(crate) fn function(&self, tool: &str) -> Option<&Function> {
        self.functions.get(tool)
    }
}

/// Why a generic component cannot be served at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeriveError {
    /// Its types, over all its functions, need more schema than the
    /// policy's tool list bound allows.
    TooLarge,
}

/// The functions `component` exports, each with where it is exported and
/// its type, in export order; interfaces of ours or of WASI are skipped,
/// and every exported type is named in `names`.
fn exported_functions(
    component: &Component,
    engine: &Engine,
    names: &mut Vec<(String, Type)>,
) -> Vec<(Exported, ComponentExportIndex, ComponentFunc)> {
    let mut found = Vec::new();
    for (name, export) in component.component_type().exports(engine) {
        match export.ty {
            ComponentItem::ComponentFunc(f) => {
                if let Some(index) = component.get_export_index(None, name) {
                    let exported = Exported {
                        interface: None,
                        function: name.to_string(),
                    };
                    found.push((exported, index, f));
                }
            }
            ComponentItem::Type(t) => names.push((name.to_string(), t)),
            ComponentItem::ComponentInstance(instance)
                if !name.starts_with(WASI) && !name.starts_with(OUR_PACKAGE) =>
            {
                let Some(parent) = component.get_export_index(None, name) else {
                    continue;
                };
                for (fname, item) in instance.exports(engine) {
                    match item.ty {
                        ComponentItem::ComponentFunc(f) => {
                            if let Some(index) = component.get_export_index(Some(&parent), fname) {
                                let exported = Exported {
                                    interface: Some(name.to_string()),
                                    function: fname.to_string(),
                                };
                                found.push((exported, index, f));
                            }
                        }
                        ComponentItem::Type(t) => names.push((fname.to_string(), t)),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// Why a plugin's plain functions are not served.
const BESIDE_OUR_WORLD: &str = "the component exports the plugin world, whose tools are what it \
     serves; a function exported beside that world is not a tool (see docs/generic-components.md)";

/// The functions a plugin (a component that exports our world, so is not
/// generic) exports beside it, none of which is served: one [`LeftOut`]
/// each, a toolchain's own marked `internal`.
pub(crate) fn beside_our_world(component: &Component, engine: &Engine) -> Vec<LeftOut> {
    exported_functions(component, engine, &mut Vec::new())
        .into_iter()
        .map(|(exported, _, _)| LeftOut {
            function: exported.wit_name(),
            reason: toolchain_export(&exported).map_or_else(
                || BESIDE_OUR_WORLD.to_string(),
                |what| format!("it is {what}"),
            ),
            internal: toolchain_export(&exported).is_some(),
        })
        .collect()
}

/// Serves `component` as a generic component under `policy`: reads each
/// exported function's types, leaves out those it cannot serve (saying
/// why), names the rest (see [`naming::tool_names`]) and derives their tool
/// definitions, described from `docs` when it describes them. The
/// definitions still go through the loader's bounds and checks.
pub(crate) fn derive(
    component: &Component,
    engine: &Engine,
    policy: &Policy,
    docs: &docs::Docs,
) -> Result<(Generic, GenericSummary, Vec<wit::ToolDefinition>), DeriveError> {
    let limits = &policy.limits;
    let mut names = Vec::new();
    let found = exported_functions(component, engine, &mut names);
    // Every node of a type becomes a dozen bytes of schema or more: the
    // tree of every type read stays within the tool list's bound.
    let mut reader = Reader::new(&names, (limits.max_tool_list_bytes / 8) as usize);
    let mut left_out = Vec::new();
    let mut read = Vec::new();
    for (exported, index, func) in found {
        let leave = |reason: String| LeftOut {
            function: exported.wit_name(),
            reason,
            internal: false,
        };
        if let Some(what) = toolchain_export(&exported) {
            left_out.push(LeftOut {
                internal: true,
                ..leave(format!("it is {what}"))
            });
            continue;
        }
        if exported.function.starts_with("[constructor]")
            || exported.function.starts_with("[method]")
        {
            left_out.push(leave("a resource's constructor or method works on a resource handle, which JSON cannot carry".into()));
            continue;
        }
        let params: Result<Vec<_>, _> = func
            .params()
            .map(|(n, t)| Ok((n.to_string(), reader.read(&t)?)))
            .collect();
        let results: Result<Vec<_>, _> = func.results().map(|t| reader.read(&t)).collect();
        match (params, results) {
            (Err(Unservable::TooLarge), _) | (_, Err(Unservable::TooLarge)) => {
                return Err(DeriveError::TooLarge);
            }
            (Err(e), _) | (_, Err(e)) => left_out.push(leave(e.to_string())),
            (Ok(_), Ok(results)) if results.len() > 1 => {
                left_out.push(leave("it returns more than one value".into()));
            }
            (Ok(params), Ok(mut results)) => read.push(Function {
                exported,
                index,
                params,
                result: results.pop(),
                is_async: func.async_(),
            }),
        }
    }
    let tool_names =
        naming::tool_names(&read.iter().map(|f| f.exported.clone()).collect::<Vec<_>>());
    let mut generic = Generic::default();
    let mut summary = GenericSummary::default();
    let mut defs = Vec::new();
    for (function, tool) in read.into_iter().zip(tool_names) {
        let wit_name = function.exported.wit_name();
        let leave = |reason: String| LeftOut {
            function: wit_name.clone(),
            reason,
            internal: false,
        };
        if let Err(problem) = check_tool_name(&tool) {
            left_out.push(leave(format!(
                "its tool name cannot be used: {problem} (the limit is {MAX_TOOL_NAME})"
            )));
            continue;
        }
        let signature = types::signature(&function.params, function.result.as_ref());
        let signature = if function.is_async {
            format!("async {signature}")
        } else {
            signature
        };
        let param_names: Vec<&str> = function.params.iter().map(|(n, _)| n.as_str()).collect();
        let described = docs.function(&function.exported, &param_names);
        let input = schema::input(&function.params, &described.params).to_string();
        let output = schema::output(function.result.as_ref()).map(|s| s.to_string());
        let over = [("input", Some(&input)), ("output", output.as_ref())]
            .into_iter()
            .find_map(|(which, s)| {
                s.filter(|s| s.len() as u64 > limits.max_schema_bytes)
                    .map(|s| (which, s.len()))
            });
        if let Some((which, size)) = over {
            left_out.push(leave(format!(
                "its {which} schema would be {}, over the limit of {} ({})",
                bytes(size as u64),
                bytes(limits.max_schema_bytes),
                policy.raise_hint(key::MAX_SCHEMA_SIZE)
            )));
            continue;
        }
        let description = described
            .text
            .unwrap_or_else(|| format!("The WIT function `{wit_name}`: `{signature}`."));
        defs.push(wit::ToolDefinition {
            name: tool.clone(),
            title: None,
            description,
            input_schema: input,
            output_schema: output,
            annotations: wit::ToolAnnotations {
                title: None,
                read_only_hint: None,
                destructive_hint: None,
                idempotent_hint: None,
                open_world_hint: None,
            },
            icons: Vec::new(),
            task_support: wit::TaskSupport::Forbidden,
        });
        summary.tools.push(GenericTool {
            tool: tool.clone(),
            function: wit_name,
            signature,
        });
        generic.functions.insert(tool, function);
    }
    summary.left_out = left_out;
    Ok((generic, summary, defs))
}

impl Function {
    /// The export to call.
    pub(crate) fn index(&self) -> ComponentExportIndex {
        self.index
    }

    /// The WIT values of the arguments object `arguments` (already checked
    /// against the input schema): refused, saying where and why, when one
    /// does not fit its type exactly (see [`value`]).
    pub(crate) fn arguments(&self, arguments: &Map<String, Value>) -> Result<Vec<Val>, String> {
        value::arguments(&self.params, arguments).map_err(|e| e.to_string())
    }

    /// How many values the function returns (0 or 1).
    pub(crate) fn result_count(&self) -> usize {
        usize::from(self.result.is_some())
    }

    /// The tool result of the values the function returned: its served
    /// result as structured content (a record as it is, anything else in
    /// [`schema::RESULT_FIELD`]) and as JSON text; the `err` of a `result`
    /// as an error result, its value as text (a string as it is, anything
    /// else as JSON) and as structured content in [`schema::ERROR_FIELD`].
    pub(crate) fn output(&self, results: &[Val]) -> Result<ToolOutput, String> {
        let (Some(ty), Some(val)) = (&self.result, results.first()) else {
            return Ok(ToolOutput::default());
        };
        let bad = |e: value::ValueError| format!("its result does not match its type: {e}");
        if let (WitType::Result { ok, err }, Val::Result(r)) = (ty, val) {
            return match r {
                Ok(v) => match (ok, v) {
                    (Some(t), Some(v)) => self.success(t, v).map_err(bad),
                    _ => Ok(ToolOutput::default()),
                },
                Err(v) => {
                    let json = match (err, v) {
                        (Some(t), Some(v)) => Some(value::to_json(t, v).map_err(bad)?),
                        _ => None,
                    };
                    let text = match &json {
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                        None => format!("`{}` returned an error", self.exported.wit_name()),
                    };
                    let structured = json.map(|j| {
                        let mut o = Map::new();
                        o.insert(schema::ERROR_FIELD.into(), j);
                        Value::Object(o)
                    });
                    Ok(ToolOutput {
                        content: vec![Content::text(text)],
                        structured,
                        is_error: true,
                    })
                }
            };
        }
        self.success(ty, val).map_err(bad)
    }

    fn success(&self, ty: &WitType, val: &Val) -> Result<ToolOutput, value::ValueError> {
        let json = value::to_json(ty, val)?;
        let structured = match ty {
            WitType::Record { .. } => json,
            _ => {
                let mut o = Map::new();
                o.insert(schema::RESULT_FIELD.into(), json);
                Value::Object(o)
            }
        };
        Ok(ToolOutput {
            content: vec![Content::text(structured.to_string())],
            structured: Some(structured),
            is_error: false,
        })
    }
}
