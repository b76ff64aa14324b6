//! The policy file (`mcp-wasm-host.toml`): parsed strictly (an unknown key
//! or a wrongly typed value is an error naming the file, line and key), then
//! resolved into each plugin's effective [`Policy`].
//!
//! One central file holds `[defaults]` (limits for every plugin) and one
//! `[plugins.NAME]` section per plugin (NAME is the `.wasm` file's stem),
//! whose limits override the defaults and which alone may grant
//! capabilities (mounts, environment, requests to the client). Host paths of mounts are relative to
//! the file's directory and are canonicalized when the plugin loads; a
//! missing one keeps that plugin from loading.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytesize::ByteSize;
use serde::Deserialize;

use crate::runtime::cache::Sha256Digest;
use crate::runtime::capabilities::client::ClientPolicy;
use crate::runtime::capabilities::env::EnvPolicy;
use crate::runtime::capabilities::filesystem::{FilesystemPolicy, Mount};
use crate::runtime::{Limits, Policies, Policy};

/// The default file name, looked for in the current directory.
pub const DEFAULT_FILE: &str = "mcp-wasm-host.toml";

/// Why the policy file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: cannot read the policy file: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML for the policy schema (toml's message
    /// gives the line, the column and the key).
    #[error("{}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message.
        message: String,
    },
    /// A value is out of range or not allowed where it is.
    #[error("{}: `{key}`: {problem}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key, e.g. `plugins.text.timeout`.
        key: String,
        /// What is wrong.
        problem: String,
    },
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[serde(default)]
    defaults: SectionSpec,
    #[serde(default)]
    plugins: BTreeMap<String, SectionSpec>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SectionSpec {
    fuel: Option<u64>,
    memory: Option<ByteSize>,
    table_elements: Option<u64>,
    instances: Option<u32>,
    tables: Option<u32>,
    memories: Option<u32>,
    #[serde(default, with = "humantime_serde")]
    timeout: Option<Duration>,
    max_concurrent_calls: Option<u32>,
    max_argument_size: Option<ByteSize>,
    max_result_size: Option<ByteSize>,
    rate_limit: Option<u32>,
    audit_arguments: Option<bool>,
    log_lines: Option<u64>,
    log_bytes: Option<ByteSize>,
    host_resources: Option<u32>,
    max_tools: Option<u32>,
    max_schema_size: Option<ByteSize>,
    max_tool_list_size: Option<ByteSize>,
    #[serde(default)]
    mounts: Vec<MountSpec>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    env_passthrough: Vec<String>,
    sha256: Option<String>,
    client: Option<ClientSpec>,
}

/// `[plugins.NAME.client]`: which requests the plugin may send to the MCP
/// client. Both default to false.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClientSpec {
    #[serde(default)]
    sampling: bool,
    #[serde(default)]
    elicitation: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct MountSpec {
    host: PathBuf,
    guest: String,
    #[serde(default)]
    write: bool,
}

/// A loaded policy file.
#[derive(Debug, Clone)]
pub struct Config {
    path: PathBuf,
    base: PathBuf,
    defaults: SectionSpec,
    plugins: BTreeMap<String, SectionSpec>,
    max_memory: u64,
    builtin: bool,
}

impl Config {
    /// A configuration with no file: the built-in defaults for every plugin.
    pub fn builtin(max_memory: u64) -> Self {
        Config {
            path: PathBuf::from(DEFAULT_FILE),
            base: PathBuf::from("."),
            defaults: SectionSpec::default(),
            plugins: BTreeMap::new(),
            max_memory,
            builtin: true,
        }
    }

    /// Reads and checks the file at `path`. `max_memory` is the engine's
    /// per-instance memory ceiling; no limit may exceed it.
    pub fn load(path: &Path, max_memory: u64) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(path, &text, max_memory)
    }

    /// Checks `text` as the contents of the file at `path`.
    pub fn parse(path: &Path, text: &str, max_memory: u64) -> Result<Self, ConfigError> {
        let spec: FileSpec = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let invalid = |key: String, problem: &str| ConfigError::Invalid {
            path: path.to_owned(),
            key,
            problem: problem.to_string(),
        };
        let d = &spec.defaults;
        if !d.mounts.is_empty() {
            return Err(invalid(
                "defaults.mounts".into(),
                "capabilities are granted per plugin, in [plugins.NAME], never in [defaults]",
            ));
        }
        if !d.env.is_empty() || !d.env_passthrough.is_empty() {
            return Err(invalid(
                "defaults.env".into(),
                "capabilities are granted per plugin, in [plugins.NAME], never in [defaults]",
            ));
        }
        if d.client.is_some() {
            return Err(invalid(
                "defaults.client".into(),
                "capabilities are granted per plugin, in [plugins.NAME], never in [defaults]",
            ));
        }
        if d.sha256.is_some() {
            return Err(invalid(
                "defaults.sha256".into(),
                "a digest pins one plugin file; set it in [plugins.NAME]",
            ));
        }
        check_section("defaults", d, max_memory).map_err(|(k, p)| invalid(k, &p))?;
        for (name, section) in &spec.plugins {
            let prefix = format!("plugins.{name}");
            check_section(&prefix, section, max_memory).map_err(|(k, p)| invalid(k, &p))?;
            for (i, m) in section.mounts.iter().enumerate() {
                if !m.guest.starts_with('/') {
                    return Err(invalid(
                        format!("{prefix}.mounts[{i}].guest"),
                        &format!(
                            "the guest path {:?} must be absolute (start with /)",
                            m.guest
                        ),
                    ));
                }
            }
            for var in section.env.keys().chain(&section.env_passthrough) {
                if var.is_empty() || var.contains('=') || var.contains('\0') {
                    return Err(invalid(
                        format!("{prefix}.env"),
                        &format!("{var:?} is not a valid variable name"),
                    ));
                }
            }
        }
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        Ok(Config {
            path: path.to_owned(),
            base,
            defaults: spec.defaults,
            plugins: spec.plugins,
            max_memory,
            builtin: false,
        })
    }

    /// The file this configuration came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// No file was read: these are the built-in defaults ([`Config::builtin`]).
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// Plugin sections whose name is not in `loaded` (likely typos).
    pub fn unused_sections<'a>(
        &'a self,
        loaded: &'a [String],
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.plugins
            .keys()
            .filter(|k| !loaded.contains(k))
            .map(String::as_str)
    }

    /// The engine's per-instance memory ceiling this file was checked against.
    pub fn max_memory(&self) -> u64 {
        self.max_memory
    }
}

fn check_section(prefix: &str, s: &SectionSpec, max_memory: u64) -> Result<(), (String, String)> {
    let err = |key: &str, problem: String| Err((format!("{prefix}.{key}"), problem));
    if s.fuel == Some(0) {
        return err("fuel", "must be at least 1".into());
    }
    if let Some(m) = s.memory
        && (m.as_u64() < 64 * 1024 || m.as_u64() > max_memory)
    {
        return err(
            "memory",
            format!(
                "{m} is outside 64 KiB ..= {} (the engine's per-instance ceiling)",
                ByteSize(max_memory)
            ),
        );
    }
    if s.timeout.is_some_and(|t| t.is_zero()) {
        return err("timeout", "must be longer than zero".into());
    }
    if s.max_concurrent_calls == Some(0) {
        return err("max_concurrent_calls", "must be at least 1".into());
    }
    if s.max_tools == Some(0) {
        return err("max_tools", "must be at least 1".into());
    }
    for (key, size) in [
        ("max_schema_size", s.max_schema_size),
        ("max_tool_list_size", s.max_tool_list_size),
    ] {
        if size.is_some_and(|b| b.as_u64() == 0) {
            return err(key, "must be at least 1 byte".into());
        }
    }
    if let Some(Err(problem)) = s.sha256.as_deref().map(Sha256Digest::from_hex) {
        return err("sha256", problem);
    }
    Ok(())
}

fn apply(limits: &mut Limits, s: &SectionSpec) {
    let set = |target: &mut u64, v: Option<u64>| {
        if let Some(v) = v {
            *target = v;
        }
    };
    set(&mut limits.fuel, s.fuel);
    set(&mut limits.memory_bytes, s.memory.map(|b| b.as_u64()));
    set(&mut limits.table_elements, s.table_elements);
    set(
        &mut limits.max_argument_bytes,
        s.max_argument_size.map(|b| b.as_u64()),
    );
    set(
        &mut limits.max_result_bytes,
        s.max_result_size.map(|b| b.as_u64()),
    );
    set(&mut limits.log_lines, s.log_lines);
    set(&mut limits.log_bytes, s.log_bytes.map(|b| b.as_u64()));
    limits.host_resources = s.host_resources.unwrap_or(limits.host_resources);
    limits.instances = s.instances.unwrap_or(limits.instances);
    limits.tables = s.tables.unwrap_or(limits.tables);
    limits.memories = s.memories.unwrap_or(limits.memories);
    limits.timeout = s.timeout.unwrap_or(limits.timeout);
    limits.max_concurrent_calls = s
        .max_concurrent_calls
        .unwrap_or(limits.max_concurrent_calls);
    limits.rate_limit_per_minute = s.rate_limit.unwrap_or(limits.rate_limit_per_minute);
    limits.audit_arguments = s.audit_arguments.unwrap_or(limits.audit_arguments);
    limits.max_tools = s.max_tools.unwrap_or(limits.max_tools);
    set(
        &mut limits.max_schema_bytes,
        s.max_schema_size.map(|b| b.as_u64()),
    );
    set(
        &mut limits.max_tool_list_bytes,
        s.max_tool_list_size.map(|b| b.as_u64()),
    );
}

impl Policies for Config {
    fn policy_for(&self, plugin: &str) -> Result<Policy, String> {
        let mut policy = Policy {
            section: format!("plugins.{plugin}"),
            config_file: self.path.display().to_string(),
            ..Policy::default()
        };
        apply(&mut policy.limits, &self.defaults);
        if let Some(section) = self.plugins.get(plugin) {
            apply(&mut policy.limits, section);
            // Checked when the file was parsed.
            policy.sha256 = section
                .sha256
                .as_deref()
                .and_then(|hex| Sha256Digest::from_hex(hex).ok());
            let mut mounts = Vec::new();
            for (i, m) in section.mounts.iter().enumerate() {
                let joined = self.base.join(&m.host);
                let host = joined.canonicalize().map_err(|e| {
                    format!(
                        "{}: `plugins.{plugin}.mounts[{i}].host`: {} does not exist or cannot be opened: {e}",
                        self.path.display(),
                        joined.display()
                    )
                })?;
                if !host.is_dir() {
                    return Err(format!(
                        "{}: `plugins.{plugin}.mounts[{i}].host`: {} is not a directory",
                        self.path.display(),
                        host.display()
                    ));
                }
                mounts.push(Mount {
                    host,
                    guest: m.guest.clone(),
                    write: m.write,
                });
            }
            policy.filesystem = FilesystemPolicy { mounts };
            policy.env = EnvPolicy {
                vars: section
                    .env
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                passthrough: section.env_passthrough.clone(),
            };
            let client = section.client.unwrap_or_default();
            policy.client = ClientPolicy {
                sampling: client.sampling,
                elicitation: client.elicitation,
            };
        }
        Ok(policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: u64 = 1 << 30;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("/etc/mcp-wasm-host.toml"), text, MAX)
    }

    #[test]
    fn a_complete_file_resolves_per_plugin() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        let path = dir.path().join("mcp-wasm-host.toml");
        std::fs::write(
            &path,
            r#"
[defaults]
fuel = 500_000_000
memory = "64 MiB"
timeout = "5s"

[plugins.text]
timeout = "30s"
max_concurrent_calls = 2
rate_limit = 0
env = { GREETING = "hello" }
env_passthrough = ["HOME"]
[[plugins.text.mounts]]
host = "data"
guest = "/data"
write = true
"#,
        )
        .unwrap();
        let config = Config::load(&path, MAX).unwrap();
        let text = config.policy_for("text").unwrap();
        assert_eq!(text.limits.fuel, 500_000_000);
        assert_eq!(text.limits.memory_bytes, 64 << 20);
        assert_eq!(text.limits.timeout, Duration::from_secs(30));
        assert_eq!(text.limits.max_concurrent_calls, 2);
        assert_eq!(text.limits.rate_limit_per_minute, 0);
        assert_eq!(text.filesystem.mounts.len(), 1);
        assert_eq!(
            text.filesystem.mounts[0].host,
            dir.path().join("data").canonicalize().unwrap()
        );
        assert!(text.filesystem.mounts[0].write);
        assert_eq!(
            text.env.vars,
            [("GREETING".to_string(), "hello".to_string())]
        );
        let other = config.policy_for("json").unwrap();
        assert_eq!(other.limits.timeout, Duration::from_secs(5));
        assert!(other.filesystem.mounts.is_empty() && other.env.vars.is_empty());
        let loaded = ["json".to_string()];
        assert_eq!(
            config.unused_sections(&loaded).collect::<Vec<_>>(),
            ["text"]
        );
    }

    #[test]
    fn typos_and_wrong_types_name_the_line_and_key() {
        let e = parse("[defaults]\nfule = 5\n").unwrap_err().to_string();
        assert!(
            e.contains("/etc/mcp-wasm-host.toml") && e.contains("line 2") && e.contains("fule"),
            "{e}"
        );
        let e = parse("[plugins.text]\ntimeout = 5\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("timeout"), "{e}");
        let e = parse("[plugins.text]\nmemory = \"lots\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("memory"), "{e}");
        let e = parse("[plugin.text]\n").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("plugin"), "{e}");
        let e = parse("[[plugins.t.mounts]]\nhost = \"x\"\nguest = \"/x\"\nwrite = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 4") && e.contains("write"), "{e}");
    }

    #[test]
    fn values_are_range_checked() {
        let e = parse("[defaults]\nmemory = \"4 GiB\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`defaults.memory`"), "{e}");
        let e = parse("[plugins.a]\ntimeout = \"0s\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`plugins.a.timeout`"), "{e}");
        let e = parse("[[plugins.a.mounts]]\nhost = \".\"\nguest = \"data\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("must be absolute"), "{e}");
        let e = parse("[[defaults.mounts]]\nhost = \".\"\nguest = \"/d\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("granted per plugin"), "{e}");
    }

    #[test]
    fn tool_list_bounds_default_and_are_overridden_per_plugin() {
        let config = parse(
            "[defaults]\nmax_tools = 50\n[plugins.big]\nmax_tools = 100_000\nmax_schema_size = \"1 MiB\"\nmax_tool_list_size = \"64 MiB\"\n",
        )
        .unwrap();
        let big = config.policy_for("big").unwrap().limits;
        assert_eq!(
            (big.max_tools, big.max_schema_bytes, big.max_tool_list_bytes),
            (100_000, 1 << 20, 64 << 20)
        );
        let other = config.policy_for("other").unwrap().limits;
        let d = Limits::default();
        assert_eq!(
            (
                other.max_tools,
                other.max_schema_bytes,
                other.max_tool_list_bytes
            ),
            (50, d.max_schema_bytes, d.max_tool_list_bytes)
        );
        for (text, key) in [
            ("[defaults]\nmax_tools = 0\n", "`defaults.max_tools`"),
            (
                "[plugins.a]\nmax_schema_size = 0\n",
                "`plugins.a.max_schema_size`",
            ),
            (
                "[plugins.a]\nmax_tool_list_size = \"0 B\"\n",
                "`plugins.a.max_tool_list_size`",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("at least 1"), "{e}");
        }
        let e = parse("[defaults]\nmax_tools = \"many\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("max_tools"), "{e}");
    }

    #[test]
    fn a_pinned_digest_is_checked_and_resolved() {
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let config = parse(&format!(
            "[plugins.a]\nsha256 = \"{}\"\n",
            hex.to_uppercase()
        ))
        .unwrap();
        assert_eq!(
            config
                .policy_for("a")
                .unwrap()
                .sha256
                .map(|d| d.to_string()),
            Some(hex.to_string())
        );
        assert_eq!(config.policy_for("b").unwrap().sha256, None);
        let e = parse("[plugins.a]\nsha256 = \"abc\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`plugins.a.sha256`") && e.contains("64 hexadecimal"),
            "{e}"
        );
        let e = parse(&format!("[defaults]\nsha256 = \"{hex}\"\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`defaults.sha256`"), "{e}");
    }

    #[test]
    fn requests_to_the_client_are_granted_per_plugin_and_kind() {
        let config = parse(
            "[plugins.a.client]\nsampling = true\nelicitation = true\n[plugins.b.client]\nelicitation = true\n[plugins.c]\nfuel = 5\n",
        )
        .unwrap();
        let grant = |name: &str| {
            let c = config.policy_for(name).unwrap().client;
            (c.sampling, c.elicitation)
        };
        assert_eq!(grant("a"), (true, true));
        assert_eq!(grant("b"), (false, true));
        assert_eq!(grant("c"), (false, false));
        assert_eq!(grant("unlisted"), (false, false));
        let e = parse("[plugins.a.client]\nsampling = true\nroots = true\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3") && e.contains("roots"), "{e}");
        let e = parse("[plugins.a.client]\nsampling = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("sampling"), "{e}");
        let e = parse("[defaults.client]\nsampling = true\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`defaults.client`") && e.contains("granted per plugin"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_mount_is_an_error_for_that_plugin_only() {
        let config =
            parse("[[plugins.a.mounts]]\nhost = \"/definitely/not/here\"\nguest = \"/d\"\n")
                .unwrap();
        let e = config.policy_for("a").unwrap_err();
        assert!(
            e.contains("plugins.a.mounts[0].host") && e.contains("/definitely/not/here"),
            "{e}"
        );
        assert!(config.policy_for("b").is_ok());
    }
}

#[cfg(test)]
mod documentation {
    //! The README's policy reference and the example file must match the code.
    use super::*;
    use crate::runtime::policy::{bytes, count};

    fn workspace_file(rel: &str) -> (PathBuf, String) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        (path, text)
    }

    #[test]
    fn the_example_file_parses_and_its_defaults_are_the_real_ones() {
        let (path, text) = workspace_file("examples/mcp-wasm-host.toml");
        let config = Config::parse(&path, &text, 1 << 30).unwrap();
        let unlisted = config.policy_for("some-other-plugin").unwrap();
        assert_eq!(unlisted.limits, Limits::default());
        let json = config.policy_for("json").unwrap();
        assert_eq!(json.limits.memory_bytes, 256 << 20);
    }

    #[test]
    fn the_readme_defaults_table_matches_the_code() {
        let (_, readme) = workspace_file("README.md");
        let (_, example) = workspace_file("examples/mcp-wasm-host.toml");
        assert!(
            readme.contains(example.trim_end()),
            "the README embeds examples/mcp-wasm-host.toml verbatim"
        );
        let d = Limits::default();
        let int = |n: u64| count(n).replace(',', "_");
        let rows = [
            format!("| `fuel` | integer | `{}` |", int(d.fuel)),
            format!("| `memory` | size | `\"{}\"` |", bytes(d.memory_bytes)),
            format!(
                "| `table_elements` | integer | `{}` |",
                int(d.table_elements)
            ),
            format!("| `instances` | integer | `{}` |", d.instances),
            format!("| `tables` | integer | `{}` |", d.tables),
            format!("| `memories` | integer | `{}` |", d.memories),
            format!("| `timeout` | duration | `\"{}s\"` |", d.timeout.as_secs()),
            format!(
                "| `max_concurrent_calls` | integer | `{}` |",
                d.max_concurrent_calls
            ),
            format!(
                "| `max_argument_size` | size | `\"{}\"` |",
                bytes(d.max_argument_bytes)
            ),
            format!(
                "| `max_result_size` | size | `\"{}\"` |",
                bytes(d.max_result_bytes)
            ),
            format!("| `rate_limit` | integer | `{}` |", d.rate_limit_per_minute),
            format!("| `audit_arguments` | boolean | `{}` |", d.audit_arguments),
            format!("| `log_lines` | integer | `{}` |", int(d.log_lines)),
            format!("| `log_bytes` | size | `\"{}\"` |", bytes(d.log_bytes)),
            format!(
                "| `host_resources` | integer | `{}` |",
                int(u64::from(d.host_resources))
            ),
            format!("| `max_tools` | integer | `{}` |", int(d.max_tools.into())),
            format!(
                "| `max_schema_size` | size | `\"{}\"` |",
                bytes(d.max_schema_bytes)
            ),
            format!(
                "| `max_tool_list_size` | size | `\"{}\"` |",
                bytes(d.max_tool_list_bytes)
            ),
        ];
        for row in rows {
            assert!(readme.contains(&row), "README.md lacks the row {row}");
        }
    }
}
