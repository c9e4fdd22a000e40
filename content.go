package gwist

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"sync"
	"time"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/internal/conditional"
)

// fileChunk is how much of a file one streamed Write carries.
const fileChunk = 64 << 10

var fileChunks = sync.Pool{New: func() any { b := make([]byte, fileChunk); return &b }}

// serveContent answers a GET or HEAD with the content of f (size bytes,
// modified at modtime, zero if unknown, tagged etag, "" if none):
// preconditions (304, 412), ranges (206, 416), Content-Type by name's
// extension or sniffed, and the body, streamed from a worker and buffered
// (within WithMaxInlineFileBytes) on an inline App.
func (c *Ctx) serveContent(f fs.File, name string, size int64, modtime time.Time, etag string) error {
	ra := readerAt(f)
	if ra != nil {
		c.SetHeader("Accept-Ranges", "bytes")
	}
	if etag != "" {
		c.SetHeader("ETag", etag)
	}
	if !modtime.IsZero() && !modtime.Equal(time.Unix(0, 0)) {
		c.SetHeader("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	}
	req := &c.ex.Request
	cond := conditional.Request{
		Method:            req.Method,
		IfMatch:           req.Header("If-Match"),
		IfNoneMatch:       req.Header("If-None-Match"),
		IfModifiedSince:   req.Header("If-Modified-Since"),
		IfUnmodifiedSince: req.Header("If-Unmodified-Since"),
		IfRange:           req.Header("If-Range"),
		Range:             req.Header("Range"),
	}
	outcome, useRange := conditional.Evaluate(&cond, etag, modtime)
	switch outcome {
	case conditional.NotModified:
		if etag != "" {
			c.ex.Header.Del("Last-Modified")
		}
		return c.NoContent(http.StatusNotModified)
	case conditional.PreconditionFailed:
		return c.NoContent(http.StatusPreconditionFailed)
	}
	var ranges []conditional.Range
	if useRange && ra != nil {
		var err error
		if ranges, err = conditional.ParseRange(cond.Range, size); err != nil {
			c.SetHeader("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
			return c.String(http.StatusRequestedRangeNotSatisfiable, "Range Not Satisfiable\n")
		}
	}
	src := fileSource{f: f, ra: ra}
	ctype := c.ResponseHeader("Content-Type")
	if ctype == "" {
		if ctype = mime.TypeByExtension(path.Ext(name)); ctype == "" {
			var err error
			if ctype, err = src.sniff(size); err != nil {
				return fmt.Errorf("gwist: reading %s: %w", name, err)
			}
		}
		c.SetHeader("Content-Type", ctype)
	}
	switch len(ranges) {
	case 0:
		return c.sendParts(&src, http.StatusOK, []part{{length: size}})
	case 1:
		r := ranges[0]
		c.SetHeader("Content-Range", r.ContentRange(size))
		return c.sendParts(&src, http.StatusPartialContent, []part{{start: r.Start, length: r.Length}})
	}
	boundary := rand.Text()
	parts := make([]part, 0, len(ranges)+1)
	for i, r := range ranges {
		head := "\r\n--" + boundary + "\r\nContent-Type: " + ctype + "\r\nContent-Range: " + r.ContentRange(size) + "\r\n\r\n"
		if i == 0 {
			head = head[2:]
		}
		parts = append(parts, part{head: head, start: r.Start, length: r.Length})
	}
	parts = append(parts, part{head: "\r\n--" + boundary + "--\r\n"})
	c.SetHeader("Content-Type", "multipart/byteranges; boundary="+boundary)
	return c.sendParts(&src, http.StatusPartialContent, parts)
}

// part is a piece of the body: head, then length bytes of the file from
// start.
type part struct {
	head          string
	start, length int64
}

// sendParts sends the status, a Content-Length and the parts: streamed
// from a worker (a HEAD just flushes the head), buffered on an inline App,
// where a body over WithMaxInlineFileBytes is refused before anything is
// set.
func (c *Ctx) sendParts(src *fileSource, code int, parts []part) error {
	var total int64
	for _, p := range parts {
		total += int64(len(p.head)) + p.length
	}
	inline := !c.ex.CanStream() // on the loop (WithInline): buffered
	if inline && total > c.app.maxInlineFileBytes() {
		for _, h := range []string{"Accept-Ranges", "ETag", "Last-Modified", "Content-Type", "Content-Range"} {
			c.ex.Header.Del(h)
		}
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrInlineFileTooLarge, total, c.app.maxInlineFileBytes())
	}
	c.SetHeader("Content-Length", strconv.FormatInt(total, 10))
	c.Status(code)
	if c.Method() == http.MethodHead && !inline {
		return c.Flush() // the head says the length; there is no body
	}
	if (inline || total <= fileChunk) && c.w == nil {
		// Buffered: read straight into the response body (unless a
		// middleware's body writer must see it: then through c.Write).
		start := len(c.ex.Body)
		c.ex.GrowBody(int(total))
		for _, p := range parts {
			c.ex.Body = append(c.ex.Body, p.head...)
			n := len(c.ex.Body)
			c.ex.Body = c.ex.Body[:n+int(p.length)]
			if err := src.readAt(c.ex.Body[n:], p.start); err != nil {
				c.ex.Body = c.ex.Body[:start]
				return c.fileReadFailed(err)
			}
		}
		c.written += total
		return nil
	}
	bp := fileChunks.Get().(*[]byte)
	defer fileChunks.Put(bp)
	buf := *bp
	osFile, _ := src.f.(*os.File)
	for _, p := range parts {
		if _, err := io.WriteString(c, p.head); err != nil {
			return err
		}
		if osFile != nil && src.ra != nil && c.w == nil {
			// From the page cache to the socket, where the engine can
			// (and no middleware's body writer must see the bytes).
			c.responded = true
			err := c.ex.SendFile(osFile, p.start, p.length)
			if err == nil {
				c.written += p.length
				continue
			}
			if !errors.Is(err, engine.ErrNoSendfile) {
				return err
			}
		}
		for off, end := p.start, p.start+p.length; off < end; {
			n := int(min(int64(len(buf)), end-off))
			if err := src.readAt(buf[:n], off); err != nil {
				return c.fileReadFailed(err)
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return err
			}
			off += int64(n)
		}
	}
	return nil
}

// fileReadFailed turns a read error (the file shrank or the disk failed
// after the head was decided) into the handler's error. Before the
// response streams, the half-built response is dropped so that the error
// handler answers instead of a short body with a wrong length; after, the
// stream is cut (the connection closes), which the client sees as a
// truncated body.
func (c *Ctx) fileReadFailed(err error) error {
	if !c.ex.Streaming() {
		c.ex.Header.Reset()
		c.ex.Body = c.ex.Body[:0]
		c.ex.Status = 0
		c.responded = false
		c.written = 0
	}
	return fmt.Errorf("gwist: reading file: %w", err)
}

// fileSource reads the file: at any offset through ra, or, for a file
// without random access, front to back (only the whole content is then
// served, and sniff keeps what it read).
type fileSource struct {
	f    fs.File
	ra   io.ReaderAt
	pos  int64  // sequential reads: bytes consumed from f
	head []byte // sequential reads: sniffed bytes not yet sent
}

// readAt fills p from offset off.
func (s *fileSource) readAt(p []byte, off int64) error {
	if s.ra != nil {
		n, err := s.ra.ReadAt(p, off)
		if n == len(p) {
			return nil
		}
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if off != s.pos-int64(len(s.head)) {
		return fmt.Errorf("gwist: out-of-order read of a file without random access")
	}
	n := copy(p, s.head)
	s.head = s.head[n:]
	if n < len(p) {
		m, err := io.ReadFull(s.f, p[n:])
		s.pos += int64(m)
		if err != nil {
			return err
		}
	}
	return nil
}

// sniff returns the Content-Type that http.DetectContentType gives the
// first 512 bytes.
func (s *fileSource) sniff(size int64) (string, error) {
	var buf [512]byte
	n := int(min(size, int64(len(buf))))
	if s.ra != nil {
		if err := s.readAt(buf[:n], 0); err != nil {
			return "", err
		}
		return http.DetectContentType(buf[:n]), nil
	}
	m, err := io.ReadFull(s.f, buf[:n])
	s.pos += int64(m)
	if err != nil {
		return "", err
	}
	s.head = append([]byte(nil), buf[:n]...)
	return http.DetectContentType(s.head), nil
}
