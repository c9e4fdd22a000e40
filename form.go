package gwist

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
)

// DefaultMultipartMemory is the maxMemory FormValue and Form use for a
// multipart body (as net/http's ParseMultipartForm callers usually do):
// file parts beyond it are written to temporary files.
const DefaultMultipartMemory = 32 << 20

// formState is a request's parsed form, kept so that FormValue, Form and
// MultipartForm parse the body once; its temporary files are removed when
// the handler returns.
type formState struct {
	values    url.Values      // body values, then query values
	multipart *multipart.Form // set for a multipart body
	err       error
}

// Form parses the request's form and returns its values: those of an
// application/x-www-form-urlencoded or multipart/form-data body (POST,
// PUT and PATCH only, as net/http does) followed by those of the query.
// It is parsed once per request; the result is a copy the handler may
// keep. The body is bounded by WithMaxBodyBytes (8 MiB) before the handler
// runs, which bounds the form (on a route that streams its body, an
// urlencoded body is read up to WithMaxBodyBytes, a multipart one as it
// arrives, within the route's StreamBody limit); a multipart body's file
// parts beyond
// DefaultMultipartMemory are spilled to temporary files (see
// MultipartForm). A malformed body is a 400 *HTTPError, an unsupported
// multipart message (too many parts or headers) a 413.
func (c *Ctx) Form() (url.Values, error) {
	if c.form == nil {
		c.parseForm(DefaultMultipartMemory)
	}
	return c.form.values, c.form.err
}

// FormValue returns the first value for name from Form, or "" (also when
// the form is malformed: use Form to see the error).
func (c *Ctx) FormValue(name string) string {
	v, _ := c.Form()
	if vs := v[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// MultipartForm parses a multipart/form-data body: values, and files of
// which at most maxMemory bytes in all are held in memory, the rest
// written to temporary files by mime/multipart and removed when the
// handler returns (copy or move what must outlive it). A body of another
// type is a 415 *HTTPError, a malformed one a 400. The first call decides
// maxMemory (Form and FormValue use DefaultMultipartMemory).
func (c *Ctx) MultipartForm(maxMemory int64) (*multipart.Form, error) {
	if c.form == nil {
		c.parseForm(maxMemory)
	}
	if c.form.err != nil {
		return nil, c.form.err
	}
	if c.form.multipart == nil {
		return nil, &HTTPError{Code: http.StatusUnsupportedMediaType, Message: "Content-Type must be multipart/form-data"}
	}
	return c.form.multipart, nil
}

// FormFile returns the first file uploaded as name in a multipart body,
// or an *HTTPError (400 when absent).
func (c *Ctx) FormFile(name string) (*multipart.FileHeader, error) {
	if c.form == nil {
		c.parseForm(DefaultMultipartMemory)
	}
	if c.form.err != nil {
		return nil, c.form.err
	}
	if m := c.form.multipart; m != nil && len(m.File[name]) > 0 {
		return m.File[name][0], nil
	}
	return nil, &HTTPError{Code: http.StatusBadRequest, Message: "no file " + name + " in the form"}
}

func (c *Ctx) parseForm(maxMemory int64) {
	st := &formState{values: url.Values{}}
	c.form = st
	switch c.Method() {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		var stream io.Reader // a streamed body (Group.StreamBody) is read here
		if c.ex.StreamedBody() {
			stream = c.BodyReader()
		}
		st.err = st.parseBody(&c.ex.Request.Body, stream, c.app.maxBodyBytes(), c.ex.Request.Header("Content-Type"), maxMemory)
	}
	q, err := url.ParseQuery(strings.Clone(c.ex.Request.RawQuery))
	if err != nil && st.err == nil {
		st.err = &HTTPError{Code: http.StatusBadRequest, Message: "invalid query", Err: err}
	}
	for k, vs := range q {
		st.values[k] = append(st.values[k], vs...)
	}
}

// parseBody parses a form body of type ct into st; other types are left
// alone (no error), as net/http does. A streamed body comes as stream
// instead: a multipart one is parsed as it arrives, an urlencoded one is
// read first, up to limit bytes.
func (st *formState) parseBody(body *[]byte, stream io.Reader, limit int64, ct string, maxMemory int64) error {
	if ct == "" {
		return nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return &HTTPError{Code: http.StatusBadRequest, Message: "invalid Content-Type", Err: err}
	}
	switch mt {
	case "application/x-www-form-urlencoded":
		if stream != nil {
			b, err := readLimited(stream, limit)
			if err != nil {
				return err
			}
			body = &b
		}
		v, err := url.ParseQuery(string(*body)) // string() copies out of the pooled buffer
		if err != nil {
			return &HTTPError{Code: http.StatusBadRequest, Message: "invalid form body", Err: err}
		}
		for k, vs := range v {
			st.values[k] = append(st.values[k], vs...)
		}
	case "multipart/form-data":
		boundary := params["boundary"]
		if boundary == "" {
			return &HTTPError{Code: http.StatusBadRequest, Message: "multipart body without a boundary"}
		}
		// ReadForm copies values and in-memory files out of the body.
		var src io.Reader = bytes.NewReader(*body)
		if stream != nil {
			src = stream
		}
		f, err := multipart.NewReader(src, boundary).ReadForm(maxMemory)
		var he *HTTPError
		if errors.As(err, &he) { // the streamed body failed (413, 400, 408)
			return he
		}
		if err != nil {
			if errors.Is(err, multipart.ErrMessageTooLarge) {
				return &HTTPError{Code: http.StatusRequestEntityTooLarge, Message: "multipart form too large", Err: err}
			}
			return &HTTPError{Code: http.StatusBadRequest, Message: "invalid multipart body", Err: err}
		}
		st.multipart = f
		for k, vs := range f.Value {
			st.values[k] = append(st.values[k], vs...)
		}
	}
	return nil
}

// releaseForm removes a multipart form's temporary files; it runs when
// the handler has returned.
func (c *Ctx) releaseForm() {
	if c.form != nil && c.form.multipart != nil {
		_ = c.form.multipart.RemoveAll()
	}
	c.form = nil
}
