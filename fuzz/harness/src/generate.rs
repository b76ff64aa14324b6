//! Structured generators for the fuzz targets: JSON values and JSON Schemas
//! built from `arbitrary` data, biased towards inputs that reach a
//! validator (a few shared property names, real keywords, regexes that
//! compile) while still allowing anything.

use arbitrary::Arbitrary;
use serde_json::{Map, Number, Value, json};

/// How deep a generated value or schema may nest; deeper parts become a
/// leaf. The host's own JSON parsing stops at 128 levels, so depth past a
/// few levels tests serde_json, not the host.
const MAX_DEPTH: usize = 6;

/// A property name: mostly one of a few shared names, so that generated
/// instances meet the properties generated schemas talk about.
#[derive(Arbitrary, Debug)]
pub enum Key {
    A,
    B,
    C,
    Empty,
    Other(String),
}

impl Key {
    fn text(&self) -> String {
        match self {
            Key::A => "a".into(),
            Key::B => "b".into(),
            Key::C => "c".into(),
            Key::Empty => String::new(),
            Key::Other(s) => s.clone(),
        }
    }
}

/// A number, often a small one that schema bounds care about.
#[derive(Arbitrary, Debug)]
pub enum Num {
    Small(i8),
    Int(i64),
    Unsigned(u64),
    Float(f64),
}

impl Num {
    fn value(&self) -> Value {
        match self {
            Num::Small(n) => json!(n),
            Num::Int(n) => json!(n),
            Num::Unsigned(n) => json!(n),
            // NaN and infinities are not JSON; serde_json makes them null.
            Num::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        }
    }
}

/// Any JSON value.
#[derive(Arbitrary, Debug)]
pub enum Json {
    Null,
    Bool(bool),
    Number(Num),
    Key(Key),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(Key, Json)>),
}

impl Json {
    /// The value, cut at [`MAX_DEPTH`].
    pub fn value(&self) -> Value {
        self.at(0)
    }

    fn at(&self, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => n.value(),
            Json::Key(k) => Value::String(k.text()),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => items.iter().map(|j| j.at(depth + 1)).collect(),
            Json::Object(fields) => object(fields, depth + 1),
        }
    }
}

/// An object from generated fields (a repeated key keeps its last value).
pub fn object(fields: &[(Key, Json)], depth: usize) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|(k, v)| (k.text(), v.at(depth)))
            .collect::<Map<_, _>>(),
    )
}

/// A JSON type name, or a misspelt one.
#[derive(Arbitrary, Debug)]
pub enum TypeName {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
    Other(String),
}

impl TypeName {
    fn value(&self) -> Value {
        Value::String(
            match self {
                TypeName::Null => "null",
                TypeName::Boolean => "boolean",
                TypeName::Integer => "integer",
                TypeName::Number => "number",
                TypeName::String => "string",
                TypeName::Array => "array",
                TypeName::Object => "object",
                TypeName::Other(s) => s,
            }
            .into(),
        )
    }
}

/// Regular expressions of the kinds schemas use (anchors, classes,
/// lookaround and backreferences that only `fancy-regex` accepts, nested
/// quantifiers, invalid syntax), or any text.
#[derive(Arbitrary, Debug)]
pub enum Pattern {
    Known(u8),
    Other(String),
}

const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "^a",
    "\\d+",
    "^\\p{L}*$",
    "(?i)ab",
    "^(?!x)",
    "(a)\\1",
    "(a+)+$",
    "(a|aa)*b",
    "a{2,5}",
    "[",
    "\\",
    "^.*$",
    "\\bword\\b",
    "",
];

impl Pattern {
    fn text(&self) -> String {
        match self {
            Pattern::Known(i) => PATTERNS[*i as usize % PATTERNS.len()].into(),
            Pattern::Other(s) => s.clone(),
        }
    }
}

/// A `format` name (only annotations unless a validator asserts them).
#[derive(Arbitrary, Debug)]
pub enum Format {
    Date,
    DateTime,
    Email,
    Uri,
    Uuid,
    Ipv4,
    Regex,
    Other(String),
}

impl Format {
    fn text(&self) -> String {
        match self {
            Format::Date => "date",
            Format::DateTime => "date-time",
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Uuid => "uuid",
            Format::Ipv4 => "ipv4",
            Format::Regex => "regex",
            Format::Other(s) => s,
        }
        .into()
    }
}

/// Where a `$ref` points: one of the root's `$defs` (which may be missing
/// or refer back to itself), the root, a property, or any text.
#[derive(Arbitrary, Debug)]
pub enum RefTarget {
    Def(u8),
    Root,
    Property(Key),
    Anchor,
    Other(String),
}

/// How many `$defs` a root schema may have, named `d0`, `d1`, ...
const DEFS: usize = 4;

impl RefTarget {
    fn text(&self) -> String {
        match self {
            RefTarget::Def(i) => format!("#/$defs/d{}", *i as usize % (DEFS + 1)),
            RefTarget::Root => "#".into(),
            RefTarget::Property(k) => format!("#/properties/{}", k.text()),
            RefTarget::Anchor => "#anchor".into(),
            RefTarget::Other(s) => s.clone(),
        }
    }
}

/// A keyword of JSON Schema 2020-12 (or any name) with any value, to reach
/// the validator's handling of values of the wrong type.
#[derive(Arbitrary, Debug)]
pub struct Keyword {
    name: KeywordName,
    value: Json,
}

#[derive(Arbitrary, Debug)]
enum KeywordName {
    Known(u8),
    Other(String),
}

const KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "items",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$id",
    "$schema",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentEncoding",
    "contentMediaType",
];

impl Keyword {
    fn insert(&self, into: &mut Map<String, Value>) {
        let name = match &self.name {
            KeywordName::Known(i) => KEYWORDS[*i as usize % KEYWORDS.len()].to_string(),
            KeywordName::Other(s) => s.clone(),
        };
        into.insert(name, self.value.value());
    }
}

/// A subschema.
#[derive(Arbitrary, Debug)]
pub enum Node {
    Bool(bool),
    Type(Vec<TypeName>),
    String {
        min_length: Option<u8>,
        max_length: Option<u8>,
        pattern: Option<Pattern>,
        format: Option<Format>,
    },
    Number {
        integer: bool,
        minimum: Option<Num>,
        maximum: Option<Num>,
        exclusive_minimum: Option<Num>,
        exclusive_maximum: Option<Num>,
        multiple_of: Option<Num>,
    },
    Array {
        items: Option<Box<Node>>,
        prefix_items: Vec<Node>,
        contains: Option<Box<Node>>,
        min_items: Option<u8>,
        max_items: Option<u8>,
        unique_items: bool,
    },
    Object(Box<ObjectSchema>),
    Enum(Vec<Json>),
    Const(Json),
    Ref(RefTarget),
    AnyOf(Vec<Node>),
    OneOf(Vec<Node>),
    AllOf(Vec<Node>),
    Not(Box<Node>),
    If {
        condition: Box<Node>,
        then: Option<Box<Node>>,
        otherwise: Option<Box<Node>>,
    },
    Keywords(Vec<Keyword>),
}

fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        map.insert(key.into(), v);
    }
}

impl Node {
    fn at(&self, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Bool(true);
        }
        let sub = |n: &Node| n.at(depth + 1);
        let list = |ns: &[Node]| Value::Array(ns.iter().map(sub).collect());
        let mut m = Map::new();
        match self {
            Node::Bool(b) => return Value::Bool(*b),
            Node::Type(types) => {
                let mut names: Vec<Value> = types.iter().map(TypeName::value).collect();
                m.insert(
                    "type".into(),
                    if names.len() == 1 {
                        names.remove(0)
                    } else {
                        Value::Array(names)
                    },
                );
            }
            Node::String {
                min_length,
                max_length,
                pattern,
                format,
            } => {
                m.insert("type".into(), "string".into());
                put(&mut m, "minLength", min_length.map(Value::from));
                put(&mut m, "maxLength", max_length.map(Value::from));
                put(&mut m, "pattern", pattern.as_ref().map(|p| p.text().into()));
                put(&mut m, "format", format.as_ref().map(|f| f.text().into()));
            }
            Node::Number {
                integer,
                minimum,
                maximum,
                exclusive_minimum,
                exclusive_maximum,
                multiple_of,
            } => {
                m.insert(
                    "type".into(),
                    if *integer { "integer" } else { "number" }.into(),
                );
                for (key, n) in [
                    ("minimum", minimum),
                    ("maximum", maximum),
                    ("exclusiveMinimum", exclusive_minimum),
                    ("exclusiveMaximum", exclusive_maximum),
                    ("multipleOf", multiple_of),
                ] {
                    put(&mut m, key, n.as_ref().map(Num::value));
                }
            }
            Node::Array {
                items,
                prefix_items,
                contains,
                min_items,
                max_items,
                unique_items,
            } => {
                m.insert("type".into(), "array".into());
                put(&mut m, "items", items.as_deref().map(sub));
                if !prefix_items.is_empty() {
                    m.insert("prefixItems".into(), list(prefix_items));
                }
                put(&mut m, "contains", contains.as_deref().map(sub));
                put(&mut m, "minItems", min_items.map(Value::from));
                put(&mut m, "maxItems", max_items.map(Value::from));
                if *unique_items {
                    m.insert("uniqueItems".into(), true.into());
                }
            }
            Node::Object(o) => return Value::Object(o.map(depth + 1, false)),
            Node::Enum(values) => {
                m.insert(
                    "enum".into(),
                    values.iter().map(|j| j.at(depth + 1)).collect(),
                );
            }
            Node::Const(j) => {
                m.insert("const".into(), j.at(depth + 1));
            }
            Node::Ref(target) => {
                m.insert("$ref".into(), target.text().into());
            }
            Node::AnyOf(ns) => {
                m.insert("anyOf".into(), list(ns));
            }
            Node::OneOf(ns) => {
                m.insert("oneOf".into(), list(ns));
            }
            Node::AllOf(ns) => {
                m.insert("allOf".into(), list(ns));
            }
            Node::Not(n) => {
                m.insert("not".into(), sub(n));
            }
            Node::If {
                condition,
                then,
                otherwise,
            } => {
                m.insert("if".into(), sub(condition));
                put(&mut m, "then", then.as_deref().map(sub));
                put(&mut m, "else", otherwise.as_deref().map(sub));
            }
            Node::Keywords(keywords) => {
                for k in keywords {
                    k.insert(&mut m);
                }
            }
        }
        Value::Object(m)
    }
}

/// An object schema: the shape every tool's input schema has.
#[derive(Arbitrary, Debug)]
pub struct ObjectSchema {
    properties: Vec<(Key, Node)>,
    required: Vec<Key>,
    additional_properties: Option<Node>,
    pattern_properties: Vec<(Pattern, Node)>,
    property_names: Option<Node>,
    min_properties: Option<u8>,
    max_properties: Option<u8>,
    defs: Vec<Node>,
    anchor: bool,
    extra: Vec<Keyword>,
}

impl ObjectSchema {
    /// The schema as JSON text, a root with `"type": "object"` (unless an
    /// extra keyword overrides it).
    pub fn text(&self) -> String {
        Value::Object(self.map(0, true)).to_string()
    }

    fn map(&self, depth: usize, root: bool) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("type".into(), "object".into());
        if depth > MAX_DEPTH {
            return m;
        }
        let sub = |n: &Node| n.at(depth + 1);
        if !self.properties.is_empty() {
            let props: Map<_, _> = self
                .properties
                .iter()
                .map(|(k, n)| (k.text(), sub(n)))
                .collect();
            m.insert("properties".into(), props.into());
        }
        if !self.required.is_empty() {
            let names: Vec<Value> = self.required.iter().map(|k| k.text().into()).collect();
            m.insert("required".into(), names.into());
        }
        put(
            &mut m,
            "additionalProperties",
            self.additional_properties.as_ref().map(sub),
        );
        if !self.pattern_properties.is_empty() {
            let props: Map<_, _> = self
                .pattern_properties
                .iter()
                .map(|(p, n)| (p.text(), sub(n)))
                .collect();
            m.insert("patternProperties".into(), props.into());
        }
        put(
            &mut m,
            "propertyNames",
            self.property_names.as_ref().map(sub),
        );
        put(
            &mut m,
            "minProperties",
            self.min_properties.map(Value::from),
        );
        put(
            &mut m,
            "maxProperties",
            self.max_properties.map(Value::from),
        );
        if root && !self.defs.is_empty() {
            let defs: Map<_, _> = self
                .defs
                .iter()
                .take(DEFS)
                .enumerate()
                .map(|(i, n)| (format!("d{i}"), sub(n)))
                .collect();
            m.insert("$defs".into(), defs.into());
        }
        if self.anchor {
            m.insert("$anchor".into(), "anchor".into());
        }
        for k in &self.extra {
            k.insert(&mut m);
        }
        m
    }
}
