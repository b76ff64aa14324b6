//! Where a new project's SDK comes from, and the text each language's build
//! files hold for it: by default the SDK packages at this host's version,
//! each fetched the way its language fetches packages; with `--sdk REPO`, an
//! mcp-wasm-host checkout by path, for work on the SDKs themselves.

use std::path::Path;

/// The version of the SDK packages a project is made for: this host's own
/// (every part of a release carries one number, docs/versions.md).
pub const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The module path of the Go SDK.
const GO_MODULE: &str = "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go";

/// The SDK a project is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdkSource<'a> {
    /// The published packages at [`SDK_VERSION`].
    Packages,
    /// A checkout of the repository (`--sdk`), by absolute path.
    Checkout(&'a Path),
}

impl SdkSource<'_> {
    /// Every placeholder the templates' build files use for the SDK, with
    /// its value for this source.
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        let mut vars = vec![("VERSION", SDK_VERSION.to_owned()), ("DOCS", docs_url())];
        match self {
            SdkSource::Packages => {
                let tool = "mcp-wasm-sdk-tool";
                vars.extend([
                    ("RUST_SDK_DEP", format!("\"{SDK_VERSION}\"")),
                    ("JS_SDK_DEP", SDK_VERSION.to_owned()),
                    ("SDK_REQUIREMENT", format!("mcp-wasm-sdk=={SDK_VERSION}")),
                    ("GO_REPLACE", String::new()),
                    ("C_SDK", C_SDK_FROM_PKG_CONFIG.to_owned()),
                    ("SDK_TOOL", tool.to_owned()),
                    ("SDK_TOOL_NAME", format!("`{tool}` from PATH")),
                    ("SDK_TOOL_CHECK", TOOL_CHECK.to_owned()),
                ]);
            }
            SdkSource::Checkout(repo) => {
                let repo = repo.to_string_lossy();
                vars.extend([
                    ("RUST_SDK_DEP", format!("{{ path = \"{repo}/sdk-guest\" }}")),
                    ("JS_SDK_DEP", format!("file:{repo}/sdk-js")),
                    // Editable, so the build command finds the checkout's
                    // wit/ beside sdk-python/.
                    ("SDK_REQUIREMENT", format!("-e {repo}/sdk-python")),
                    (
                        "GO_REPLACE",
                        format!("\n// The SDK of the checkout this project was made from (`new --sdk`).\nreplace {GO_MODULE} => {repo}/sdk-go\n"),
                    ),
                    (
                        "C_SDK",
                        format!(
                            "# The C SDK of the checkout this project was made from (`new --sdk`).\nsdk_cflags=(-I \"{repo}/sdk-c/include\")\nsdk_src=\"{repo}/sdk-c/src\"\nsdk_wit=\"{repo}/wit\""
                        ),
                    ),
                    (
                        "SDK_TOOL",
                        format!(
                            "\"${{CARGO:-cargo}}\" run --quiet --locked --manifest-path \"{repo}/Cargo.toml\" -p mcp-wasm-sdk-tool --"
                        ),
                    ),
                    (
                        "SDK_TOOL_NAME",
                        "the checkout's, built with cargo the first time".to_owned(),
                    ),
                    ("SDK_TOOL_CHECK", String::new()),
                ]);
            }
        }
        vars
    }
}

/// The reference documentation of this release.
fn docs_url() -> String {
    format!("https://github.com/mcp-wasm-host/mcp-wasm-host/blob/v{SDK_VERSION}/docs")
}

/// config.sh of a C project: the installed C SDK, through pkg-config, at
/// the version the project was made for or later.
const C_SDK_FROM_PKG_CONFIG: &str = r#"# The C SDK: `mcp-wasm-sdk` as pkg-config finds it (its source archive's
# `make install PREFIX=...` installs PREFIX/lib/pkgconfig/mcp-wasm-sdk.pc;
# put that directory on PKG_CONFIG_PATH).
if ! sdk_installed="$(pkg-config --modversion mcp-wasm-sdk 2>/dev/null)"; then
    echo "the C SDK is not installed (pkg-config finds no mcp-wasm-sdk): install mcp-wasm-sdk-c-$sdk_version.tar.gz with \`make install PREFIX=\$HOME/.local\` and put \$HOME/.local/lib/pkgconfig on PKG_CONFIG_PATH" >&2
    exit 1
fi
if ! newer_or_same "$sdk_installed" "$sdk_version"; then
    echo "this project was made for the C SDK $sdk_version, but pkg-config finds mcp-wasm-sdk $sdk_installed: install mcp-wasm-sdk-c-$sdk_version.tar.gz (make install), or make the project again with the mcp-wasm-host that matches your SDK" >&2
    exit 1
fi
read -r -a sdk_cflags <<< "$(pkg-config --cflags mcp-wasm-sdk)"
sdk_src="$(pkg-config --variable=srcdir mcp-wasm-sdk)"
sdk_wit="$(pkg-config --variable=witdir mcp-wasm-sdk)""#;

/// config.sh of a C or Go project: the build tool is there, and at the
/// version the project was made for or later.
const TOOL_CHECK: &str = r#"if ! tool_version="$("${tool[@]}" --version 2>/dev/null)"; then
    echo "the SDK's build tool (${tool[*]}) does not run: install it with \`cargo install --locked mcp-wasm-sdk-tool@$sdk_version\`, or name it in MCP_WASM_SDK_TOOL" >&2
    exit 1
fi
tool_version="$(echo "$tool_version" | awk '{print $2}')"
if ! newer_or_same "$tool_version" "$sdk_version"; then
    echo "this project was made for the SDK $sdk_version, but the build tool is mcp-wasm-sdk-tool $tool_version: \`cargo install --locked mcp-wasm-sdk-tool@$sdk_version\`, or make the project again with the mcp-wasm-host that matches your tool" >&2
    exit 1
fi"#;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn both_sources_fill_the_same_placeholders() {
        let keys = |source: SdkSource| -> Vec<&str> {
            source.vars().into_iter().map(|(k, _)| k).collect()
        };
        assert_eq!(
            keys(SdkSource::Packages),
            keys(SdkSource::Checkout(Path::new("/r")))
        );
    }

    #[test]
    fn packages_are_named_at_this_hosts_version_and_no_path_appears() {
        for (key, value) in SdkSource::Packages.vars() {
            assert!(!value.contains("/sdk-"), "{key}: {value}");
        }
        let vars = SdkSource::Packages.vars();
        let get = |k: &str| vars.iter().find(|(key, _)| *key == k).unwrap().1.clone();
        assert_eq!(get("RUST_SDK_DEP"), format!("\"{SDK_VERSION}\""));
        assert_eq!(
            get("SDK_REQUIREMENT"),
            format!("mcp-wasm-sdk=={SDK_VERSION}")
        );
    }
}
