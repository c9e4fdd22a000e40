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
}

func newResponseWriter(c *Ctx) *responseWriter {
	w := &responseWriter{c: c, out: c.Writer()}
	fields := c.ex.Header.Fields()
	w.header = make(http.Header, len(fields)+2)
	for _, f := range fields {
		key := textproto.CanonicalMIMEHeaderKey(f.Name)
		w.header[key] = append(w.header[key], f.Value)
	}
	return w
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
		if err := w.endSniff(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.out.Write(p)
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
	return w.out.Flush()
}

// finish ends the response when the net/http handler has returned: an
// implicit 200, the held-back bytes, and the trailers.
func (w *responseWriter) finish() error {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if err := w.endSniff(nil); err != nil {
		return err
	}
	for _, name := range w.header.Values("Trailer") {
		for _, n := range strings.Split(name, ",") {
			key := textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(n))
			for _, v := range w.header[key] {
				w.c.SetTrailer(key, v)
			}
		}
	}
	for key, vs := range w.header {
		if name, ok := strings.CutPrefix(key, http.TrailerPrefix); ok {
			for _, v := range vs {
				w.c.SetTrailer(name, v)
			}
		}
	}
	return nil
}
