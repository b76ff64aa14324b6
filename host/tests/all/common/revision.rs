//! The MCP revisions the tests speak, by one name each: no test spells a
//! revision's date itself.

/// 2024-11-05, the first revision.
pub const R1: &str = "2024-11-05";
/// 2025-03-26.
pub const R2: &str = "2025-03-26";
/// 2025-06-18.
pub const R3: &str = "2025-06-18";
/// 2025-11-25, the newest with the `initialize` handshake.
pub const R4: &str = "2025-11-25";
/// 2026-07-28, without the handshake (`server/discover` instead).
pub const R5: &str = "2026-07-28";

/// Every revision the server speaks, oldest first, as its
/// `server/discover` lists them.
pub const ALL: [&str; 5] = [R1, R2, R3, R4, R5];
