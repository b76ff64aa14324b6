//! The human-readable `inspect` report: aligned, compact sections.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::layout::{json_text, line, words, wrap};
use super::{InspectError, Report};
use crate::runtime::capabilities::Grants;

use crate::runtime::units::{bytes, count, duration};
use crate::runtime::{ImportKind, WIT_VERSION, plugin_prefix};

/// Width of the first column of the top-level lines.
const TOP: usize = 10;
/// Width of the first column of the lines inside a section.
const INNER: usize = 16;
/// Where the tools' fields start: their indent, the label column and a space.
const TOOL_VALUES: usize = 4 + INNER + 1;
/// The width JSON values are wrapped to.
const WIDTH: usize = 100;

impl Report<'_> {
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
            match &source.requested {
                Some(Ok(policy)) => {
                    line(
                        &mut out,
                        0,
                        TOP,
                        "requested",
                        "by the artifact's policy layer; NOT granted (only the policy file grants; `pull --print-policy` writes the section to review)",
                    );
                    for (what, list) in policy.lines() {
                        line(&mut out, 2, INNER, what, &list);
                    }
                }
                Some(Err(problem)) => line(
                    &mut out,
                    0,
                    TOP,
                    "requested",
                    &format!("the artifact's policy layer was not read: {problem}"),
                ),
                None => {}
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
        self.profiles_text(&mut out);
        let left_out: Vec<String> = i
            .generic_functions
            .iter()
            .flat_map(|g| &g.left_out)
            .chain(&i.left_out)
            .map(|l| format!("{}: {}", l.function, l.reason))
            .collect();
        if !left_out.is_empty() {
            out.push('\n');
            line(&mut out, 0, TOP, "left out", &left_out.join("\n"));
        }
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
            None if i.generic => {
                "none: served as a generic component (it exports none of our interfaces; each exported function is a tool)".to_string()
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
                if l.reuse_per_session {
                    "per session: an instance serves one client's calls (state passes between them)"
                        .to_string()
                } else if l.reuse_instances <= 1 {
                    "off: a fresh instance per call".to_string()
                } else {
                    format!(
                        "up to {} calls per instance (state passes between them)",
                        count(l.reuse_instances.into())
                    )
                },
            ),
            (
                "ready instances",
                match l.ready_instances {
                    0 => "none: each call instantiates its own".to_string(),
                    n => format!("up to {n}, fresh and never used, made off the call path"),
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

    /// Which tools each profile of the policy file serves, if it has any.
    fn profiles_text(&self, out: &mut String) {
        if self.profiles.is_empty() {
            return;
        }
        out.push('\n');
        line(
            out,
            0,
            TOP,
            "profiles",
            "the tools each `[profiles.NAME]` serves of this plugin",
        );
        for (name, tools) in &self.profiles {
            let listed = if tools.is_empty() {
                "no tools".to_string()
            } else {
                tools.join(", ")
            };
            line(out, 2, INNER, name, &listed);
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
            if let Some(f) = i
                .generic_functions
                .iter()
                .flat_map(|g| &g.tools)
                .find(|f| f.tool == name)
            {
                let wit = format!("{}: {}", f.function, f.signature);
                line(out, 4, INNER, "wit", &words(&wit, WIDTH - TOOL_VALUES));
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

/// A calls-per-minute quota as `inspect` shows it.
fn per_minute(n: u32, scope: &str) -> String {
    if n == 0 {
        "off".to_string()
    } else {
        format!("{n} calls per minute {scope}")
    }
}
