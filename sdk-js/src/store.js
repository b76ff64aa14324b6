// mcp-wasm-sdk/store: remembering things between calls, a small key-value
// API over the standard `wasi:keyvalue@0.2.0-draft2` the host serves.
//
// Each call runs in a fresh instance, so a tool keeps what it must remember
// in a bucket of the host's store. The server's policy grants buckets by
// name, per plugin (`[plugins.NAME.keyvalue] buckets = ["default"]`), and
// nothing else opens. `mcp-wasm-sdk build` makes the component import
// wasi:keyvalue only when the plugin imports this module (esbuild's bundle
// says so); other plugins import nothing of it. Types: store.d.ts.
//
// jco's conventions for the imports: camelCase names, BigInt for 64-bit
// integers, and a thrown ComponentError whose `payload` is the `err` of a
// `result`.

import { open } from "wasi:keyvalue/store@0.2.0-draft2";
import { Cas, increment as atomicIncrement, swap } from "wasi:keyvalue/atomics@0.2.0-draft2";
import { ToolError } from "./index.js";

/** How many times `update` tries before it gives up to other writers of the key. */
export const UPDATE_ATTEMPTS = 64;

const quoted = (text) => JSON.stringify(text);
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A store operation failed; uncaught, it fails the call (`failed`) with its message. */
export class StoreError extends ToolError {
  constructor(bucket, message, kind = "failed") {
    super(kind, message);
    this.name = "StoreError";
    this.bucket = bucket;
  }
}

/** The policy does not grant this plugin the bucket; uncaught, it fails the call as `denied`. */
export class AccessDenied extends StoreError {
  constructor(bucket) {
    super(
      bucket,
      `this plugin may not open the key-value bucket ${quoted(bucket)}: the server's policy grants it ` +
        `with \`[plugins.<this plugin>.keyvalue] buckets = [${quoted(bucket)}]\``,
      "denied",
    );
    this.name = "AccessDenied";
  }
}

/** The host has no store for the bucket. */
export class NoSuchStore extends StoreError {
  constructor(bucket) {
    super(bucket, `the host has no store for the key-value bucket ${quoted(bucket)}`);
    this.name = "NoSuchStore";
  }
}

/** `update` lost to other writers of the key `UPDATE_ATTEMPTS` times in a row. */
export class Contended extends StoreError {
  constructor(bucket, key) {
    super(
      bucket,
      `key-value bucket ${quoted(bucket)}: ${quoted(key)} changed under ${UPDATE_ATTEMPTS} updates in a row ` +
        "(other calls are writing it)",
    );
    this.name = "Contended";
    this.key = key;
  }
}

/** The exception for the host's `store.error` (`error`) of `operation`. */
function storeError(bucket, operation, error) {
  if (error.tag === "access-denied") return new AccessDenied(bucket);
  if (error.tag === "no-such-store") return new NoSuchStore(bucket);
  return new StoreError(bucket, `key-value bucket ${quoted(bucket)}: ${operation}: ${error.val}`);
}

/** The `err` a store import threw, or undefined for anything else. */
const payload = (thrown) => (thrown && typeof thrown === "object" ? thrown.payload : undefined);

function bytesOf(value) {
  if (typeof value === "string") return encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  throw new TypeError(`a key-value value is a Uint8Array or a string, not ${typeof value}`);
}

/** A bucket of the host's key-value store: string keys, byte values, kept across calls and restarts. */
export class Bucket {
  #raw;

  constructor(name, raw) {
    this.name = name;
    this.#raw = raw;
  }

  /** Opens the bucket `name` if the policy grants it to this plugin; else throws AccessDenied. */
  static open(name) {
    try {
      return new Bucket(name, open(name));
    } catch (e) {
      const error = payload(e);
      throw error ? storeError(name, "open", error) : e;
    }
  }

  #call(operation, key, run) {
    try {
      return run();
    } catch (e) {
      const error = payload(e);
      throw error ? storeError(this.name, `${operation} ${quoted(key)}`, error) : e;
    }
  }

  /** The value of `key` (bytes), or undefined if it has none. */
  get(key) {
    return this.#call("get", key, () => this.#raw.get(key));
  }

  /** The value of `key` as text, or undefined; a StoreError if it is not UTF-8. */
  getString(key) {
    const value = this.get(key);
    if (value === undefined) return undefined;
    try {
      return decoder.decode(value);
    } catch {
      throw new StoreError(this.name, `key-value bucket ${quoted(this.name)}: get ${quoted(key)}: the value is not UTF-8`);
    }
  }

  /** Sets `key` to `value` (a Uint8Array, or a string kept as UTF-8). */
  set(key, value) {
    const bytes = bytesOf(value);
    this.#call("set", key, () => this.#raw.set(key, bytes));
  }

  /** Deletes `key` (nothing happens if it has no value). */
  delete(key) {
    this.#call("delete", key, () => this.#raw.delete(key));
  }

  /** Whether `key` has a value. */
  exists(key) {
    return this.#call("exists", key, () => this.#raw.exists(key));
  }

  /**
   * Adds `delta` (1 if not given) to the number held in `key` (0 if it has
   * no value), in one atomic step, and returns the new number: a number for
   * a number `delta` (a StoreError if it is past Number.MAX_SAFE_INTEGER),
   * a bigint for a bigint one.
   */
  increment(key, delta = 1) {
    if (typeof delta === "number" && !Number.isSafeInteger(delta)) {
      throw new TypeError(`increment ${quoted(key)}: the delta ${delta} is not a safe integer`);
    }
    const now = this.#call("increment", key, () => atomicIncrement(this.#raw, key, BigInt(delta)));
    if (typeof delta === "bigint") return now;
    const number = Number(now);
    if (!Number.isSafeInteger(number)) {
      throw new StoreError(
        this.name,
        `key-value bucket ${quoted(this.name)}: increment ${quoted(key)}: the number ${now} is past ` +
          "Number.MAX_SAFE_INTEGER (pass the delta as a bigint)",
      );
    }
    return number;
  }

  /** Every key of the bucket, read from the host page by page as the iteration goes on. */
  *keys() {
    let cursor;
    do {
      let page;
      try {
        page = this.#raw.listKeys(cursor);
      } catch (e) {
        const error = payload(e);
        throw error ? storeError(this.name, "list keys", error) : e;
      }
      yield* page.keys;
      cursor = page.cursor;
    } while (cursor !== undefined && cursor !== null);
  }

  /**
   * Replaces the value of `key` with `change(current value or undefined)`,
   * atomically: if another call writes the key in between, it reads the key
   * again and calls `change` again (up to UPDATE_ATTEMPTS times; then
   * Contended). Returns the value it wrote.
   */
  update(key, change) {
    let cas = this.#call("update", key, () => Cas.new(this.#raw, key));
    try {
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const current = this.#call("update", key, () => cas.current());
        const value = bytesOf(change(current));
        const pending = cas;
        cas = undefined; // the swap consumes it
        try {
          swap(pending, value);
          return value;
        } catch (e) {
          const error = payload(e);
          if (error?.tag === "cas-failed") {
            cas = error.val; // a cas of the value now
            continue;
          }
          throw error ? storeError(this.name, `update ${quoted(key)}`, error.val) : e;
        }
      }
      throw new Contended(this.name, key);
    } finally {
      cas?.[Symbol.dispose]?.();
    }
  }

  /** Releases the bucket (the instance's end releases it too). */
  close() {
    this.#raw?.[Symbol.dispose]?.();
    this.#raw = undefined;
  }
}

// `using bucket = Bucket.open(...)` where the engine has explicit resource management.
if (typeof Symbol.dispose === "symbol") Bucket.prototype[Symbol.dispose] = Bucket.prototype.close;
