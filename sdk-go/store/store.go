// Package store lets a tool remember things between calls: a small
// key-value API over the standard wasi:keyvalue@0.2.0-draft2 the host
// serves.
//
// Each call runs in a fresh instance, so a tool keeps what it must remember
// in a bucket of the host's store: a file under the server's state
// directory, or Valkey/Redis. The server's policy grants buckets by name,
// per plugin, and nothing else opens:
//
//	[plugins.NAME.keyvalue]
//	buckets = ["default"]
//
// A tool in full:
//
//	// Count the calls of this tool, across calls and restarts.
//	func count(struct{}) (string, error) {
//		b, err := store.Open("default")
//		if err != nil {
//			return "", err
//		}
//		calls, err := b.Increment("calls", 1)
//		if err != nil {
//			return "", err
//		}
//		return fmt.Sprintf("called %d times", calls), nil
//	}
//
// Every error is an *Error. Returned from a tool, one of kind AccessDenied
// (a bucket the policy does not grant) fails the call as denied, with a
// message naming the policy key that grants it (it matches fs.ErrPermission
// with errors.Is); the others fail it, naming the bucket, the operation and
// the host's reason (a quota names its policy key).
//
// A plugin that does not import this package does not import wasi:keyvalue,
// so it needs no grant. Outside WebAssembly (go test) the store is in
// memory, one per process, and every bucket opens.
package store

import (
	"fmt"
	"io/fs"
	"unicode/utf8"
)

// UpdateAttempts is how many times Update tries before it gives up to
// other writers of the same key. Each try costs the host two store
// operations (of its max_operations per call).
const UpdateAttempts = 64

// Kind says why a store operation failed.
type Kind uint8

const (
	// AccessDenied: the policy does not grant this plugin the bucket; add
	// it to `[plugins.NAME.keyvalue] buckets` in the server's policy.
	AccessDenied Kind = iota + 1
	// NoSuchStore: the host has no store for the bucket.
	NoSuchStore
	// Other: the operation failed for the host's Reason (a quota names its
	// policy key), or the value is not what was asked for.
	Other
	// Contended: Update lost to other writers of the key UpdateAttempts
	// times in a row.
	Contended
)

// Error is why a store operation failed.
type Error struct {
	Kind Kind
	// Bucket is the bucket's name.
	Bucket string
	// Op is the operation: "open", "get", "set", "delete", "exists",
	// "list keys", "increment" or "update".
	Op string
	// Key is the key the operation was on ("" for open and list keys).
	Key string
	// Reason is what failed (Other).
	Reason string
}

func (e *Error) Error() string {
	switch e.Kind {
	case AccessDenied:
		return fmt.Sprintf("this plugin may not open the key-value bucket %q: the server's policy "+
			"grants it with `[plugins.<this plugin>.keyvalue] buckets = [%q]`", e.Bucket, e.Bucket)
	case NoSuchStore:
		return fmt.Sprintf("the host has no store for the key-value bucket %q", e.Bucket)
	case Contended:
		return fmt.Sprintf("key-value bucket %q: %q changed under %d updates in a row "+
			"(other calls are writing it)", e.Bucket, e.Key, UpdateAttempts)
	}
	if e.Op == "open" || e.Op == "list keys" {
		return fmt.Sprintf("key-value bucket %q: %s: %s", e.Bucket, e.Op, e.Reason)
	}
	return fmt.Sprintf("key-value bucket %q: %s %q: %s", e.Bucket, e.Op, e.Key, e.Reason)
}

// Is makes an AccessDenied error match fs.ErrPermission, which the SDK's
// tools turn into a `denied` result.
func (e *Error) Is(target error) bool {
	return e.Kind == AccessDenied && target == fs.ErrPermission
}

// fault is what the store answered, before the package adds its context.
type fault struct {
	kind   Kind
	reason string
}

// Bucket is an open bucket of the host's key-value store: keys (UTF-8
// strings) with values (bytes), kept across calls and restarts.
type Bucket struct {
	name string
	raw  *rawBucket
}

// Open opens the bucket name, if the server's policy grants it to this
// plugin (`[plugins.NAME.keyvalue] buckets`); else an *Error of kind
// AccessDenied.
func Open(name string) (*Bucket, error) {
	if !utf8.ValidString(name) {
		return nil, &Error{Kind: Other, Bucket: name, Op: "open", Reason: "the name is not UTF-8"}
	}
	raw, f := openRaw(name)
	if f != nil {
		return nil, wrap(name, "open", "", f)
	}
	return &Bucket{name: name, raw: raw}, nil
}

// Name is the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Close gives the bucket back to the host; the bucket is not used after.
// A call's instance ends with the call, so a tool need not close it; the
// garbage collector closes it too.
func (b *Bucket) Close() { b.raw.close() }

// wrap is the *Error of f during op on key.
func wrap(bucket, op, key string, f *fault) *Error {
	return &Error{Kind: f.kind, Bucket: bucket, Op: op, Key: key, Reason: f.reason}
}

// check refuses a key that is not UTF-8 before it reaches the host.
func (b *Bucket) check(op, key string) error {
	if utf8.ValidString(key) {
		return nil
	}
	return wrap(b.name, op, key, &fault{Other, "the key is not UTF-8"})
}

// Get is the value of key, and whether it has one.
func (b *Bucket) Get(key string) ([]byte, bool, error) {
	if err := b.check("get", key); err != nil {
		return nil, false, err
	}
	value, ok, f := b.raw.get(key)
	if f != nil {
		return nil, false, wrap(b.name, "get", key, f)
	}
	return value, ok, nil
}

// GetString is the value of key as text, and whether it has one; an error
// if the value is not UTF-8.
func (b *Bucket) GetString(key string) (string, bool, error) {
	value, ok, err := b.Get(key)
	if err != nil || !ok {
		return "", false, err
	}
	if !utf8.Valid(value) {
		return "", false, wrap(b.name, "get", key, &fault{Other, "the value is not UTF-8"})
	}
	return string(value), true, nil
}

// Set sets key to value.
func (b *Bucket) Set(key string, value []byte) error {
	if err := b.check("set", key); err != nil {
		return err
	}
	if f := b.raw.set(key, value); f != nil {
		return wrap(b.name, "set", key, f)
	}
	return nil
}

// SetString sets key to the text value.
func (b *Bucket) SetString(key, value string) error { return b.Set(key, []byte(value)) }

// Delete deletes key (nothing happens if it has no value).
func (b *Bucket) Delete(key string) error {
	if err := b.check("delete", key); err != nil {
		return err
	}
	if f := b.raw.delete(key); f != nil {
		return wrap(b.name, "delete", key, f)
	}
	return nil
}

// Exists says whether key has a value.
func (b *Bucket) Exists(key string) (bool, error) {
	if err := b.check("exists", key); err != nil {
		return false, err
	}
	ok, f := b.raw.exists(key)
	if f != nil {
		return false, wrap(b.name, "exists", key, f)
	}
	return ok, nil
}

// Keys is every key of the bucket, read from the host page by page.
func (b *Bucket) Keys() ([]string, error) {
	var all []string
	var cursor *string
	for {
		keys, next, f := b.raw.listKeys(cursor)
		if f != nil {
			return nil, wrap(b.name, "list keys", "", f)
		}
		all = append(all, keys...)
		if next == nil {
			return all, nil
		}
		cursor = next
	}
}

// Increment adds delta to the number held in key (0 if it has no value), in
// one atomic step, and returns the new number.
func (b *Bucket) Increment(key string, delta int64) (int64, error) {
	if err := b.check("increment", key); err != nil {
		return 0, err
	}
	n, f := b.raw.increment(key, delta)
	if f != nil {
		return 0, wrap(b.name, "increment", key, f)
	}
	return n, nil
}

// Update replaces the value of key with change(current value), atomically:
// if another call writes the key in between, it reads the key again and
// calls change again (up to UpdateAttempts times). old is nil when the key
// has no value. It returns the value it wrote.
//
//	notes, err := b.Update("log", func(old []byte) []byte {
//		return append(old, "one more line\n"...)
//	})
func (b *Bucket) Update(key string, change func(old []byte) []byte) ([]byte, error) {
	if err := b.check("update", key); err != nil {
		return nil, err
	}
	cas, f := b.raw.cas(key)
	if f != nil {
		return nil, wrap(b.name, "update", key, f)
	}
	for range UpdateAttempts {
		old, ok, f := cas.current()
		if f != nil {
			cas.drop()
			return nil, wrap(b.name, "update", key, f)
		}
		if ok && old == nil {
			old = []byte{}
		}
		value := change(old)
		again, f := cas.swap(value)
		if f != nil {
			return nil, wrap(b.name, "update", key, f)
		}
		if again == nil {
			return value, nil
		}
		cas = again
	}
	cas.drop()
	return nil, &Error{Kind: Contended, Bucket: b.name, Op: "update", Key: key}
}
