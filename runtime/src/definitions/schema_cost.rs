//! The work a JSON Schema check can take, counted before jsonschema does
//! it. jsonschema's full report (`iter_errors`) remembers nothing between
//! the places a schema applies, so a schema that applies one of its parts
//! to the same value several ways at each level (`{"properties": {"a":
//! {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}}`) costs twice as much for
//! each level of the value: forty levels of arguments would hold a core for
//! hours, and its list of violations fills the host's memory first. This
//! model counts, for one value, how many times a check would apply a part
//! of the schema, in time linear in the value, and the check is refused
//! past a budget instead.
//!
//! The count is an upper bound: every keyword that applies a subschema is
//! followed (`$ref`, `$dynamicRef` and `$recursiveRef` through the same
//! resolver jsonschema uses, and to every anchor a dynamic reference might
//! pick), conditions are assumed to hold (`if`, `dependentSchemas`) and
//! `patternProperties` is assumed to match every key.

use std::collections::HashMap;

use referencing::{Draft, Registry, Resolver, ResourceRef, uri};
use serde_json::Value;

/// The most steps building a schema's model may take (following its
/// in-place references from every part); past it the schema is refused.
const MAX_MODEL_STEPS: u64 = 1_000_000;

/// The most times one check may apply a part of a schema: a fixed
/// allowance and a share per value (object, array or scalar) in the
/// instance, so a check's cost stays linear in the size of what it checks.
pub const BASE_STEPS: u64 = 100_000;
/// See [`BASE_STEPS`].
pub const STEPS_PER_VALUE: u64 = 32;

/// How many times one part may be on one path of in-place references in
/// the model (see [`Builder::closures`]).
const MAX_VISITS_ON_A_PATH: u8 = 3;

/// A schema whose model would take more than [`MAX_MODEL_STEPS`] to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooComplex;

/// One part of a schema (an object or boolean in a schema position): the
/// parts that apply to the same value, and those that apply to its members.
#[derive(Debug, Default)]
struct Part {
    /// Applied to the same value (`$ref`, `allOf`, `not`, `if`...).
    here: Vec<u32>,
    /// `properties`: a named member.
    named: HashMap<String, u32>,
    /// `additionalProperties`, `unevaluatedProperties`: members not in
    /// `named`.
    others: Vec<u32>,
    /// `patternProperties`: any member (the pattern is assumed to match).
    any_key: Vec<u32>,
    /// `propertyNames`: each member's name, a string.
    names: Vec<u32>,
    /// `prefixItems`, `items` as an array: the item at that index.
    at: Vec<u32>,
    /// `items`, `additionalItems`, `contains`, `unevaluatedItems`: any item.
    any_item: Vec<u32>,
}

/// A compiled schema's cost model.
#[derive(Debug)]
pub(crate) struct CostModel {
    parts: Vec<Part>,
    /// For each part, every part that applies to the same value when it
    /// does (itself included), and in how many ways.
    closure: Vec<Vec<(u32, u64)>>,
    /// For each part, the sum of its closure's ways: what applying it to a
    /// value with no members costs.
    weight: Vec<u64>,
}

/// What a check of one value would cost, or that it is over the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cost {
    /// At most this many applications.
    Within(u64),
    /// More than the budget for a value of this many parts.
    Over {
        /// The budget.
        budget: u64,
    },
}

impl CostModel {
    /// Builds the model of `root`, a schema jsonschema has compiled.
    pub(crate) fn build(root: &Value) -> Result<CostModel, TooComplex> {
        let mut builder = Builder::default();
        builder.walk(root);
        let closure = builder.closures()?;
        let weight = closure
            .iter()
            .map(|c| c.iter().fold(0u64, |s, (_, w)| s.saturating_add(*w)))
            .collect();
        Ok(CostModel {
            parts: builder.parts,
            closure,
            weight,
        })
    }

    /// Counts how many times checking `instance` applies a part of the
    /// schema, stopping past the budget for its size.
    pub(crate) fn cost(&self, instance: &Value) -> Cost {
        let budget = BASE_STEPS.saturating_add(STEPS_PER_VALUE.saturating_mul(values(instance)));
        let mut total: u64 = 0;
        let mut stack: Vec<(&Value, Vec<(u32, u64)>)> = vec![(instance, vec![(0, 1)])];
        let mut here: HashMap<u32, u64> = HashMap::new();
        while let Some((value, applied)) = stack.pop() {
            here.clear();
            for (part, ways) in applied {
                for (reached, more) in &self.closure[part as usize] {
                    let w = here.entry(*reached).or_default();
                    *w = w.saturating_add(ways.saturating_mul(*more));
                }
            }
            total = here.values().fold(total, |t, w| t.saturating_add(*w));
            if total > budget {
                return Cost::Over { budget };
            }
            match value {
                Value::Object(members) => {
                    for (key, member) in members {
                        let mut next = Vec::new();
                        for (part, ways) in &here {
                            let p = &self.parts[*part as usize];
                            let mut add = |to: u32| next.push((to, *ways));
                            match p.named.get(key) {
                                Some(to) => add(*to),
                                None => p.others.iter().copied().for_each(&mut add),
                            }
                            p.any_key.iter().copied().for_each(&mut add);
                            for name in &p.names {
                                total = total.saturating_add(
                                    ways.saturating_mul(self.weight[*name as usize]),
                                );
                            }
                            // Looking the member up is work of its own.
                            total = total.saturating_add(1);
                        }
                        if total > budget {
                            return Cost::Over { budget };
                        }
                        if !next.is_empty() {
                            stack.push((member, next));
                        }
                    }
                }
                Value::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        let mut next = Vec::new();
                        for (part, ways) in &here {
                            let p = &self.parts[*part as usize];
                            if let Some(to) = p.at.get(index) {
                                next.push((*to, *ways));
                            }
                            next.extend(p.any_item.iter().map(|to| (*to, *ways)));
                            total = total.saturating_add(1);
                        }
                        if total > budget {
                            return Cost::Over { budget };
                        }
                        if !next.is_empty() {
                            stack.push((item, next));
                        }
                    }
                }
                _ => {}
            }
        }
        Cost::Within(total)
    }
}

/// How many values `instance` holds, itself included.
fn values(instance: &Value) -> u64 {
    let mut count = 0u64;
    let mut stack = vec![instance];
    while let Some(value) = stack.pop() {
        count += 1;
        match value {
            Value::Object(members) => stack.extend(members.values()),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    count
}

/// Numbers the parts of a schema and records their edges.
#[derive(Default)]
struct Builder {
    parts: Vec<Part>,
}

impl Builder {
    /// Records every part reachable from `root` (part 0).
    fn walk(&mut self, root: &Value) {
        let draft = Draft::default().detect(root);
        // jsonschema compiled this schema, so its references resolve; a
        // registry that fails here leaves only the local ones followed.
        let base = "urn:mcp-wasm-host:schema";
        let registry = Registry::new()
            .draft(draft)
            .add(base, root)
            .and_then(|b| b.prepare())
            .ok();
        let root_resolver = registry.as_ref().and_then(|r| {
            uri::from_str(base)
                .ok()
                .map(|u| r.resolver(u))
                .and_then(|res| res.in_subresource(ResourceRef::new(root, draft)).ok())
        });
        // The parts a `$dynamicRef` to an anchor, or a `$recursiveRef`,
        // might reach whatever the dynamic scope: every part that declares
        // that anchor.
        let mut dynamic: HashMap<&str, Vec<&Value>> = HashMap::new();
        let mut recursive: Vec<&Value> = Vec::new();
        let mut scan = vec![root];
        while let Some(value) = scan.pop() {
            match value {
                Value::Object(map) => {
                    if let Some(Value::String(name)) = map.get("$dynamicAnchor") {
                        dynamic.entry(name).or_default().push(value);
                    }
                    if map.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                        recursive.push(value);
                    }
                    scan.extend(map.values());
                }
                Value::Array(items) => scan.extend(items),
                _ => {}
            }
        }

        let mut ids: HashMap<*const Value, u32> = HashMap::new();
        let mut queue: Queue<'_, '_> = Vec::new();
        let parts = &mut self.parts;
        number(&mut ids, parts, &mut queue, root, root_resolver.clone());
        while let Some((id, value, resolver)) = queue.pop() {
            let Value::Object(map) = value else {
                continue;
            };
            let resolver = match (&resolver, map.get("$id").or_else(|| map.get("id"))) {
                (Some(r), Some(Value::String(_))) => {
                    r.in_subresource(ResourceRef::new(value, draft)).ok()
                }
                _ => resolver,
            };
            let mut part = Part::default();
            let mut link = |v, r: &Option<_>, part: &mut Vec<u32>| {
                part.push(number(&mut ids, parts, &mut queue, v, r.clone()));
            };
            for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
                let Some(Value::String(reference)) = map.get(keyword) else {
                    continue;
                };
                let found = resolver.as_ref().and_then(|r| {
                    if keyword == "$recursiveRef" {
                        r.lookup_recursive_ref().ok()
                    } else {
                        r.lookup(reference).ok()
                    }
                });
                if let Some(resolved) = found {
                    let (target, target_resolver, _) = resolved.into_inner();
                    link(target, &Some(target_resolver), &mut part.here);
                } else if let Some(target) = reference
                    .strip_prefix('#')
                    .and_then(|p| root.pointer(&percent_decode(p)))
                {
                    link(target, &None, &mut part.here);
                }
                let anchored: &[&Value] = match keyword {
                    "$dynamicRef" => reference
                        .rsplit_once('#')
                        .and_then(|(_, name)| dynamic.get(name))
                        .map_or(&[], Vec::as_slice),
                    "$recursiveRef" => &recursive,
                    _ => &[],
                };
                // Their own references resolve from the start: a bound,
                // not the exact base.
                for target in anchored {
                    link(target, &root_resolver, &mut part.here);
                }
            }
            for keyword in ["allOf", "anyOf", "oneOf"] {
                if let Some(Value::Array(items)) = map.get(keyword) {
                    for v in items {
                        link(v, &resolver, &mut part.here);
                    }
                }
            }
            for keyword in ["not", "if", "then", "else"] {
                if let Some(v) = map.get(keyword) {
                    link(v, &resolver, &mut part.here);
                }
            }
            for keyword in ["dependentSchemas", "dependencies"] {
                if let Some(Value::Object(schemas)) = map.get(keyword) {
                    for v in schemas.values().filter(|v| v.is_object() || v.is_boolean()) {
                        link(v, &resolver, &mut part.here);
                    }
                }
            }
            if let Some(Value::Object(props)) = map.get("properties") {
                for (name, v) in props {
                    let mut to = Vec::with_capacity(1);
                    link(v, &resolver, &mut to);
                    part.named.insert(name.clone(), to[0]);
                }
            }
            for keyword in ["additionalProperties", "unevaluatedProperties"] {
                if let Some(v) = map.get(keyword) {
                    link(v, &resolver, &mut part.others);
                }
            }
            if let Some(v) = map.get("propertyNames") {
                link(v, &resolver, &mut part.names);
            }
            if let Some(Value::Object(patterns)) = map.get("patternProperties") {
                for v in patterns.values() {
                    link(v, &resolver, &mut part.any_key);
                }
            }
            for keyword in ["additionalItems", "contains", "unevaluatedItems"] {
                if let Some(v) = map.get(keyword) {
                    link(v, &resolver, &mut part.any_item);
                }
            }
            for keyword in ["prefixItems", "items"] {
                match map.get(keyword) {
                    Some(Value::Array(items)) => {
                        for v in items {
                            link(v, &resolver, &mut part.at);
                        }
                    }
                    Some(v) if keyword == "items" => link(v, &resolver, &mut part.any_item),
                    _ => {}
                }
            }
            parts[id as usize] = part;
        }
    }

    /// For every part, the parts that apply to the same value and how
    /// many ways: the paths through in-place edges on which no part comes
    /// more than [`MAX_VISITS_ON_A_PATH`] times. jsonschema compiles a
    /// `$ref` to a part not yet on its way as a copy of it and stops a loop
    /// only where a reference comes back to a part already being checked
    /// against the same value, so a part can be checked more than once on
    /// one way through a loop; this bound is above what that allows.
    fn closures(&self) -> Result<Vec<Vec<(u32, u64)>>, TooComplex> {
        let mut steps: u64 = 0;
        let mut on_path = vec![0u8; self.parts.len()];
        let mut all = Vec::with_capacity(self.parts.len());
        for start in 0..self.parts.len() {
            let mut ways: HashMap<u32, u64> = HashMap::new();
            // (part, index of the next edge to follow)
            let mut path: Vec<(u32, usize)> = vec![(start as u32, 0)];
            on_path[start] = 1;
            *ways.entry(start as u32).or_default() += 1;
            while let Some((part, next)) = path.last_mut() {
                let here = &self.parts[*part as usize].here;
                if let Some(to) = here.get(*next) {
                    *next += 1;
                    steps += 1;
                    if steps > MAX_MODEL_STEPS {
                        return Err(TooComplex);
                    }
                    if on_path[*to as usize] < MAX_VISITS_ON_A_PATH {
                        on_path[*to as usize] += 1;
                        let w = ways.entry(*to).or_default();
                        *w = w.saturating_add(1);
                        path.push((*to, 0));
                    }
                } else {
                    on_path[*part as usize] -= 1;
                    path.pop();
                }
            }
            let mut ways: Vec<(u32, u64)> = ways.into_iter().collect();
            ways.sort_unstable();
            all.push(ways);
        }
        Ok(all)
    }
}

/// The parts numbered but not yet read, each with the resolver its
/// references resolve with.
type Queue<'v, 'r> = Vec<(u32, &'v Value, Option<Resolver<'r>>)>;

/// The number of the part `value`, numbering it (and queueing it to be
/// read) the first time it is met.
fn number<'v, 'r>(
    ids: &mut HashMap<*const Value, u32>,
    parts: &mut Vec<Part>,
    queue: &mut Queue<'v, 'r>,
    value: &'v Value,
    resolver: Option<Resolver<'r>>,
) -> u32 {
    *ids.entry(std::ptr::from_ref(value)).or_insert_with(|| {
        parts.push(Part::default());
        let id = u32::try_from(parts.len() - 1).unwrap_or(u32::MAX);
        queue.push((id, value, resolver));
        id
    })
}

/// Decodes a JSON pointer written in a URI fragment (`%25` is `%`).
fn percent_decode(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = bytes.get(i + 1..i + 3)
            && let Ok(s) = std::str::from_utf8(h)
            && let Ok(b) = u8::from_str_radix(s, 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(schema: &Value) -> CostModel {
        CostModel::build(schema).expect("a model")
    }

    /// `{"a": {"a": ... {}}}`, `depth` levels.
    fn nested(key: &str, depth: usize) -> Value {
        (0..depth).fold(json!({}), |inner, _| json!({ key: inner }))
    }

    fn is_over(cost: Cost) -> bool {
        matches!(cost, Cost::Over { .. })
    }

    #[test]
    fn a_plain_schema_costs_one_step_per_part_and_member() {
        let m = model(&json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
        // The root, looking `a` up, and `a`.
        assert_eq!(m.cost(&json!({"a": 1})), Cost::Within(3));
        assert_eq!(m.cost(&json!({})), Cost::Within(1));
    }

    #[test]
    fn recursion_one_way_per_level_costs_linearly() {
        let tree = json!({"type": "object", "properties": {"a": {"$ref": "#"}}});
        let m = model(&tree);
        let Cost::Within(ten) = m.cost(&nested("a", 10)) else {
            panic!("over")
        };
        let Cost::Within(hundred) = m.cost(&nested("a", 100)) else {
            panic!("over")
        };
        assert!(hundred < ten * 11, "{ten} then {hundred}");
        // Any JSON value, the usual recursive schema: two branches, but a
        // value takes one of them.
        let any = json!({"$defs": {"v": {"anyOf": [
            {"type": ["null", "boolean", "number", "string"]},
            {"type": "array", "items": {"$ref": "#/$defs/v"}},
            {"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}}
        ]}}, "type": "object", "additionalProperties": {"$ref": "#/$defs/v"}});
        let deep = (0..120).fold(json!(1), |inner, i| {
            if i % 2 == 0 {
                json!([inner, 2])
            } else {
                json!({"k": inner, "l": "x"})
            }
        });
        assert!(!is_over(model(&any).cost(&json!({"x": deep}))));
    }

    #[test]
    fn a_schema_that_applies_itself_twice_per_level_is_over_budget_when_deep() {
        let twice = json!({"type": "object", "properties": {"a": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}});
        let m = model(&twice);
        assert!(!is_over(m.cost(&nested("a", 8))));
        assert!(is_over(m.cost(&nested("a", 40))));
        // The same through anyOf, oneOf, an anchor, an absolute `$id`, a
        // percent-encoded pointer and a `$dynamicRef`.
        for schema in [
            json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}}}),
            json!({"type": "object", "properties": {"a": {"oneOf": [{"$ref": "#"}, {"not": {"$ref": "#"}}]}}}),
            json!({"$anchor": "top", "type": "object", "properties": {"a": {"allOf": [{"$ref": "#top"}, {"$ref": "#top"}]}}}),
            json!({"$id": "https://example.test/s", "type": "object", "properties": {"a": {"allOf": [{"$ref": "https://example.test/s"}, {"$ref": "s"}]}}}),
            json!({"type": "object", "properties": {"a%b": {"allOf": [{"$ref": "#"}, {"$ref": "#/properties/a%25b/allOf/0"}]}}}),
            json!({"$dynamicAnchor": "n", "type": "object", "properties": {"a": {"allOf": [{"$dynamicRef": "#n"}, {"$dynamicRef": "#n"}]}}}),
        ] {
            let key = if schema.to_string().contains("a%b") {
                "a%b"
            } else {
                "a"
            };
            assert!(is_over(model(&schema).cost(&nested(key, 40))), "{schema}");
        }
    }

    #[test]
    fn property_names_and_items_count_too() {
        let names = json!({"type": "object", "propertyNames": {"allOf": [{"minLength": 1}, {"maxLength": 9}]}});
        // The root, then per member: the lookup and the name's three parts.
        assert_eq!(
            model(&names).cost(&json!({"a": 1, "b": 2})),
            Cost::Within(1 + 2 * 4)
        );
        let items = json!({"type": "object", "properties": {"l": {"prefixItems": [{"type": "integer"}], "items": {"type": "string"}}}});
        // root, lookup, l; then per item: one lookup and its parts.
        assert_eq!(
            model(&items).cost(&json!({"l": [1, "x", "y"]})),
            Cost::Within(3 + 1 + 2 + 1 + 1 + 1 + 1)
        );
    }

    #[test]
    fn in_place_references_that_multiply_past_the_model_budget_are_refused() {
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            defs.insert(
                format!("d{i}"),
                json!({"anyOf": [{"$ref": format!("#/$defs/d{}", i + 1)}, {"$ref": format!("#/$defs/d{}", i + 1)}]}),
            );
        }
        defs.insert("d40".into(), json!({"type": "string"}));
        let schema =
            json!({"type": "object", "$defs": defs, "properties": {"a": {"$ref": "#/$defs/d0"}}});
        assert_eq!(CostModel::build(&schema).unwrap_err(), TooComplex);
        // An in-place loop is cut once it comes back a few times.
        let loop_ = json!({"type": "object", "allOf": [{"$ref": "#"}]});
        assert_eq!(
            model(&loop_).cost(&json!({})),
            Cost::Within(2 * u64::from(MAX_VISITS_ON_A_PATH))
        );
    }
}
