//! `mcp-wasm-sdk-tool`: the build tool of the C and Go guest SDKs, used by
//! the C and Go projects `mcp-wasm-host new` writes, and in this repository
//! by `scripts/build-c-plugin.sh` and `scripts/build-go-plugin.sh`.
//!
//! ```text
//! mcp-wasm-sdk-tool c-bindings WIT_DIR OUT_DIR [--world WORLD]
//!     writes WORLD.h, WORLD.c and WORLD_component_type.o (world: plugin-full,
//!     so plugin_full.h, ...)
//! mcp-wasm-sdk-tool go-bindings WIT_DIR OUT_DIR --module PATH --exports PATH [--world WORLD]
//!     writes OUT_DIR/bindings, the Go module PATH with the world's
//!     packages, and OUT_DIR/go-pkg, the runtime package they import
//! mcp-wasm-sdk-tool wit OUT_DIR
//!     writes the plugin WIT this tool carries (OUT_DIR/plugin.wit): the
//!     contract of the SDK release it belongs to
//! mcp-wasm-sdk-tool --version
//!     prints the tool's version and its WIT package's
//!
//! The worlds of the plugin WIT (`mcp-wasm-host:plugin`) are read with
//! `wasi:keyvalue`'s `store` and `atomics` added, for the SDKs' store API
//! (`state.rs`).
//! mcp-wasm-sdk-tool componentize CORE_MODULE.wasm OUT.wasm [--wit WIT_DIR [--world WORLD]] [--docs WIT_DIR]
//!     wraps a wasm32-wasi (preview 1) reactor module into a WASI 0.2
//!     component with the preview 1 reactor adapter, first embedding the
//!     world's description when --wit is given (Go modules carry none);
//!     --docs adds the doc comments of the WIT package in WIT_DIR as the
//!     component's `package-docs` section (a generic component's tool
//!     descriptions)
//! ```

mod bindings;
mod componentize;
mod docs;
mod go_pkg;
mod state;
mod wit;

use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "usage:
  mcp-wasm-sdk-tool wit OUT_DIR
  mcp-wasm-sdk-tool --version
  mcp-wasm-sdk-tool c-bindings WIT_DIR OUT_DIR [--world WORLD]
  mcp-wasm-sdk-tool go-bindings WIT_DIR OUT_DIR --module PATH --exports PATH [--world WORLD]
  mcp-wasm-sdk-tool componentize CORE_MODULE.wasm OUT.wasm [--wit WIT_DIR [--world WORLD]] [--docs WIT_DIR]";

/// The world every subcommand uses unless `--world` names another: the one
/// the SDKs target, whose optional exports are empty when unused.
const DEFAULT_WORLD: &str = "plugin-full";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp-wasm-sdk-tool: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let Some((command, rest)) = args.split_first() else {
        return Err(USAGE.to_string());
    };
    if command == "--version" && rest.is_empty() {
        println!(
            "mcp-wasm-sdk-tool {} (WIT {})",
            env!("CARGO_PKG_VERSION"),
            wit::embedded::package_version()
        );
        return Ok(());
    }
    let args = Args::parse(rest)?;
    let world = args.flag("world").unwrap_or(DEFAULT_WORLD);
    match (command.as_str(), args.positional.as_slice()) {
        ("c-bindings", [wit, out]) => {
            args.only(&["world"])?;
            bindings::c(Path::new(wit), world, Path::new(out))
                .map(drop)
                .map_err(|e| e.to_string())
        }
        ("go-bindings", [wit, out]) => {
            args.only(&["world", "module", "exports"])?;
            let modules = bindings::GoModules {
                bindings: args.required("module")?,
                exports: args.required("exports")?,
            };
            bindings::go(Path::new(wit), world, &modules, Path::new(out))
                .map(drop)
                .map_err(|e| e.to_string())
        }
        ("wit", [out]) => {
            args.only(&[])?;
            wit::embedded::write(Path::new(out)).map_err(|e| e.to_string())
        }
        ("componentize", [input, output]) => {
            args.only(&["world", "wit", "docs"])?;
            let embed = args.flag("wit").map(|wit| componentize::Embed {
                wit_dir: Path::new(wit),
                world,
            });
            let docs = args.flag("docs").map(Path::new);
            componentize::file(Path::new(input), Path::new(output), embed.as_ref(), docs)
                .map(|size| eprintln!("mcp-wasm-sdk-tool: {output}: {size} bytes"))
                .map_err(|e| e.to_string())
        }
        _ => Err(USAGE.to_string()),
    }
}

/// A subcommand's arguments: positional ones, and `--name value` flags.
struct Args<'a> {
    positional: Vec<&'a str>,
    flags: Vec<(&'a str, &'a str)>,
}

impl<'a> Args<'a> {
    fn parse(args: &'a [String]) -> Result<Self, String> {
        let mut parsed = Args {
            positional: Vec::new(),
            flags: Vec::new(),
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.strip_prefix("--") {
                Some(name) => {
                    let value = args
                        .next()
                        .ok_or_else(|| format!("--{name} needs a value\n{USAGE}"))?;
                    parsed.flags.push((name, value));
                }
                None => parsed.positional.push(arg),
            }
        }
        Ok(parsed)
    }

    fn flag(&self, name: &str) -> Option<&'a str> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    fn required(&self, name: &str) -> Result<&'a str, String> {
        self.flag(name)
            .ok_or_else(|| format!("--{name} is required\n{USAGE}"))
    }

    /// Refuses a flag the subcommand does not take.
    fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.flags.iter().find(|(n, _)| !known.contains(n)) {
            Some((name, _)) => Err(format!("unknown flag --{name}\n{USAGE}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_flag_without_its_value_or_an_unknown_one_is_refused_with_the_usage() {
        let missing = run(&strings(&["componentize", "a.wasm", "b.wasm", "--wit"])).unwrap_err();
        assert!(missing.contains("--wit needs a value"), "{missing}");
        let unknown = run(&strings(&["c-bindings", "wit", "out", "--color", "red"])).unwrap_err();
        assert!(unknown.contains("unknown flag --color"), "{unknown}");
        assert!(unknown.contains("usage:"), "{unknown}");
    }

    #[test]
    fn go_bindings_without_the_module_paths_is_refused() {
        let err = run(&strings(&["go-bindings", "wit", "out", "--module", "m"])).unwrap_err();
        assert!(err.contains("--exports is required"), "{err}");
    }

    #[test]
    fn an_unknown_subcommand_or_a_wrong_argument_count_prints_the_usage() {
        assert!(
            run(&strings(&["bindings", "wit", "out"]))
                .unwrap_err()
                .contains("usage:")
        );
        assert!(
            run(&strings(&["componentize", "a.wasm"]))
                .unwrap_err()
                .contains("usage:")
        );
        assert!(run(&[]).unwrap_err().contains("usage:"));
    }
}
