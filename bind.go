package gwist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// BindOption changes how BindJSON (and Bind, for a JSON body) decodes.
type BindOption func(*bindConfig)

type bindConfig struct {
	disallowUnknown bool
	allowMissingCT  bool
}

// BindDisallowUnknownFields makes a JSON object key that matches no field
// of the target a 400 (encoding/json ignores them by default).
func BindDisallowUnknownFields() BindOption { return func(c *bindConfig) { c.disallowUnknown = true } }

// BindAllowMissingContentType accepts a request without a Content-Type
// as JSON. By default it is a 415: a cross-site page can send a body
// without a Content-Type (or with text/plain) without a CORS preflight,
// but not one labelled application/json, so requiring the label keeps
// such requests away from JSON endpoints.
func BindAllowMissingContentType() BindOption { return func(c *bindConfig) { c.allowMissingCT = true } }

// BindJSON decodes the JSON request body into v. It answers (through the
// returned *HTTPError) 415 unless the Content-Type is application/json or
// a +json type (a missing one is accepted with
// BindAllowMissingContentType), and 400 with a message that says what is
// wrong when the body is empty, is not JSON, has a value of the wrong type
// for a field (named), has more than one JSON value, or, with
// BindDisallowUnknownFields, has a key v has no field for. The body is
// bounded by WithMaxBodyBytes. Decoding copies: v shares no memory with
// the request. On a route that streams its body it is read here, up to
// WithMaxBodyBytes too. Then the App's Validator (WithValidator), if any,
// checks v (a 400 naming the fields it refuses).
func (c *Ctx) BindJSON(v any, opts ...BindOption) error {
	if err := c.decodeJSON(v, opts); err != nil {
		return err
	}
	return c.Validate(v)
}

// decodeJSON is BindJSON without the validation.
func (c *Ctx) decodeJSON(v any, opts []BindOption) error {
	var cfg bindConfig
	for _, o := range opts {
		o(&cfg)
	}
	ct := c.ex.Request.Header("Content-Type")
	if ct != "" || !cfg.allowMissingCT {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return &HTTPError{Code: http.StatusUnsupportedMediaType, Message: "Content-Type must be application/json"}
		}
	}
	body := c.ex.Request.Body
	if c.ex.StreamedBody() { // read it here (Group.StreamBody), within the same bound
		var err error
		if body, err = readLimited(c.BodyReader(), c.app.maxBodyBytes()); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if cfg.disallowUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return &HTTPError{Code: http.StatusBadRequest, Message: "invalid JSON body: " + jsonProblem(err), Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &HTTPError{Code: http.StatusBadRequest, Message: "invalid JSON body: more data after the JSON value"}
	}
	return nil
}

// jsonProblem describes a decoding error for the client.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "empty body"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of input"
	case errors.As(err, &syn):
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("field %q: expected %s, got %s", typ.Field, typ.Type, typ.Value)
		}
		return fmt.Sprintf("expected %s, got %s", typ.Type, typ.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
