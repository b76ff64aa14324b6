//! The state of one instance's store: its WASI context (built from the
//! plugin's policy, which grants nothing by default), its resource limiter
//! and its captured stdio, which last as long as the instance; and the
//! current call's tool, deadline and capabilities' states (whose host
//! functions are in their modules under [`crate::capabilities`]), which
//! [`CallState::begin_call`] replaces when a reused instance starts a call.

use std::sync::{Arc, LazyLock};
use std::time::Instant;

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::call::capture::Capture;
use crate::call::events::{CallEvents, NoEvents};
use crate::capabilities::{CallCaps, CallCtx, CallEnd, CapabilityError, CapsView};
use crate::policy::Policy;
use crate::policy::limits::Limits;
use crate::state::Owner;

/// Enforces a call's memory, table and instance limits, and remembers
/// whether it refused anything and how much memory the call used.
#[derive(Debug)]
pub struct Limiter {
    memory_bytes: usize,
    table_elements: usize,
    instances: usize,
    tables: usize,
    memories: usize,
    /// The largest memory size any memory of the call reached, in bytes.
    pub peak_memory: usize,
    /// A memory growth was refused.
    pub memory_refused: bool,
    /// A table growth was refused.
    pub table_refused: bool,
}

impl Limiter {
    fn new(limits: &Limits) -> Self {
        let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        Limiter {
            memory_bytes: clamp(limits.memory_bytes),
            table_elements: clamp(limits.table_elements),
            instances: limits.instances as usize,
            tables: limits.tables as usize,
            memories: limits.memories as usize,
            peak_memory: 0,
            memory_refused: false,
            table_refused: false,
        }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            self.memory_refused = true;
            return Ok(false);
        }
        self.peak_memory = self.peak_memory.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.table_elements {
            self.table_refused = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        self.instances
    }

    fn tables(&self) -> usize {
        self.tables
    }

    fn memories(&self) -> usize {
        self.memories
    }
}

/// Everything an instance's store holds: the instance's part, and the
/// current call's.
pub struct CallState {
    wasi: WasiCtx,
    table: ResourceTable,
    /// The guest's stdout.
    pub stdout: Capture,
    /// The guest's stderr.
    pub stderr: Capture,
    /// The resource limiter. Memory never shrinks, so its limit and its
    /// peak are the instance's, whatever calls it serves.
    pub limiter: Limiter,
    /// The policy the call runs under.
    pub policy: Arc<Policy>,
    /// When the current call must be finished.
    pub deadline: Instant,
    /// The current call's capability states, on which their host functions
    /// run.
    pub caps: CallCaps,
    plugin: Arc<str>,
    tool: Arc<str>,
}

impl std::fmt::Debug for CallState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallState")
            .field("plugin", &self.plugin)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl CallState {
    /// A sandbox with exactly what `policy` grants (each capability applies
    /// its grant) and no stdin; clocks and random numbers are always
    /// available (at most the plugin's `memory` of random bytes at once).
    /// Stdout and stderr are captured.
    pub fn new(
        plugin: Arc<str>,
        tool: Arc<str>,
        events: Arc<dyn CallEvents>,
        owner: Owner,
        policy: Arc<Policy>,
        deadline: Instant,
    ) -> Result<Self, CapabilityError> {
        let stdout = Capture::new();
        let stderr = Capture::new();
        let mut wasi = WasiCtx::builder();
        wasi.stdout(stdout.clone()).stderr(stderr.clone());
        // Random bytes the guest could not hold are its fault, named by
        // its `memory` limit (wasmtime-wasi's own bound is 64 MiB).
        wasi.max_random_size(policy.limits.memory_bytes);
        policy.grants.configure(&mut wasi)?;
        let caps = call_caps(&plugin, &tool, &events, &owner, &policy, deadline);
        let mut table = ResourceTable::new();
        table.set_max_capacity(policy.limits.host_resources as usize);
        Ok(CallState {
            wasi: wasi.build(),
            table,
            stdout,
            stderr,
            limiter: Limiter::new(&policy.limits),
            caps,
            policy,
            deadline,
            plugin,
            tool,
        })
    }

    /// Starts another call on this state's instance: the call gets its own
    /// tool, deadline and capability states (its events, log budget and
    /// HTTP sender among them), an empty capture of its stdout and stderr,
    /// and no record of an earlier call's refusals. Fuel and the epoch
    /// deadline are the store's; the caller sets them.
    pub fn begin_call(
        &mut self,
        tool: Arc<str>,
        events: Arc<dyn CallEvents>,
        owner: Owner,
        deadline: Instant,
    ) {
        self.begin_first_call(tool, events, owner, deadline);
        self.stdout.clear();
        self.stderr.clear();
        self.limiter.memory_refused = false;
        self.limiter.table_refused = false;
    }

    /// Starts the first call on this state's instance, made ahead of the
    /// call (a ready instance): the call gets its own tool, deadline and
    /// capability states, as [`CallState::begin_call`] gives them; what the
    /// instantiation wrote to stdout and stderr, and any growth it was
    /// refused, stay the call's, as they would in an instance made for it.
    pub fn begin_first_call(
        &mut self,
        tool: Arc<str>,
        events: Arc<dyn CallEvents>,
        owner: Owner,
        deadline: Instant,
    ) {
        self.caps = call_caps(&self.plugin, &tool, &events, &owner, &self.policy, deadline);
        self.tool = tool;
        self.deadline = deadline;
    }

    /// Ends a call whose instance is kept idle: lets go of what only the
    /// call needed (its events, which hold the client's session, and its
    /// HTTP sender).
    pub fn end_call(&mut self) {
        static IDLE: LazyLock<Arc<dyn CallEvents>> = LazyLock::new(|| Arc::new(NoEvents));
        let owner = Owner::default();
        self.caps = call_caps(
            &self.plugin,
            &self.tool,
            &IDLE,
            &owner,
            &self.policy,
            self.deadline,
        );
    }

    /// Whether the limiter refused a memory or table growth.
    pub fn refused_growth(&self) -> bool {
        self.limiter.memory_refused || self.limiter.table_refused
    }

    /// The plugin this call belongs to.
    pub fn plugin(&self) -> &str {
        &self.plugin
    }

    /// The tool being called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Ends the call for every capability, with what the guest printed
    /// (the logging capability writes it to the server log).
    pub fn finish_capabilities(&mut self) {
        let [(stdout, out_dropped), (stderr, err_dropped)] =
            [&self.stdout, &self.stderr].map(|capture| capture.contents());
        let end = CallEnd {
            output: [
                ("stdout", stdout, out_dropped),
                ("stderr", stderr, err_dropped),
            ],
            limits: &self.policy.limits,
            section: &self.policy.section,
            config_file: &self.policy.config_file,
        };
        self.caps.finish(&end);
    }
}

/// The capabilities' states for one call of `tool`.
fn call_caps(
    plugin: &Arc<str>,
    tool: &Arc<str>,
    events: &Arc<dyn CallEvents>,
    owner: &Owner,
    policy: &Policy,
    deadline: Instant,
) -> CallCaps {
    policy.grants.call_caps(&CallCtx {
        plugin,
        tool,
        events,
        owner,
        store: &policy.store,
        limits: &policy.limits,
        grants: &policy.grants,
        section: &policy.section,
        config_file: &policy.config_file,
        deadline,
    })
}

impl CapsView for CallState {
    fn caps(&mut self) -> &mut CallCaps {
        &mut self.caps
    }

    fn table_and_caps(&mut self) -> (&mut ResourceTable, &mut CallCaps) {
        (&mut self.table, &mut self.caps)
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncWriteExt as _;

    use super::*;

    fn state() -> CallState {
        CallState::new(
            "p".into(),
            "first".into(),
            Arc::new(NoEvents),
            Owner::default(),
            Arc::new(Policy::default()),
            Instant::now(),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn a_reused_instance_starts_each_call_with_the_calls_own_state() {
        let mut s = state();
        let mut stderr = s.stderr.clone();
        stderr
            .write_all(b"the first call's output\n")
            .await
            .unwrap();
        s.limiter.memory_refused = true;
        s.limiter.peak_memory = 1 << 20;
        for _ in 0..3 {
            assert!(s.caps.logging.budget.admit(10));
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        s.begin_call(
            "second".into(),
            Arc::new(NoEvents),
            Owner::default(),
            deadline,
        );
        assert_eq!((s.tool(), s.deadline), ("second", deadline));
        assert_eq!(s.stderr.contents(), (String::new(), 0));
        assert!(!s.refused_growth());
        assert_eq!(
            s.caps.logging.budget,
            crate::call::log_budget::LogBudget::new(&s.policy.limits),
            "a whole log budget"
        );
        assert_eq!(s.limiter.peak_memory, 1 << 20, "memory is the instance's");
    }
}
