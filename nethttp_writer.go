package gwist

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
)

// sniffLen is how many bytes net/http's Content-Type sniffing looks at.
const sniffLen = 512

// responseWriter is the http.ResponseWriter that WrapHandler and
// WrapMiddleware give net/http code: the status and headers go to the Ctx
// at WriteHeader, the body through the Ctx's body writer as it was when the
// responseWriter was made (so gwist middleware outside, such as gzip, see
// it), and Flush is the Ctx's Flush. It follows net/http's rules: a Write
// without WriteHeader is a 200; the header map is snapshotted at
// WriteHeader (later changes are ignored, except trailers); without a
// Content-Type (and without Content-Encoding) the first 512 bytes written
// are held back and sniffed with http.DetectContentType, unless the map has
// a "Content-Type" key with no value; 1xx statuses are not sent (gwist
// sends no interim responses; a 1xx WriteHeader is ignored); a status
// without a body (204, 304) refuses writes with http.ErrBodyNotAllowed.
type responseWriter struct {
	c       *Ctx
	out     BodyWriter
	header  http.Header
	status  int
	wrote   bool   // WriteHeader happened (explicitly or implied)
	sniff   bool   // Content-Type still to be sniffed from the first bytes
	pending []byte // bytes held back for the sniff
	// body is the request's streamed body (nil when it was read whole);
	// duplex: the handler asked to read it while writing on HTTP/1.x
	// (EnableFullDuplex). Without it, as net/http, the body is closed when
	// the response's head goes out.
	body   *requestBody
	duplex bool
}

func newResponseWriter(c *Ctx, body *requestBody) *responseWriter {
	w := &responseWriter{c: c, out: c.Writer(), body: body}
	w.header = make(http.Header, len(c.ex.Header.Fields())+2)
	w.pullHeader()
	return w
}

// pullHeader makes the map's header fields the Ctx's response headers (the
// declared trailers, http.TrailerPrefix keys, are kept).
func (w *responseWriter) pullHeader() {
	for key := range w.header {
		if !strings.HasPrefix(key, http.TrailerPrefix) {
			delete(w.header, key)
		}
	}
	for _, f := range w.c.ex.Header.Fields() {
		key := textproto.CanonicalMIMEHeaderKey(f.Name)
		w.header[key] = append(w.header[key], f.Value)
	}
}

// EnableFullDuplex lets the handler read the request body while it writes
// the response on HTTP/1.x, as http.ResponseController.EnableFullDuplex
// does on net/http's server. HTTP/2 is always full duplex.
func (w *responseWriter) EnableFullDuplex() error {
	w.duplex = true
	return nil
}

// headOut runs after a write or flush: once the response's head has gone
// out on HTTP/1.x without full duplex, the request body is closed, as
// net/http closes it (later Reads fail).
func (w *responseWriter) headOut() {
	if w.body != nil && !w.duplex && w.c.ex.Request.ProtoMajor == 1 && w.c.ex.Streaming() {
		w.body.cutForResponse()
	}
}

// Header returns the header map; see responseWriter.
func (w *responseWriter) Header() http.Header { return w.header }

// WriteHeader sets the status and fixes the headers; see responseWriter.
func (w *responseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code)) // as net/http
	}
	if w.wrote || code < 200 {
		return // a second call, or an interim response (not supported)
	}
	w.wrote, w.status = true, code
	w.pushHeader()
	ct, typeKey := w.header["Content-Type"]
	w.sniff = !typeKey && w.header.Get("Content-Encoding") == "" && bodyAllowedForStatus(code)
	if typeKey && len(ct) == 0 {
		w.c.ex.Header.Del("Content-Type") // the handler asked for no Content-Type
	}
	w.c.Status(code)
}

// pushHeader makes the Ctx's response headers those of the map.
func (w *responseWriter) pushHeader() {
	w.c.ex.Header.Reset()
	for key, vs := range w.header {
		if strings.HasPrefix(key, http.TrailerPrefix) {
			continue
		}
		for _, v := range vs {
			w.c.AddHeader(key, v)
		}
	}
}

// Write writes body bytes; see responseWriter.
func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowedForStatus(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.sniff {
		if len(w.pending)+len(p) < sniffLen {
			w.pending = append(w.pending, p...)
			return len(p), nil
		}
		err := w.endSniff(p)
		w.headOut()
		if err != nil {
			return 0, err
		}
		return len(p), nil
	}
	n, err := w.out.Write(p)
	w.headOut()
	return n, err
}

// WriteString is Write with a string.
func (w *responseWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// endSniff sets the sniffed Content-Type and writes what was held back,
// then more.
func (w *responseWriter) endSniff(more []byte) error {
	if !w.sniff {
		return nil
	}
	w.sniff = false
	held := w.pending
	w.pending = nil
	data := held
	if len(data) == 0 {
		data = more
	} else if len(data) < sniffLen {
		data = append(data, more[:min(len(more), sniffLen-len(data))]...)
	}
	if len(data) > 0 {
		w.c.SetHeader("Content-Type", http.DetectContentType(data))
	}
	if len(held) > 0 {
		if _, err := w.out.Write(held); err != nil {
			return err
		}
	}
	if len(more) > 0 {
		if _, err := w.out.Write(more); err != nil {
			return err
		}
	}
	return nil
}

// Flush sends the head and what was written (http.Flusher). On an App
// running handlers on the event loop nothing streams and Flush does nothing.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError is Flush with its error, for http.ResponseController.
func (w *responseWriter) FlushError() error {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if err := w.endSniff(nil); err != nil {
		return err
	}
	err := w.out.Flush()
	w.headOut()
	return err
}

// finish ends the response when the net/http handler has returned: an
// implicit 200, the held-back bytes, and the trailers.
func (w *responseWriter) finish() error {
	if !w.wrote {
		// Nothing was written: the headers go out with the status left
		// unset (200), so that a net/http middleware around may still
		// answer, as after a net/http handler that wrote nothing.
		w.wrote, w.status = true, http.StatusOK
		w.pushHeader()
		if ct, ok := w.header["Content-Type"]; ok && len(ct) == 0 {
			w.c.ex.Header.Del("Content-Type")
		}
	}
	if err := w.endSniff(nil); err != nil {
		return err
	}
	// Every value of a trailer goes out (gRPC metadata may repeat a key).
	var declared map[string]bool
	for _, name := range w.header.Values("Trailer") {
		for _, n := range strings.Split(name, ",") {
			key := textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(n))
			if key == "" || declared[key] {
				continue
			}
			if declared == nil {
				declared = make(map[string]bool)
			}
			declared[key] = true
			for _, v := range w.header[key] {
				w.c.addTrailer(key, v)
			}
		}
	}
	for key, vs := range w.header {
		if name, ok := strings.CutPrefix(key, http.TrailerPrefix); ok {
			for _, v := range vs {
				w.c.addTrailer(name, v)
			}
		}
	}
	return nil
}
