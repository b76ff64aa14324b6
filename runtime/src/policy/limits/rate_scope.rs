//! Whose quota a rate limit counts: the tool's, shared by every client
//! (`rate_limit`), or each client's own (`client_rate_limit`). Below the
//! error module and the serve room, which both name it.

use super::spec::key;

/// Whose quota a refused call ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateScope {
    /// The tool's quota, shared by every client (`rate_limit`).
    AllClients,
    /// The calling client's own quota for the tool (`client_rate_limit`).
    EachClient,
}

impl RateScope {
    /// The policy key that sets this quota.
    pub fn key(self) -> &'static str {
        match self {
            RateScope::AllClients => key::RATE_LIMIT,
            RateScope::EachClient => key::CLIENT_RATE_LIMIT,
        }
    }
}
