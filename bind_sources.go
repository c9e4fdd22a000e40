package gwist

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// Bind fills the struct v points to from every part of the request, by
// struct tags, then runs the App's Validator (WithValidator) on it:
//
//	type updateTodo struct {
//		ID    int64  `param:"id"`               // the path parameter :id (or {id})
//		Title string `json:"title"`             // the JSON body's "title"
//		Done  *bool  `json:"done" form:"done"`  // the JSON body, or a form body's "done"
//		Page  int    `query:"page"`             // ?page=2
//		Token string `header:"X-Token"`         // the X-Token header
//	}
//
// What wins when a field comes from two places: the path parameters, then
// the body, then the query, then the headers (Bind fills them in the
// opposite order, each overwriting what an earlier one set). So the path
// names the resource whatever the body says (PUT /todos/5 with
// {"id": 6} acts on 5), and a form body's value wins over the query's, as
// in net/http's FormValue. A field no source has keeps the value it had:
// set defaults before calling Bind.
//
// The body is read by its Content-Type: JSON (application/json or +json)
// by encoding/json, as BindJSON does (json tags, and opts); a form
// (application/x-www-form-urlencoded or multipart/form-data) by the form
// tags, through Form; a request without a body is not one; another type,
// or a body without a Content-Type, is a 415.
//
// A value that does not parse into its field's type is a 400 naming the
// field and where it came from (its Err is FieldErrors; JSONErrorHandler
// lists them). Fields: strings, bools, integers, floats, time.Duration,
// anything with an UnmarshalText method (time.Time takes RFC 3339),
// pointers to these (left nil when absent), and slices of them, which
// take every value (?tag=a&tag=b); other fields take the first. An empty
// value ("?page=") leaves a field that is not a string as it was.
// Embedded structs' fields count as the struct's own.
func (c *Ctx) Bind(v any, opts ...BindOption) error {
	rv, si, err := bindTarget(v)
	if err != nil {
		return err
	}
	var b binding
	if si.bound[srcHeader] {
		si.fill(rv, srcHeader, c.headerValues, &b)
	}
	if si.bound[srcQuery] {
		si.fill(rv, srcQuery, queryGetter(c.QueryValues()), &b)
	}
	if c.hasBody() {
		switch mt := c.mediaType(); {
		case mt == "application/json" || strings.HasSuffix(mt, "+json"):
			if err := c.decodeJSON(v, opts); err != nil {
				return err
			}
		case mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data":
			if err := c.fillForm(rv, si, &b); err != nil {
				return err
			}
		default:
			return &HTTPError{Code: http.StatusUnsupportedMediaType,
				Message: "Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data"}
		}
	}
	if si.bound[srcPath] {
		si.fill(rv, srcPath, c.paramValues, &b)
	}
	return c.bound(v, &b)
}

// BindQuery fills the fields of v tagged `query:"name"` from the query
// string (see Bind for the types and the errors), then validates v.
func (c *Ctx) BindQuery(v any) error {
	return c.bindFrom(v, srcQuery, func() func(string) []string { return queryGetter(c.QueryValues()) })
}

// BindHeader fills the fields of v tagged `header:"Name"` from the
// request's headers (names are case-insensitive; a slice takes every
// field of that name), then validates v.
func (c *Ctx) BindHeader(v any) error {
	return c.bindFrom(v, srcHeader, func() func(string) []string { return c.headerValues })
}

// BindParams fills the fields of v tagged `param:"name"` from the route's
// path parameters (decoded, as Param gives them), then validates v.
func (c *Ctx) BindParams(v any) error {
	return c.bindFrom(v, srcPath, func() func(string) []string { return c.paramValues })
}

// BindForm fills the fields of v tagged `form:"name"` from Form (an
// urlencoded or multipart body's values, then the query's: a value in the
// body wins), then validates v. A malformed form is a 400.
func (c *Ctx) BindForm(v any) error {
	rv, si, err := bindTarget(v)
	if err != nil {
		return err
	}
	var b binding
	if err := c.fillForm(rv, si, &b); err != nil {
		return err
	}
	return c.bound(v, &b)
}

func (c *Ctx) bindFrom(v any, src int, getter func() func(string) []string) error {
	rv, si, err := bindTarget(v)
	if err != nil {
		return err
	}
	var b binding
	si.fill(rv, src, getter(), &b)
	return c.bound(v, &b)
}

// bound ends a Bind: a field it could not fill (a 500), the fields that
// did not parse (a 400), else the validation.
func (c *Ctx) bound(v any, b *binding) error {
	if b.typeErr != nil {
		return b.typeErr
	}
	if len(b.errs) > 0 {
		return &HTTPError{Code: http.StatusBadRequest, Message: "invalid request: " + b.errs.Error(), Err: b.errs}
	}
	return c.Validate(v)
}

// errBindTarget: Bind was given something other than a pointer to a
// struct (a bug in the handler, hence not a 400).
var errBindTarget = errors.New("gwist: Bind needs a non-nil pointer to a struct")

func bindTarget(v any) (reflect.Value, *structInfo, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, nil, errBindTarget
	}
	return rv.Elem(), structInfoOf(rv.Type()), nil
}

func (c *Ctx) fillForm(rv reflect.Value, si *structInfo, b *binding) error {
	form, err := c.Form()
	if err != nil {
		return err
	}
	si.fill(rv, srcForm, queryGetter(form), b)
	return nil
}

func queryGetter(q url.Values) func(string) []string {
	return func(name string) []string { return q[name] }
}

// headerValues returns every value of the request header name.
func (c *Ctx) headerValues(name string) []string {
	var vs []string
	for _, f := range c.ex.Request.Headers {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, strings.Clone(f.Value))
		}
	}
	return vs
}

// paramValues returns the path parameter name, decoded, or nil when the
// route has none of that name.
func (c *Ctx) paramValues(name string) []string {
	for _, p := range c.params {
		if p.Key == name {
			return []string{c.Param(name)}
		}
	}
	return nil
}

// hasBody reports whether the request has a body to bind.
func (c *Ctx) hasBody() bool {
	req := &c.ex.Request
	return req.ContentLength > 0 || req.Chunked || c.ex.StreamedBody() || len(req.Body) > 0
}

// mediaType is the request's Content-Type without parameters, lower case
// ("" when absent or malformed).
func (c *Ctx) mediaType() string {
	mt, _, err := mime.ParseMediaType(c.ex.Request.Header("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}
