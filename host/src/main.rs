//! The `mcp-wasm-host` binary: the command line lives in [`cli`].

mod cli;

fn main() -> anyhow::Result<std::process::ExitCode> {
    cli::main()
}
