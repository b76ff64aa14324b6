// The rewrite that makes a JSON Schema converted from Zod portable to every
// MCP client without changing what it accepts: the same rules as the Rust
// SDK's `mcp_wasm_sdk::schema::Portable` (sdk-guest/src/schema.rs), which
// the MCP Inspector's `--strict` check enforces. Zod 4's `toJSONSchema`
// writes three things the check reports, and this file is the one place they
// are rewritten (Zod's own `override` hook runs before Zod folds unions into
// `type` arrays, so the rewrite has to run on its finished output):
//
// - a `type` array, which Zod writes for `.nullable()` and for unions of
//   bare types (`{"type": ["string", "null"]}`), becomes `anyOf` branches of
//   one type each; with one type besides `null`, that type's own keywords
//   move into its branch;
// - a schema that constrains nothing (`z.any()`, `z.unknown()`: `{}`)
//   becomes `anyOf` of every JSON type;
// - a bare `false` (a tuple's `"items": false`) becomes `{"not": {}}`, and a
//   bare `true` the `anyOf` of every type, except under
//   `additionalProperties` and its kin, where booleans are the usual spelling.
//
// `$schema` (2020-12, the MCP default dialect) stays: the host compiles it
// and the Rust SDK writes the same.

const SCHEMA_KEYWORDS = [
  "items",
  "contains",
  "not",
  "propertyNames",
  "if",
  "then",
  "else",
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
  "contentSchema",
];
const ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"];
const BOOLEAN_KEYWORDS = ["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"];
const CONSTRAINING = new Set([
  "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
  "maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema",
  "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
  "required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains",
  "additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties",
  "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef",
  "$recursiveRef",
]);
// Keywords that apply to values of one type only (never to `null`).
const TYPE_SPECIFIC = [
  "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
  "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema", "items", "prefixItems",
  "contains", "maxContains", "minContains", "maxItems", "minItems", "uniqueItems", "additionalItems",
  "properties", "patternProperties", "additionalProperties", "propertyNames", "maxProperties",
  "minProperties", "required", "dependentRequired", "dependentSchemas", "dependencies",
];
const ALL_TYPES = ["object", "array", "string", "number", "boolean", "null"];

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const boolSchema = (accepts) => (accepts ? { anyOf: ALL_TYPES.map((type) => ({ type })) } : { not: {} });

/** Makes the JSON Schema `schema` (changed in place) and its subschemas portable; returns it. */
export function portable(schema) {
  if (typeof schema === "boolean") return boolSchema(schema);
  if (isObject(schema)) portableObject(schema, false);
  return schema;
}

function portableObject(object, underNot) {
  for (const [key, value] of Object.entries(object)) {
    if (SCHEMA_KEYWORDS.includes(key) && !Array.isArray(value)) {
      object[key] = portableSubschema(value, key);
    } else if (ARRAY_KEYWORDS.includes(key) && Array.isArray(value)) {
      object[key] = value.map((item) => portableSubschema(item, key));
    } else if (MAP_KEYWORDS.includes(key) && isObject(value)) {
      for (const [name, item] of Object.entries(value)) value[name] = portableSubschema(item, key);
    }
  }
  splitTypeArray(object);
  const constrains =
    Object.keys(object).some((key) => CONSTRAINING.has(key)) || ("if" in object && ("then" in object || "else" in object));
  if (!underNot && !constrains) Object.assign(object, boolSchema(true));
}

function portableSubschema(value, keyword) {
  if (typeof value === "boolean") return BOOLEAN_KEYWORDS.includes(keyword) ? value : boolSchema(value);
  if (isObject(value)) portableObject(value, keyword === "not");
  return value;
}

/** Rewrites `"type": [...]` as `anyOf` branches of one type each. */
function splitTypeArray(object) {
  const types = object.type;
  if (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === "string")) return;
  delete object.type;
  if (types.length === 1) {
    object.type = types[0];
    return;
  }
  const others = types.filter((t) => t !== "null");
  let branches = types.map((type) => ({ type }));
  if (others.length === 1) {
    const branch = { type: others[0] };
    for (const key of TYPE_SPECIFIC) {
      if (key in object) {
        branch[key] = object[key];
        delete object[key];
      }
    }
    branches = types.map((type) => (type === others[0] ? branch : { type }));
  }
  if ("anyOf" in object) {
    // Both must hold: the existing `anyOf` and the one for the types.
    object.allOf = [...(object.allOf ?? []), { anyOf: branches }];
  } else {
    object.anyOf = branches;
  }
}
