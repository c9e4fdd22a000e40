package conditional

import (
	"net/http"
	"testing"
	"time"
)

func TestEvaluate(t *testing.T) {
	mod := time.Date(2024, 5, 1, 12, 0, 0, 500, time.UTC)
	at := mod.Format(http.TimeFormat)
	before := mod.Add(-time.Hour).Format(http.TimeFormat)
	const tag = `"abc"`
	for _, c := range []struct {
		name  string
		req   Request
		etag  string
		out   Outcome
		rng   bool
		noMod bool // modtime unknown
	}{
		{"plain", Request{Method: "GET"}, tag, Proceed, false, false},
		{"inm match", Request{Method: "GET", IfNoneMatch: tag}, tag, NotModified, false, false},
		{"inm weak match", Request{Method: "GET", IfNoneMatch: `W/"abc"`}, tag, NotModified, false, false},
		{"inm list", Request{Method: "HEAD", IfNoneMatch: `"x", "abc"`}, tag, NotModified, false, false},
		{"inm star", Request{Method: "GET", IfNoneMatch: "*"}, tag, NotModified, false, false},
		{"inm other", Request{Method: "GET", IfNoneMatch: `"x"`}, tag, Proceed, false, false},
		{"inm beats ims", Request{Method: "GET", IfNoneMatch: `"x"`, IfModifiedSince: at}, tag, Proceed, false, false},
		{"inm on POST", Request{Method: "POST", IfNoneMatch: tag}, tag, PreconditionFailed, false, false},
		{"ims same second", Request{Method: "GET", IfModifiedSince: at}, tag, NotModified, false, false},
		{"ims older", Request{Method: "GET", IfModifiedSince: before}, tag, Proceed, false, false},
		{"ims garbage", Request{Method: "GET", IfModifiedSince: "yesterday"}, tag, Proceed, false, false},
		{"ims unknown modtime", Request{Method: "GET", IfModifiedSince: at}, tag, Proceed, false, true},
		{"im match", Request{Method: "GET", IfMatch: tag}, tag, Proceed, false, false},
		{"im weak never", Request{Method: "GET", IfMatch: `W/"abc"`}, `W/"abc"`, PreconditionFailed, false, false},
		{"im other", Request{Method: "GET", IfMatch: `"x"`}, tag, PreconditionFailed, false, false},
		{"ius older", Request{Method: "GET", IfUnmodifiedSince: before}, tag, PreconditionFailed, false, false},
		{"ius same", Request{Method: "GET", IfUnmodifiedSince: at}, tag, Proceed, false, false},
		{"range", Request{Method: "GET", Range: "bytes=0-1"}, tag, Proceed, true, false},
		{"range on POST", Request{Method: "POST", Range: "bytes=0-1"}, tag, Proceed, false, false},
		{"if-range etag", Request{Method: "GET", Range: "bytes=0-1", IfRange: tag}, tag, Proceed, true, false},
		{"if-range other etag", Request{Method: "GET", Range: "bytes=0-1", IfRange: `"x"`}, tag, Proceed, false, false},
		{"if-range weak", Request{Method: "GET", Range: "bytes=0-1", IfRange: `W/"abc"`}, `W/"abc"`, Proceed, false, false},
		{"if-range date", Request{Method: "GET", Range: "bytes=0-1", IfRange: at}, tag, Proceed, true, false},
		{"if-range old date", Request{Method: "GET", Range: "bytes=0-1", IfRange: before}, tag, Proceed, false, false},
		{"if-range date unknown modtime", Request{Method: "GET", Range: "bytes=0-1", IfRange: at}, tag, Proceed, false, true},
		{"no etag", Request{Method: "GET", IfNoneMatch: `"abc"`}, "", Proceed, false, false},
	} {
		m := mod
		if c.noMod {
			m = time.Time{}
		}
		out, rng := Evaluate(&c.req, c.etag, m)
		if out != c.out || rng != c.rng {
			t.Errorf("%s: got %v %v, want %v %v", c.name, out, rng, c.out, c.rng)
		}
	}
}

// FuzzEvaluate feeds arbitrary header values: no panic, and a 304 only for
// GET and HEAD.
func FuzzEvaluate(f *testing.F) {
	f.Add("GET", `"a", W/"b"`, `W/"a"`, "Mon, 02 Jan 2006 15:04:05 GMT", `"a"`)
	f.Fuzz(func(t *testing.T, method, im, inm, date, ifRange string) {
		r := Request{Method: method, IfMatch: im, IfNoneMatch: inm, IfModifiedSince: date, IfUnmodifiedSince: date,
			IfRange: ifRange, Range: "bytes=0-1"}
		out, _ := Evaluate(&r, `"a"`, time.Unix(1700000000, 0))
		if out == NotModified && method != "GET" && method != "HEAD" {
			t.Fatalf("304 for %s", method)
		}
	})
}
