//! The `inspect --json` report: one object with stable keys.

use serde_json::{Map, Value, json};

use super::{InspectError, Report};
use crate::runtime::{LeftOut, Policy, TaskSupport, WIT_VERSION};

impl Report<'_> {
    /// The report as one JSON object with stable keys: `file`, `plugin`,
    /// `sha256`, `world`, `wit_version`, `host_wit_version`, `supported`, `exports`,
    /// `tools`, `task_support` (the tools that may run as tasks: name →
    /// `optional` or `required`), `resources`, `resource_templates`,
    /// `prompts`, `views` (tool name → view URI), `imports`, `policy`,
    /// `errors`, `generic` (`null` unless the component is served as a
    /// generic one; else its `functions`, each with its `tool`, WIT
    /// `function` name and `signature`, and those `left_out`, each with its
    /// `function` and `reason`), `left_out` (the functions a plugin exports
    /// beside our world, which are not served, each with its `function` and
    /// `reason`) and `source` (`null` for a file; for a fetched plugin its
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
                "requested": s.requested.as_ref().map(|r| match r {
                    Ok(policy) => json!({
                        "granted": false,
                        "permissions": policy
                            .lines()
                            .into_iter()
                            .map(|(what, list)| (what.to_string(), Value::String(list)))
                            .collect::<Map<_, _>>(),
                    }),
                    Err(problem) => json!({"granted": false, "error": problem.to_string()}),
                }),
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
                serde_json::to_value(crate::mcp::protocol::convert_served::resource(r)).unwrap_or_default()
            }).collect::<Vec<_>>(),
            "resource_templates": i.served.templates.iter().map(|t| {
                serde_json::to_value(crate::mcp::protocol::convert_served::template(t)).unwrap_or_default()
            }).collect::<Vec<_>>(),
            "prompts": i.served.prompts.iter().map(|p| {
                serde_json::to_value(crate::mcp::protocol::convert_served::prompt(&p.name, p)).unwrap_or_default()
            }).collect::<Vec<_>>(),
            "views": i.served.views.iter().map(|(tool, v)| (tool.clone(), json!(v.resource_uri)))
                .collect::<Map<String, Value>>(),
            "imports": imports,
            "policy": i.policy.as_ref().map(|p| self.policy_json(p)),
            "errors": i.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "generic": i.generic.then(|| json!({
                "functions": i.generic_functions.iter().flat_map(|g| &g.tools).map(|f| json!({
                    "tool": f.tool,
                    "function": f.function,
                    "signature": f.signature,
                })).collect::<Vec<_>>(),
                "left_out": left_out(i.generic_functions.iter().flat_map(|g| &g.left_out)),
            })),
            "left_out": left_out(&i.left_out),
            "profiles": self
                .profiles
                .iter()
                .map(|(name, tools)| (name.clone(), json!(tools)))
                .collect::<Map<String, Value>>(),
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
                "reuse_instances": if l.reuse_per_session {
                    json!("session")
                } else {
                    json!(l.reuse_instances)
                },
                "ready_instances": l.ready_instances,
            },
        });
        if let Value::Object(members) = &mut policy {
            for (key, value) in p.grants.inspect_json() {
                members.insert(key.to_string(), value);
            }
        }
        policy
    }
}

/// Functions not served, each as `{"function", "reason"}`.
fn left_out<'a>(functions: impl IntoIterator<Item = &'a LeftOut>) -> Vec<Value> {
    functions
        .into_iter()
        .map(|l| json!({"function": l.function, "reason": l.reason}))
        .collect()
}
