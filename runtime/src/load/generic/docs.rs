//! The WIT doc comments of a generic component's functions, read from the
//! component's top-level `package-docs` custom section (the JSON that
//! `wit-component` writes for a WIT package, which `wit-docs-inject` and
//! similar tools add to a component), as tool and parameter descriptions.
//!
//! The section is read leniently: a component without one, or with one this
//! host cannot read, is served with generated descriptions.

use std::collections::HashMap;

use serde_json::Value;

use super::naming::Exported;

/// The custom section's name.
pub const SECTION: &str = "package-docs";

/// The largest `package-docs` section read; a larger one is ignored.
pub const MAX_SECTION: usize = 1 << 20;

/// Doc comments by function name.
type Funcs = HashMap<String, String>;

/// The doc comments of a component's functions (none when it has no
/// `package-docs` section).
#[derive(Debug, Clone, Default)]
pub struct Docs {
    /// The functions the world exports itself.
    world: Funcs,
    /// The functions of each interface, by the interface's name within its
    /// package (`clock` for `local:time/clock@0.1.0`), or by the name the
    /// world gives an interface it defines inline.
    interfaces: HashMap<String, Funcs>,
}

/// What the docs say of one function.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Described {
    /// The tool's description: the function's doc comment, if it has one.
    pub text: Option<String>,
    /// Each documented parameter's description (see [`param_docs`]).
    pub params: Vec<(String, String)>,
}

/// The docs of a function in `funcs` (a string in the v0 format, an object
/// with `docs` in v1).
fn funcs(value: Option<&Value>) -> Funcs {
    let Some(Value::Object(map)) = value else {
        return Funcs::new();
    };
    map.iter()
        .filter_map(|(name, f)| {
            let docs = match f {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => o.get("docs").and_then(Value::as_str),
                _ => None,
            }?;
            Some((name.clone(), docs.to_string()))
        })
        .collect()
}

/// Each entry of the object `value` (`interfaces`, `interface_exports`) as
/// an interface's function docs.
fn interfaces(value: Option<&Value>, into: &mut HashMap<String, Funcs>) {
    if let Some(Value::Object(map)) = value {
        for (name, interface) in map {
            let f = funcs(interface.get("funcs"));
            if !f.is_empty() {
                into.entry(name.clone()).or_default().extend(f);
            }
        }
    }
}

/// Why a `package-docs` section cannot be read (the component is then
/// served without its docs).
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    /// Over the size the host reads (this many bytes).
    #[error(
        "it is {0} bytes, over the {MAX_SECTION} bytes (1 MiB) this host reads of a {SECTION} \
         section, a fixed bound no policy key raises"
    )]
    TooLarge(usize),
    /// A version byte other than 0 or 1 (or none).
    #[error("unknown version {0:?}")]
    Version(Option<u8>),
    /// The JSON does not parse.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl Docs {
    /// The docs in the component file `bytes`: its first top-level
    /// `package-docs` section. None if it has none, or it cannot be read.
    pub(crate) fn read(bytes: &[u8]) -> Docs {
        let Some(data) = custom_section(bytes, SECTION) else {
            return Docs::default();
        };
        match Docs::parse(data) {
            Ok(docs) => docs,
            Err(problem) => {
                tracing::warn!(
                    "its {SECTION} section cannot be read ({problem}); served without its docs"
                );
                Docs::default()
            }
        }
    }

    /// The docs in the contents of a `package-docs` section: a version byte
    /// (0 or 1) and JSON.
    pub fn parse(data: &[u8]) -> Result<Docs, DocsError> {
        if data.len() > MAX_SECTION {
            return Err(DocsError::TooLarge(data.len()));
        }
        match data.first() {
            Some(0 | 1) => {}
            other => return Err(DocsError::Version(other.copied())),
        }
        let json: Value = serde_json::from_slice(&data[1..])?;
        let mut docs = Docs::default();
        interfaces(json.get("interfaces"), &mut docs.interfaces);
        if let Some(Value::Object(worlds)) = json.get("worlds") {
            for world in worlds.values() {
                docs.world.extend(funcs(world.get("funcs")));
                docs.world.extend(funcs(world.get("func_exports")));
                interfaces(world.get("interfaces"), &mut docs.interfaces);
                interfaces(world.get("interface_exports"), &mut docs.interfaces);
            }
        }
        Ok(docs)
    }

    /// What the docs say of `function`.
    pub(crate) fn function(&self, function: &Exported, params: &[&str]) -> Described {
        let funcs = match &function.interface {
            None => Some(&self.world),
            Some(interface) => {
                let unversioned = interface.split('@').next().unwrap_or(interface);
                let short = unversioned.rsplit('/').next().unwrap_or(unversioned);
                self.interfaces.get(short)
            }
        };
        let Some(text) = funcs.and_then(|f| f.get(&function.function)) else {
            return Described::default();
        };
        let text = text.trim();
        Described {
            text: (!text.is_empty()).then(|| text.to_string()),
            params: param_docs(text, params),
        }
    }
}

/// The parameter descriptions in a function's doc comment: each line of the
/// form `- NAME: text` (or `* NAME: text`, NAME optionally in backticks)
/// whose NAME is one of `params` describes that parameter.
pub fn param_docs(text: &str, params: &[&str]) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) else {
            continue;
        };
        let Some((name, description)) = rest.split_once(':') else {
            continue;
        };
        let name = name.trim().trim_matches('`');
        let description = description.trim();
        if params.contains(&name)
            && !description.is_empty()
            && !found.iter().any(|(n, _)| n == name)
        {
            found.push((name.to_string(), description.to_string()));
        }
    }
    found
}

/// One LEB128 `u32` at the start of `bytes`, and the rest.
fn leb_u32(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let mut value: u32 = 0;
    for (i, b) in bytes.iter().enumerate().take(5) {
        value |= u32::from(b & 0x7f).checked_shl(7 * i as u32)?;
        if b & 0x80 == 0 {
            return Some((value, &bytes[i + 1..]));
        }
    }
    None
}

/// The contents of the first top-level custom section named `name` of the
/// WebAssembly file `bytes` (nested modules and components are skipped
/// whole, as every section is).
pub fn custom_section<'a>(bytes: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let mut rest = bytes.get(8..)?;
    while let Some((&id, after)) = rest.split_first() {
        let (size, after) = leb_u32(after)?;
        let section = after.get(..size as usize)?;
        rest = &after[size as usize..];
        if id != 0 {
            continue;
        }
        let (len, body) = leb_u32(section)?;
        let section_name = body.get(..len as usize)?;
        if section_name == name.as_bytes() {
            return Some(&body[len as usize..]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_of_function_docs_are_read() {
        let json = br#"{"worlds":{"w":{"funcs":{"add":"Adds.\n\n- a: the first\n- `b`: the second\n- c: not a parameter"}}},
            "interfaces":{"clock":{"funcs":{"now":{"docs":"The time.","stability":"unknown"}}}}}"#;
        let mut data = vec![1];
        data.extend_from_slice(json);
        let docs = Docs::parse(&data).unwrap();
        let add = docs.function(
            &Exported {
                interface: None,
                function: "add".into(),
            },
            &["a", "b"],
        );
        assert_eq!(add.text.as_deref().unwrap().lines().next(), Some("Adds."));
        assert_eq!(
            add.params,
            [
                ("a".to_string(), "the first".to_string()),
                ("b".to_string(), "the second".to_string())
            ]
        );
        let now = docs.function(
            &Exported {
                interface: Some("local:time/clock@0.1.0".into()),
                function: "now".into(),
            },
            &[],
        );
        assert_eq!(now.text.as_deref(), Some("The time."));
        assert!(Docs::parse(&[7, b'{', b'}']).is_err());
        assert!(Docs::parse(b"\x01not json").is_err());
    }

    #[test]
    fn only_the_named_custom_section_is_found_and_truncation_is_no_panic() {
        // A component header, a custom section "other", then "package-docs".
        let mut wasm = b"\0asm\x0d\0\x01\0".to_vec();
        for (name, body) in [("other", &b"x"[..]), (SECTION, &b"\x01{}"[..])] {
            let mut payload = vec![name.len() as u8];
            payload.extend_from_slice(name.as_bytes());
            payload.extend_from_slice(body);
            wasm.push(0);
            wasm.push(payload.len() as u8);
            wasm.extend_from_slice(&payload);
        }
        assert_eq!(custom_section(&wasm, SECTION), Some(&b"\x01{}"[..]));
        for cut in 0..wasm.len() {
            let _ = custom_section(&wasm[..cut], SECTION);
        }
    }
}
