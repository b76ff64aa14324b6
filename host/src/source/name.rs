//! The plugin-name rule: which strings may name a plugin in the policy
//! file (`[plugins.NAME]`) and on the command line (`pull --name`). A
//! name becomes a file name (`NAME.wasm`) in the source store and in the
//! plugins directory, so no path is ever built from a name that has not
//! passed this check: [`PluginName`] is the only way to one.

use std::fmt;

/// The longest plugin name.
pub const MAX_PLUGIN_NAME: usize = 128;

/// A name that passed the plugin-name rule: 1 to [`MAX_PLUGIN_NAME`]
/// characters of `A-Z a-z 0-9 _ . -`, the first a letter, a digit or `_`.
/// It therefore holds no path separator, is never `.` or `..`, and is
/// never a hidden file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PluginName(String);

/// Why a string is not a plugin name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{name:?} is not a plugin name: {problem} (a plugin name is 1 to {MAX_PLUGIN_NAME} characters of A-Z, a-z, 0-9, `_`, `.` and `-`, starting with a letter, a digit or `_`, as it names the file NAME.wasm)"
)]
pub struct BadPluginName {
    name: String,
    problem: String,
}

impl PluginName {
    /// Checks `name` against the rule.
    pub fn parse(name: &str) -> Result<Self, BadPluginName> {
        let bad = |problem: String| BadPluginName {
            name: name.to_string(),
            problem,
        };
        let Some(first) = name.chars().next() else {
            return Err(bad("it is empty".into()));
        };
        if name.len() > MAX_PLUGIN_NAME {
            return Err(bad(format!("it is {} bytes long", name.len())));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        {
            return Err(bad(format!("it holds {c:?}")));
        }
        if !(first.is_ascii_alphanumeric() || first == '_') {
            return Err(bad(format!("it starts with {first:?}")));
        }
        Ok(PluginName(name.to_string()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `NAME.wasm`: a single path component.
    pub fn file_name(&self) -> String {
        format!("{}.wasm", self.0)
    }
}

impl fmt::Display for PluginName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Component, Path};

    /// Every name the rule lets through is one normal path component: joined
    /// to a directory it stays directly inside it.
    #[test]
    fn accepted_names_are_single_normal_path_components_and_the_rest_is_refused() {
        let accepted = ["a", "echo", "word_count", "Text-2", "v1.2", "_x", "9lives"];
        let long = "a".repeat(MAX_PLUGIN_NAME);
        for name in accepted.iter().copied().chain([long.as_str()]) {
            let parsed = PluginName::parse(name).unwrap();
            let file = parsed.file_name();
            let components: Vec<_> = Path::new(&file).components().collect();
            assert!(
                matches!(components.as_slice(), [Component::Normal(_)]),
                "{name}"
            );
        }
        // Generated: every separator and dot-segment form, alone, leading,
        // trailing and inside; every byte outside the rule.
        let mut generated: Vec<String> = vec![
            String::new(),
            "a".repeat(MAX_PLUGIN_NAME + 1),
            ".".into(),
            "..".into(),
            ".hidden".into(),
            "-flag".into(),
        ];
        for piece in [
            "..", "../", "/", "\\", "..\\", "%2e%2e", "/..", "\0", " ", ":",
        ] {
            for shape in [
                piece.to_string(),
                format!("{piece}x"),
                format!("x{piece}"),
                format!("x{piece}y"),
                format!("../../{piece}etc/passwd"),
            ] {
                generated.push(shape);
            }
        }
        for byte in 0u8..=255 {
            let c = byte as char;
            if !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')) {
                generated.push(format!("a{c}b"));
            }
        }
        generated.push("é".into());
        for name in &generated {
            match PluginName::parse(name) {
                // `x..y` is a fine name: a dot-segment needs a separator.
                Ok(parsed) => {
                    let file = parsed.file_name();
                    let components: Vec<_> = Path::new(&file).components().collect();
                    assert!(
                        matches!(components.as_slice(), [Component::Normal(_)])
                            && !file.starts_with('.')
                            && !name.contains(['/', '\\', '\0', '%']),
                        "{name:?} was accepted"
                    );
                }
                Err(e) => assert!(e.to_string().contains("is not a plugin name"), "{e}"),
            }
        }
        for must_fail in ["", ".", "..", "../x", "x/..", "a/b", "a\\b", ".x"] {
            assert!(PluginName::parse(must_fail).is_err(), "{must_fail:?}");
        }
    }
}
