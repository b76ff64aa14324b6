//go:build wasip1

// The store in WebAssembly: the host's wasi:keyvalue@0.2.0-draft2 `store`
// and `atomics`, through the bindings mcp-wasm-sdk-tool generates (it adds
// these imports to the plugin world). Only a plugin that imports this
// package links them, so only its component imports wasi:keyvalue.

package store

import (
	atomics "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/wasi_keyvalue_atomics"
	kv "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/wasi_keyvalue_store"
	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

type rawBucket struct{ b *kv.Bucket }

type rawCas struct{ c *atomics.Cas }

func faultOf(e kv.Error) *fault {
	switch e.Tag() {
	case kv.ErrorNoSuchStore:
		return &fault{kind: NoSuchStore}
	case kv.ErrorAccessDenied:
		return &fault{kind: AccessDenied}
	}
	return &fault{kind: Other, reason: e.Other()}
}

// value is an optional WIT value as (bytes, present); present but empty is
// a non-nil empty slice.
func value(o witTypes.Option[[]uint8]) ([]byte, bool) {
	if o.IsNone() {
		return nil, false
	}
	v := o.Some()
	if v == nil {
		v = []byte{}
	}
	return v, true
}

func openRaw(name string) (*rawBucket, *fault) {
	r := kv.Open(name)
	if r.IsErr() {
		return nil, faultOf(r.Err())
	}
	return &rawBucket{r.Ok()}, nil
}

func (r *rawBucket) close() { r.b.Drop() }

func (r *rawBucket) get(key string) ([]byte, bool, *fault) {
	got := r.b.Get(key)
	if got.IsErr() {
		return nil, false, faultOf(got.Err())
	}
	v, ok := value(got.Ok())
	return v, ok, nil
}

func (r *rawBucket) set(key string, v []byte) *fault {
	if got := r.b.Set(key, v); got.IsErr() {
		return faultOf(got.Err())
	}
	return nil
}

func (r *rawBucket) delete(key string) *fault {
	if got := r.b.Delete(key); got.IsErr() {
		return faultOf(got.Err())
	}
	return nil
}

func (r *rawBucket) exists(key string) (bool, *fault) {
	got := r.b.Exists(key)
	if got.IsErr() {
		return false, faultOf(got.Err())
	}
	return got.Ok(), nil
}

// listKeys is one page of keys after cursor (nil: the first), and the
// cursor of the next (nil after the last).
func (r *rawBucket) listKeys(cursor *string) ([]string, *string, *fault) {
	c := witTypes.None[string]()
	if cursor != nil {
		c = witTypes.Some(*cursor)
	}
	got := r.b.ListKeys(c)
	if got.IsErr() {
		return nil, nil, faultOf(got.Err())
	}
	page := got.Ok()
	if page.Cursor.IsNone() {
		return page.Keys, nil, nil
	}
	next := page.Cursor.Some()
	return page.Keys, &next, nil
}

func (r *rawBucket) increment(key string, delta int64) (int64, *fault) {
	got := atomics.Increment(r.b, key, delta)
	if got.IsErr() {
		return 0, faultOf(got.Err())
	}
	return got.Ok(), nil
}

func (r *rawBucket) cas(key string) (*rawCas, *fault) {
	got := atomics.CasNew(r.b, key)
	if got.IsErr() {
		return nil, faultOf(got.Err())
	}
	return &rawCas{got.Ok()}, nil
}

func (c *rawCas) current() ([]byte, bool, *fault) {
	got := c.c.Current()
	if got.IsErr() {
		return nil, false, faultOf(got.Err())
	}
	v, ok := value(got.Ok())
	return v, ok, nil
}

func (c *rawCas) drop() { c.c.Drop() }

// swap writes v if the key still holds what the cas saw: nil, nil when it
// did; a cas of the value now when another writer won; or the store's
// fault. It consumes the cas.
func (c *rawCas) swap(v []byte) (*rawCas, *fault) {
	got := atomics.Swap(c.c, v)
	if got.IsOk() {
		return nil, nil
	}
	e := got.Err()
	if e.Tag() == atomics.CasErrorCasFailed {
		return &rawCas{e.CasFailed()}, nil
	}
	return nil, faultOf(e.StoreError())
}
