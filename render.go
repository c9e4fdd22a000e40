package gwist

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
)

// Renderer executes named templates for Ctx.HTML. *html/template.Template
// is one (and *text/template.Template); so is anything with the same
// method (another template engine, behind a small adapter).
type Renderer interface {
	ExecuteTemplate(w io.Writer, name string, data any) error
}

// WithRenderer sets what Ctx.HTML renders with: an *html/template.Template
// parsed by the application, or another Renderer. Default: none (HTML
// fails), unless WithTemplates parsed some.
func WithRenderer(r Renderer) Option { return func(c *config) { c.renderer = r } }

// WithTemplates parses html/template templates from fsys (an embed.FS,
// os.DirFS) matching patterns (template.ParseFS's), for Ctx.HTML to render
// by name (a file's base name, or a {{define}}d name). A template that does
// not parse makes Start fail, as an invalid option does.
func WithTemplates(fsys fs.FS, patterns ...string) Option {
	return func(c *config) {
		t, err := template.ParseFS(fsys, patterns...)
		if err != nil {
			c.optionError("WithTemplates", patterns, err.Error())
			return
		}
		c.renderer = t
	}
}

// ErrNoRenderer is HTML's error on an App without templates.
var ErrNoRenderer = errors.New("gwist: HTML needs templates (WithTemplates or WithRenderer)")

// HTML answers with status code and the template name executed with data,
// as "text/html; charset=utf-8" (unless the handler set another type),
// through the App's Renderer (WithTemplates, WithRenderer): html/template
// escapes data for its context in the page.
//
// The page is written as it executes: held in memory up to
// WithStreamThreshold (32 KiB), then streamed. A template that fails
// within that (a missing field, a function's error) leaves nothing sent:
// what it wrote is dropped (ResetResponse) and HTML returns the error,
// which the error handler answers with a 500. A template that fails after
// the page began to stream cannot become an error response any more: the
// body is cut off (the connection closes, so the client sees a truncated
// page, never a complete-looking one) and the error is logged, as for any
// streamed response. Render a large page into a buffer first if a
// failure must always be a 500.
func (c *Ctx) HTML(code int, name string, data any) error {
	r := c.app.cfg.renderer
	if r == nil {
		return ErrNoRenderer
	}
	c.setContentType("text/html; charset=utf-8")
	c.Status(code)
	if err := r.ExecuteTemplate(c, name, data); err != nil {
		if c.ResetResponse() {
			return fmt.Errorf("gwist: template %q: %w", name, err)
		}
		return err
	}
	return nil
}
