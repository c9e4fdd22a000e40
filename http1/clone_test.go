package http1

import "testing"

// TestCloneOutlivesReset parses a request, clones it, parses another one
// of the same shape into the same Request, and checks the clone kept its
// values; TakeBody's slice must survive the same way.
func TestCloneOutlivesReset(t *testing.T) {
	in1 := []byte("PURGE /a/one?x=1 HTTP/1.1\r\nHost: h1\r\nX-V: one\r\nContent-Length: 3\r\n\r\nabc")
	in2 := []byte("REPORT /b/two?y=2 HTTP/1.1\r\nHost: h2\r\nX-V: two\r\nContent-Length: 3\r\n\r\nxyz")
	var p Parser
	var r Request
	if err := parseOne(&p, &r, in1); err != nil {
		t.Fatal(err)
	}
	c := r.Clone()
	body := r.TakeBody()
	if err := parseOne(&p, &r, in2); err != nil {
		t.Fatal(err)
	}
	if c.Method != "PURGE" || c.Target != "/a/one?x=1" || c.Path != "/a/one" || c.RawQuery != "x=1" ||
		c.Host != "h1" || c.Header("X-V") != "one" || string(c.Body) != "abc" || c.ContentLength != 3 {
		t.Fatalf("clone changed: %+v", c)
	}
	if string(body) != "abc" {
		t.Fatalf("taken body changed: %q", body)
	}
	if r.Method != "REPORT" || string(r.Body) != "xyz" {
		t.Fatalf("second request: %+v", r)
	}
	if a := testing.AllocsPerRun(100, func() { _ = r.Clone() }); a > 4 {
		t.Errorf("Clone: %.0f allocs, want at most 4", a)
	}
}
