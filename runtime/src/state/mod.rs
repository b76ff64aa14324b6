//! The state a plugin's calls keep beyond themselves: the handle on the
//! runtime's state store ([`StateStore`], carried in each plugin's policy)
//! and whose data a call's state is ([`Owner`]: its session and user). A
//! room of its own, below the policy, the calls and the capabilities, which
//! all name it and which it names none of.

pub(crate) mod owner;
pub(crate) mod store;

pub use owner::{Owner, SessionDataKey, SessionState};
pub use store::StateStore;
