//! `native-mcp-server`: the native baseline of the side-by-side benchmark,
//! run by hand (the benchmark runs the same library in its own binary).

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    match native_mcp_server::run(native_mcp_server::Options::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("native-mcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}
