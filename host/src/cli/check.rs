//! `check`: load plugin files as `serve` would and print one line per file,
//! then one per profile of the policy file with the tools it serves.
//!
//! It takes component files as well as directories of them: a plugin
//! author's first command is `check my_tool.wasm`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_wasm_host::runtime::{EngineSettings, Plugin, Runtime};

use super::shared::{CacheArgs, cached_runtime, load_config};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Plugin components (`*.wasm`), or directories of them (every `*.wasm`
    /// file in each); loaded together, as `serve` loads one directory.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The policy file, as for `serve`. Without it, `./mcp-wasm-host.toml`
    /// is used if it exists, and the built-in defaults otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG")]
    config: Option<PathBuf>,
    #[command(flatten)]
    cache: CacheArgs,
}

/// Loads the plugin files, and every plugin in the directories, as `serve`
/// would and prints one line per file; exits with 1 if any file would not load or would lose a tool.
pub(super) async fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    use std::io::Write as _;
    let settings = EngineSettings::default();
    let config = Arc::new(load_config(
        args.config.as_deref(),
        settings.max_memory_bytes as u64,
    )?);
    let runtime = cached_runtime(settings, config.clone(), &args.cache)?;
    let mut files = Vec::new();
    let mut empty = Vec::new();
    for path in &args.paths {
        let found = if path.is_file() {
            vec![path.clone()]
        } else {
            Runtime::plugin_files(path)?
        };
        if found.is_empty() {
            empty.push(path);
        }
        for file in found {
            // A file named twice (alone and in its directory) loads once.
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    let report = runtime.load_files(&files).await;
    let catalog = runtime.catalog();
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    for file in &files {
        let file_name = file
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let problem = if let Some(plugin) = catalog.plugins().iter().find(|p| &p.path == file) {
            let served = catalog
                .tools()
                .iter()
                .filter(|t| t.plugin == *plugin.name)
                .count();
            let mine = |p: &Arc<Plugin>| Arc::ptr_eq(p, plugin);
            let resources = catalog
                .resources()
                .iter()
                .filter(|r| mine(&r.plugin))
                .count();
            let templates = catalog
                .templates()
                .iter()
                .filter(|t| mine(&t.plugin))
                .count();
            let prompts = catalog.prompts().iter().filter(|p| mine(&p.plugin)).count();
            let all = &plugin.served;
            if served == plugin.tools.len()
                && resources == all.resources.len()
                && templates == all.templates.len()
                && prompts == all.prompts.len()
            {
                let plural =
                    |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
                let mut counts = vec![plural(served, "tool")];
                for (n, what) in [
                    (resources, "resource"),
                    (templates, "resource template"),
                    (prompts, "prompt"),
                    (all.views.len(), "view"),
                ] {
                    if n > 0 {
                        counts.push(plural(n, what));
                    }
                }
                if let Some(g) = &plugin.generic {
                    counts.push(format!(
                        "a generic component: {} exported function{} left out",
                        g.left_out.len(),
                        if g.left_out.len() == 1 { "" } else { "s" }
                    ));
                }
                writeln!(out, "ok   {file_name}  ({})", counts.join(", "))?;
                let left_out = plugin.generic.iter().flat_map(|g| &g.left_out);
                for left in left_out.chain(&plugin.left_out) {
                    writeln!(out, "     {left}")?;
                }
                for unused in plugin.unused_grants() {
                    writeln!(out, "     unused: {unused}")?;
                }
                continue;
            }
            report
                .skipped_of(&plugin.name)
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        } else if let Some(e) = report.failure(file) {
            e.problem().to_string()
        } else {
            "did not load".to_string()
        };
        failed += 1;
        writeln!(out, "FAIL {file_name}: {problem}")?;
    }
    for dir in empty {
        writeln!(out, "no plugins (*.wasm files) in {}", dir.display())?;
    }
    // What each profile serves of these plugins (`serve --profile NAME`,
    // `/mcp/NAME`), and what it names that none of them serves.
    for (name, profile) in config.profiles() {
        let tools = profile.tool_names(&catalog);
        let listed = if tools.is_empty() {
            "no tools".to_string()
        } else {
            tools.join(", ")
        };
        writeln!(out, "profile {name}: {listed}")?;
    }
    for line in config.profile_report(&catalog) {
        tracing::warn!("{}: {line}", config.path().display());
    }
    for section in config.unused_sections(&report.names()) {
        tracing::warn!(
            "{}: [plugins.{section}] matches no plugin (no file of that name in the plugins directory, and no `source`)",
            config.path().display()
        );
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
