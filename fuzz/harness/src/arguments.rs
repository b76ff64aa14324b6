//! Fuzzing the argument check of `Runtime::call`: a tool's input schema is
//! compiled as when a plugin loads, and a call's arguments are checked
//! against it. Neither may panic, whatever the schema and the arguments.

use arbitrary::Arbitrary;
use mcp_wasm_host_runtime::Schema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::generate::{Key, ObjectSchema, object};
use crate::{Input, decode};

/// A hand-written case: `{"schema": {...}, "arguments": {...}}`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Seed {
    schema: Value,
    arguments: Map<String, Value>,
}

/// A generated case: a structured schema (or any text) and arguments.
#[derive(Arbitrary, Debug)]
struct Generated {
    schema: SchemaSource,
    arguments: Vec<(Key, crate::generate::Json)>,
}

#[derive(Arbitrary, Debug)]
enum SchemaSource {
    Structured(Box<ObjectSchema>),
    Text(String),
}

/// Compiles the case's schema and, when it compiles, checks the arguments
/// against it twice; panics if the two answers differ or a problem is
/// described by an empty text.
pub fn check(bytes: &[u8]) {
    let (schema, arguments) = match decode::<Seed, Generated>(bytes) {
        Some(Input::Seed(seed)) => (seed.schema.to_string(), Value::Object(seed.arguments)),
        Some(Input::Generated(case)) => (
            match case.schema {
                SchemaSource::Structured(s) => s.text(),
                SchemaSource::Text(t) => t,
            },
            object(&case.arguments, 0),
        ),
        None => return,
    };
    let Ok(schema) = Schema::compile_object("input schema", &schema) else {
        return;
    };
    let problems = schema.violations(&arguments);
    assert!(
        problems.iter().all(|p| !p.is_empty()),
        "a violation without a description: {problems:?}"
    );
    assert_eq!(
        problems,
        schema.violations(&arguments),
        "checking the same arguments twice gave different answers"
    );
}
