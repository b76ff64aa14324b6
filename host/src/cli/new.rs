//! `new`: write a plugin project from the templates (see
//! `mcp_wasm_host::scaffold`).

use std::process::ExitCode;

use mcp_wasm_host::scaffold::NewArgs;

/// Writes a new project and says what it wrote, or why it wrote nothing.
pub(super) fn run(args: &NewArgs) -> ExitCode {
    match mcp_wasm_host::scaffold::run(args) {
        Ok(created) => {
            print!("{created}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
