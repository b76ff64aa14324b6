//! `mcp-wasm-sdk-c`: the C SDK's build tool, used by
//! `scripts/build-c-plugin.sh`.
//!
//! ```text
//! mcp-wasm-sdk-c bindings WIT_DIR OUT_DIR [--world WORLD]
//!     writes WORLD.h, WORLD.c and WORLD_component_type.o (world: plugin)
//! mcp-wasm-sdk-c componentize CORE_MODULE.wasm OUT.wasm
//!     wraps a wasm32-wasi (preview 1) reactor module into a WASI 0.2
//!     component with the preview 1 reactor adapter
//! ```

mod bindings;
mod componentize;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  mcp-wasm-sdk-c bindings WIT_DIR OUT_DIR [--world WORLD]
  mcp-wasm-sdk-c componentize CORE_MODULE.wasm OUT.wasm";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let outcome = match args.as_slice() {
        ["bindings", wit, out] => run_bindings(wit, out, "plugin"),
        ["bindings", wit, out, "--world", world] => run_bindings(wit, out, world),
        ["componentize", input, output] => {
            componentize::file(&PathBuf::from(input), &PathBuf::from(output))
                .map(|size| eprintln!("mcp-wasm-sdk-c: {output}: {size} bytes"))
                .map_err(|e| e.to_string())
        }
        _ => Err(USAGE.to_string()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp-wasm-sdk-c: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_bindings(wit: &str, out: &str, world: &str) -> Result<(), String> {
    bindings::write(&PathBuf::from(wit), world, &PathBuf::from(out))
        .map(|_| ())
        .map_err(|e| e.to_string())
}
