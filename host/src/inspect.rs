//! `mcp-wasm-host inspect`: one plugin file's world, tools, imports and
//! effective policy, as a human-readable report or as one JSON object.
//!
//! The facts come from [`Runtime::inspect`](crate::runtime::Runtime::inspect);
//! this module only presents them. Tools are shown exactly as `tools/list`
//! would send them (through [`mcp::convert::tool`](crate::mcp::convert::tool)).
//! Values of environment variables passed through from the server's
//! environment are never shown, only their names.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::mcp::convert;
use crate::runtime::capabilities::Grants;
use crate::runtime::units::{bytes, count, duration};
use crate::runtime::{ImportKind, Inspection, Policy, TaskSupport, WIT_VERSION, plugin_prefix};

/// Why the report could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// Writing to the output failed.
    #[error("cannot write the report: {0}")]
    Write(#[from] std::io::Error),
    /// A tool could not be turned into JSON.
    #[error("cannot serialize the report: {0}")]
    Json(#[from] serde_json::Error),
}

/// The report on one inspected plugin file.
#[derive(Debug)]
pub struct Report<'a> {
    inspection: &'a Inspection,
    config: Option<&'a Path>,
    source: Option<SourceInfo>,
}

/// Where a fetched plugin came from (`inspect oci://…`).
#[derive(Debug, Clone, Default)]
pub struct SourceInfo {
    /// The reference or URL, as given.
    pub reference: String,
    /// The manifest digest the reference resolved to (OCI only).
    pub digest: Option<String>,
    /// The public key whose signature verified, if one was required.
    pub signed_by: Option<String>,
    /// The registry could not be reached: the cache's copy was used.
    pub offline: bool,
}

/// Width of the first column of the top-level lines.
const TOP: usize = 10;
/// Width of the first column of the lines inside a section.
const INNER: usize = 16;
/// Where the tools' fields start: their indent, the label column and a space.
const TOOL_VALUES: usize = 4 + INNER + 1;
/// The width JSON values are wrapped to.
const WIDTH: usize = 100;

impl<'a> Report<'a> {
    /// The report on `inspection`, whose policy came from the file `config`
    /// (`None`: the built-in defaults).
    pub fn new(inspection: &'a Inspection, config: Option<&'a Path>) -> Self {
        Report {
            inspection,
            config,
            source: None,
        }
    }

    /// The same report, saying where the plugin was fetched from.
    pub fn with_source(mut self, source: SourceInfo) -> Self {
        self.source = Some(source);
        self
    }

    /// The process exit code the report calls for: 0 when the plugin loads,
    /// 1 when it does not.
    pub fn exit_code(&self) -> u8 {
        if self.inspection.loads() { 0 } else { 1 }
    }

    /// Writes the report to `out`: one JSON object (pretty-printed) when
    /// `json`, the human-readable text otherwise.
    pub fn write(&self, json: bool, out: &mut dyn Write) -> Result<(), InspectError> {
        let text = if json {
            let mut s = serde_json::to_string_pretty(&self.json()?)?;
            s.push('\n');
            s
        } else {
            self.text()?
        };
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    }

    /// The tools as `tools/list` presents them.
    fn tools(&self) -> Result<Vec<Value>, InspectError> {
        self.inspection
            .tools
            .iter()
            .map(|t| serde_json::to_value(convert::tool(t)).map_err(InspectError::from))
            .collect()
    }

    /// The imports grouped by what they give, in report order.
    fn import_groups(&self) -> Vec<(ImportKind, Vec<&'a str>)> {
        ImportKind::ALL
            .iter()
            .map(|&c| {
                let names = self
                    .inspection
                    .imports
                    .iter()
                    .filter(|n| ImportKind::of(n) == c)
                    .map(String::as_str)
                    .collect::<Vec<_>>();
                (c, names)
            })
            .filter(|(_, names)| !names.is_empty())
            .collect()
    }

    /// The report as one JSON object with stable keys: `file`, `plugin`,
    /// `sha256`, `world`, `wit_version`, `host_wit_version`, `supported`, `exports`,
    /// `tools`, `task_support` (the tools that may run as tasks: name →
    /// `optional` or `required`), `resources`, `resource_templates`,
    /// `prompts`, `views` (tool name → view URI), `imports`, `policy`,
    /// `errors` and `source` (`null` for a file; for a fetched plugin its
    /// `reference`, the manifest `digest` it resolved to, `signed_by` and
    /// `offline`).
    pub fn json(&self) -> Result<Value, InspectError> {
        let i = self.inspection;
        let world = i.world.as_ref();
        let imports: Map<String, Value> = self
            .import_groups()
            .into_iter()
            .map(|(c, names)| (c.name().to_string(), json!(names)))
            .collect();
        Ok(json!({
            "file": i.path.display().to_string(),
            "plugin": i.plugin,
            "sha256": i.sha256.map(|d| d.to_string()),
            "source": self.source.as_ref().map(|s| json!({
                "reference": s.reference,
                "digest": s.digest,
                "signed_by": s.signed_by,
                "offline": s.offline,
            })),
            "world": world.map(|w| w.world()),
            "wit_version": world.and_then(|w| w.version.clone()),
            "host_wit_version": WIT_VERSION,
            "supported": world.is_some_and(|w| w.supported),
            "exports": i.exports,
            "tools": self.tools()?,
            "task_support": i
                .tools
                .iter()
                .filter(|t| t.task_support != TaskSupport::Forbidden)
                .map(|t| (t.name.clone(), json!(t.task_support.as_str())))
                .collect::<Map<String, Value>>(),
            "resources": i.served.resources.iter().map(|r| {
                serde_json::to_value(crate::mcp::served::resource(r)).unwrap_or_default()
            }).collect::<Vec<_>>(),
            "resource_templates": i.served.templates.iter().map(|t| {
                serde_json::to_value(crate::mcp::served::template(t)).unwrap_or_default()
            }).collect::<Vec<_>>(),
            "prompts": i.served.prompts.iter().map(|p| {
                serde_json::to_value(crate::mcp::served::prompt(&p.name, p)).unwrap_or_default()
            }).collect::<Vec<_>>(),
            "views": i.served.views.iter().map(|(tool, v)| (tool.clone(), json!(v.resource_uri)))
                .collect::<Map<String, Value>>(),
            "imports": imports,
            "policy": i.policy.as_ref().map(|p| self.policy_json(p)),
            "errors": i.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }))
    }

    fn policy_json(&self, p: &Policy) -> Value {
        let l = &p.limits;
        let mut policy = json!({
            "config": self.config.map(|c| c.display().to_string()),
            "section": &*p.section,
            "limits": {
                "fuel": l.fuel,
                "memory_bytes": l.memory_bytes,
                "table_elements": l.table_elements,
                "instances": l.instances,
                "tables": l.tables,
                "memories": l.memories,
                "timeout_ms": l.timeout.as_millis() as u64,
                "task_timeout_ms": l.task_timeout.as_millis() as u64,
                "max_concurrent_calls": l.max_concurrent_calls,
                "max_argument_bytes": l.max_argument_bytes,
                "max_result_bytes": l.max_result_bytes,
                "rate_limit_per_minute": l.rate_limit_per_minute,
                "client_rate_limit_per_minute": l.client_rate_limit_per_minute,
                "audit_arguments": l.audit_arguments,
                "receipts": l.receipts,
                "reuse_instances": l.reuse_instances,
            },
        });
        if let Value::Object(members) = &mut policy {
            for (key, value) in p.grants.inspect_json() {
                members.insert(key.to_string(), value);
            }
        }
        policy
    }

    /// The human-readable report: aligned, compact sections.
    pub fn text(&self) -> Result<String, InspectError> {
        let i = self.inspection;
        let mut out = String::new();
        line(&mut out, 0, TOP, "plugin", &i.plugin);
        line(&mut out, 0, TOP, "file", &i.path.display().to_string());
        if let Some(source) = &self.source {
            line(&mut out, 0, TOP, "source", &source.reference);
            if let Some(digest) = &source.digest {
                let offline = if source.offline {
                    " (the registry cannot be reached: cached copy)"
                } else {
                    ""
                };
                line(&mut out, 0, TOP, "digest", &format!("{digest}{offline}"));
            }
            if let Some(key) = &source.signed_by {
                line(&mut out, 0, TOP, "signed_by", key);
            }
        }
        if let Some(digest) = &i.sha256 {
            line(&mut out, 0, TOP, "sha256", &digest.to_string());
        }
        line(&mut out, 0, TOP, "world", &self.world_text());
        for e in &i.errors {
            line(&mut out, 0, TOP, "error", &e.to_string());
        }

        out.push('\n');
        self.imports_text(&mut out);
        out.push('\n');
        self.policy_text(&mut out);
        out.push('\n');
        self.tools_text(&mut out)?;
        self.served_text(&mut out);
        Ok(out)
    }

    /// The resources, templates and prompts, one line each, after the
    /// tools; nothing for a plugin that serves none.
    fn served_text(&self, out: &mut String) {
        let s = &self.inspection.served;
        let sections: [(&str, Vec<String>); 3] = [
            (
                "resources",
                s.resources
                    .iter()
                    .map(|r| {
                        let mime = r.mime_type.as_deref().unwrap_or("no MIME type");
                        let view = if r.view.is_some() {
                            ", a view (MCP Apps)"
                        } else {
                            ""
                        };
                        format!("{} ({mime}{view})", r.uri)
                    })
                    .collect(),
            ),
            (
                "templates",
                s.templates.iter().map(|t| t.uri_template.clone()).collect(),
            ),
            (
                "prompts",
                s.prompts
                    .iter()
                    .map(|p| {
                        let args: Vec<String> = p
                            .arguments
                            .iter()
                            .map(|a| format!("{}{}", a.name, if a.required { "" } else { "?" }))
                            .collect();
                        format!("{}({})", p.name, args.join(", "))
                    })
                    .collect(),
            ),
        ];
        for (label, items) in sections {
            if !items.is_empty() {
                out.push('\n');
                line(out, 0, TOP, label, &items.join("\n"));
            }
        }
    }

    fn world_text(&self) -> String {
        let i = self.inspection;
        match &i.world {
            Some(w) if w.supported => {
                format!("{} (supported; this host speaks {WIT_VERSION})", w.world())
            }
            Some(w) => format!(
                "{} (NOT supported: this host speaks {WIT_VERSION})",
                w.world()
            ),
            None if !i.compiled => {
                "unknown (the file could not be read as a component)".to_string()
            }
            None => {
                let exports = if i.exports.is_empty() {
                    "nothing".to_string()
                } else {
                    i.exports.join(", ")
                };
                format!(
                    "none: it does not export `mcp-wasm-host:plugin/tools`; it exports {exports}"
                )
            }
        }
    }

    fn imports_text(&self, out: &mut String) {
        let groups = self.import_groups();
        if groups.is_empty() {
            let none = if self.inspection.compiled {
                "none"
            } else {
                "unknown (the file could not be read as a component)"
            };
            line(out, 0, TOP, "imports", none);
            return;
        }
        line(out, 0, TOP, "imports", "");
        for (kind, names) in groups {
            // One line per package: `wasi:cli@0.2.6  environment, exit`.
            let mut packages: BTreeMap<String, Vec<&str>> = BTreeMap::new();
            for name in names {
                let (unversioned, version) = match name.split_once('@') {
                    Some((n, v)) => (n, Some(v)),
                    None => (name, None),
                };
                let (package, interface) = unversioned.split_once('/').unwrap_or((name, ""));
                let key = match version {
                    Some(v) => format!("{package}@{v}"),
                    None => package.to_string(),
                };
                packages.entry(key).or_default().push(interface);
            }
            let mut label = kind.name();
            for (package, mut interfaces) in packages {
                interfaces.retain(|s| !s.is_empty());
                interfaces.sort_unstable();
                let hang = package.len() + 2;
                let listed = wrap(&interfaces, WIDTH - (2 + INNER + 1 + hang), hang);
                line(
                    out,
                    2,
                    INNER,
                    label,
                    format!("{package}  {listed}").trim_end(),
                );
                label = "";
            }
            if let Some(note) = self.note(kind) {
                line(out, 2, INNER, "", &format!("! {note}"));
            }
        }
    }

    /// What the sandbox does with imports of `kind`: the capabilities'
    /// notes, or that the host does not provide them.
    fn note(&self, kind: ImportKind) -> Option<String> {
        if kind == ImportKind::Other {
            return Some(
                "not provided by this host; a component needing it does not load".to_string(),
            );
        }
        let grants = self.inspection.policy.as_ref().map(|p| &*p.grants);
        let notes = Grants::import_notes(grants, kind);
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    fn policy_text(&self, out: &mut String) {
        let Some(p) = &self.inspection.policy else {
            line(
                out,
                0,
                TOP,
                "policy",
                "cannot be built (see the error above)",
            );
            return;
        };
        let origin = match self.config {
            Some(path) => format!("from {}, section [{}]", path.display(), p.section),
            None => format!(
                "built-in defaults (no policy file; capabilities are granted in [{}] of {})",
                p.section,
                crate::config::DEFAULT_FILE,
            ),
        };
        line(out, 0, TOP, "policy", &origin);
        let l = &p.limits;
        let rows: Vec<(&str, String)> = vec![
            ("fuel", format!("{} per call", count(l.fuel))),
            ("memory", format!("{} per instance", bytes(l.memory_bytes))),
            (
                "tables",
                format!(
                    "{} per call, {} elements each",
                    l.tables,
                    count(l.table_elements)
                ),
            ),
            (
                "instances",
                format!("{} per call, {} memories", l.instances, l.memories),
            ),
            (
                "timeout",
                format!(
                    "{} per call, waiting for a slot included; {} as a task",
                    duration(l.timeout),
                    duration(l.task_timeout)
                ),
            ),
            (
                "concurrency",
                format!("{} calls at once", l.max_concurrent_calls),
            ),
            (
                "arguments",
                format!("up to {}", bytes(l.max_argument_bytes)),
            ),
            ("results", format!("up to {}", bytes(l.max_result_bytes))),
            (
                "rate limit",
                per_minute(l.rate_limit_per_minute, "per tool, all clients"),
            ),
            (
                "per-client rate",
                per_minute(l.client_rate_limit_per_minute, "per tool, each client"),
            ),
            (
                "audit arguments",
                if l.audit_arguments { "yes" } else { "no" }.to_string(),
            ),
            (
                "call receipts",
                if l.receipts { "yes" } else { "no" }.to_string(),
            ),
            (
                "instance reuse",
                if l.reuse_instances <= 1 {
                    "off: a fresh instance per call".to_string()
                } else {
                    format!(
                        "up to {} calls per instance (state passes between them)",
                        count(l.reuse_instances.into())
                    )
                },
            ),
        ];
        for (label, value) in rows {
            line(out, 2, INNER, label, &value);
        }
        for (label, value) in p.grants.inspect_lines() {
            line(out, 2, INNER, label, &value);
        }
    }

    fn tools_text(&self, out: &mut String) -> Result<(), InspectError> {
        let i = self.inspection;
        let tools = self.tools()?;
        if tools.is_empty() {
            line(out, 0, TOP, "tools", "none (the plugin does not load)");
            return Ok(());
        }
        line(
            out,
            0,
            TOP,
            "tools",
            &format!(
                "{}, as `tools/list` sends them\nnames as the plugin gives them; next to another plugin exporting the same name,\na tool is served as `{}.<name>`",
                tools.len(),
                plugin_prefix(&i.plugin)
            ),
        );
        for tool in &tools {
            let Value::Object(fields) = tool else {
                continue;
            };
            out.push('\n');
            let name = fields.get("name").and_then(Value::as_str).unwrap_or("");
            let _ = writeln!(out, "  {name}");
            // The fields in reading order; anything else `tools/list` would
            // carry comes after them.
            const ORDER: [&str; 6] = [
                "title",
                "description",
                "icons",
                "annotations",
                "inputSchema",
                "outputSchema",
            ];
            let known = ORDER.iter().filter_map(|k| fields.get_key_value(*k));
            let rest = fields
                .iter()
                .filter(|(k, _)| *k != "name" && *k != "_meta" && !ORDER.contains(&k.as_str()));
            for (key, value) in known.chain(rest) {
                let label = match key.as_str() {
                    "inputSchema" => "input schema",
                    "outputSchema" => "output schema",
                    other => other,
                };
                let text = match (key.as_str(), value) {
                    (_, Value::String(s)) => words(s, WIDTH - TOOL_VALUES),
                    ("icons", Value::Array(icons)) => {
                        icons.iter().map(icon_text).collect::<Vec<_>>().join("\n")
                    }
                    ("annotations", Value::Object(a)) => {
                        let hints: Vec<String> =
                            a.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                        let hints: Vec<&str> = hints.iter().map(String::as_str).collect();
                        wrap(&hints, WIDTH - TOOL_VALUES, 0)
                    }
                    (_, v) => {
                        let mut text = String::new();
                        json_text(v, 0, 0, WIDTH - TOOL_VALUES, &mut text);
                        text
                    }
                };
                line(out, 4, INNER, label, &text);
            }
            if !fields.contains_key("outputSchema") {
                line(out, 4, INNER, "output schema", "none");
            }
            if let Some(info) = i.tools.iter().find(|t| t.name == name) {
                line(out, 4, INNER, "task support", info.task_support.as_str());
                if let Some(view) = &info.view {
                    line(out, 4, INNER, "view", &view.resource_uri);
                }
            }
        }
        Ok(())
    }
}

/// Appends `label` padded to `width` after `indent` spaces, then `value`,
/// continuing a multi-line value in the value column.
fn line(out: &mut String, indent: usize, width: usize, label: &str, value: &str) {
    let column = indent + width;
    let mut lines = value.lines();
    let first = lines.next().unwrap_or("");
    let head = format!("{:indent$}{label:<width$}", "");
    let _ = writeln!(out, "{}", format!("{head} {first}").trim_end());
    for rest in lines {
        let _ = writeln!(out, "{:column$} {rest}", "");
    }
}

/// `text` with its lines broken at spaces to fit `width` where they can.
/// One icon on one line: its `src` (a `data:` URI shortened to its header
/// and size), then its MIME type, sizes and theme when it has them.
fn icon_text(icon: &Value) -> String {
    let src = icon["src"].as_str().unwrap_or_default();
    let mut parts = vec![match src.split_once(',') {
        Some((header, data))
            if src
                .get(..5)
                .is_some_and(|s| s.eq_ignore_ascii_case("data:")) =>
        {
            format!("{header},… ({})", bytes(data.len() as u64))
        }
        _ => src.to_string(),
    }];
    if let Some(mime) = icon["mimeType"].as_str() {
        parts.push(mime.to_string());
    }
    if let Some(sizes) = icon["sizes"].as_array() {
        let sizes: Vec<&str> = sizes.iter().filter_map(Value::as_str).collect();
        parts.push(sizes.join(" "));
    }
    if let Some(theme) = icon["theme"].as_str() {
        parts.push(format!("{theme} theme"));
    }
    parts.join(", ")
}

fn words(text: &str, width: usize) -> String {
    let mut out = String::new();
    for (n, paragraph) in text.lines().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let mut len = 0;
        for word in paragraph.split(' ') {
            if len > 0 && len + 1 + word.len() > width {
                out.push('\n');
                len = 0;
            } else if len > 0 {
                out.push(' ');
                len += 1;
            }
            out.push_str(word);
            len += word.len();
        }
    }
    out
}

/// Joins `items` with `, `, breaking lines before `width` characters and
/// indenting every line after the first by `hang` spaces.
fn wrap(items: &[&str], width: usize, hang: usize) -> String {
    let mut out = String::new();
    let mut len = 0;
    for (n, item) in items.iter().enumerate() {
        let piece = if n + 1 < items.len() {
            format!("{item},")
        } else {
            item.to_string()
        };
        if len > 0 && len + 1 + piece.len() > width {
            let _ = write!(out, "\n{:hang$}", "");
            len = 0;
        } else if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(&piece);
        len += piece.len();
    }
    out
}

/// Appends `value` as JSON that starts at column `column` of a block
/// indented by `indent`: on one line (`{"a": 1, "b": [2, 3]}`) when it fits
/// in `width`, otherwise one member per line, each wrapped the same way.
fn json_text(value: &Value, indent: usize, column: usize, width: usize, out: &mut String) {
    let flat = json_flat(value);
    let members: Vec<(Option<&String>, &Value)> = match value {
        Value::Object(m) => m.iter().map(|(k, v)| (Some(k), v)).collect(),
        Value::Array(a) => a.iter().map(|v| (None, v)).collect(),
        _ => Vec::new(),
    };
    if column + flat.len() <= width || members.is_empty() {
        out.push_str(&flat);
        return;
    }
    let (open, close) = if value.is_object() {
        ('{', '}')
    } else {
        ('[', ']')
    };
    out.push(open);
    out.push('\n');
    let inner = indent + 2;
    let last = members.len() - 1;
    for (n, (key, member)) in members.into_iter().enumerate() {
        let prefix = key.map(|k| format!("{}: ", Value::from(k.as_str())));
        let prefix = prefix.unwrap_or_default();
        let _ = write!(out, "{:inner$}{prefix}", "");
        json_text(member, inner, inner + prefix.len(), width, out);
        if n < last {
            out.push(',');
        }
        out.push('\n');
    }
    let _ = write!(out, "{:indent$}{close}", "");
}

/// `value` as JSON on one line, with a space after each `:` and `,`.
fn json_flat(value: &Value) -> String {
    match value {
        Value::Object(m) if !m.is_empty() => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), json_flat(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(a) if !a.is_empty() => format!(
            "[{}]",
            a.iter().map(json_flat).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

/// A calls-per-minute quota as `inspect` shows it.
fn per_minute(n: u32, scope: &str) -> String {
    if n == 0 {
        "off".to_string()
    } else {
        format!("{n} calls per minute {scope}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_wrapped_only_where_it_does_not_fit() {
        let v = json!({"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}}});
        let mut out = String::new();
        json_text(&v, 0, 0, 200, &mut out);
        assert_eq!(
            out,
            r#"{"properties": {"a": {"type": "string"}}, "required": ["a", "b"], "type": "object"}"#
        );
        let mut out = String::new();
        json_text(&v, 0, 0, 50, &mut out);
        assert_eq!(
            out,
            "{\n  \"properties\": {\"a\": {\"type\": \"string\"}},\n  \"required\": [\"a\", \"b\"],\n  \"type\": \"object\"\n}"
        );
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, v);
    }
}
