//! A core WebAssembly module built against WASI preview 1 becomes a WASI 0.2
//! component: wit-component reads the module's component-type section and
//! wraps it with the preview 1 reactor adapter of the wasmtime release the
//! host runs.

use std::path::{Path, PathBuf};

use wasi_preview1_component_adapter_provider::{
    WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
};
use wit_component::ComponentEncoder;

use crate::bindings::chain;

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

/// Reads the core module at `input` and writes its component to `output`.
/// Returns the component's size in bytes.
pub fn file(input: &Path, output: &Path) -> Result<usize, ComponentizeError> {
    let module = std::fs::read(input).map_err(|source| ComponentizeError::Io {
        action: "read",
        path: input.to_path_buf(),
        source,
    })?;
    let component = encode(&module).map_err(|message| ComponentizeError::Encode {
        path: input.to_path_buf(),
        message,
    })?;
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
        let err = file(&missing, &dir.path().join("out.wasm")).unwrap_err();
        assert!(err.to_string().contains("missing.wasm"), "{err}");
    }
}
