//! The Go runtime package that wit-bindgen-go's output imports
//! (`go.bytecodealliance.org/pkg`), embedded from the crate's sources by
//! `build.rs`, so that Go builds need no module proxy.

/// The module's files: path relative to the module root, and contents.
pub const FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/go_pkg.rs"));

/// The `go` line of the modules the tool writes: the Go release whose
/// language the generated code uses (the same as the runtime package's).
pub const GO_VERSION: &str = "1.25";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_module_has_its_go_mod_and_the_packages_the_bindings_import() {
        let names: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
        for want in ["go.mod", "wit/types/result.go", "wit/runtime/runtime.go"] {
            assert!(names.contains(&want), "{want} in {names:?}");
        }
        let go_mod = FILES.iter().find(|(name, _)| *name == "go.mod").unwrap().1;
        let go_mod = std::str::from_utf8(go_mod).unwrap();
        assert!(
            go_mod.starts_with("module go.bytecodealliance.org/pkg"),
            "{go_mod}"
        );
        assert!(go_mod.contains(&format!("go {GO_VERSION}")), "{go_mod}");
    }
}
