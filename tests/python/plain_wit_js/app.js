// A component from plain WIT (wit/plain.wit), built with componentize-js and
// no SDK: it knows nothing of mcp-wasm-host. tests/python/test_plain_wit.py
// builds it and serves it with the real binary as a generic component.
// (jco's conventions: camelCase names, `undefined` for `none`, BigInt for
// 64-bit integers, a thrown value for the `err` of a `result`.)

export function greet(name, nick) {
  return `hello, ${nick ?? name}`;
}

export function total(values) {
  return values.reduce((sum, v) => sum + BigInt(v), 0n);
}

export function parseCount(text) {
  if (!/^[0-9]+$/.test(text) || Number(text) > 0xffffffff) {
    throw `not a count: '${text}'`;
  }
  return Number(text);
}

export function words(text) {
  const found = text.split(/\s+/).filter((w) => w !== "");
  return found.length > 0 ? found : undefined;
}

export const geometry = {
  midpoint(a, b) {
    return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  },
  place(at, label) {
    return { at, distance: Math.hypot(at.x, at.y), label };
  },
};
