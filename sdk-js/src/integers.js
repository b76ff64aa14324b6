// Exact integers: the bounds of each integer schema `s` builds, JSON text
// that writes a BigInt as its digits, and the reading of a call's arguments
// that gives a 64-bit argument (`s.int64()`, `s.uint64()`) to the handler as
// the BigInt it is, never through a double.
//
// A JS number holds every integer from -(2^53 - 1) to 2^53 - 1 exactly and
// no wider range, so `s.integer()` states those bounds (the host refuses a
// value beyond them before the handler runs). JSON.parse reads every number
// as a double; for a tool with 64-bit arguments the arguments are read with
// a reviver that also gets each number's source text (`JSON.parse` source
// text access, ES2025), and a number at a 64-bit argument is taken from its
// text exactly.
//
// The host sends the arguments as serde_json writes them back: an integer of
// at most 64 bits as its digits, any other number as the double it read.
// So an integer in float form (`5.0`, `1e3`) is taken only below 2^53, where
// no other integer reads as the same double; beyond, it is refused (the same
// rule as the host's own for generic components).

/** The integers a JS number holds exactly. */
const SAFE = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/** Each width's bounds, and for 64 bits the `format` the arguments' reading looks for. */
export const WIDTHS = {
  integer: SAFE,
  int32: { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
  uint32: { minimum: 0, maximum: 2 ** 32 - 1 },
  int64: { format: "int64", minimum: -(2n ** 63n), maximum: 2n ** 63n - 1n },
  uint64: { format: "uint64", minimum: 0n, maximum: 2n ** 64n - 1n },
};

/** Whether a schema is a 64-bit integer's (`s.int64()`, `s.uint64()`, or JSON Schema saying so). */
const is64 = (schema) =>
  schema !== null &&
  typeof schema === "object" &&
  schema.type === "integer" &&
  (schema.format === "int64" || schema.format === "uint64");

/** Whether the schema (an `s` schema's JSON) has a 64-bit integer anywhere. */
export function has64(schema) {
  if (schema === null || typeof schema !== "object") return false;
  if (is64(schema)) return true;
  return Object.values(schema).some(has64);
}

/**
 * `JSON.stringify(value, null, indent)`, with each BigInt written as its
 * digits: a BigInt is first written as a string that holds a marker and
 * its index, then that string is replaced by the digits.
 */
export function jsonText(value, indent) {
  const big = [];
  const marker = "\u0000mcp-wasm-sdk-bigint:";
  const text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${marker}${big.push(v) - 1}` : v), indent);
  if (big.length === 0) return text;
  return text.replace(/"\\u0000mcp-wasm-sdk-bigint:(\d+)"/g, (_, i) => String(big[Number(i)]));
}

/** A number as written, for the 64-bit arguments: its source text and the double JSON.parse read. */
class Written {
  constructor(source, number) {
    this.source = source;
    this.number = number;
  }
}

/**
 * The exact value of a JSON number's text: a BigInt when it is an integer
 * (in any spelling: `5`, `5.0`, `0.5e1`), "fraction" when it is not one,
 * "huge" when it has more than 20 digits (beyond every 64-bit bound).
 */
function exactValue(source) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(source);
  if (m === null) return "fraction";
  const fraction = m[3] ?? "";
  const digits = (m[2] + fraction).replace(/^0+/, "");
  if (digits === "") return 0n;
  const significant = digits.replace(/0+$/, "");
  const scale = Number(m[4] ?? 0) - fraction.length + (digits.length - significant.length);
  if (scale < 0) return "fraction";
  if (significant.length + scale > 20) return "huge";
  const magnitude = BigInt(significant) * 10n ** BigInt(scale);
  return m[1] === "-" ? -magnitude : magnitude;
}

/** The BigInt a 64-bit argument at `path` is, or an error naming its bounds. */
function bigintOf(value, schema, path, fail) {
  const { minimum, maximum } = WIDTHS[schema.format];
  const bounds = `${schema.format} takes ${minimum} to ${maximum}`;
  let source;
  if (value instanceof Written) source = value.source;
  else if (typeof value === "number") source = String(value); // a safe integer; -0 is "0"
  else return fail(`${path}: expected an integer (${bounds})`);
  const exact = exactValue(source);
  if (exact === "fraction") return fail(`${path}: ${source} is not an integer (${bounds})`);
  const number = value instanceof Written ? value.number : value;
  if (/[.eE]/.test(source) && !(Math.abs(number) < 2 ** 53)) {
    // The double the host read: out of range whatever integer it came
    // from, or not exact (as the host's own rule for generic components).
    if (number < Number(minimum) || number > Number(maximum)) {
      return fail(`${path}: ${source} is out of range: ${bounds}`);
    }
    return fail(
      `${path}: the number read as ${source} cannot be taken exactly: a number written with a fraction or an ` +
        `exponent is exact only from -9007199254740991 to 9007199254740991 (2^53 - 1); ${bounds}, written as a plain integer`,
    );
  }
  if (exact === "huge" || exact < minimum || exact > maximum) {
    return fail(`${path}: ${source} is out of range: ${bounds}`);
  }
  return exact;
}

const typeOf = (value) =>
  value === null ? "null" : Array.isArray(value) ? "array" : value instanceof Written ? "number" : typeof value;

/** The `anyOf` branch of `schema` a value of JSON type `type` goes by, or `schema` itself. */
function branch(schema, type) {
  if (!Array.isArray(schema?.anyOf)) return schema;
  const fits = (b) => b?.type === type || (b?.type === "integer" && type === "number");
  return schema.anyOf.find((b) => type === "number" && is64(b)) ?? schema.anyOf.find(fits) ?? schema;
}

/**
 * `value`, as parsed by `parseArguments`, with each number at a 64-bit
 * integer of `schema` made the BigInt it is and each other number the
 * double JSON.parse gives.
 */
function exactly(value, schema, path, fail) {
  const type = typeOf(value);
  schema = branch(schema, type);
  if (type === "number" && is64(schema)) return bigintOf(value, schema, path || "/", fail);
  if (value instanceof Written) return value.number;
  if (type === "array") {
    const items = schema?.items;
    return value.map((v, i) => exactly(v, items, `${path}/${i}`, fail));
  }
  if (type === "object") {
    const out = {};
    for (const [key, v] of Object.entries(value)) {
      const extra = schema?.additionalProperties;
      const own = schema?.properties !== undefined && Object.hasOwn(schema.properties, key);
      const sub = own ? schema.properties[key] : typeof extra === "object" ? extra : undefined;
      // Defined, not assigned: a key such as "__proto__" stays a property.
      Object.defineProperty(out, key, {
        value: exactly(v, sub, `${path}/${key}`, fail),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/**
 * The call's arguments `text` for a tool whose input schema (JSON) has
 * 64-bit integers: each of them a BigInt taken from the number's text
 * exactly, every other number as JSON.parse reads it. `fail(message)`
 * throws the error for an argument that cannot be taken exactly.
 */
export function parseArguments(text, schema, fail) {
  const parsed = JSON.parse(text, (_, value, context) => {
    if (typeof value !== "number") return value;
    const source = context?.source;
    if (typeof source !== "string") {
      throw new Error("this JavaScript engine gives no JSON.parse source text: 64-bit arguments cannot be read exactly");
    }
    return Number.isSafeInteger(value) && !/[.eE]/.test(source) ? value : new Written(source, value);
  });
  return exactly(parsed, schema, "", fail);
}
