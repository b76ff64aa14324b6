//! `serve`: load the plugins, watch them, and serve their tools over stdio
//! or Streamable HTTP until stopped. In four steps, a module each: `setup`
//! (the policy file, the runtime, metrics and health), `sources` (the
//! plugins loaded, watched (`watch`) and fetched, in the background),
//! `serving` (the MCP server and its transports) and `shutdown` (HTTP
//! drained and tasks handed over on a stop signal).

use std::time::Duration;

use mcp_wasm_host::mcp::transport::stdio;

mod args;
mod fetch;
mod serving;
mod setup;
mod shutdown;
mod sources;
mod state;
mod watch;

pub use args::ServeArgs;

/// Serves until stdin closes (stdio) or a stop signal (HTTP).
pub(super) async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let setup = setup::setup(&args).await?;
    // Before anything loads: an unknown --profile stops the server at once.
    let server = serving::mcp_server(&args, &setup)?;
    let server = serving::bind_profile(&args, &setup, server)?;
    // Watches for as long as the server serves.
    let _watching = sources::start(&args, &setup)?;
    let Some(addr) = args.http.http else {
        return serving::stdio_only(server, &setup.config).await;
    };
    let listening = serving::http(&args, &setup, addr, &server).await?;
    let tasks = server.tasks().clone();
    if args.http.stdio {
        tokio::select! {
            served = stdio::serve(server) => served?,
            () = shutdown::signal() => {}
        }
    } else {
        shutdown::signal().await;
    }
    let bound = Duration::from_secs(args.telemetry.shutdown_timeout);
    shutdown::drain(listening, &setup.health, bound, &tasks).await
}

#[cfg(test)]
mod tests;
