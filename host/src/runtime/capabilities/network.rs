//! Network access: none. TCP, UDP and name lookup are all denied; every
//! socket address check fails. (An outbound allow-list is future work.)

use serde::de::MapAccess;
use serde_json::Value;
use wasmtime_wasi::WasiCtxBuilder;

use super::super::inspection::ImportKind;
use super::{CallCtx, Capability, CapabilityError, KeyProblem, ResolveCtx};

/// The network section of a plugin's policy (nothing can be granted yet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetworkPolicy;

impl Capability for NetworkPolicy {
    const NAME: &'static str = "network";
    const KEYS: &'static [&'static str] = &[];
    type Spec = ();
    type State = ();

    fn parse_key<'de, A: MapAccess<'de>>(
        _spec: &mut (),
        _key: &str,
        _map: &mut A,
    ) -> Result<(), A::Error> {
        Ok(())
    }

    fn resolve(
        _defaults: &(),
        _spec: Option<&()>,
        _ctx: &ResolveCtx<'_>,
    ) -> Result<Self, KeyProblem> {
        Ok(NetworkPolicy)
    }

    /// Denies every socket operation in the call's WASI context.
    fn prepare(
        &self,
        _call: &CallCtx<'_>,
        wasi: &mut WasiCtxBuilder,
    ) -> Result<(), CapabilityError> {
        wasi.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }));
        Ok(())
    }

    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        vec![("network", "none".into())]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        vec![("network", "none".to_string())]
    }

    fn import_note(_policy: Option<&Self>, kind: ImportKind) -> Option<String> {
        (kind == ImportKind::Sockets)
            .then(|| "requests network access — denied by this host".to_string())
    }
}
