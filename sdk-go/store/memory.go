//go:build !wasip1

// The store outside WebAssembly (a plugin's go test, the SDK's tests, the
// build's native check): in memory, one per process, every bucket granted.
// Keys are listed in pages of memoryPage, so that Keys' paging runs too.

package store

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"sync"
)

// memoryPage is the number of keys in one page of listKeys.
const memoryPage = 2

var memory = struct {
	sync.Mutex
	buckets map[string]map[string][]byte
}{buckets: map[string]map[string][]byte{}}

type rawBucket struct{ name string }

// rawCas is a compare-and-swap begun: the key and what it held.
type rawCas struct {
	bucket *rawBucket
	key    string
	seen   []byte
	had    bool
}

// with runs f on the bucket's keys, under the store's lock.
func with[T any](name string, f func(keys map[string][]byte) T) T {
	memory.Lock()
	defer memory.Unlock()
	keys := memory.buckets[name]
	if keys == nil {
		keys = map[string][]byte{}
		memory.buckets[name] = keys
	}
	return f(keys)
}

func openRaw(name string) (*rawBucket, *fault) { return &rawBucket{name}, nil }

func (r *rawBucket) close() {}

func (r *rawBucket) get(key string) ([]byte, bool, *fault) {
	type got struct {
		v  []byte
		ok bool
	}
	g := with(r.name, func(keys map[string][]byte) got {
		v, ok := keys[key]
		return got{bytes.Clone(v), ok}
	})
	if g.ok && g.v == nil {
		g.v = []byte{}
	}
	return g.v, g.ok, nil
}

func (r *rawBucket) set(key string, v []byte) *fault {
	with(r.name, func(keys map[string][]byte) any {
		keys[key] = bytes.Clone(v)
		return nil
	})
	return nil
}

func (r *rawBucket) delete(key string) *fault {
	with(r.name, func(keys map[string][]byte) any {
		delete(keys, key)
		return nil
	})
	return nil
}

func (r *rawBucket) exists(key string) (bool, *fault) {
	return with(r.name, func(keys map[string][]byte) bool {
		_, ok := keys[key]
		return ok
	}), nil
}

func (r *rawBucket) listKeys(cursor *string) ([]string, *string, *fault) {
	sorted := with(r.name, func(keys map[string][]byte) []string {
		names := make([]string, 0, len(keys))
		for k := range keys {
			if cursor == nil || k > *cursor {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		return names
	})
	if len(sorted) <= memoryPage {
		return sorted, nil, nil
	}
	page := sorted[:memoryPage]
	return page, &page[memoryPage-1], nil
}

func (r *rawBucket) increment(key string, delta int64) (int64, *fault) {
	type sum struct {
		n      int64
		reason string
	}
	s := with(r.name, func(keys map[string][]byte) sum {
		var now int64
		if v, ok := keys[key]; ok {
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || v[0] == '+' {
				return sum{reason: "the value is not a decimal integer"}
			}
			now = n
		}
		if (delta > 0 && now > math.MaxInt64-delta) || (delta < 0 && now < math.MinInt64-delta) {
			return sum{reason: "the sum overflows a 64-bit integer"}
		}
		keys[key] = strconv.AppendInt(nil, now+delta, 10)
		return sum{n: now + delta}
	})
	if s.reason != "" {
		return 0, &fault{Other, s.reason}
	}
	return s.n, nil
}

func (r *rawBucket) cas(key string) (*rawCas, *fault) {
	v, ok, _ := r.get(key)
	return &rawCas{bucket: r, key: key, seen: v, had: ok}, nil
}

func (c *rawCas) current() ([]byte, bool, *fault) {
	return bytes.Clone(c.seen), c.had, nil
}

func (c *rawCas) drop() {}

func (c *rawCas) swap(v []byte) (*rawCas, *fault) {
	again := with(c.bucket.name, func(keys map[string][]byte) *rawCas {
		now, ok := keys[c.key]
		if ok == c.had && bytes.Equal(now, c.seen) {
			keys[c.key] = bytes.Clone(v)
			return nil
		}
		return &rawCas{bucket: c.bucket, key: c.key, seen: bytes.Clone(now), had: ok}
	})
	return again, nil
}
