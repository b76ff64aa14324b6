//! The WIT value types a generic component's functions take and return, as
//! the runtime's own tree ([`WitType`]), read from wasmtime's component
//! types with bounded depth and size, and written back as WIT text for
//! signatures.

use std::fmt::Write as _;

use wasmtime::component::types::Type;

/// The deepest a served function's types may nest (a list of records of
/// options... counts one level each). Deeper functions are left out: every
/// conversion walks the type recursively.
pub const MAX_DEPTH: usize = 32;

/// A WIT value type. Records, variants, enums and flags keep the name the
/// component exports them under, when it does, for signatures.
#[derive(Debug, Clone, PartialEq)]
pub enum WitType {
    /// `bool`
    Bool,
    /// `s8`
    S8,
    /// `u8`
    U8,
    /// `s16`
    S16,
    /// `u16`
    U16,
    /// `s32`
    S32,
    /// `u32`
    U32,
    /// `s64`
    S64,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `char`
    Char,
    /// `string`
    String,
    /// `list<T>`
    List(Box<WitType>),
    /// `record { field: T, ... }`
    Record {
        /// The exported name, if any.
        name: Option<String>,
        /// The fields, in order.
        fields: Vec<(String, WitType)>,
    },
    /// `tuple<T, ...>`
    Tuple(Vec<WitType>),
    /// `variant { case(T), case, ... }`
    Variant {
        /// The exported name, if any.
        name: Option<String>,
        /// The cases and their payloads, in order.
        cases: Vec<(String, Option<WitType>)>,
    },
    /// `enum { case, ... }`
    Enum {
        /// The exported name, if any.
        name: Option<String>,
        /// The cases, in order.
        cases: Vec<String>,
    },
    /// `option<T>`
    Option(Box<WitType>),
    /// `result<T, E>` (either side may be absent)
    Result {
        /// The `ok` payload.
        ok: Option<Box<WitType>>,
        /// The `err` payload.
        err: Option<Box<WitType>>,
    },
    /// `flags { name, ... }`
    Flags {
        /// The exported name, if any.
        name: Option<String>,
        /// The flags, in order.
        names: Vec<String>,
    },
}

/// Why a type cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unservable {
    /// A handle, future, stream or error context: nothing JSON can carry.
    Kind(&'static str),
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// More nodes than the budget allows (see [`Reader::new`]).
    TooLarge,
}

impl std::fmt::Display for Unservable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unservable::Kind(kind) => write!(f, "it uses {kind}, which JSON cannot carry"),
            Unservable::TooDeep => write!(f, "its types nest deeper than {MAX_DEPTH} levels"),
            Unservable::TooLarge => f.write_str("its types are too large"),
        }
    }
}

/// Reads wasmtime's types into [`WitType`]s, naming the records, variants,
/// enums and flags found in `names`, within a budget of nodes shared by
/// every type it reads (so a component whose types share subtrees cannot
/// make the tree blow up).
pub struct Reader<'a> {
    names: &'a [(String, Type)],
    budget: usize,
}

impl<'a> Reader<'a> {
    /// A reader that names types from `names` and reads at most `budget`
    /// nodes in all.
    pub fn new(names: &'a [(String, Type)], budget: usize) -> Self {
        Reader { names, budget }
    }

    fn name_of(&self, ty: &Type) -> Option<String> {
        self.names
            .iter()
            .find(|(_, t)| t == ty)
            .map(|(n, _)| n.clone())
    }

    /// The tree of `ty`.
    pub fn read(&mut self, ty: &Type) -> Result<WitType, Unservable> {
        self.read_at(ty, 0)
    }

    fn read_at(&mut self, ty: &Type, depth: usize) -> Result<WitType, Unservable> {
        if depth >= MAX_DEPTH {
            return Err(Unservable::TooDeep);
        }
        if self.budget == 0 {
            return Err(Unservable::TooLarge);
        }
        self.budget -= 1;
        let d = depth + 1;
        Ok(match ty {
            Type::Bool => WitType::Bool,
            Type::S8 => WitType::S8,
            Type::U8 => WitType::U8,
            Type::S16 => WitType::S16,
            Type::U16 => WitType::U16,
            Type::S32 => WitType::S32,
            Type::U32 => WitType::U32,
            Type::S64 => WitType::S64,
            Type::U64 => WitType::U64,
            Type::Float32 => WitType::F32,
            Type::Float64 => WitType::F64,
            Type::Char => WitType::Char,
            Type::String => WitType::String,
            Type::List(l) => WitType::List(Box::new(self.read_at(&l.ty(), d)?)),
            Type::Record(r) => WitType::Record {
                name: self.name_of(ty),
                fields: r
                    .fields()
                    .map(|f| Ok((f.name.to_string(), self.read_at(&f.ty, d)?)))
                    .collect::<Result<_, _>>()?,
            },
            Type::Tuple(t) => WitType::Tuple(
                t.types()
                    .map(|t| self.read_at(&t, d))
                    .collect::<Result<_, _>>()?,
            ),
            Type::Variant(v) => WitType::Variant {
                name: self.name_of(ty),
                cases: v
                    .cases()
                    .map(|c| {
                        let payload = c.ty.as_ref().map(|t| self.read_at(t, d)).transpose()?;
                        Ok((c.name.to_string(), payload))
                    })
                    .collect::<Result<_, _>>()?,
            },
            Type::Enum(e) => WitType::Enum {
                name: self.name_of(ty),
                cases: e.names().map(str::to_string).collect(),
            },
            Type::Option(o) => WitType::Option(Box::new(self.read_at(&o.ty(), d)?)),
            Type::Result(r) => WitType::Result {
                ok: r
                    .ok()
                    .map(|t| self.read_at(&t, d))
                    .transpose()?
                    .map(Box::new),
                err: r
                    .err()
                    .map(|t| self.read_at(&t, d))
                    .transpose()?
                    .map(Box::new),
            },
            Type::Flags(f) => WitType::Flags {
                name: self.name_of(ty),
                names: f.names().map(str::to_string).collect(),
            },
            Type::Own(_) | Type::Borrow(_) => return Err(Unservable::Kind("a resource handle")),
            Type::Future(_) => return Err(Unservable::Kind("a future")),
            Type::Stream(_) => return Err(Unservable::Kind("a stream")),
            Type::ErrorContext => return Err(Unservable::Kind("an error-context")),
            Type::Map(_) => return Err(Unservable::Kind("a map")),
            Type::FixedLengthList(_) => return Err(Unservable::Kind("a fixed-length list")),
        })
    }
}

impl WitType {
    /// The least and the greatest value of an integer type; `None` for
    /// every other type.
    pub fn integer_bounds(&self) -> Option<(i128, i128)> {
        Some(match self {
            WitType::S8 => (i8::MIN.into(), i8::MAX.into()),
            WitType::U8 => (0, u8::MAX.into()),
            WitType::S16 => (i16::MIN.into(), i16::MAX.into()),
            WitType::U16 => (0, u16::MAX.into()),
            WitType::S32 => (i32::MIN.into(), i32::MAX.into()),
            WitType::U32 => (0, u32::MAX.into()),
            WitType::S64 => (i64::MIN.into(), i64::MAX.into()),
            WitType::U64 => (0, u64::MAX.into()),
            _ => return None,
        })
    }

    /// The type as WIT writes it; a named record, variant, enum or flags is
    /// written by its name.
    pub fn wit(&self) -> String {
        let mut out = String::new();
        self.write_wit(&mut out);
        out
    }

    fn write_wit(&self, out: &mut String) {
        let list = |out: &mut String, items: &mut dyn Iterator<Item = &WitType>| {
            for (i, t) in items.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                t.write_wit(out);
            }
        };
        match self {
            WitType::Bool => out.push_str("bool"),
            WitType::S8 => out.push_str("s8"),
            WitType::U8 => out.push_str("u8"),
            WitType::S16 => out.push_str("s16"),
            WitType::U16 => out.push_str("u16"),
            WitType::S32 => out.push_str("s32"),
            WitType::U32 => out.push_str("u32"),
            WitType::S64 => out.push_str("s64"),
            WitType::U64 => out.push_str("u64"),
            WitType::F32 => out.push_str("f32"),
            WitType::F64 => out.push_str("f64"),
            WitType::Char => out.push_str("char"),
            WitType::String => out.push_str("string"),
            WitType::List(t) => {
                out.push_str("list<");
                t.write_wit(out);
                out.push('>');
            }
            WitType::Option(t) => {
                out.push_str("option<");
                t.write_wit(out);
                out.push('>');
            }
            WitType::Tuple(ts) => {
                out.push_str("tuple<");
                list(out, &mut ts.iter());
                out.push('>');
            }
            WitType::Result { ok, err } => {
                out.push_str("result");
                match (ok, err) {
                    (None, None) => {}
                    (Some(ok), None) => {
                        out.push('<');
                        ok.write_wit(out);
                        out.push('>');
                    }
                    (ok, Some(err)) => {
                        out.push('<');
                        match ok {
                            Some(ok) => ok.write_wit(out),
                            None => out.push('_'),
                        }
                        out.push_str(", ");
                        err.write_wit(out);
                        out.push('>');
                    }
                }
            }
            WitType::Record { name: Some(n), .. }
            | WitType::Variant { name: Some(n), .. }
            | WitType::Enum { name: Some(n), .. }
            | WitType::Flags { name: Some(n), .. } => out.push_str(n),
            WitType::Record { name: None, fields } => {
                out.push_str("record { ");
                for (i, (n, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{n}: ");
                    t.write_wit(out);
                }
                out.push_str(" }");
            }
            WitType::Variant { name: None, cases } => {
                out.push_str("variant { ");
                for (i, (n, t)) in cases.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(n);
                    if let Some(t) = t {
                        out.push('(');
                        t.write_wit(out);
                        out.push(')');
                    }
                }
                out.push_str(" }");
            }
            WitType::Enum { name: None, cases } => {
                let _ = write!(out, "enum {{ {} }}", cases.join(", "));
            }
            WitType::Flags { name: None, names } => {
                let _ = write!(out, "flags {{ {} }}", names.join(", "));
            }
        }
    }
}

/// A function's signature as WIT writes it: `func(a: u32, b: string) -> T`.
pub fn signature(params: &[(String, WitType)], result: Option<&WitType>) -> String {
    let mut out = String::from("func(");
    for (i, (n, t)) in params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{n}: ");
        t.write_wit(&mut out);
    }
    out.push(')');
    if let Some(r) = result {
        out.push_str(" -> ");
        r.write_wit(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_read_as_wit() {
        let point = WitType::Record {
            name: Some("point".into()),
            fields: vec![("x".into(), WitType::S32)],
        };
        let params = vec![
            ("p".into(), point),
            ("tags".into(), WitType::List(Box::new(WitType::String))),
            (
                "mode".into(),
                WitType::Enum {
                    name: None,
                    cases: vec!["a".into(), "b".into()],
                },
            ),
        ];
        let result = WitType::Result {
            ok: None,
            err: Some(Box::new(WitType::String)),
        };
        assert_eq!(
            signature(&params, Some(&result)),
            "func(p: point, tags: list<string>, mode: enum { a, b }) -> result<_, string>"
        );
        assert_eq!(signature(&[], None), "func()");
        let anonymous = WitType::Tuple(vec![
            WitType::Option(Box::new(WitType::U8)),
            WitType::Result {
                ok: Some(Box::new(WitType::Char)),
                err: None,
            },
            WitType::Variant {
                name: None,
                cases: vec![("n".into(), None), ("s".into(), Some(WitType::F64))],
            },
        ]);
        assert_eq!(
            anonymous.wit(),
            "tuple<option<u8>, result<char>, variant { n, s(f64) }>"
        );
    }
}
