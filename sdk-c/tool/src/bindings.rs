//! C bindings for a WIT world, written with wit-bindgen's C generator.

use std::path::{Path, PathBuf};

use wit_bindgen_core::wit_parser::Resolve;

/// Why the bindings could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BindingsError {
    /// The WIT did not parse or has no such world.
    #[error("cannot read the WIT in {dir}: {message}")]
    Wit {
        /// The WIT directory.
        dir: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// The generator refused the world.
    #[error("cannot generate C for world `{world}`: {message}")]
    Generate {
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
pub fn write(wit_dir: &Path, world: &str, out_dir: &Path) -> Result<Vec<PathBuf>, BindingsError> {
    let wit_error = |message: String| BindingsError::Wit {
        dir: wit_dir.to_path_buf(),
        message,
    };
    let mut resolve = Resolve::default();
    let (package, _) = resolve
        .push_path(wit_dir)
        .map_err(|e| wit_error(chain(&e)))?;
    let world_id = resolve
        .select_world(&[package], Some(world))
        .map_err(|e| wit_error(chain(&e)))?;

    let mut files = wit_bindgen_core::Files::default();
    wit_bindgen_c::Opts::default()
        .build()
        .generate(&mut resolve, world_id, &mut files)
        .map_err(|e| BindingsError::Generate {
            world: world.to_string(),
            message: chain(&e),
        })?;

    std::fs::create_dir_all(out_dir).map_err(|source| BindingsError::Write {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    for (name, contents) in files.iter() {
        let path = out_dir.join(name);
        std::fs::write(&path, contents).map_err(|source| BindingsError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

/// An error and its causes on one line (anyhow's alternate form).
pub(crate) fn chain(error: &dyn std::fmt::Display) -> String {
    format!("{error:#}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_wit() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit")
    }

    #[test]
    fn the_plugin_world_becomes_a_header_a_source_and_a_type_object() {
        let out = tempfile::tempdir().unwrap();
        let mut names: Vec<String> = write(&repo_wit(), "plugin", out.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["plugin.c", "plugin.h", "plugin_component_type.o"]);
        let header = std::fs::read_to_string(out.path().join("plugin.h")).unwrap();
        assert!(
            header.contains("exports_mcp_wasm_host_plugin_tools_call_tool"),
            "the header declares the call-tool export"
        );
    }

    #[test]
    fn an_unknown_world_is_an_error_naming_the_directory() {
        let out = tempfile::tempdir().unwrap();
        let err = write(&repo_wit(), "no-such-world", out.path()).unwrap_err();
        assert!(matches!(err, BindingsError::Wit { .. }), "{err}");
        assert!(err.to_string().contains("wit"), "{err}");
    }
}
