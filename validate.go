package gwist

import (
	"errors"
	"reflect"
	"strings"
)

// Validator checks a value that a Bind call filled (see WithValidator).
// Validate returns nil for a valid value. An *HTTPError it returns is
// answered as it is; FieldErrors, or a slice of errors with Field() and
// Tag() methods (go-playground/validator's ValidationErrors), become a 400
// naming each field; any other error a 400 with its text.
type Validator interface {
	Validate(v any) error
}

// ValidatorFunc is a function as a Validator:
// gwist.ValidatorFunc(validate.Struct) for go-playground/validator.
type ValidatorFunc func(v any) error

// Validate calls f(v).
func (f ValidatorFunc) Validate(v any) error { return f(v) }

// WithValidator makes every Bind call (Bind, BindJSON, BindQuery,
// BindForm, BindHeader, BindParams) run v on the value it filled, after
// filling it: a value that does not validate is a 400 that names the
// fields (see Validator). Default: none.
func WithValidator(v Validator) Option { return func(c *config) { c.validator = v } }

// Validate runs the App's Validator (WithValidator) on v, as Bind does:
// nil when v is valid or the App has none, else an *HTTPError (400 unless
// the Validator returned one) whose Err holds the FieldErrors when the
// Validator names fields. For a value the handler built or changed
// itself.
func (c *Ctx) Validate(v any) error {
	val := c.app.cfg.validator
	if val == nil {
		return nil
	}
	err := val.Validate(v)
	if err == nil {
		return nil
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he
	}
	mt := c.mediaType()
	if fe := asFieldErrors(err, v, mt == "application/json" || strings.HasSuffix(mt, "+json")); fe != nil {
		return &HTTPError{Code: 400, Message: "invalid request: " + fe.Error(), Err: fe}
	}
	return &HTTPError{Code: 400, Message: "invalid request: " + err.Error(), Err: err}
}

// validatorFieldError is what go-playground/validator's FieldError has
// (and what we need of it), without importing it.
type validatorFieldError interface {
	Field() string       // the field's name (its tag's, with RegisterTagNameFunc)
	StructField() string // the Go field's name
	Tag() string         // the rule that failed ("required", "max")
	Param() string       // the rule's parameter ("200"), or ""
}

// asFieldErrors turns err into FieldErrors: as it is, or from a slice of
// validator field errors, each named as the client knows the field (the
// name its tag on v's type gives it, and where it comes from). Nil when
// err is neither.
func asFieldErrors(err error, v any, jsonBody bool) FieldErrors {
	var fe FieldErrors
	if errors.As(err, &fe) {
		return fe
	}
	rv := reflect.ValueOf(err)
	if rv.Kind() != reflect.Slice || rv.Len() == 0 {
		return nil
	}
	info := structInfoOf(reflect.TypeOf(v))
	for i := range rv.Len() {
		e, ok := rv.Index(i).Interface().(validatorFieldError)
		if !ok {
			return nil
		}
		msg := "failed " + e.Tag()
		if p := e.Param(); p != "" {
			msg += "=" + p
		}
		f := FieldError{Field: e.Field(), Message: msg}
		if info != nil {
			if fi := info.byGoName(e.StructField()); fi != nil {
				f.Field, f.In = fi.clientName(jsonBody)
			}
		}
		fe = append(fe, f)
	}
	return fe
}
