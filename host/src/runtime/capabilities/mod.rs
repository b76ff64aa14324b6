//! The capabilities a sandbox can grant, one module each with its own policy
//! section: what the section says, how it is applied to a call's WASI
//! context, and how a denied guest is told to ask for it.

pub mod client;
pub mod env;
pub mod filesystem;
pub mod http;
pub mod network;
pub mod secrets;
pub mod sockets;
