//! A core WebAssembly module built against WASI preview 1 becomes a WASI 0.2
//! component: wit-component reads the module's component-type section (which
//! C builds link in, and which is embedded here for modules without one, such
//! as Go's) and wraps it with the preview 1 reactor adapter of the wasmtime
//! release the host runs.

use std::path::{Path, PathBuf};

use wasi_preview1_component_adapter_provider::{
    WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
};
use wit_component::{ComponentEncoder, StringEncoding};

use crate::docs;
use crate::wit::{self, WitError, chain};

/// Why a module could not become a component.
#[derive(Debug, thiserror::Error)]
pub enum ComponentizeError {
    /// The module could not be read or the component written.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// "read" or "write".
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The world to embed, or the package whose docs to add, could not be
    /// read.
    #[error(transparent)]
    Wit(#[from] WitError),
    /// wit-component refused the module (no component-type section, an
    /// import neither the world nor the adapter provides, ...).
    #[error("cannot componentize {path}: {message}")]
    Encode {
        /// The core module.
        path: PathBuf,
        /// What wit-component said.
        message: String,
    },
}

/// A world whose description (the component-type section) is added to the
/// module before it is encoded.
pub struct Embed<'a> {
    /// The WIT package's directory.
    pub wit_dir: &'a Path,
    /// The world the module implements.
    pub world: &'a str,
}

/// The component made of the core module `module`, validated.
pub fn encode(module: &[u8]) -> Result<Vec<u8>, String> {
    ComponentEncoder::default()
        .validate(true)
        .module(module)
        .and_then(|e| {
            e.adapter(
                WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME,
                WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
            )
        })
        .and_then(|e| e.encode())
        .map_err(|e| chain(&e))
}

/// Reads the core module at `input`, embeds the world `embed` describes (if
/// any) and writes its component to `output`, with the doc comments of the
/// WIT package at `docs` (if any) as its `package-docs` section. Returns
/// the component's size in bytes.
pub fn file(
    input: &Path,
    output: &Path,
    embed: Option<&Embed<'_>>,
    docs: Option<&Path>,
) -> Result<usize, ComponentizeError> {
    let mut module = std::fs::read(input).map_err(|source| ComponentizeError::Io {
        action: "read",
        path: input.to_path_buf(),
        source,
    })?;
    if let Some(embed) = embed {
        let (resolve, world) = wit::load(embed.wit_dir, embed.world)?;
        wit_component::embed_component_metadata(&mut module, &resolve, world, StringEncoding::UTF8)
            .map_err(|e| ComponentizeError::Encode {
                path: input.to_path_buf(),
                message: chain(&e),
            })?;
    }
    let mut component = encode(&module).map_err(|message| ComponentizeError::Encode {
        path: input.to_path_buf(),
        message,
    })?;
    if let Some(wit_dir) = docs {
        component.extend(docs::section(wit_dir)?);
    }
    std::fs::write(output, &component).map_err(|source| ComponentizeError::Io {
        action: "write",
        path: output.to_path_buf(),
        source,
    })?;
    Ok(component.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_neither_the_world_nor_the_adapter_provides_is_refused_naming_it() {
        // A core module importing the function `env.undefined_helper`, as
        // a C plugin calling an undefined function would (wasm-ld
        // --allow-undefined leaves it as an import).
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.extend([0x01, 0x04, 0x01, 0x60, 0x00, 0x00]); // type () -> ()
        let name = b"undefined_helper";
        let mut import = vec![0x01, 0x03, b'e', b'n', b'v', name.len() as u8];
        import.extend(name);
        import.extend([0x00, 0x00]); // a function of type 0
        module.push(0x02);
        module.push(import.len() as u8);
        module.extend(import);
        let err = encode(&module).unwrap_err();
        assert!(err.contains("undefined_helper"), "{err}");
    }

    #[test]
    fn bytes_that_are_not_wasm_are_refused_not_panicked_on() {
        assert!(encode(b"int main() {}").is_err());
    }

    #[test]
    fn a_missing_module_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.wasm");
        let err = file(&missing, &dir.path().join("out.wasm"), None, None).unwrap_err();
        assert!(err.to_string().contains("missing.wasm"), "{err}");
    }

    #[test]
    fn an_embedded_world_makes_the_encoder_hold_the_module_to_its_exports() {
        // An empty module has no component-type section: alone it becomes
        // an empty component. With the `plugin` world embedded, the
        // encoder knows the module must export `tools` and names what is
        // missing.
        let (_dir, input, output) = empty_module();
        file(&input, &output, None, None).unwrap();
        let embed = Embed {
            wit_dir: &wit::tests::repo_wit(),
            world: "plugin",
        };
        let err = file(&input, &output, Some(&embed), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("list-tools"), "{err}");
    }

    #[test]
    fn docs_are_appended_to_the_component_as_its_last_section() {
        let (_dir, input, output) = empty_module();
        let wit_dir = wit::tests::repo_wit();
        file(&input, &output, None, Some(&wit_dir)).unwrap();
        let bytes = std::fs::read(&output).unwrap();
        let section = docs::section(&wit_dir).unwrap();
        assert!(bytes.starts_with(b"\0asm\x0d\0\x01\0"), "a component");
        assert!(bytes.ends_with(&section), "the section comes last");
    }

    /// A temporary directory holding an empty core module: (the directory,
    /// the module's path, a path for the component).
    fn empty_module() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("empty.wasm");
        std::fs::write(&input, b"\0asm\x01\0\0\0").unwrap();
        let output = dir.path().join("out.wasm");
        (dir, input, output)
    }
}
