//! What a plugin defines, as the runtime's own types: its tools (`tool`,
//! `output`), resources, templates, prompts and completions (`served`), and
//! the rules they are checked against when it loads (`schema`, `icons`,
//! `uri_match`). Not a stage but what flows between them: `load` builds
//! these from the guest's WIT values, `catalog` names them, `serve` checks
//! a request against them, and `call` and `egress` carry their results out.

pub(crate) mod icons;
pub(crate) mod output;
pub(crate) mod schema;
pub(crate) mod schema_cost;
pub(crate) mod served;
pub(crate) mod tool;
pub(crate) mod uri_match;
