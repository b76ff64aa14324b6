//! Fuzzing the JSON → WIT value conversion of generic components: a WIT
//! type is generated, then any JSON is converted to a value of it. The
//! conversion may refuse the JSON but never panics; a value it accepts is
//! written back as JSON that the type's derived schema accepts and that
//! converts to the same JSON again.

use arbitrary::{Arbitrary, Unstructured};
use mcp_wasm_host_runtime::Schema;
use mcp_wasm_host_runtime::fuzzing::{WitType, schema, to_json, to_val};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::generate::Json;
use crate::{Input, decode};

/// A hand-written case: `{"type": [bytes that generate the type], "value": ...}`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Seed {
    #[serde(rename = "type")]
    ty: Vec<u8>,
    value: Value,
}

/// A generated case: the bytes of a type, and JSON.
#[derive(Arbitrary, Debug)]
struct Generated {
    ty: Vec<u8>,
    value: Json,
}

fn names(u: &mut Unstructured<'_>, prefix: &str) -> arbitrary::Result<Vec<String>> {
    let n = u.int_in_range(1..=4)?;
    Ok((0..n).map(|i| format!("{prefix}{i}")).collect())
}

/// A WIT type from `u`, at most `depth` levels deep.
fn wit_type(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<WitType> {
    let leaf = depth == 0 || u.is_empty();
    let pick = if leaf {
        u.int_in_range(0..=12)?
    } else {
        u.int_in_range(0..=21)?
    };
    let d = depth.saturating_sub(1);
    let boxed = |u: &mut Unstructured<'_>| wit_type(u, d).map(Box::new);
    Ok(match pick {
        0 => WitType::Bool,
        1 => WitType::S8,
        2 => WitType::U8,
        3 => WitType::S16,
        4 => WitType::U16,
        5 => WitType::S32,
        6 => WitType::U32,
        7 => WitType::S64,
        8 => WitType::U64,
        9 => WitType::F32,
        10 => WitType::F64,
        11 => WitType::Char,
        12 => WitType::String,
        13 => WitType::List(boxed(u)?),
        14 => WitType::Option(boxed(u)?),
        15 => WitType::Result {
            ok: if bool::arbitrary(u)? {
                Some(boxed(u)?)
            } else {
                None
            },
            err: if bool::arbitrary(u)? {
                Some(boxed(u)?)
            } else {
                None
            },
        },
        16 => WitType::Tuple(
            (0..u.int_in_range(1..=3)?)
                .map(|_| wit_type(u, d))
                .collect::<Result<_, _>>()?,
        ),
        17 => WitType::Record {
            name: None,
            fields: names(u, "f")?
                .into_iter()
                .map(|n| Ok((n, wit_type(u, d)?)))
                .collect::<arbitrary::Result<_>>()?,
        },
        18 => WitType::Variant {
            name: None,
            cases: names(u, "c")?
                .into_iter()
                .map(|n| {
                    Ok((
                        n,
                        if bool::arbitrary(u)? {
                            Some(wit_type(u, d)?)
                        } else {
                            None
                        },
                    ))
                })
                .collect::<arbitrary::Result<_>>()?,
        },
        19 => WitType::Enum {
            name: None,
            cases: names(u, "e")?,
        },
        _ => WitType::Flags {
            name: None,
            names: names(u, "g")?,
        },
    })
}

/// Generates the case's type, converts its JSON and checks what comes back.
pub fn check(bytes: &[u8]) {
    let (ty, value) = match decode::<Seed, Generated>(bytes) {
        Some(Input::Seed(seed)) => (seed.ty, seed.value),
        Some(Input::Generated(case)) => (case.ty, case.value.value()),
        None => return,
    };
    let Ok(ty) = wit_type(&mut Unstructured::new(&ty), 5) else {
        return;
    };
    let converted = to_val(&ty, &value);
    integers_are_exact(
        &ty,
        &value,
        converted.as_ref().ok().map(|v| to_json(&ty, v)),
    );
    let Ok(val) = converted else {
        return;
    };
    let written = to_json(&ty, &val).expect("a value the conversion made is written back");
    let again = to_val(&ty, &written).expect("written JSON converts again");
    assert_eq!(
        to_json(&ty, &again).expect("and is written back again"),
        written,
        "{}",
        ty.wit()
    );
    let wrapped = json!({"type": "object", "properties": {"v": schema(&ty)}, "required": ["v"]});
    let schema =
        Schema::compile_object("schema", &wrapped.to_string()).expect("a derived schema compiles");
    let problems = schema.violations(&json!({ "v": written }));
    assert!(
        problems.is_empty(),
        "{}: {written} breaks its schema: {problems:?}",
        ty.wit()
    );
}

/// 2^53: below it a double holds every integer, and no other integer reads
/// as the same double.
const EXACT_IN_A_DOUBLE: f64 = 9_007_199_254_740_992.0;

/// An integer type takes a number exactly or not at all. The value of
/// `json` is known exactly when serde_json kept it as written (an integer
/// within 64 bits) or it is a double below 2^53 that is an integer;
/// otherwise (a double from 2^53 on) neighbouring integers read the same,
/// so it is never accepted. A value known exactly is accepted, and `back`
/// as that very integer, if and only if it is within the type's bounds.
fn integers_are_exact(
    ty: &WitType,
    json: &Value,
    back: Option<Result<Value, impl std::fmt::Debug>>,
) {
    let (Some((min, max)), Value::Number(n)) = (ty.integer_bounds(), json) else {
        return;
    };
    let exact = match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => Some(i128::from(i)),
        (_, Some(u), _) => Some(i128::from(u)),
        (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < EXACT_IN_A_DOUBLE => Some(f as i128),
        _ => None,
    };
    let wit = ty.wit();
    match (exact, back) {
        (Some(n), Some(back)) => {
            let back = back.expect("an accepted integer is written back");
            assert_eq!(
                back.to_string(),
                n.to_string(),
                "{wit}: {json} came back as {back}"
            );
            assert!(
                (min..=max).contains(&n),
                "{wit}: {json} accepted out of range"
            );
        }
        (Some(n), None) => assert!(
            !(min..=max).contains(&n),
            "{wit}: {json} refused though exact and in range"
        ),
        (None, Some(back)) => panic!(
            "{wit}: {json}, which a double cannot tell from its neighbours, accepted as {back:?}"
        ),
        (None, None) => {}
    }
}
