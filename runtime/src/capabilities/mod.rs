//! The capabilities a sandbox can grant, one module each, and the registry
//! that lists them. A capability owns its keys of a `[plugins.NAME]`
//! section and their checks, its effective policy, how that policy applies
//! to an instance's WASI context, its host functions (on its own per-call state),
//! the hint that names the key granting a denied access, and its part of the
//! `inspect` report. The configuration layer, the sandbox, the call and
//! `inspect` go through the registry instead of naming capabilities; adding
//! one is a new module and one line in the `registry!` invocation below.
//!
//! Module edges: `sandbox` and `policy` import only this registry (the
//! generated [`Grants`], [`CallCaps`], [`CallCtx`] and [`CapsView`]), never
//! a capability's module. The capabilities import neither of them: they
//! link their host functions into any store that implements [`CapsView`]
//! (the sandbox's `CallState` does), and a call reaches them as a
//! [`CallCtx`] (limits, grants, section and file), not as a `Policy`. What
//! they do import leads nowhere back here: `bindings`, `events`, `error`
//! (its message clipping), `imports` ([`ImportKind`]), `limits`,
//! `log_budget`, `outbound` (the fields of a guest's products) and `units`.
//! `host/tests/all/layering.rs` checks that the runtime's modules import
//! each other without a cycle.

pub mod client;
pub mod env;
pub mod filesystem;
pub mod http;
pub mod io_errors;
pub mod logging;
pub mod secrets;
pub mod sockets;

use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::Deserialize as _;
use serde::de::{self, MapAccess};
use serde_json::Value;
use wasmtime::component::{HasData, Linker, ResourceTable};
use wasmtime_wasi::WasiCtxBuilder;

use super::error::{FailureCause, MAX_MESSAGE, clip};
use crate::call::events::CallEvents;
use crate::egress::outbound::Outbound;
use crate::load::bindings::mcp_wasm_host::plugin::types;
use crate::load::imports::ImportKind;
use crate::policy::limits::Limits;

/// A key of a policy section whose value is refused, and why. `key` is
/// relative to the section (`mounts[0].guest`); the configuration layer
/// prefixes it with the section (`plugins.text.mounts[0].guest`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}`: {problem}")]
pub struct KeyProblem {
    /// The key, relative to its section.
    pub key: String,
    /// What is wrong with its value.
    pub problem: String,
}

impl KeyProblem {
    /// The value of `key` is refused because of `problem` (text, or a
    /// module's typed error, kept as its message).
    pub fn new(key: impl Into<String>, problem: impl std::fmt::Display) -> Self {
        KeyProblem {
            key: key.into(),
            problem: problem.to_string(),
        }
    }
}

/// What a capability's effective policy is resolved against.
#[derive(Debug, Clone, Copy)]
pub struct ResolveCtx<'a> {
    /// The policy file.
    pub config_file: &'a Path,
    /// The directory relative host paths are resolved against (the policy
    /// file's).
    pub base: &'a Path,
    /// The plugin's section, e.g. `plugins.text`.
    pub section: &'a str,
}

/// What a capability knows of the call it builds a state for. Its members are shared
/// handles, so that a capability keeps what it needs for the call with a
/// reference count, never a copy.
#[derive(Clone, Copy)]
pub struct CallCtx<'a> {
    /// The plugin.
    pub plugin: &'a Arc<str>,
    /// The tool being called.
    pub tool: &'a Arc<str>,
    /// Where the call's reports and requests to the client go.
    pub events: &'a Arc<dyn CallEvents>,
    /// The call's resource limits.
    pub limits: &'a Limits,
    /// The plugin's grants, every capability's (one may need another's:
    /// outbound HTTP injects the secrets).
    pub grants: &'a Arc<Grants>,
    /// The plugin's section of the policy file, e.g. `plugins.text`, and
    /// the file: for hints naming the key that would grant more.
    pub section: &'a Arc<str>,
    /// See [`CallCtx::section`].
    pub config_file: &'a Arc<str>,
    /// When the call must be finished.
    pub deadline: Instant,
}

impl Debug for CallCtx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallCtx")
            .field("plugin", self.plugin)
            .field("tool", self.tool)
            .field("section", self.section)
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

/// What a client sends a guest, for the capabilities' inbound checks.
#[derive(Debug, Clone, Copy)]
pub enum Arguments<'a> {
    /// A tool call's arguments.
    Json(&'a Value),
    /// A prompt's arguments (names and values), a completion's argument,
    /// value and context, a resource's URI.
    Texts(&'a [&'a str]),
}

/// Why a call's sandbox could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CapabilityError {
    /// A mounted directory could not be opened.
    #[error(transparent)]
    Mount(#[from] filesystem::MountError),
}

/// The store of a call, as the capabilities' host functions see it: their
/// states, and the resource table WASI shares. The sandbox's store
/// implements it; capabilities link against it, not against the store.
pub trait CapsView: Send + 'static {
    /// The capabilities' states.
    fn caps(&mut self) -> &mut CallCaps;

    /// The resource table and the capabilities' states at once, for a
    /// capability whose host functions use both (wasi:http's streams live
    /// in the table WASI shares).
    fn table_and_caps(&mut self) -> (&mut ResourceTable, &mut CallCaps);
}

/// One capability, implemented by its effective policy type.
pub trait Capability: Debug + Clone + Default + PartialEq + Send + Sync + 'static {
    /// Its name, e.g. `filesystem`.
    const NAME: &'static str;
    /// The keys it owns in a `[plugins.NAME]` section.
    const KEYS: &'static [&'static str];
    /// Its keys of one section as parsed, before any check.
    type Spec: Debug + Clone + Default + PartialEq;
    /// What one call of a plugin holds for it (in the store's
    /// [`CallCaps`]).
    type State: Debug + Send + 'static;

    /// Reads the value of `key` (one of [`Capability::KEYS`]) with
    /// `map.next_value()`, so that the parser's errors keep their line and
    /// key.
    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut Self::Spec,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// Checks a `[plugins.NAME]` section's keys once the file is parsed.
    fn check(_spec: &Self::Spec) -> Result<(), KeyProblem> {
        Ok(())
    }

    /// Checks the keys set in `[defaults]`. By default none may be:
    /// capabilities are granted per plugin.
    fn check_defaults(spec: &Self::Spec) -> Result<(), KeyProblem> {
        if *spec == Self::Spec::default() {
            return Ok(());
        }
        Err(KeyProblem::new(
            Self::KEYS.first().copied().unwrap_or(Self::NAME),
            "capabilities are granted per plugin, in [plugins.NAME], never in [defaults]",
        ))
    }

    /// The effective policy of a plugin whose section says `spec` (`None`:
    /// it has no section) under `defaults`.
    fn resolve(
        defaults: &Self::Spec,
        spec: Option<&Self::Spec>,
        ctx: &ResolveCtx<'_>,
    ) -> Result<Self, KeyProblem>;

    /// Applies the policy to an instance's WASI context, which serves every
    /// call the instance runs (one, unless the plugin reuses instances).
    fn configure(&self, _wasi: &mut WasiCtxBuilder) -> Result<(), CapabilityError> {
        Ok(())
    }

    /// Builds one call's state: everything a call has of its own (its
    /// tool, its events, its deadline, its budgets) lives here, so that a
    /// reused instance starts each call afresh.
    fn state(&self, call: &CallCtx<'_>) -> Self::State;

    /// Links its host functions, on its state in [`CallCaps`].
    fn link<T: CapsView>(_linker: &mut Linker<T>) -> wasmtime::Result<()> {
        Ok(())
    }

    /// Tells a denied guest's user which key of the plugin's policy
    /// `section` (e.g. `plugins.text`) would grant access; `None` when it
    /// has nothing to say.
    fn denied_hint(&self, _section: &str) -> Option<String> {
        None
    }

    /// Its members of the `policy` object of `inspect --json`.
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// Its rows of the `policy` section of `inspect`: label and value; a row
    /// with an empty label continues the one above.
    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// The note under imports of `kind`, given the plugin's policy (`None`:
    /// it cannot be built).
    fn import_note(_policy: Option<&Self>, _kind: ImportKind) -> Option<String> {
        None
    }

    /// Checks this grant against the plugin's other grants once all are
    /// resolved (a secret injected into an origin the plugin may not
    /// reach, say).
    fn check_with(&self, _grants: &Grants) -> Result<(), KeyProblem> {
        Ok(())
    }

    /// Whether [`Capability::outbound`] rewrites anything. When no
    /// capability's does, what a guest produces is never walked: the
    /// boundary costs nothing.
    fn rewrites_outbound(&self) -> bool {
        false
    }

    /// Rewrites what a guest produced on its way to the client: a result
    /// (of a tool, a task, a resource read, a prompt, a completion) or a
    /// request to the client. The runtime calls it at one boundary
    /// (`runtime::egress`), only if [`Capability::rewrites_outbound`].
    fn outbound(&self, _product: &mut dyn Outbound) {}

    /// Hides, in text on its way to a log, a client or an error (a guest's
    /// message, what it printed, a call's arguments in a trace), what this
    /// capability's grants must keep from leaving: the secrets capability
    /// redacts their values. Applied before any clipping
    /// ([`Grants::guest_message`]).
    fn redacted(&self, text: String) -> String {
        text
    }

    /// What this capability refused the call's guest, each in words naming
    /// the key that would grant it: told in the call's failure.
    fn denials(_state: &Self::State) -> Vec<String> {
        Vec::new()
    }

    /// What `error`, raised by one of this capability's host functions,
    /// means for the call, if it is one of its own.
    fn failure_cause(_error: &wasmtime::Error) -> Option<FailureCause> {
        None
    }

    /// Ends a call: what this capability does with what the call leaves
    /// (the logging capability writes the guest's output to the log).
    fn finish(_state: &mut Self::State, _end: &CallEnd<'_>) {}

    /// Checks what a client sends a guest (a call's arguments, a prompt's
    /// arguments, a completion's value, a resource's URI) before any guest
    /// code runs; a refusal names the key (relative to the plugin's
    /// section) that refuses it.
    fn inbound(&self, _arguments: Arguments<'_>) -> Result<(), KeyProblem> {
        Ok(())
    }
}

/// What a call leaves for [`Capability::finish`].
#[derive(Debug)]
pub struct CallEnd<'a> {
    /// What the guest wrote to each stream (`stdout`, `stderr`) within the
    /// capture limit, and how many bytes beyond it were dropped.
    pub output: [(&'static str, String, usize); 2],
    /// The plugin's limits.
    pub limits: &'a Limits,
    /// The plugin's policy section (`plugins.NAME`), for hints.
    pub section: &'a str,
    /// The policy file, for hints.
    pub config_file: &'a str,
}

/// The shared `types` interface has no functions: linking it only declares
/// its instance.
struct Types;

impl types::Host for Types {}

impl HasData for Types {
    type Data<'a> = Types;
}

/// Generates the registry from one line per capability, `field: Policy`,
/// in the order reports list them.
macro_rules! registry {
    ($($field:ident: $cap:ty),* $(,)?) => {
        /// A plugin's effective grants: every capability's policy.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct Grants {
            $(
                #[doc = concat!("The `", stringify!($field), "` capability.")]
                pub $field: $cap,
            )*
        }

        /// The capabilities' keys of one policy section, as parsed.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct GrantSpecs {
            $(
                #[doc = concat!("The `", stringify!($field), "` capability's keys.")]
                pub $field: <$cap as Capability>::Spec,
            )*
        }

        /// The capabilities' states for one call.
        #[derive(Debug)]
        pub struct CallCaps {
            $(
                #[doc = concat!("The `", stringify!($field), "` capability's state.")]
                pub $field: <$cap as Capability>::State,
            )*
        }

        /// Every capability's name, in registration order.
        pub const NAMES: &[&str] = &[$(<$cap as Capability>::NAME),*];

        /// Every capability's keys, in registration order.
        pub const KEYS: &[&[&str]] = &[$(<$cap as Capability>::KEYS),*];

        impl GrantSpecs {
            /// Reads the value of `key` if a capability owns it; `false`
            /// (nothing read) if none does.
            pub fn accept<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                $(
                    if <$cap as Capability>::KEYS.contains(&key) {
                        <$cap as Capability>::parse_key(&mut self.$field, key, map)?;
                        return Ok(true);
                    }
                )*
                Ok(false)
            }

            /// Checks a `[plugins.NAME]` section's capability keys.
            pub fn check(&self) -> Result<(), KeyProblem> {
                $(<$cap as Capability>::check(&self.$field)?;)*
                Ok(())
            }

            /// Checks the capability keys set in `[defaults]`.
            pub fn check_defaults(&self) -> Result<(), KeyProblem> {
                $(<$cap as Capability>::check_defaults(&self.$field)?;)*
                Ok(())
            }
        }

        impl Grants {
            /// The grants of a plugin whose section says `spec` (`None`: it
            /// has none) under `defaults`.
            pub fn resolve(
                defaults: &GrantSpecs,
                spec: Option<&GrantSpecs>,
                ctx: &ResolveCtx<'_>,
            ) -> Result<Self, KeyProblem> {
                let grants = Grants {
                    $($field: <$cap as Capability>::resolve(
                        &defaults.$field,
                        spec.map(|s| &s.$field),
                        ctx,
                    )?,)*
                };
                $(grants.$field.check_with(&grants)?;)*
                Ok(grants)
            }

            /// Applies every grant to an instance's WASI context.
            pub fn configure(&self, wasi: &mut WasiCtxBuilder) -> Result<(), CapabilityError> {
                $(self.$field.configure(wasi)?;)*
                Ok(())
            }

            /// Every capability's state for one call.
            pub fn call_caps(&self, call: &CallCtx<'_>) -> CallCaps {
                CallCaps {
                    $($field: self.$field.state(call),)*
                }
            }

            /// The capabilities' hints for a denied guest of the plugin
            /// whose policy section is `section`, in order.
            pub fn denied_hints(&self, section: &str) -> Vec<String> {
                [$(self.$field.denied_hint(section)),*].into_iter().flatten().collect()
            }

            /// Whether a capability rewrites what a guest produces on its
            /// way to the client.
            pub fn rewrites_outbound(&self) -> bool {
                false $(|| self.$field.rewrites_outbound())*
            }

            /// Lets every capability that does rewrite `product` (see
            /// [`Capability::outbound`]).
            pub fn outbound(&self, product: &mut dyn Outbound) {
                $(if self.$field.rewrites_outbound() {
                    self.$field.outbound(product);
                })*
            }

            /// Every capability's check of what a client sends a guest
            /// (see [`Capability::inbound`]).
            pub fn inbound(&self, arguments: Arguments<'_>) -> Result<(), KeyProblem> {
                $(self.$field.inbound(arguments)?;)*
                Ok(())
            }

            /// `text` as every capability lets it leave (see
            /// [`Capability::redacted`]).
            pub fn redacted(&self, text: String) -> String {
                $(let text = self.$field.redacted(text);)*
                text
            }

            /// Text a guest wrote, as the host passes it on: redacted, then
            /// clipped to [`MAX_MESSAGE`]. Never the other way round: a clip
            /// that cuts a secret in two leaves a prefix no redaction finds.
            pub fn guest_message(&self, text: String) -> String {
                clip(self.redacted(text), MAX_MESSAGE)
            }

            /// The capabilities' members of `inspect --json`'s policy.
            pub fn inspect_json(&self) -> Vec<(&'static str, Value)> {
                let mut out = Vec::new();
                $(out.extend(self.$field.inspect_json());)*
                out
            }

            /// The capabilities' rows of `inspect`'s policy section.
            pub fn inspect_lines(&self) -> Vec<(&'static str, String)> {
                let mut out = Vec::new();
                $(out.extend(self.$field.inspect_lines());)*
                out
            }

            /// The notes on imports of `kind` under `grants` (`None`: the
            /// policy cannot be built).
            pub fn import_notes(grants: Option<&Self>, kind: ImportKind) -> Vec<String> {
                [$(<$cap as Capability>::import_note(grants.map(|g| &g.$field), kind)),*]
                    .into_iter()
                    .flatten()
                    .collect()
            }
        }

        impl CallCaps {
            /// What every capability refused the call's guest (see
            /// [`Capability::denials`]).
            pub fn denials(&self) -> Vec<String> {
                let mut out = Vec::new();
                $(out.extend(<$cap as Capability>::denials(&self.$field));)*
                out
            }

            /// Ends the call for every capability (see
            /// [`Capability::finish`]).
            pub fn finish(&mut self, end: &CallEnd<'_>) {
                $(<$cap as Capability>::finish(&mut self.$field, end);)*
            }
        }

        /// What `error` means for the call, when a capability's host
        /// function raised it (see [`Capability::failure_cause`]).
        pub fn failure_cause(error: &wasmtime::Error) -> Option<FailureCause> {
            $(if let Some(cause) = <$cap as Capability>::failure_cause(error) {
                return Some(cause);
            })*
            None
        }

        /// Links every capability's host functions, and the shared `types`.
        pub fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
            types::add_to_linker::<T, Types>(linker, |_| Types)?;
            crate::load::bindings::link_earlier(linker, "types", |older| {
                types::add_to_linker_instance::<T, Types>(older, |_| Types)
            })?;
            $(<$cap as Capability>::link(linker)?;)*
            io_errors::link(linker)?;
            Ok(())
        }
    };
}

registry! {
    filesystem: filesystem::FilesystemPolicy,
    env: env::EnvPolicy,
    network: sockets::SocketsPolicy,
    client: client::ClientPolicy,
    logging: logging::LoggingPolicy,
    http: http::HttpPolicy,
    secrets: secrets::SecretsPolicy,
}

/// Redefines, with `define`, functions of the already linked `interface`
/// (`wasi:io/error@0.2.12`): for a host function whose WASI implementation
/// the host replaces.
pub(crate) fn replace<T: 'static>(
    linker: &mut Linker<T>,
    interface: &str,
    define: impl FnOnce(&mut wasmtime::component::LinkerInstance<'_, T>) -> wasmtime::Result<()>,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let defined = linker
        .instance(interface)
        .and_then(|mut instance| define(&mut instance));
    linker.allow_shadowing(false);
    defined
}

/// Every key a capability owns, in registration order.
pub fn keys() -> impl Iterator<Item = &'static str> {
    KEYS.iter().flat_map(|keys| keys.iter().copied())
}

/// A section holding only capability keys; refuses any other key.
impl<'de> serde::Deserialize<'de> for GrantSpecs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = GrantSpecs;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a table of capability keys")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GrantSpecs, A::Error> {
                let mut specs = GrantSpecs::default();
                while let Some(key) = map.next_key_seed(KnownKey(all_keys()))? {
                    specs.accept(&key, &mut map)?;
                }
                Ok(specs)
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// The capability keys as one `'static` list, for parse errors.
fn all_keys() -> &'static [&'static str] {
    static ALL: std::sync::LazyLock<Vec<&'static str>> =
        std::sync::LazyLock::new(|| keys().collect());
    &ALL
}

/// Deserializes a key, refusing any not in its list. Refusing it while the
/// key is read (not after) lets the parser name the key's line.
#[derive(Debug, Clone, Copy)]
pub struct KnownKey(pub &'static [&'static str]);

impl<'de> de::DeserializeSeed<'de> for KnownKey {
    type Value = String;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        let key = String::deserialize(deserializer)?;
        if self.0.contains(&key.as_str()) {
            Ok(key)
        } else {
            Err(de::Error::unknown_field(&key, self.0))
        }
    }
}

#[cfg(test)]
mod tests;
