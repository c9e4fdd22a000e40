package gwist

import (
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
)

// StaticOption configures Static and StaticFS.
type StaticOption func(*staticConfig)

type staticConfig struct {
	index    string
	dotfiles bool
	etags    hashETags // for files without a modification time
}

// StaticIndex sets the file served for a directory (default
// "index.html"); "" serves none, so directories are 404s. There are no
// directory listings.
func StaticIndex(name string) StaticOption { return func(c *staticConfig) { c.index = name } }

// StaticDotfiles serves files and directories whose name starts with '.'
// (default false: they are 404s, so a .git, .env or .htpasswd left in the
// directory is not published). To serve /.well-known alone, leave this off
// and register a Static route for that directory.
func StaticDotfiles(allow bool) StaticOption { return func(c *staticConfig) { c.dotfiles = allow } }

// Static serves the files under the directory dir at prefix: GET (and
// HEAD) prefix+"/*filepath". dir is opened now, as an os.Root held for the
// App's life: a request cannot reach outside it, through "..", encoded
// dots or slashes, backslashes, NUL bytes, absolute paths or symbolic
// links pointing out of it (links inside it are followed). It panics when
// dir cannot be opened. See docs/static-files.md for conditional
// requests, ranges, Content-Type, directories and dotfiles.
func (g *Group) Static(prefix, dir string, opts ...StaticOption) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		panic("gwist: Static " + prefix + ": " + err.Error())
	}
	g.StaticFS(prefix, root.FS(), opts...)
}

// StaticFS serves the files of fsys (an embed.FS, fs.Sub of one, os.DirFS,
// ...) at prefix, like Static. Files without a modification time (all of
// an embed.FS's) get no Last-Modified and an ETag from a hash of their
// content, computed on first use and kept for the App's life: StaticFS
// assumes such files do not change while served (a change of size is
// noticed).
func (g *Group) StaticFS(prefix string, fsys fs.FS, opts ...StaticOption) {
	cfg := staticConfig{index: "index.html"}
	for _, o := range opts {
		o(&cfg)
	}
	h := func(c *Ctx) error { return c.serveStatic(fsys, &cfg, c.params.Get("filepath")) }
	g.GET(strings.TrimSuffix(prefix, "/")+"/*filepath", h)
}

// serveStatic answers a request for raw, the path under the prefix as
// sent (not yet decoded).
func (c *Ctx) serveStatic(fsys fs.FS, cfg *staticConfig, raw string) error {
	name, dirWanted, err := staticName(raw, cfg.dotfiles)
	if err != nil {
		if err.Code == http.StatusBadRequest {
			c.SetHeader("Connection", "close")
		}
		return err
	}
	info, statErr := fs.Stat(fsys, name)
	if statErr != nil {
		return fileError(statErr)
	}
	if info.IsDir() {
		if !dirWanted {
			// As net/http does: a directory's address ends with '/', so
			// that relative links in its index resolve inside it.
			loc := c.Path() + "/"
			if q := c.ex.Request.RawQuery; q != "" {
				loc += "?" + q
			}
			return c.Redirect(http.StatusMovedPermanently, loc)
		}
		if cfg.index == "" {
			return NewHTTPError(http.StatusNotFound, "")
		}
		name = path.Join(name, cfg.index)
	} else if dirWanted {
		return NewHTTPError(http.StatusNotFound, "") // "a.txt/" is not a directory
	}
	f, err2 := openRegular(fsys, name)
	if err2 != nil {
		return err2
	}
	defer f.Close()
	return c.serveOpenFile(f, name, &cfg.etags, fsys, name)
}

// staticName turns the raw path under a Static prefix into an fs.FS name,
// and reports whether it ended with '/'. It refuses (400) what could
// reach outside the root or is ambiguous: invalid percent-encoding,
// encoded '/' or '\' (%2F, %5C), a backslash, a NUL byte, and "", "." or
// ".." elements (which covers "../", "%2e%2e/", "//" and absolute paths).
// Names with an element starting with '.' are 404s unless dotfiles.
func staticName(raw string, dotfiles bool) (name string, dir bool, err *HTTPError) {
	bad := func(why string) (string, bool, *HTTPError) {
		return "", false, NewHTTPError(http.StatusBadRequest, "invalid path: "+why)
	}
	if strings.IndexByte(raw, '%') >= 0 {
		if lower := strings.ToLower(raw); strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") {
			return bad("encoded slash")
		}
		d, uerr := url.PathUnescape(raw)
		if uerr != nil {
			return bad("bad percent-encoding")
		}
		raw = d
	}
	if strings.ContainsAny(raw, "\\\x00") {
		return bad("backslash or NUL")
	}
	name, dir = strings.CutSuffix(raw, "/")
	if name == "" {
		return ".", true, nil
	}
	if !fs.ValidPath(name) {
		return bad("empty, '.' or '..' element")
	}
	if !dotfiles {
		for elem := range strings.SplitSeq(name, "/") {
			if elem[0] == '.' {
				return "", false, NewHTTPError(http.StatusNotFound, "")
			}
		}
	}
	return name, dir, nil
}
