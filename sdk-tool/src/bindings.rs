//! Bindings for a WIT world, written with wit-bindgen's C or Go generator.

use std::path::{Path, PathBuf};

use wit_bindgen_core::WorldGenerator;

use crate::go_pkg;
use crate::wit::{self, WitError, chain};

/// Why the bindings could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BindingsError {
    /// The WIT did not parse or has no such world.
    #[error(transparent)]
    Wit(#[from] WitError),
    /// The generator refused the world.
    #[error("cannot generate {language} for world `{world}`: {message}")]
    Generate {
        /// "C" or "Go".
        language: &'static str,
        /// The world.
        world: String,
        /// What the generator said.
        message: String,
    },
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Writes the C bindings of `world` in the WIT package at `wit_dir` into
/// `out_dir`: `WORLD.h`, `WORLD.c` and `WORLD_component_type.o` (the
/// component-type custom section the linker keeps in the core module, which
/// tells wit-component what the module imports and exports). Returns the
/// paths written.
pub fn c(wit_dir: &Path, world: &str, out_dir: &Path) -> Result<Vec<PathBuf>, BindingsError> {
    let generator = wit_bindgen_c::Opts::default().build();
    generate("C", generator, wit_dir, world, out_dir)
}

/// Where the Go bindings live, as Go import paths.
pub struct GoModules<'a> {
    /// The module path of the generated packages (one per WIT interface,
    /// and `wit_exports`, which holds the `//go:wasmexport` functions).
    pub bindings: &'a str,
    /// The path under which the hand-written package implementing the
    /// exports lives: `wit_exports` imports
    /// `EXPORTS/export_<package>_<interface>` and calls its functions.
    pub exports: &'a str,
}

/// Writes the Go bindings of `world` into `out_dir/bindings`, a Go module
/// at `modules.bindings` (with its `go.mod`), and the Go runtime package
/// they import (`go.bytecodealliance.org/pkg`) into `out_dir/go-pkg`. The
/// generated code is not gofmt-ed (nobody edits it). Returns the paths
/// written.
pub fn go(
    wit_dir: &Path,
    world: &str,
    modules: &GoModules<'_>,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, BindingsError> {
    let generator = wit_bindgen_go::Opts {
        format: wit_bindgen_go::Format::False,
        pkg_name: Some(modules.bindings.to_string()),
        export_pkg_name: Some(modules.exports.to_string()),
        ..Default::default()
    }
    .build();
    let bindings = out_dir.join("bindings");
    let mut written = generate("Go", generator, wit_dir, world, &bindings)?;
    // `remote_pkg_version()` is "go.bytecodealliance.org/pkg vX.Y.Z".
    let go_mod = format!(
        "module {}\n\ngo {}\n\nrequire {}\n",
        modules.bindings,
        go_pkg::GO_VERSION,
        wit_bindgen_go::remote_pkg_version()
    );
    written.push(write_file(&bindings.join("go.mod"), go_mod.as_bytes())?);
    for (rel, contents) in go_pkg::FILES {
        written.push(write_file(&out_dir.join("go-pkg").join(rel), contents)?);
    }
    Ok(written)
}

/// Runs `generator` over `world` and writes its files under `out_dir`.
fn generate(
    language: &'static str,
    mut generator: Box<dyn WorldGenerator>,
    wit_dir: &Path,
    world: &str,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, BindingsError> {
    let (mut resolve, world_id) = wit::load(wit_dir, world)?;
    let mut files = wit_bindgen_core::Files::default();
    generator
        .generate(&mut resolve, world_id, &mut files)
        .map_err(|e| BindingsError::Generate {
            language,
            world: world.to_string(),
            message: chain(&e),
        })?;
    files
        .iter()
        .map(|(name, contents)| write_file(&out_dir.join(name), contents))
        .collect()
}

/// Writes `contents` to `path`, creating its directory.
fn write_file(path: &Path, contents: &[u8]) -> Result<PathBuf, BindingsError> {
    let write_error = |source| BindingsError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write_error)?;
    }
    std::fs::write(path, contents).map_err(write_error)?;
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wit::tests::repo_wit;

    /// The paths written, relative to `root`, sorted.
    fn relative(root: &Path, paths: &[PathBuf]) -> Vec<String> {
        let mut names: Vec<String> = paths
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_plugin_full_world_becomes_a_c_header_a_source_and_a_type_object() {
        let out = tempfile::tempdir().unwrap();
        let written = c(&repo_wit(), "plugin-full", out.path()).unwrap();
        assert_eq!(
            relative(out.path(), &written),
            [
                "plugin_full.c",
                "plugin_full.h",
                "plugin_full_component_type.o"
            ]
        );
        let header = std::fs::read_to_string(out.path().join("plugin_full.h")).unwrap();
        for export in [
            "exports_mcp_wasm_host_plugin_tools_call_tool",
            "exports_mcp_wasm_host_plugin_resources_read_resource",
            "exports_mcp_wasm_host_plugin_prompts_get_prompt",
            "exports_mcp_wasm_host_plugin_completions_complete",
        ] {
            assert!(header.contains(export), "the header declares {export}");
        }
        // The state imports the SDK's store API calls (crate::state).
        for import in ["wasi_keyvalue_store_open", "wasi_keyvalue_atomics_swap"] {
            assert!(header.contains(import), "the header declares {import}");
        }
    }

    #[test]
    fn the_plugin_full_world_becomes_a_go_module_that_calls_the_named_exports_packages() {
        let out = tempfile::tempdir().unwrap();
        let modules = GoModules {
            bindings: "example.com/sdk/wit",
            exports: "example.com/sdk/internal",
        };
        let written = go(&repo_wit(), "plugin-full", &modules, out.path()).unwrap();
        let names = relative(out.path(), &written);
        for want in [
            "bindings/go.mod",
            "bindings/wit_exports/wit_exports.go",
            "bindings/mcp_wasm_host_plugin_types/wit_bindings.go",
            "bindings/mcp_wasm_host_plugin_host/wit_bindings.go",
            "bindings/wasi_keyvalue_store/wit_bindings.go",
            "bindings/wasi_keyvalue_atomics/wit_bindings.go",
            "go-pkg/go.mod",
            "go-pkg/wit/types/option.go",
            "go-pkg/wit/runtime/runtime.go",
        ] {
            assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
        }
        let exports =
            std::fs::read_to_string(out.path().join("bindings/wit_exports/wit_exports.go"))
                .unwrap();
        assert!(
            exports.contains(r#""example.com/sdk/internal/export_mcp_wasm_host_plugin_tools""#),
            "wit_exports imports the hand-written exports package"
        );
        assert!(
            exports.contains("//go:wasmexport mcp-wasm-host:plugin/tools@0.2.1#call-tool"),
            "wit_exports exports call-tool"
        );
        assert!(
            exports.contains(r#""example.com/sdk/internal/export_mcp_wasm_host_plugin_resources""#),
            "wit_exports imports the resources exports package"
        );
        assert!(
            exports.contains("//go:wasmexport mcp-wasm-host:plugin/prompts@0.2.1#get-prompt"),
            "wit_exports exports get-prompt"
        );
        let go_mod = std::fs::read_to_string(out.path().join("bindings/go.mod")).unwrap();
        assert!(
            go_mod.starts_with("module example.com/sdk/wit\n"),
            "{go_mod}"
        );
        assert!(
            go_mod.contains("require go.bytecodealliance.org/pkg v"),
            "{go_mod}"
        );
    }

    #[test]
    fn an_unknown_world_is_refused_before_anything_is_written() {
        let out = tempfile::tempdir().unwrap();
        let err = c(&repo_wit(), "no-such-world", out.path()).unwrap_err();
        assert!(matches!(err, BindingsError::Wit(_)), "{err}");
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
    }
}
