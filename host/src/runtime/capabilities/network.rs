//! Network access: none. TCP, UDP and name lookup are all denied; every
//! socket address check fails. (An outbound allow-list is future work.)

use wasmtime_wasi::WasiCtxBuilder;

/// The network section of a plugin's policy (nothing can be granted yet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetworkPolicy;

impl NetworkPolicy {
    /// Denies every socket operation in a call's WASI context.
    pub fn apply(&self, wasi: &mut WasiCtxBuilder) {
        wasi.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }));
    }
}
