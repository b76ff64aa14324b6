//! Stage `load`: one plugin file to a loaded `Plugin`. The file is hashed
//! (`file_hash`, `stamp`), compiled once (`compile`: from the `cache` or by
//! the `engine`, Winch first for a large new one: `quick`; on an engine of
//! its own for the async ABI: `concurrent`), checked to be a component of
//! our world (`bindings`, `exports`, `imports`; or served export by export
//! as a `generic` component), pre-instantiated, and its definitions read
//! and checked (`plugin`, with the rules in `definitions`) under the policy
//! the runtime pulled for it from `policy`; the `engine`'s linker also
//! gives guests the host's `io_errors` strings. `inspection` runs the same steps
//! without serving. A loaded plugin goes to `catalog`; a failure is a
//! `LoadError` naming the file.

pub(crate) mod bindings;
pub(crate) mod compile;
pub(crate) mod concurrent;
pub(crate) mod engine;
pub(crate) mod exports;
pub(crate) mod file_hash;
pub(crate) mod generic;
pub(crate) mod imports;
pub(crate) mod inspection;
pub(crate) mod io_errors;
pub(crate) mod plugin;
pub(crate) mod quick;
pub(crate) mod stamp;
