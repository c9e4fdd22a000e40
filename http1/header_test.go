package http1

import (
	"reflect"
	"testing"
)

func TestValidHeader(t *testing.T) {
	for _, n := range []string{"Content-Type", "x", "!#$%&'*+-.^_`|~09azAZ"} {
		if !ValidHeaderName(n) {
			t.Errorf("name %q rejected", n)
		}
	}
	for _, n := range []string{"", "a b", "a:b", "a\r", "é", "a\x00", "(x)", "a/b"} {
		if ValidHeaderName(n) {
			t.Errorf("name %q accepted", n)
		}
	}
	for _, v := range []string{"", "a b\tc", "caf\xc3\xa9", "\xff", "~!\"#"} {
		if !ValidHeaderValue(v) {
			t.Errorf("value %q rejected", v)
		}
	}
	for _, v := range []string{"a\r\nX: y", "a\n", "a\r", "a\x00", "\x1f", "\x7f"} {
		if ValidHeaderValue(v) {
			t.Errorf("value %q accepted", v)
		}
	}
}

func TestHeader(t *testing.T) {
	var h Header
	mustAdd(t, &h, "A", "1")
	mustAdd(t, &h, "B", "2")
	mustAdd(t, &h, "a", "3")
	mustAdd(t, &h, "C", "4")
	if got := h.Get("A"); got != "1" {
		t.Fatalf("Get = %q", got)
	}
	mustSet(t, &h, "a", "x") // replaces both, at the first one's place
	if want := hf("a", "x", "B", "2", "C", "4"); !reflect.DeepEqual(h.Fields(), want) {
		t.Fatalf("after Set: %v", h.Fields())
	}
	mustSet(t, &h, "D", "5")
	h.Del("b")
	if want := hf("a", "x", "C", "4", "D", "5"); !reflect.DeepEqual(h.Fields(), want) {
		t.Fatalf("after Del: %v", h.Fields())
	}
	if h.Get("missing") != "" {
		t.Fatal("missing field found")
	}
	// Injection is refused and changes nothing.
	for _, kv := range [][2]string{{"X", "a\r\nEvil: 1"}, {"X\r\nEvil", "1"}, {"", "v"}, {"X", "\x00"}} {
		if err := h.Set(kv[0], kv[1]); err != ErrInvalidHeader {
			t.Fatalf("Set(%q, %q) = %v", kv[0], kv[1], err)
		}
		if err := h.Add(kv[0], kv[1]); err != ErrInvalidHeader {
			t.Fatalf("Add(%q, %q) = %v", kv[0], kv[1], err)
		}
	}
	if len(h.Fields()) != 3 {
		t.Fatalf("invalid fields were added: %v", h.Fields())
	}
	c := cap(h.fields)
	h.Reset()
	if len(h.Fields()) != 0 || cap(h.fields) != c {
		t.Fatalf("Reset: len %d cap %d", len(h.Fields()), cap(h.fields))
	}
}
