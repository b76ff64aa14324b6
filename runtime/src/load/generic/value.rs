//! Converting between JSON and WIT values (wasmtime's [`Val`]) along a
//! [`WitType`], the way [`super::schema`] describes them. Both directions
//! walk the type, never the JSON alone, so they recurse no deeper than the
//! type ([`super::types::MAX_DEPTH`]).

use serde_json::{Map, Number, Value};
use wasmtime::component::Val;

use super::schema::{NON_FINITE, SOME_FIELD, nullable};
use super::types::WitType;

/// A value that does not fit its type: where (a JSON pointer into the
/// value) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// Where in the value, e.g. `/points/2/x`; empty for the value itself.
    pub path: String,
    /// What is wrong.
    pub problem: String,
}

impl std::fmt::Display for ValueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "at {}: {}", self.path, self.problem)
        }
    }
}

impl std::error::Error for ValueError {}

/// A path being walked, for errors.
#[derive(Clone, Copy)]
enum Step<'a> {
    Root,
    Key(&'a Step<'a>, &'a str),
    Index(&'a Step<'a>, usize),
}

impl Step<'_> {
    fn render(&self) -> String {
        match self {
            Step::Root => String::new(),
            Step::Key(parent, key) => {
                let key = key.replace('~', "~0").replace('/', "~1");
                format!("{}/{key}", parent.render())
            }
            Step::Index(parent, i) => format!("{}/{i}", parent.render()),
        }
    }

    fn fail<T>(&self, problem: impl Into<String>) -> Result<T, ValueError> {
        Err(ValueError {
            path: self.render(),
            problem: problem.into(),
        })
    }
}

/// A short account of what `json` is, for errors.
fn kind(json: &Value) -> &'static str {
    match json {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The WIT value of type `ty` that `json` stands for.
#[cfg_attr(not(any(test, feature = "fuzzing")), allow(dead_code))]
pub fn to_val(ty: &WitType, json: &Value) -> Result<Val, ValueError> {
    lower(ty, json, Step::Root)
}

/// The WIT values of `params` taken from the arguments object `args`: an
/// absent option is `none`; an absent other parameter, or an argument no
/// parameter takes, is an error.
pub fn arguments(
    params: &[(String, WitType)],
    args: &Map<String, Value>,
) -> Result<Vec<Val>, ValueError> {
    if let Some(extra) = args.keys().find(|k| !params.iter().any(|(n, _)| n == *k)) {
        return Step::Root.fail(format!("the function takes no parameter {extra:?}"));
    }
    params
        .iter()
        .map(|(name, ty)| match args.get(name) {
            Some(v) => lower(ty, v, Step::Key(&Step::Root, name)),
            None if nullable(ty) => Ok(Val::Option(None)),
            None => Step::Root.fail(format!("the parameter {name:?} is missing")),
        })
        .collect()
}

/// 2^53: every integer of a smaller magnitude is a double exactly, and
/// none that a double rounds to one of them is another integer.
const EXACT_IN_A_DOUBLE: f64 = 9_007_199_254_740_992.0;

/// The integer of type `ty` that `json` is, exactly, or an error that names
/// `ty`'s bounds; never a value rounded on the way.
///
/// serde_json (without `arbitrary_precision`, as here) keeps a number as
/// written only when it is an integer within `i64` or `u64`; it reads every
/// other one (a fraction, an exponent, or an integer beyond 64 bits) as the
/// double nearest to it (`float_roundtrip`, which `jsonschema` turns on and
/// this crate asks for too, makes that the correctly rounded one). Such a
/// double below 2^53 that is an integer came from exactly that integer (or
/// from digits beyond a double's precision, which no double can tell
/// apart). From 2^53 on, neighbouring integers read as the same double
/// (`9007199254740993.0` as `9007199254740992`, `-9223372036854775809` as
/// `-2^63`), so such a double is refused unless it is out of range
/// whatever integer it came from.
fn int<T: TryFrom<i128>>(json: &Value, at: Step<'_>, ty: &WitType) -> Result<T, ValueError> {
    let wit = ty.wit();
    let (min, max) = ty.integer_bounds().unwrap_or_default();
    let Value::Number(n) = json else {
        return at.fail(format!("expected an integer ({wit}), got {}", kind(json)));
    };
    let exact = if let Some(i) = n.as_i64() {
        i128::from(i)
    } else if let Some(u) = n.as_u64() {
        i128::from(u)
    } else {
        let f = n.as_f64().unwrap_or(f64::NAN);
        if f.fract() != 0.0 {
            return at.fail(format!("expected an integer ({wit}), got {n}"));
        }
        if f.abs() >= EXACT_IN_A_DOUBLE {
            return if f < min as f64 || f > max as f64 {
                at.fail(format!("{n} is out of range: {wit} takes {min} to {max}"))
            } else {
                at.fail(format!(
                    "the number read as {n} cannot be taken exactly as {wit}: a number written \
                     with a fraction or an exponent, or beyond 64 bits, is exact only from \
                     -9007199254740991 to 9007199254740991 (2^53 - 1); {wit} takes {min} to \
                     {max}, written as a plain integer"
                ))
            };
        }
        // Exact: an integer below 2^53 (`-0.0` is 0).
        f as i128
    };
    T::try_from(exact).or_else(|_| {
        at.fail(format!(
            "{exact} is out of range: {wit} takes {min} to {max}"
        ))
    })
}

fn float(json: &Value, at: Step<'_>, wit: &str) -> Result<f64, ValueError> {
    match json {
        Value::Number(n) => n.as_f64().map_or_else(
            || at.fail(format!("{n} is not a number {wit} can hold")),
            Ok,
        ),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => at.fail(format!(
                "expected a number ({wit}) or one of {NON_FINITE:?}, got the string {s:?}"
            )),
        },
        _ => at.fail(format!("expected a number ({wit}), got {}", kind(json))),
    }
}

/// The one case of the variant or result shape `json` names: a bare case
/// as a string, a case with a payload as an object with that one key.
fn case<'j>(json: &'j Value, at: Step<'_>) -> Result<(&'j str, Option<&'j Value>), ValueError> {
    match json {
        Value::String(s) => Ok((s, None)),
        Value::Object(o) if o.len() == 1 => {
            let (k, v) = o
                .iter()
                .next()
                .map_or(("", &Value::Null), |(k, v)| (k.as_str(), v));
            Ok((k, Some(v)))
        }
        Value::Object(o) => at.fail(format!(
            "expected an object with exactly one property (the case), got {} properties",
            o.len()
        )),
        _ => at.fail(format!(
            "expected a case name or an object with one property, got {}",
            kind(json)
        )),
    }
}

fn lower_case(
    cases: &[(&str, Option<&WitType>)],
    json: &Value,
    at: Step<'_>,
) -> Result<(String, Option<Box<Val>>), ValueError> {
    let (name, payload) = case(json, at)?;
    let Some((_, ty)) = cases.iter().find(|(n, _)| *n == name) else {
        let names: Vec<_> = cases.iter().map(|(n, _)| *n).collect();
        return at.fail(format!("{name:?} is not one of the cases {names:?}"));
    };
    match (ty, payload) {
        (None, None) => Ok((name.to_string(), None)),
        (Some(ty), Some(v)) => {
            let v = lower(ty, v, Step::Key(&at, name))?;
            Ok((name.to_string(), Some(Box::new(v))))
        }
        (None, Some(_)) => at.fail(format!(
            "the case {name:?} has no value: write it as the string {name:?}"
        )),
        (Some(_), None) => at.fail(format!(
            "the case {name:?} has a value: write it as {{{name:?}: value}}"
        )),
    }
}

fn lower(ty: &WitType, json: &Value, at: Step<'_>) -> Result<Val, ValueError> {
    Ok(match ty {
        WitType::Bool => match json {
            Value::Bool(b) => Val::Bool(*b),
            _ => return at.fail(format!("expected a boolean, got {}", kind(json))),
        },
        WitType::S8 => Val::S8(int(json, at, ty)?),
        WitType::U8 => Val::U8(int(json, at, ty)?),
        WitType::S16 => Val::S16(int(json, at, ty)?),
        WitType::U16 => Val::U16(int(json, at, ty)?),
        WitType::S32 => Val::S32(int(json, at, ty)?),
        WitType::U32 => Val::U32(int(json, at, ty)?),
        WitType::S64 => Val::S64(int(json, at, ty)?),
        WitType::U64 => Val::U64(int(json, at, ty)?),
        WitType::F32 => {
            let f = float(json, at, "f32")?;
            if f.is_finite() && (f as f32).is_infinite() {
                return at.fail(format!("{f} is out of range for f32"));
            }
            Val::Float32(f as f32)
        }
        WitType::F64 => Val::Float64(float(json, at, "f64")?),
        WitType::Char => match json {
            Value::String(s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Val::Char(c),
                    _ => {
                        return at.fail(format!(
                            "expected one character (char), got a string of {}",
                            s.chars().count()
                        ));
                    }
                }
            }
            _ => {
                return at.fail(format!(
                    "expected a one-character string, got {}",
                    kind(json)
                ));
            }
        },
        WitType::String => match json {
            Value::String(s) => Val::String(s.clone()),
            _ => return at.fail(format!("expected a string, got {}", kind(json))),
        },
        WitType::List(t) => match json {
            Value::Array(items) => Val::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| lower(t, v, Step::Index(&at, i)))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return at.fail(format!("expected an array, got {}", kind(json))),
        },
        WitType::Record { fields, .. } => match json {
            Value::Object(o) => {
                if let Some(extra) = o.keys().find(|k| !fields.iter().any(|(n, _)| n == *k)) {
                    return at.fail(format!("the record has no field {extra:?}"));
                }
                Val::Record(
                    fields
                        .iter()
                        .map(|(name, t)| {
                            let v = match o.get(name) {
                                Some(v) => lower(t, v, Step::Key(&at, name))?,
                                None if nullable(t) => Val::Option(None),
                                None => return at.fail(format!("the field {name:?} is missing")),
                            };
                            Ok((name.clone(), v))
                        })
                        .collect::<Result<_, _>>()?,
                )
            }
            _ => return at.fail(format!("expected an object (a record), got {}", kind(json))),
        },
        WitType::Tuple(ts) => match json {
            Value::Array(items) if items.len() == ts.len() => Val::Tuple(
                ts.iter()
                    .zip(items)
                    .enumerate()
                    .map(|(i, (t, v))| lower(t, v, Step::Index(&at, i)))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Array(items) => {
                return at.fail(format!(
                    "expected an array of {} items (a tuple), got {}",
                    ts.len(),
                    items.len()
                ));
            }
            _ => return at.fail(format!("expected an array (a tuple), got {}", kind(json))),
        },
        WitType::Variant { cases, .. } => {
            let cases: Vec<_> = cases
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_ref()))
                .collect();
            let (name, payload) = lower_case(&cases, json, at)?;
            Val::Variant(name, payload)
        }
        WitType::Result { ok, err } => {
            let cases = [("ok", ok.as_deref()), ("err", err.as_deref())];
            let (name, payload) = lower_case(&cases, json, at)?;
            Val::Result(if name == "ok" {
                Ok(payload)
            } else {
                Err(payload)
            })
        }
        WitType::Enum { cases, .. } => match json {
            Value::String(s) if cases.contains(s) => Val::Enum(s.clone()),
            Value::String(s) => return at.fail(format!("{s:?} is not one of {cases:?}")),
            _ => return at.fail(format!("expected one of {cases:?}, got {}", kind(json))),
        },
        WitType::Option(t) => match json {
            Value::Null => Val::Option(None),
            v if nullable(t) => match v {
                Value::Object(o) if o.len() == 1 && o.contains_key(SOME_FIELD) => {
                    let inner = lower(t, &o[SOME_FIELD], Step::Key(&at, SOME_FIELD))?;
                    Val::Option(Some(Box::new(inner)))
                }
                _ => {
                    return at.fail(format!(
                        "expected null or {{\"{SOME_FIELD}\": value}} (an option of an option), got {}",
                        kind(json)
                    ));
                }
            },
            v => Val::Option(Some(Box::new(lower(t, v, at)?))),
        },
        WitType::Flags { names, .. } => match json {
            Value::Array(items) => {
                let mut set: Vec<String> = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let here = Step::Index(&at, i);
                    let Value::String(s) = item else {
                        return here.fail(format!("expected a flag name, got {}", kind(item)));
                    };
                    if !names.contains(s) {
                        return here.fail(format!("{s:?} is not one of the flags {names:?}"));
                    }
                    if set.contains(s) {
                        return here.fail(format!("the flag {s:?} is listed twice"));
                    }
                    set.push(s.clone());
                }
                // In declaration order, as lifted values come back.
                set.sort_by_key(|s| names.iter().position(|n| n == s));
                Val::Flags(set)
            }
            _ => {
                return at.fail(format!(
                    "expected an array of flag names, got {}",
                    kind(json)
                ));
            }
        },
    })
}

/// The JSON of the WIT value `val` of type `ty`.
pub fn to_json(ty: &WitType, val: &Val) -> Result<Value, ValueError> {
    lift(ty, val, Step::Root)
}

fn float_json(f: f64) -> Value {
    if f.is_nan() {
        NON_FINITE[0].into()
    } else if f == f64::INFINITY {
        NON_FINITE[1].into()
    } else if f == f64::NEG_INFINITY {
        NON_FINITE[2].into()
    } else {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

fn lift(ty: &WitType, val: &Val, at: Step<'_>) -> Result<Value, ValueError> {
    Ok(match (ty, val) {
        (WitType::Bool, Val::Bool(b)) => Value::Bool(*b),
        (WitType::S8, Val::S8(n)) => (*n).into(),
        (WitType::U8, Val::U8(n)) => (*n).into(),
        (WitType::S16, Val::S16(n)) => (*n).into(),
        (WitType::U16, Val::U16(n)) => (*n).into(),
        (WitType::S32, Val::S32(n)) => (*n).into(),
        (WitType::U32, Val::U32(n)) => (*n).into(),
        (WitType::S64, Val::S64(n)) => (*n).into(),
        (WitType::U64, Val::U64(n)) => (*n).into(),
        // An f32's shortest decimal, not the f64 nearest its binary value
        // (0.1, not 0.10000000149011612).
        (WitType::F32, Val::Float32(f)) if f.is_finite() => {
            float_json(f.to_string().parse::<f64>().unwrap_or(f64::from(*f)))
        }
        (WitType::F32, Val::Float32(f)) => float_json(f64::from(*f)),
        (WitType::F64, Val::Float64(f)) => float_json(*f),
        (WitType::Char, Val::Char(c)) => Value::String(c.to_string()),
        (WitType::String, Val::String(s)) => Value::String(s.clone()),
        (WitType::List(t), Val::List(items)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| lift(t, v, Step::Index(&at, i)))
                .collect::<Result<_, _>>()?,
        ),
        (WitType::Record { fields, .. }, Val::Record(values)) if fields.len() == values.len() => {
            let mut o = Map::new();
            for ((name, t), (_, v)) in fields.iter().zip(values) {
                o.insert(name.clone(), lift(t, v, Step::Key(&at, name))?);
            }
            Value::Object(o)
        }
        (WitType::Tuple(ts), Val::Tuple(values)) if ts.len() == values.len() => Value::Array(
            ts.iter()
                .zip(values)
                .enumerate()
                .map(|(i, (t, v))| lift(t, v, Step::Index(&at, i)))
                .collect::<Result<_, _>>()?,
        ),
        (WitType::Variant { cases, .. }, Val::Variant(name, payload)) => {
            let ty = cases
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.as_ref());
            match ty {
                Some(ty) => lift_case(name, ty, payload.as_deref(), at)?,
                None => return at.fail(format!("the guest returned an unknown case {name:?}")),
            }
        }
        (WitType::Result { ok, err }, Val::Result(r)) => match r {
            Ok(p) => lift_case("ok", ok.as_deref(), p.as_deref(), at)?,
            Err(p) => lift_case("err", err.as_deref(), p.as_deref(), at)?,
        },
        (WitType::Enum { .. }, Val::Enum(name)) => Value::String(name.clone()),
        (WitType::Option(_), Val::Option(None)) => Value::Null,
        (WitType::Option(t), Val::Option(Some(v))) => {
            let inner = lift(t, v, at)?;
            if nullable(t) {
                let mut o = Map::new();
                o.insert(SOME_FIELD.into(), inner);
                Value::Object(o)
            } else {
                inner
            }
        }
        (WitType::Flags { .. }, Val::Flags(set)) => {
            Value::Array(set.iter().cloned().map(Value::String).collect())
        }
        (ty, _) => return at.fail(format!("the value does not match its type {}", ty.wit())),
    })
}

fn lift_case(
    name: &str,
    ty: Option<&WitType>,
    payload: Option<&Val>,
    at: Step<'_>,
) -> Result<Value, ValueError> {
    match (ty, payload) {
        (None, _) => Ok(Value::String(name.to_string())),
        (Some(t), Some(v)) => {
            let mut o = Map::new();
            o.insert(name.to_string(), lift(t, v, Step::Key(&at, name))?);
            Ok(Value::Object(o))
        }
        (Some(_), None) => at.fail(format!("the case {name:?} came back without its value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(ty: &WitType, json: Value) {
        let val = to_val(ty, &json).unwrap_or_else(|e| panic!("{}: {json}: {e}", ty.wit()));
        assert_eq!(to_json(ty, &val).unwrap(), json, "{}", ty.wit());
    }

    #[test]
    fn sixty_four_bit_integers_travel_exactly() {
        round_trip(&WitType::U64, json!(u64::MAX));
        round_trip(&WitType::S64, json!(i64::MIN));
        round_trip(&WitType::U64, json!(9_007_199_254_740_993u64));
        assert_eq!(to_val(&WitType::U8, &json!(5.0)).unwrap(), Val::U8(5));
        let e = to_val(&WitType::U8, &json!(256)).unwrap_err();
        assert_eq!(e.to_string(), "256 is out of range: u8 takes 0 to 255");
        assert!(to_val(&WitType::U8, &json!(1.5)).is_err());
        assert!(to_val(&WitType::S64, &json!(1e300)).is_err());
    }

    /// The ways a client may write the integer `n` in JSON: as an integer,
    /// in float form, in exponent form (`5e0`, `5.0e0`), in scientific
    /// form with a fraction (`1.5e3`), and for 0 negative zero.
    fn spellings(n: i128) -> Vec<(&'static str, String)> {
        let digits = n.unsigned_abs().to_string();
        let sign = if n < 0 { "-" } else { "" };
        let (head, tail) = digits.split_at(1);
        let mut out = vec![
            ("integer", format!("{n}")),
            ("float", format!("{n}.0")),
            ("exponent", format!("{n}e0")),
            ("scaled", format!("{sign}{}e-1", n.unsigned_abs() * 10)),
            (
                "scientific",
                format!("{sign}{head}.{tail}0e{}", digits.len() - 1),
            ),
        ];
        if n == 0 {
            out.extend([
                ("negative zero", "-0".to_string()),
                ("negative zero float", "-0.0".to_string()),
                ("negative zero exponent", "-0e5".to_string()),
            ]);
        }
        out
    }

    /// Each width's edges: just outside, at, and just inside its bounds, 0,
    /// and for 64 bits 2^53 - 1, 2^53 and 2^53 + 1 each side.
    fn edges(min: i128, max: i128) -> Vec<i128> {
        let mut edges = vec![min - 1, min, min + 1, 0, max - 1, max, max + 1];
        if max > 1 << 53 {
            for n in [(1 << 53) - 1, 1 << 53, (1 << 53) + 1] {
                edges.extend([n, -n]);
            }
        }
        edges
    }

    const INTEGERS: [WitType; 8] = [
        WitType::S8,
        WitType::U8,
        WitType::S16,
        WitType::U16,
        WitType::S32,
        WitType::U32,
        WitType::S64,
        WitType::U64,
    ];

    /// Every width, every edge, every spelling, read from JSON text the way
    /// the host reads a request: the exact value, or a refusal naming the
    /// type's bounds. A spelling serde_json reads as a double is exact up to
    /// 2^53 - 1 and refused beyond.
    #[test]
    fn every_integer_edge_in_every_spelling_is_exact_or_refused_with_its_bounds() {
        for ty in &INTEGERS {
            let (min, max) = ty.integer_bounds().unwrap();
            let wit = ty.wit();
            let bounds = format!("{wit} takes {min} to {max}");
            for n in edges(min, max) {
                for (spelling, text) in spellings(n) {
                    let json: Value = serde_json::from_str(&text).expect(&text);
                    let in_range = (min..=max).contains(&n);
                    let read_exactly = spelling == "integer" && !text.starts_with("-0")
                        || n.unsigned_abs() < 1 << 53;
                    let case = format!("{wit} {spelling} {text}");
                    match to_val(ty, &json) {
                        Ok(val) => {
                            assert!(in_range && read_exactly, "{case}: accepted as {val:?}");
                            let back = to_json(ty, &val).unwrap();
                            assert_eq!(back.to_string(), n.to_string(), "{case}");
                        }
                        Err(e) => {
                            assert!(!(in_range && read_exactly), "{case}: refused: {e}");
                            assert!(e.problem.contains(&bounds), "{case}: {e}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_reported_numbers_are_refused_not_rounded() {
        let read = |ty: &WitType, text: &str| to_val(ty, &serde_json::from_str(text).unwrap());
        let e = read(&WitType::S64, "-9223372036854775809").unwrap_err();
        assert_eq!(
            e.problem,
            "the number read as -9.223372036854776e+18 cannot be taken exactly as s64: a number \
             written with a fraction or an exponent, or beyond 64 bits, is exact only from \
             -9007199254740991 to 9007199254740991 (2^53 - 1); s64 takes \
             -9223372036854775808 to 9223372036854775807, written as a plain integer"
        );
        assert!(read(&WitType::U64, "9007199254740993.0").is_err());
        assert!(read(&WitType::U64, "18446744073709551615.0").is_err());
        let e = read(&WitType::U64, "1e300").unwrap_err();
        assert_eq!(
            e.problem,
            "1e+300 is out of range: u64 takes 0 to 18446744073709551615"
        );
        let e = read(&WitType::U64, "-1e20").unwrap_err();
        assert!(e.problem.contains("out of range"), "{e}");
        assert_eq!(read(&WitType::U64, "1.5e3").unwrap(), Val::U64(1500));
        assert_eq!(read(&WitType::S8, "-0").unwrap(), Val::S8(0));
        assert_eq!(
            read(&WitType::U8, "2.5").unwrap_err().problem,
            "expected an integer (u8), got 2.5"
        );
    }

    #[test]
    fn floats_round_trip_and_non_finite_ones_are_strings() {
        round_trip(&WitType::F32, json!(0.1));
        round_trip(&WitType::F64, json!(-0.0));
        round_trip(&WitType::F64, json!("NaN"));
        round_trip(&WitType::F32, json!("-Infinity"));
        assert!(to_val(&WitType::F32, &json!(1e39)).is_err());
    }

    #[test]
    fn errors_name_where_the_value_is_wrong() {
        let ty = WitType::List(Box::new(WitType::Record {
            name: None,
            fields: vec![("x/y".into(), WitType::Char)],
        }));
        let e = to_val(&ty, &json!([{"x/y": "a"}, {"x/y": "ab"}])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "at /1/x~1y: expected one character (char), got a string of 2"
        );
        let params = vec![("a".to_string(), WitType::Bool)];
        let mut args = Map::new();
        assert_eq!(
            arguments(&params, &args).unwrap_err().to_string(),
            "the parameter \"a\" is missing"
        );
        args.insert("b".into(), json!(1));
        assert!(
            arguments(&params, &args)
                .unwrap_err()
                .problem
                .contains("\"b\"")
        );
    }

    #[test]
    fn nested_options_tell_none_from_some_none() {
        let ty = WitType::Option(Box::new(WitType::Option(Box::new(WitType::U8))));
        round_trip(&ty, json!(null));
        round_trip(&ty, json!({"some": null}));
        round_trip(&ty, json!({"some": 3}));
        assert_eq!(
            to_val(&ty, &json!({"some": null})).unwrap(),
            Val::Option(Some(Box::new(Val::Option(None))))
        );
    }

    #[test]
    fn flags_come_back_in_declaration_order_and_never_twice() {
        let ty = WitType::Flags {
            name: None,
            names: vec!["r".into(), "w".into(), "x".into()],
        };
        let val = to_val(&ty, &json!(["x", "r"])).unwrap();
        assert_eq!(to_json(&ty, &val).unwrap(), json!(["r", "x"]));
        assert!(to_val(&ty, &json!(["r", "r"])).is_err());
        assert!(to_val(&ty, &json!(["q"])).is_err());
    }

    #[test]
    fn cases_with_and_without_values() {
        let ty = WitType::Variant {
            name: None,
            cases: vec![("a".into(), None), ("b".into(), Some(WitType::String))],
        };
        round_trip(&ty, json!("a"));
        round_trip(&ty, json!({"b": "x"}));
        assert!(
            to_val(&ty, &json!("b"))
                .unwrap_err()
                .problem
                .contains("has a value")
        );
        assert!(
            to_val(&ty, &json!({"a": 1}))
                .unwrap_err()
                .problem
                .contains("no value")
        );
        assert!(to_val(&ty, &json!({"a": 1, "b": ""})).is_err());
        let r = WitType::Result {
            ok: Some(Box::new(WitType::U8)),
            err: None,
        };
        round_trip(&r, json!({"ok": 7}));
        round_trip(&r, json!("err"));
    }
}
