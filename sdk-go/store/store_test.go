package store

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// open opens a bucket of the in-memory store, emptied first.
func open(t *testing.T, name string) *Bucket {
	t.Helper()
	memory.Lock()
	delete(memory.buckets, name)
	memory.Unlock()
	b, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestValuesRoundTripAndDelete(t *testing.T) {
	b := open(t, "round-trip")
	if b.Name() != "round-trip" {
		t.Errorf("name %q", b.Name())
	}
	if v, ok, err := b.Get("k"); v != nil || ok || err != nil {
		t.Errorf("a key without a value: %v %v %v", v, ok, err)
	}
	if must[bool](t)(b.Exists("k")) {
		t.Error("k exists before it is set")
	}
	if err := b.SetString("k", "text"); err != nil {
		t.Fatal(err)
	}
	if err := b.Set("bytes", []byte{0xff, 0}); err != nil {
		t.Fatal(err)
	}
	if err := b.Set("empty", nil); err != nil {
		t.Fatal(err)
	}
	if s, ok, err := b.GetString("k"); s != "text" || !ok || err != nil {
		t.Errorf("GetString: %q %v %v", s, ok, err)
	}
	if !must[bool](t)(b.Exists("k")) {
		t.Error("k does not exist after it is set")
	}
	if v, ok, _ := b.Get("bytes"); !ok || !slices.Equal(v, []byte{0xff, 0}) {
		t.Errorf("bytes: %v", v)
	}
	if v, ok, _ := b.Get("empty"); !ok || v == nil || len(v) != 0 {
		t.Errorf("an empty value is present and not nil: %#v %v", v, ok)
	}
	_, _, err := b.GetString("bytes")
	if err == nil || err.Error() != `key-value bucket "round-trip": get "bytes": the value is not UTF-8` {
		t.Errorf("GetString of bytes: %v", err)
	}
	for range 2 {
		if err := b.Delete("k"); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := b.Get("k"); ok {
		t.Error("k has a value after Delete")
	}
	// Another bucket is another namespace.
	if _, ok, _ := open(t, "other").Get("bytes"); ok {
		t.Error("bytes is in another bucket")
	}
	// A key that is not UTF-8 never reaches the store.
	err = b.SetString("\xc3", "v")
	var e *Error
	if !errors.As(err, &e) || e.Kind != Other || e.Reason != "the key is not UTF-8" {
		t.Errorf("a key that is not UTF-8: %v", err)
	}
	b.Close()
}

func TestKeysWalkEveryPage(t *testing.T) {
	b := open(t, "pages")
	if keys := must[[]string](t)(b.Keys()); len(keys) != 0 {
		t.Errorf("an empty bucket has keys %q", keys)
	}
	// More keys than one in-memory page holds, and a page boundary exactly.
	for _, n := range []int{1, 2, 5, 6} {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("k%d", i))
			if err := b.SetString(names[i], ""); err != nil {
				t.Fatal(err)
			}
		}
		if keys := must[[]string](t)(b.Keys()); !slices.Equal(keys, names) {
			t.Errorf("%d keys: got %q", n, keys)
		}
	}
}

func TestIncrementCountsFromZeroAndRefusesText(t *testing.T) {
	b := open(t, "counts")
	for _, c := range []struct{ delta, want int64 }{{1, 1}, {41, 42}, {-50, -8}} {
		if n := must[int64](t)(b.Increment("n", c.delta)); n != c.want {
			t.Errorf("+%d: got %d, want %d", c.delta, n, c.want)
		}
	}
	if s, _, _ := b.GetString("n"); s != "-8" {
		t.Errorf("the number is kept as decimal text: %q", s)
	}
	if err := b.SetString("t", "x"); err != nil {
		t.Fatal(err)
	}
	_, err := b.Increment("t", 1)
	if err == nil || err.Error() != `key-value bucket "counts": increment "t": the value is not a decimal integer` {
		t.Errorf("increment of text: %v", err)
	}
	if err := b.SetString("max", "9223372036854775807"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Increment("max", 1); err == nil {
		t.Error("an overflow is refused")
	}
}

func TestUpdateRetriesWhenAnotherWriterWins(t *testing.T) {
	b := open(t, "update")
	calls := 0
	written, err := b.Update("list", func(old []byte) []byte {
		calls++
		if calls == 1 {
			if old != nil {
				t.Errorf("old is nil for a key without a value: %#v", old)
			}
			// Another call writes the key between the read and the swap.
			if err := b.SetString("list", "a"); err != nil {
				t.Fatal(err)
			}
		}
		return append(old, 'b')
	})
	if err != nil || calls != 2 || string(written) != "ab" {
		t.Errorf("got %q after %d calls: %v", written, calls, err)
	}
	if s, _, _ := b.GetString("list"); s != "ab" {
		t.Errorf("stored %q", s)
	}
}

func TestUpdateGivesUpAfterItsAttempts(t *testing.T) {
	b := open(t, "contended")
	calls := 0
	_, err := b.Update("k", func([]byte) []byte {
		calls++
		if _, err := b.Increment("k", 1); err != nil {
			t.Fatal(err)
		}
		return nil
	})
	if calls != UpdateAttempts {
		t.Errorf("%d calls", calls)
	}
	want := `key-value bucket "contended": "k" changed under 64 updates in a row (other calls are writing it)`
	var e *Error
	if !errors.As(err, &e) || e.Kind != Contended || err.Error() != want {
		t.Errorf("got %v", err)
	}
}

func TestAccessDeniedIsAPermissionErrorNamingThePolicyKey(t *testing.T) {
	denied := wrap("notes", "open", "", &fault{kind: AccessDenied})
	if !errors.Is(fmt.Errorf("in a tool: %w", denied), fs.ErrPermission) {
		t.Error("an AccessDenied error is fs.ErrPermission, which the SDK makes a denial")
	}
	want := "`[plugins.<this plugin>.keyvalue] buckets = [\"notes\"]`"
	if msg := denied.Error(); !strings.Contains(msg, want) {
		t.Errorf("%q does not name %s", msg, want)
	}
	for _, other := range []*Error{
		wrap("b", "open", "", &fault{kind: NoSuchStore}),
		wrap("b", "set", "k", &fault{Other, "over plugins.p.keyvalue.max_value_size"}),
	} {
		if errors.Is(other, fs.ErrPermission) {
			t.Errorf("%v is not a denial", other)
		}
	}
	if msg := wrap("b", "list keys", "", &fault{Other, "down"}).Error(); msg != `key-value bucket "b": list keys: down` {
		t.Errorf("got %q", msg)
	}
	if msg := wrap("b", "open", "", &fault{kind: NoSuchStore}).Error(); msg != `the host has no store for the key-value bucket "b"` {
		t.Errorf("got %q", msg)
	}
}
