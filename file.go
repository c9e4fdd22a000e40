package gwist

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
)

// ErrInlineFileTooLarge is returned by File, FileFS and the Static handlers
// on an App running handlers on the event loop (WithInline), which cannot
// stream, when the body to send is larger than WithMaxInlineFileBytes: the
// body would have to be held in memory whole. The DefaultErrorHandler
// answers 500 and logs it; serve large files from an App without
// WithInline.
var ErrInlineFileTooLarge = errors.New("gwist: file too large to send from an inline handler (WithInline cannot stream; see WithMaxInlineFileBytes)")

// defaultMaxInlineFileBytes is WithMaxInlineFileBytes's default.
const defaultMaxInlineFileBytes = 1 << 20

// WithMaxInlineFileBytes sets the largest file body (the whole file, or
// the ranges asked for) that File, FileFS and Static send from an App
// running handlers on the event loop (WithInline), where a response cannot
// stream and is held in memory until the handler returns (default 1 MiB).
// Larger bodies fail with ErrInlineFileTooLarge (a 500). Without
// WithInline files of any size stream and this does not apply.
func WithMaxInlineFileBytes(n int64) Option {
	return func(c *config) {
		if c.count("WithMaxInlineFileBytes", n, "1 MiB") {
			c.maxInlineFile = n
		}
	}
}

// File sends the file at path, a path on the server's file system used
// as given (relative to the working directory, symbolic links followed):
// do not build it from request input, use Static or FileFS with a root for
// that. It answers conditional and range requests like the Static
// handlers (see docs/static-files.md); a directory or a missing
// file is a 404, an unreadable one a 403.
func (c *Ctx) File(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fileError(err)
	}
	if !info.Mode().IsRegular() {
		return NewHTTPError(http.StatusNotFound, "")
	}
	f, err := os.Open(path)
	if err != nil {
		return fileError(err)
	}
	defer f.Close()
	return c.serveOpenFile(f, path, nil, nil, "")
}

// FileFS sends the file name from fsys (an embed.FS, os.DirFS, ...),
// like File. name follows the fs.FS rules (slash-separated, unrooted, no
// "." or ".." elements); an invalid one is a 400.
func (c *Ctx) FileFS(fsys fs.FS, name string) error {
	if !fs.ValidPath(name) {
		return NewHTTPError(http.StatusBadRequest, "invalid file name")
	}
	f, err := openRegular(fsys, name)
	if err != nil {
		return err
	}
	defer f.Close()
	return c.serveOpenFile(f, name, nil, fsys, name)
}

// openRegular opens a regular file of fsys, refusing directories, devices
// and pipes before opening them (opening a FIFO would block).
func openRegular(fsys fs.FS, name string) (fs.File, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fileError(err)
	}
	if !info.Mode().IsRegular() {
		return nil, NewHTTPError(http.StatusNotFound, "")
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fileError(err)
	}
	return f, nil
}

// fileError maps an open or stat error to the answer: 403 for a
// permission error, 404 for anything else (missing, not a directory, a
// symbolic link out of the root), so that nothing of the file system's
// layout outside what is served leaks into the status.
func fileError(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &HTTPError{Code: http.StatusForbidden, Err: err}
	}
	return &HTTPError{Code: http.StatusNotFound, Err: err}
}

// serveOpenFile answers with f, whose name gives the Content-Type by
// extension; etags, fsys and fsName identify it for the content-hash ETag
// of files without a modification time (see contentETag).
func (c *Ctx) serveOpenFile(f fs.File, name string, etags *hashETags, fsys fs.FS, fsName string) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("gwist: stat %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return NewHTTPError(http.StatusNotFound, "")
	}
	etag := fileETag(info)
	if etag == "" && fsys != nil {
		if etag, err = contentETag(etags, fsys, fsName, info.Size(), f); err != nil {
			return fmt.Errorf("gwist: hashing %s: %w", name, err)
		}
	}
	return c.serveContent(f, name, info.Size(), info.ModTime(), etag)
}

// readerAt gives random access to f: its own ReadAt, or Seek and Read; nil
// when f has neither (it is then read once, front to back).
func readerAt(f fs.File) io.ReaderAt {
	switch r := f.(type) {
	case io.ReaderAt:
		return r
	case io.ReadSeeker:
		return &seekReaderAt{r}
	}
	return nil
}

// seekReaderAt is an io.ReaderAt over a ReadSeeker, for one goroutine.
type seekReaderAt struct{ r io.ReadSeeker }

func (s *seekReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if _, err := s.r.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(s.r, p)
}

// maxInlineFileBytes is WithMaxInlineFileBytes or its default.
func (a *App) maxInlineFileBytes() int64 {
	if a.cfg.maxInlineFile > 0 {
		return a.cfg.maxInlineFile
	}
	return defaultMaxInlineFileBytes
}
