//! A component written with plain wit-bindgen that imports
//! wasi:config/store at all three labels the host serves (the vendored WIT
//! in `wit/wasi/` at the repository's root, referenced, never copied), one
//! tool per label: `host/tests/all/keyvalue.rs` checks that each label
//! reads the same policy values.

// Only a wasm32 build has anything in it: the exports carry the component
// model's names, which a native linker cannot export.
#![cfg(target_family = "wasm")]

#[allow(
    unsafe_code,
    unused_qualifications,
    missing_debug_implementations,
    missing_docs,
    clippy::all
)]
mod bindings {
    wit_bindgen::generate!({
        path: [
            "../../../wit/wasi/config@0.2.0-draft",
            "../../../wit/wasi/config@0.2.0-draft-2024-09-27",
            "../../../wit/wasi/config@0.2.0-rc.1",
            "wit",
        ],
        world: "test:cfglabels/cfglabels",
        // The wasi:* interfaces are generated here too (no crate binds them).
        generate_all,
    });
}

// Three versions of one package: wit-bindgen puts each in a module named
// with its version.
use bindings::wasi::config0_2_0_draft::store as draft;
use bindings::wasi::config0_2_0_draft_2024_09_27::store as spin;
use bindings::wasi::config0_2_0_rc_1::store;

/// A config error of any label as `VARIANT: TEXT`.
macro_rules! described {
    ($label:ident) => {
        |error| match error {
            $label::Error::Upstream(text) => format!("upstream: {text}"),
            $label::Error::Io(text) => format!("io: {text}"),
        }
    };
}

struct CfgLabels;

impl bindings::Guest for CfgLabels {
    fn get_draft(key: String) -> Result<Option<String>, String> {
        draft::get(&key).map_err(described!(draft))
    }

    fn get_spin(key: String) -> Result<Option<String>, String> {
        spin::get(&key).map_err(described!(spin))
    }

    fn get_rc(key: String) -> Result<Option<String>, String> {
        store::get(&key).map_err(described!(store))
    }

    fn all_draft() -> Result<Vec<(String, String)>, String> {
        let mut all = draft::get_all().map_err(described!(draft))?;
        all.sort();
        Ok(all)
    }
}

// The generated export glue is unsafe code (the workspace denies it elsewhere).
#[allow(unsafe_code)]
mod export {
    use super::{CfgLabels, bindings};
    bindings::export!(CfgLabels with_types_in bindings);
}
