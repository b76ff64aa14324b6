//! The capabilities a sandbox can grant, one module each, and the registry
//! that lists them. A capability owns its keys of a `[plugins.NAME]`
//! section and their checks, its effective policy, how that policy applies
//! to an instance's WASI context, its host functions (on its own per-call
//! state), and what it adds to the report, to redaction and to a call's
//! end. The configuration layer, the sandbox, the call and `inspect` go
//! through the registry instead of naming capabilities; adding one is a new
//! module and one line in the `registry!` invocation below.
//!
//! The trait is split as the work is: [`Capability`] has the phases every
//! capability goes through (parse and check, configure, link); the facets
//! [`Report`], [`Redaction`] and (on a call's state) [`CallHooks`] have
//! what only some do, each method defaulting to nothing.
//!
//! Dependencies between capabilities are declared: one that reads
//! another's grant names it in [`Capability::READS`] and reads it through
//! [`Others`], which refuses any other. Today `secrets` reads `http` (an
//! injected secret's origin must be reachable) and `http` reads `secrets`
//! (its sender injects them). Redaction is no dependency: `logging` and
//! `http` redact what they log through the registry ([`Grants::redact`]),
//! whichever capability redacts.
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
pub mod config;
pub mod env;
pub mod filesystem;
pub mod http;
pub mod keyvalue;
pub mod logging;
pub mod secrets;
pub mod sockets;

pub use self::http::HttpPolicy;

use std::borrow::Cow;
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
    /// The plugin's grants, every capability's: for the registry's
    /// redaction, and for a capability's declared reads of another's
    /// ([`Others::of`]; outbound HTTP injects the secrets).
    pub grants: &'a Arc<Grants>,
    /// The plugin's section of the policy file, e.g. `plugins.text`, and
    /// the file: for hints naming the key that would grant more.
    pub section: &'a Arc<str>,
    /// See [`CallCtx::section`].
    pub config_file: &'a Arc<str>,
    /// When the call must be finished.
    pub deadline: Instant,
    /// Whose call it is: the session and user whose data `scope =
    /// "session"` and `scope = "user"` buckets hold.
    pub owner: &'a crate::state::Owner,
    /// The runtime's state store.
    pub store: &'a crate::state::StateStore,
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

/// Where a policy section's keys are checked: a plugin's section, or
/// `[defaults]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A `[plugins.NAME]` section.
    Plugin,
    /// The `[defaults]` section.
    Defaults,
}

/// The rule for a capability whose keys may not be set in `[defaults]`
/// (the default [`Capability::check`]): capabilities are granted per
/// plugin, so `spec` must be unset there.
pub fn granted_per_plugin<C: Capability>(spec: &C::Spec, scope: Scope) -> Result<(), KeyProblem> {
    if scope == Scope::Plugin || *spec == C::Spec::default() {
        return Ok(());
    }
    Err(KeyProblem::new(
        C::KEYS.first().copied().unwrap_or(C::NAME),
        "capabilities are granted per plugin, in [plugins.NAME], never in [defaults]",
    ))
}

/// One capability, implemented by its effective policy type: its phases,
/// in the order a plugin goes through them (as Spin's `Factor` has `init`,
/// `configure_app` and `prepare`).
///
/// 1. Parse and check: [`Capability::parse_key`] reads its keys of a
///    section, [`Capability::check`] checks them once the file is parsed.
/// 2. Configure: [`Capability::resolve`] makes the effective policy (once
///    per plugin, when it loads), [`Capability::configure`] applies it to
///    an instance's WASI context and [`Capability::state`] builds one
///    call's state.
/// 3. Link: [`Capability::link`] links its host functions (once per
///    engine).
///
/// What only some capabilities do lives in facets, each a trait of its own
/// whose methods all default to doing nothing: [`Report`] (the `inspect`
/// report and the hints to a denied guest), [`Redaction`] (what must not
/// leave the host, and what must not reach a guest) and, on the call's
/// state, [`CallHooks`] (what a call ends with). The registry requires
/// every capability to implement [`Report`] and [`Redaction`], and its
/// state [`CallHooks`], so that each says, once, what it does there: a
/// new capability cannot be silently left out of redaction.
///
/// A capability that reads another's grant names it in
/// [`Capability::READS`] and reads it through [`Others`], never through a
/// field of [`Grants`].
pub trait Capability: Debug + Clone + Default + PartialEq + Send + Sync + 'static {
    /// Its name, e.g. `filesystem`: the field of [`Grants`] that holds it.
    const NAME: &'static str;
    /// The keys it owns in a `[plugins.NAME]` section.
    const KEYS: &'static [&'static str];
    /// The capabilities whose grants it reads, by [`Capability::NAME`]
    /// (through [`Others`]). One it reads while resolving must be
    /// registered before it.
    const READS: &'static [&'static str] = &[];
    /// Its keys of one section as parsed, before any check.
    type Spec: Debug + Clone + Default + PartialEq;
    /// What one call of a plugin holds for it (in the store's
    /// [`CallCaps`]).
    type State: CallHooks;

    /// Reads the value of `key` (one of [`Capability::KEYS`]) with
    /// `map.next_value()`, so that the parser's errors keep their line and
    /// key.
    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut Self::Spec,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// Checks its keys of a section once the file is parsed. By default a
    /// plugin's section may set anything its parser accepts and
    /// `[defaults]` nothing ([`granted_per_plugin`]).
    fn check(spec: &Self::Spec, scope: Scope) -> Result<(), KeyProblem> {
        granted_per_plugin::<Self>(spec, scope)
    }

    /// The effective policy of a plugin whose section says `spec` (`None`:
    /// it has no section) under `defaults`. `others` holds the grants it
    /// declares in [`Capability::READS`] that are resolved before it (an
    /// injected secret's origin must be one the plugin may reach, say).
    fn resolve(
        defaults: &Self::Spec,
        spec: Option<&Self::Spec>,
        ctx: &ResolveCtx<'_>,
        others: &Others<'_>,
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

    /// Links its host functions, on its state in [`CallCaps`] (reached
    /// with [`CallCaps::get_mut`]).
    fn link<T: CapsView>(_linker: &mut Linker<T>) -> wasmtime::Result<()> {
        Ok(())
    }
}

/// The reporting facet of a capability: its part of `inspect` and of a
/// denied guest's error.
pub trait Report {
    /// Its members of the `policy` object of `inspect --json`.
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// Its rows of the `policy` section of `inspect`: label and value; a row
    /// with an empty label continues the one above.
    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Tells a denied guest's user which key of the plugin's policy
    /// `section` (e.g. `plugins.text`) would grant access; `None` when it
    /// has nothing to say.
    fn denied_hint(&self, _section: &str) -> Option<String> {
        None
    }

    /// The note under imports of `kind`, given the plugin's policy (`None`:
    /// it cannot be built).
    fn import_note(_policy: Option<&Self>, _kind: ImportKind) -> Option<String> {
        None
    }

    /// What the policy grants that a component importing only the kinds
    /// `imports` holds cannot use (`check` flags it), naming the key of
    /// `section`.
    fn unused(&self, _imports: &[ImportKind], _section: &str) -> Option<String> {
        None
    }
}

/// The redaction facet of a capability: what its grants must keep from
/// leaving the host (the secrets capability redacts their values), and
/// what they refuse to let reach a guest.
pub trait Redaction {
    /// Whether [`Redaction::outbound`] rewrites anything. When no
    /// capability's does, what a guest produces is never walked: the
    /// boundary costs nothing.
    fn redacts(&self) -> bool {
        false
    }

    /// Hides, in text on its way to a log, a client or an error (a guest's
    /// message, what it printed, a call's arguments in a trace), what must
    /// not leave; borrows `text` when it holds nothing to hide. Applied
    /// before any clipping ([`Grants::guest_message`]).
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        Cow::Borrowed(text)
    }

    /// Rewrites what a guest produced on its way to the client: a result
    /// (of a tool, a task, a resource read, a prompt, a completion) or a
    /// request to the client. The runtime calls it at one boundary
    /// (`runtime::egress`), only if [`Redaction::redacts`].
    fn outbound(&self, _product: &mut dyn Outbound) {}

    /// Checks what a client sends a guest (a call's arguments, a prompt's
    /// arguments, a completion's value, a resource's URI) before any guest
    /// code runs; a refusal names the key (relative to the plugin's
    /// section) that refuses it.
    fn inbound(&self, _arguments: Arguments<'_>) -> Result<(), KeyProblem> {
        Ok(())
    }
}

/// The call hooks of a capability, on its state of one call.
pub trait CallHooks: Debug + Send + 'static {
    /// What the capability refused the call's guest, each in words naming
    /// the key that would grant it: told in the call's failure.
    fn denials(&self) -> Vec<String> {
        Vec::new()
    }

    /// Ends a call: what the capability does with what the call leaves
    /// (the logging capability writes the guest's output to the log).
    fn finish(&mut self, _end: &CallEnd<'_>) {}

    /// What `error`, raised by one of the capability's host functions,
    /// means for the call, if it is one of its own.
    fn failure_cause(_error: &wasmtime::Error) -> Option<FailureCause> {
        None
    }
}

/// A capability without a state of its own has no call hooks.
impl CallHooks for () {}

/// What a call leaves for [`CallHooks::finish`].
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

/// A capability in the registry: where [`Grants`] holds its policy and
/// [`CallCaps`] its state. The `registry!` invocation implements it for
/// each.
pub trait Member: Capability {
    /// Its policy among a plugin's grants.
    fn granted(grants: &Grants) -> &Self;
    /// Its state among a call's.
    fn state_mut(caps: &mut CallCaps) -> &mut Self::State;
}

/// Why a capability cannot read another's grant through [`Others`]: a
/// mistake in the capabilities' code, which their tests find.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    /// The reader does not name it in its [`Capability::READS`].
    #[error("the `{reader}` capability reads `{read}` without declaring it in its READS")]
    Undeclared {
        /// The capability reading.
        reader: &'static str,
        /// The capability read.
        read: &'static str,
    },
    /// It is resolved after the reader, which reads it while resolving.
    #[error(
        "the `{reader}` capability reads `{read}` while resolving, but `{read}` is registered after it"
    )]
    NotResolved {
        /// The capability reading.
        reader: &'static str,
        /// The capability read.
        read: &'static str,
    },
}

/// What one capability may read of the others' grants: those it declares
/// in [`Capability::READS`] (and, while grants are resolved, only those
/// resolved before it).
#[derive(Debug, Clone, Copy)]
pub struct Others<'a> {
    grants: &'a Grants,
    reader: &'static str,
    reads: &'static [&'static str],
    /// The capabilities whose grants are resolved.
    ready: &'static [&'static str],
}

impl<'a> Others<'a> {
    /// What `C` may read of a plugin's (resolved) `grants`.
    pub fn of<C: Capability>(grants: &'a Grants) -> Self {
        Others {
            grants,
            reader: C::NAME,
            reads: C::READS,
            ready: NAMES,
        }
    }

    /// What `C` may read of `grants` while they are resolved in
    /// registration order, when `C`'s turn comes.
    fn resolving<C: Capability>(grants: &'a Grants) -> Self {
        let turn = NAMES.iter().position(|n| *n == C::NAME).unwrap_or(0);
        Others {
            ready: &NAMES[..turn],
            ..Others::of::<C>(grants)
        }
    }

    /// The grant of `D`, if the reader declares it (and it is resolved).
    pub fn get<D: Member>(&self) -> Result<&'a D, Unreadable> {
        let (reader, read) = (self.reader, D::NAME);
        if !self.reads.contains(&read) {
            return Err(Unreadable::Undeclared { reader, read });
        }
        if !self.ready.contains(&read) {
            return Err(Unreadable::NotResolved { reader, read });
        }
        Ok(D::granted(self.grants))
    }
}

/// `text` as a redaction left it, when it changed anything.
fn changed(text: Cow<'_, str>) -> Option<String> {
    match text {
        Cow::Owned(text) => Some(text),
        Cow::Borrowed(_) => None,
    }
}

/// The shared `types` interface has no functions: linking it only declares
/// its instance.
struct Types;

impl types::Host for Types {}

impl HasData for Types {
    type Data<'a> = Types;
}

/// Generates the registry from one line per capability, `field: Policy`,
/// in the order reports list them (and grants are resolved: a capability
/// reading another's while resolving comes after it). `field` is the
/// capability's [`Capability::NAME`].
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

        $(
            impl Member for $cap {
                fn granted(grants: &Grants) -> &Self {
                    &grants.$field
                }

                fn state_mut(caps: &mut CallCaps) -> &mut Self::State {
                    &mut caps.$field
                }
            }
        )*

        /// Every capability's name, in registration order.
        pub const NAMES: &[&str] = &[$(<$cap as Capability>::NAME),*];

        /// Every capability's keys, in registration order.
        pub const KEYS: &[&[&str]] = &[$(<$cap as Capability>::KEYS),*];

        /// Every capability's declared reads, in registration order.
        pub const READS: &[&[&str]] = &[$(<$cap as Capability>::READS),*];

        /// The field names the registry gives the capabilities, which must
        /// be their names.
        #[cfg(test)]
        const FIELDS: &[&str] = &[$(stringify!($field)),*];

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
                $(<$cap as Capability>::check(&self.$field, Scope::Plugin)?;)*
                Ok(())
            }

            /// Checks the capability keys set in `[defaults]`.
            pub fn check_defaults(&self) -> Result<(), KeyProblem> {
                $(<$cap as Capability>::check(&self.$field, Scope::Defaults)?;)*
                Ok(())
            }
        }

        impl Grants {
            /// The grants of a plugin whose section says `spec` (`None`: it
            /// has none) under `defaults`, resolved in registration order.
            pub fn resolve(
                defaults: &GrantSpecs,
                spec: Option<&GrantSpecs>,
                ctx: &ResolveCtx<'_>,
            ) -> Result<Self, KeyProblem> {
                let mut grants = Grants::default();
                $(
                    let resolved = <$cap as Capability>::resolve(
                        &defaults.$field,
                        spec.map(|s| &s.$field),
                        ctx,
                        &Others::resolving::<$cap>(&grants),
                    )?;
                    grants.$field = resolved;
                )*
                Ok(grants)
            }

            /// The policy of capability `C`.
            pub fn get<C: Member>(&self) -> &C {
                C::granted(self)
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
                [$(Report::denied_hint(&self.$field, section)),*]
                    .into_iter()
                    .flatten()
                    .collect()
            }

            /// Whether a capability rewrites what a guest produces on its
            /// way to the client.
            pub fn rewrites_outbound(&self) -> bool {
                false $(|| Redaction::redacts(&self.$field))*
            }

            /// Lets every capability that does rewrite `product` (see
            /// [`Redaction::outbound`]).
            pub fn outbound(&self, product: &mut dyn Outbound) {
                $(if Redaction::redacts(&self.$field) {
                    Redaction::outbound(&self.$field, product);
                })*
            }

            /// Every capability's check of what a client sends a guest
            /// (see [`Redaction::inbound`]).
            pub fn inbound(&self, arguments: Arguments<'_>) -> Result<(), KeyProblem> {
                $(Redaction::inbound(&self.$field, arguments)?;)*
                Ok(())
            }

            /// `text` as every capability lets it leave (see
            /// [`Redaction::redact`]); borrowed when none changes it.
            pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
                let mut text = Cow::Borrowed(text);
                $(
                    if let Some(redacted) = changed(Redaction::redact(&self.$field, &text)) {
                        text = Cow::Owned(redacted);
                    }
                )*
                text
            }

            /// `text` as every capability lets it leave, without copying it
            /// when none changes it.
            pub fn redacted(&self, text: String) -> String {
                let redacted = changed(self.redact(&text));
                redacted.unwrap_or(text)
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
                $(out.extend(Report::inspect_json(&self.$field));)*
                out
            }

            /// What the grants give that a component importing only
            /// `imports` cannot use, each naming its key of `section`.
            pub fn unused(&self, imports: &[ImportKind], section: &str) -> Vec<String> {
                [$(Report::unused(&self.$field, imports, section)),*]
                    .into_iter()
                    .flatten()
                    .collect()
            }

            /// The capabilities' rows of `inspect`'s policy section.
            pub fn inspect_lines(&self) -> Vec<(&'static str, String)> {
                let mut out = Vec::new();
                $(out.extend(Report::inspect_lines(&self.$field));)*
                out
            }

            /// The notes on imports of `kind` under `grants` (`None`: the
            /// policy cannot be built).
            pub fn import_notes(grants: Option<&Self>, kind: ImportKind) -> Vec<String> {
                [$(<$cap as Report>::import_note(grants.map(|g| &g.$field), kind)),*]
                    .into_iter()
                    .flatten()
                    .collect()
            }
        }

        impl CallCaps {
            /// The state of capability `C`, for its host functions.
            pub fn get_mut<C: Member>(&mut self) -> &mut C::State {
                C::state_mut(self)
            }

            /// What every capability refused the call's guest (see
            /// [`CallHooks::denials`]).
            pub fn denials(&self) -> Vec<String> {
                let mut out = Vec::new();
                $(out.extend(CallHooks::denials(&self.$field));)*
                out
            }

            /// Ends the call for every capability (see
            /// [`CallHooks::finish`]).
            pub fn finish(&mut self, end: &CallEnd<'_>) {
                $(CallHooks::finish(&mut self.$field, end);)*
            }
        }

        /// What `error` means for the call, when a capability's host
        /// function raised it (see [`CallHooks::failure_cause`]).
        pub fn failure_cause(error: &wasmtime::Error) -> Option<FailureCause> {
            $(if let Some(cause) =
                <<$cap as Capability>::State as CallHooks>::failure_cause(error)
            {
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
            Ok(())
        }
    };
}

registry! {
    filesystem: filesystem::FilesystemPolicy,
    env: env::EnvPolicy,
    sockets: sockets::SocketsPolicy,
    client: client::ClientPolicy,
    logging: logging::LoggingPolicy,
    http: HttpPolicy,
    secrets: secrets::SecretsPolicy,
    keyvalue: keyvalue::KeyvaluePolicy,
    config: config::ConfigPolicy,
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
