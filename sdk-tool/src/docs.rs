//! A WIT package's doc comments as a component's `package-docs` custom section.
//!
//! Bindings generators keep a WIT package's types in the component but
//! not its docs; the host reads a generic component's tool and parameter
//! descriptions from a top-level `package-docs` section (wit-parser's
//! `PackageMetadata`, the section `wit-component` writes for a WIT package).

use std::path::Path;

use wasm_encoder::{ComponentSection, CustomSection};
use wit_bindgen_core::wit_parser::PackageMetadata;

use crate::wit::{self, WitError};

/// The `package-docs` custom section of the WIT package at `wit_dir`,
/// encoded as a section (id 0, size, name, contents) ready to append to a
/// component.
pub fn section(wit_dir: &Path) -> Result<Vec<u8>, WitError> {
    let (resolve, package) = wit::package(wit_dir)?;
    let contents = PackageMetadata::extract(&resolve, package)
        .encode()
        .map_err(|e| WitError::new(wit_dir, &e))?;
    let mut encoded = Vec::new();
    CustomSection {
        name: PackageMetadata::SECTION_NAME.into(),
        data: contents.into(),
    }
    .append_to_component(&mut encoded);
    Ok(encoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_is_named_package_docs_and_holds_the_doc_comments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.wit"),
            "package demo:docs@0.1.0;\n\nworld w {\n    /// Adds two numbers.\n    export add: func(a: u32, b: u32) -> u32;\n}\n",
        )
        .unwrap();
        let encoded = section(dir.path()).unwrap();
        assert_eq!(encoded[0], 0, "a custom section");
        let name = &encoded[2..];
        assert_eq!(name[0] as usize, PackageMetadata::SECTION_NAME.len());
        assert_eq!(
            &name[1..=PackageMetadata::SECTION_NAME.len()],
            PackageMetadata::SECTION_NAME.as_bytes()
        );
        assert_eq!(encoded[1] as usize, encoded.len() - 2, "its size");
        let text = String::from_utf8_lossy(&encoded);
        assert!(text.contains("Adds two numbers."), "{text}");
    }

    #[test]
    fn a_directory_without_wit_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = section(dir.path()).unwrap_err();
        assert_eq!(err.dir, dir.path());
    }
}
