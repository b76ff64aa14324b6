// A counter and a small notes tool on wasi:keyvalue (wit/jsnotes.wit, over
// the upstream WIT in the repository's wit/wasi/keyvalue@0.2.0-draft2), and
// a weather tool that reads its API key from wasi:config@0.2.0-draft and
// fetches, the shape of Wassette's get-weather-js (written here, not copied),
// built with componentize-js and no SDK: it knows nothing of mcp-wasm-host,
// which serves it as a generic component. host/tests/all/keyvalue_languages.rs
// builds it with scripts/build-js-plugin.sh.
// (jco's conventions: camelCase names, BigInt for 64-bit integers, a thrown
// value for the `err` of a `result`, and a thrown ComponentError whose
// `payload` is the `err` of an imported function's `result`.)

import { open } from "wasi:keyvalue/store@0.2.0-draft2";
import { increment as add } from "wasi:keyvalue/atomics@0.2.0-draft2";
import { get as configValue } from "wasi:config/store@0.2.0-draft";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A note's key: its number, zero-padded so that the keys sort in the order
// the notes were added.
const noteKey = (number) => `note-${String(number).padStart(10, "0")}`;

// Runs `body` with the bucket `name` open, and drops the bucket after. A
// store error becomes the tool's error text.
function withBucket(name, body) {
  let bucket;
  try {
    bucket = open(name);
    return body(bucket);
  } catch (e) {
    const error = e?.payload;
    if (error?.tag === "other") throw `store error: ${error.val}`;
    if (error?.tag) throw `store error: ${error.tag}`;
    throw e;
  } finally {
    bucket?.[Symbol.dispose]?.();
  }
}

export function increment(key) {
  return withBucket("default", (bucket) => add(bucket, key, 1n));
}

export function addNote(text) {
  return withBucket("notes", (bucket) => {
    const number = add(bucket, "count", 1n);
    bucket.set(noteKey(number), encoder.encode(text));
    return Number(number);
  });
}

export function notes() {
  return withBucket("notes", (bucket) => {
    const keys = [];
    let cursor;
    do {
      const page = bucket.listKeys(cursor);
      keys.push(...page.keys.filter((k) => k.startsWith("note-")));
      cursor = page.cursor;
    } while (cursor !== undefined);
    keys.sort();
    return keys
      .map((key) => bucket.get(key))
      .filter((value) => value !== undefined)
      .map((value) => decoder.decode(value));
  });
}

export async function weather(city) {
  let key;
  try {
    key = configValue("OPENWEATHER_API_KEY");
  } catch (e) {
    throw `config error: ${e?.payload?.val ?? e}`;
  }
  if (key === undefined) throw "OPENWEATHER_API_KEY is not set";
  const url = new URL("https://api.openweathermap.org/geo/1.0/direct");
  url.searchParams.set("q", city);
  url.searchParams.set("limit", "1");
  url.searchParams.set("appid", key);
  try {
    const places = await (await fetch(url)).json();
    const place = places[0];
    if (place === undefined) throw `no place named ${city}`;
    return `${place.name}: ${place.lat}, ${place.lon}`;
  } catch (e) {
    throw `${e}`;
  }
}
