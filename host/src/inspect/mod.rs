//! `mcp-wasm-host inspect`: one plugin file's world, tools, imports and
//! effective policy, and which of its tools each profile of the policy
//! file serves, as a human-readable report or as one JSON object.
//!
//! The facts come from [`Runtime::inspect`](crate::runtime::Runtime::inspect);
//! this module only presents them. Tools are shown exactly as `tools/list`
//! would send them (through [`mcp::protocol::convert::tool`](crate::mcp::protocol::convert::tool)).
//! Values of environment variables passed through from the server's
//! environment are never shown, only their names.
//!
//! [`json`] builds the JSON object, [`text`] the human-readable report,
//! and [`layout`] holds the text report's column and wrapping helpers.

mod json;
mod layout;
mod text;

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::config::profiles::ProfileMap;
use crate::mcp::protocol::convert;
use crate::runtime::{ImportKind, Inspection};
use crate::source::PolicyLayerError;
use crate::source::requested::RequestedPolicy;

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
    /// Each profile of the policy file (`[profiles.NAME]`), with the names
    /// of the plugin's tools it serves.
    profiles: Vec<(String, Vec<String>)>,
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
    /// What the artifact's policy layer requests (never granted), or why
    /// it was not read.
    pub requested: Option<Result<RequestedPolicy, PolicyLayerError>>,
}

impl<'a> Report<'a> {
    /// The report on `inspection`, whose policy came from the file `config`
    /// (`None`: the built-in defaults).
    pub fn new(inspection: &'a Inspection, config: Option<&'a Path>) -> Self {
        Report {
            inspection,
            config,
            source: None,
            profiles: Vec::new(),
        }
    }

    /// The same report, showing which of the plugin's tools each of
    /// `profiles` serves.
    pub fn with_profiles(mut self, profiles: &ProfileMap) -> Self {
        let i = self.inspection;
        self.profiles = profiles
            .iter()
            .map(|(name, profile)| {
                let tools = i
                    .tools
                    .iter()
                    .filter(|t| profile.admits_tool(&i.plugin, &t.name, &t.name, &t.hints))
                    .map(|t| t.name.clone())
                    .collect();
                (name.clone(), tools)
            })
            .collect();
        self
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
}
