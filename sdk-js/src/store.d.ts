// Types of mcp-wasm-sdk/store (store.js): remembering things between calls
// in the host's key-value store (wasi:keyvalue), bucket by bucket as the
// server's policy grants them (`[plugins.NAME.keyvalue] buckets = [...]`).

import { ToolError } from "./index.js";

/** How many times `Bucket.update` tries before it gives up to other writers of the key. */
export declare const UPDATE_ATTEMPTS: 64;

/** A value to keep: bytes, or a string kept as UTF-8. */
export type Value = Uint8Array | string;

/** A store operation failed; uncaught, it fails the call (`failed`) with its message. */
export declare class StoreError extends ToolError {
  /** The bucket's name. */
  readonly bucket: string;
}
/** The policy does not grant this plugin the bucket; uncaught, it fails the call as `denied`. */
export declare class AccessDenied extends StoreError {}
/** The host has no store for the bucket. */
export declare class NoSuchStore extends StoreError {}
/** `Bucket.update` lost to other writers of the key `UPDATE_ATTEMPTS` times in a row. */
export declare class Contended extends StoreError {
  /** The key. */
  readonly key: string;
}

/** A bucket of the host's key-value store: string keys, byte values, kept across calls and restarts. */
export declare class Bucket {
  /** Opens the bucket `name` if the policy grants it to this plugin; else throws AccessDenied. */
  static open(name: string): Bucket;
  /** The bucket's name. */
  readonly name: string;
  /** The value of `key`, or undefined if it has none. */
  get(key: string): Uint8Array | undefined;
  /** The value of `key` as text, or undefined; a StoreError if it is not UTF-8. */
  getString(key: string): string | undefined;
  /** Sets `key` to `value`. */
  set(key: string, value: Value): void;
  /** Deletes `key` (nothing happens if it has no value). */
  delete(key: string): void;
  /** Whether `key` has a value. */
  exists(key: string): boolean;
  /**
   * Adds `delta` (default 1) to the number held in `key` (0 if it has no
   * value), in one atomic step; returns the new number (a StoreError past
   * Number.MAX_SAFE_INTEGER: pass a bigint delta for a bigint result).
   */
  increment(key: string, delta?: number): number;
  increment(key: string, delta: bigint): bigint;
  /** Every key of the bucket, read from the host page by page as the iteration goes on. */
  keys(): Generator<string, void, undefined>;
  /**
   * Replaces the value of `key` with `change(current value)`, atomically: if
   * another call writes the key in between, it calls `change` again with the
   * new value (up to UPDATE_ATTEMPTS times, then Contended). Returns the
   * value written.
   */
  update(key: string, change: (current: Uint8Array | undefined) => Value): Uint8Array;
  /** Releases the bucket (the instance's end releases it too). */
  close(): void;
}
