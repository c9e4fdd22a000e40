package gwist

import (
	"unsafe"
)

// BodyWriter is where a response body goes: the Ctx's own writer (see
// Ctx.Writer) or one a middleware put in front of it with Ctx.SetWriter,
// such as a compressor. Write must not keep p (io.Writer's rule); Flush
// sends what was written so far and makes the response stream (see
// Ctx.Flush).
//
// A writer that holds bytes back (a compressor) should also have a
// ResetBody() method: ResetResponse calls it on the installed writer, which
// drops what it holds and calls its own next writer's ResetBody if any, so
// an error answer after a panic is not mixed with the abandoned body.
type BodyWriter interface {
	Write(p []byte) (int, error)
	Flush() error
}

// bodyResetter is the optional ResetBody of a BodyWriter.
type bodyResetter interface{ ResetBody() }

// Writer returns the body writer in use: the one the last SetWriter
// installed, or the Ctx's own, which writes to the response directly. A
// middleware that wraps the body keeps it and writes its output there.
func (c *Ctx) Writer() BodyWriter {
	if c.w != nil {
		return c.w
	}
	return (*directWriter)(c)
}

// SetWriter makes w receive the response body: Write, Flush, String,
// Bytes, JSON, SSE and the error handler's answers all go through it until
// SetWriter is called again (a middleware restores the writer it replaced
// once next returns; nil restores the Ctx's own). The status and headers
// are not the writer's business: set them on the Ctx before the first byte
// goes out. With a writer installed, String, Bytes and JSON write their
// body to it rather than replacing what was written before.
func (c *Ctx) SetWriter(w BodyWriter) {
	if _, direct := w.(*directWriter); direct {
		w = nil
	}
	c.w = w
}

// directWriter is the Ctx's own body writer.
type directWriter Ctx

func (d *directWriter) Write(p []byte) (int, error) { return (*Ctx)(d).rawWrite(p) }
func (d *directWriter) Flush() error                { return (*Ctx)(d).rawFlush() }

func (c *Ctx) rawWrite(p []byte) (int, error) {
	if c.headerErr != nil && !c.ex.Streaming() {
		return 0, c.headerErr
	}
	c.responded = true
	n, err := c.ex.Write(p)
	c.written += int64(n)
	return n, fromEngine(err)
}

func (c *Ctx) rawFlush() error {
	if c.headerErr != nil && !c.ex.Streaming() {
		return c.headerErr
	}
	err := c.ex.Flush()
	if c.ex.Streaming() {
		c.responded = true
	}
	return fromEngine(err)
}

// setBody makes s the response body: it replaces the buffered body, or
// goes to the installed writer.
func (c *Ctx) setBody(s string) error {
	if c.w != nil {
		if s == "" {
			return nil
		}
		_, err := c.w.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
		return err
	}
	if c.ex.Streaming() {
		_, err := c.rawWrite(unsafe.Slice(unsafe.StringData(s), len(s)))
		return err
	}
	c.ex.Body = append(c.ex.Body[:0], s...)
	c.written = int64(len(s))
	return nil
}

// setBodyLine is setBody with s and a line feed, without building the
// string.
func (c *Ctx) setBodyLine(s string) error {
	if c.w != nil || c.ex.Streaming() {
		if err := c.setBody(s); err != nil {
			return err
		}
		_, err := c.Writer().Write(newline)
		return err
	}
	c.ex.Body = append(append(c.ex.Body[:0], s...), '\n')
	c.written = int64(len(c.ex.Body))
	return nil
}

var newline = []byte{'\n'}

// bytesToString views b as a string for setBody, which copies it.
func bytesToString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// ResponseStatus is the response's status so far: what the handler set, or
// 200 when it set none. After next returns, a middleware reads the status
// the client gets (errors returned by next have been answered by then).
func (c *Ctx) ResponseStatus() int {
	if c.ex.Status == 0 {
		return 200
	}
	return c.ex.Status
}

// BytesWritten is the number of response body bytes written so far, to the
// Ctx's own writer: after a compressing middleware, the compressed size.
// A HEAD request's body is counted though it is not sent.
func (c *Ctx) BytesWritten() int64 { return c.written }

// Responded reports whether a status or body has been set.
func (c *Ctx) Responded() bool { return c.responded }

// HeadersSent reports whether the response's head has gone out (it
// streams): from then on the status and headers cannot change.
func (c *Ctx) HeadersSent() bool { return c.ex.Streaming() }

// DelHeader removes a response header.
func (c *Ctx) DelHeader(name string) *Ctx {
	c.ex.Header.Del(name)
	return c
}

// representationHeaders describe a body: they go with it when ResetResponse
// drops the body.
var representationHeaders = [...]string{
	"Content-Type", "Content-Length", "Content-Encoding", "Content-Range", "Content-Disposition",
	"ETag", "Last-Modified", "Trailer",
}

// ResetResponse discards the response built so far, so that an error
// answer (after a panic, a timeout) replaces it: the status, the buffered
// body, the trailers and the headers that describe the body
// (Content-Type, Content-Length, Content-Encoding, Content-Range,
// Content-Disposition, ETag, Last-Modified, Trailer). Other headers, such
// as the ones middleware set before calling next (X-Request-ID, CORS), are
// kept. An error returned after it is answered by the error handler even
// if an earlier one was. It returns false, and changes nothing, once the
// head has been sent.
func (c *Ctx) ResetResponse() bool {
	if c.ex.Streaming() {
		return false
	}
	if r, ok := c.w.(bodyResetter); ok {
		r.ResetBody()
	}
	c.ex.Status = 0
	c.ex.Body = c.ex.Body[:0]
	c.ex.Trailer.Reset()
	for _, h := range representationHeaders {
		c.ex.Header.Del(h)
	}
	c.responded = false
	c.written = 0
	c.handled = nil // the answer to an earlier error is gone: answer the next one
	c.typeState, c.held = typeUnknown, c.held[:0]
	return true
}
