package gwist

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// How Bind fills struct fields from strings (path parameters, the query,
// headers, form values): which field takes which name from which source,
// learnt once per type, and how a string becomes the field's type.

// The sources, in the order Bind applies them (a later one overwrites an
// earlier one: see Bind).
const (
	srcHeader = iota
	srcQuery
	srcForm
	srcPath
	nSources
)

// sourceTags are the struct tags of the sources; sourceNames what
// FieldError.In says.
var (
	sourceTags  = [nSources]string{"header", "query", "form", "param"}
	sourceNames = [nSources]string{"header", "query", "form", "path"}
)

// fieldInfo is one bindable field of a struct type.
type fieldInfo struct {
	index  []int            // for reflect.Value.FieldByIndex
	goName string           // the Go field's name
	names  [nSources]string // its name in each source ("": not bound from it)
	json   string           // its JSON name ("" when none or "-")
}

// clientName is the field's name as a client sends it, and where, in
// Bind's order of precedence: the path, the body (its JSON name when the
// body is JSON, else its form name), the query, a header.
func (f *fieldInfo) clientName(jsonBody bool) (name, in string) {
	switch {
	case f.names[srcPath] != "":
		return f.names[srcPath], sourceNames[srcPath]
	case jsonBody && f.json != "":
		return f.json, "body"
	}
	for _, s := range [...]int{srcForm, srcQuery, srcHeader} {
		if f.names[s] != "" {
			return f.names[s], sourceNames[s]
		}
	}
	if f.json != "" {
		return f.json, "body"
	}
	return f.goName, ""
}

// structInfo is what Bind knows of a struct type.
type structInfo struct {
	fields []fieldInfo
	bound  [nSources]bool // some field has this source's tag
}

func (s *structInfo) byGoName(name string) *fieldInfo {
	for i := range s.fields {
		if s.fields[i].goName == name {
			return &s.fields[i]
		}
	}
	return nil
}

var structInfos sync.Map // reflect.Type (a struct) → *structInfo

// structInfoOf returns the binding of t, a struct type or a pointer to
// one; nil for other types.
func structInfoOf(t reflect.Type) *structInfo {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	if si, ok := structInfos.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{}
	collectFields(si, t, nil)
	actual, _ := structInfos.LoadOrStore(t, si)
	return actual.(*structInfo)
}

// collectFields adds t's exported fields, and those of its embedded
// structs, to si.
func collectFields(si *structInfo, t reflect.Type, index []int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && !hasAnyTag(sf) {
			collectFields(si, sf.Type, idx)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		fi := fieldInfo{index: idx, goName: sf.Name}
		for s, tag := range sourceTags {
			if name := tagName(sf, tag); name != "" {
				fi.names[s] = name
				si.bound[s] = true
			}
		}
		if name := tagName(sf, "json"); name != "" {
			fi.json = name
		} else if _, ok := sf.Tag.Lookup("json"); !ok {
			fi.json = sf.Name
		}
		si.fields = append(si.fields, fi)
	}
}

func hasAnyTag(sf reflect.StructField) bool {
	for _, tag := range sourceTags {
		if _, ok := sf.Tag.Lookup(tag); ok {
			return true
		}
	}
	_, ok := sf.Tag.Lookup("json")
	return ok
}

// tagName is the name a tag gives the field ("" for none or "-").
func tagName(sf reflect.StructField, tag string) string {
	v, ok := sf.Tag.Lookup(tag)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(v, ",")
	if name == "-" {
		return ""
	}
	return name
}

// fill sets the fields of the struct rv that src names, from the values
// get returns for each name (nil: absent), and adds a FieldError for each
// value that does not parse. A field of a type it cannot fill is the
// handler's mistake: its error goes to b.typeErr.
func (s *structInfo) fill(rv reflect.Value, src int, get func(name string) []string, b *binding) {
	for i := range s.fields {
		f := &s.fields[i]
		name := f.names[src]
		if name == "" {
			continue
		}
		vals := get(name)
		if vals == nil {
			continue
		}
		fv, err := fieldByIndex(rv, f.index)
		if err == nil {
			err = setField(fv, vals)
		}
		var te *bindTypeError
		switch {
		case errors.As(err, &te):
			b.typeErr = te // the handler's mistake, not the client's: a 500
		case err != nil:
			b.errs = append(b.errs, FieldError{Field: name, In: sourceNames[src], Message: err.Error()})
		}
	}
}

// fieldByIndex is FieldByIndex, allocating nil embedded pointers on the
// way.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	durationType    = reflect.TypeFor[time.Duration]()
)

// setField sets v from vals: a slice takes every value, anything else the
// first. An empty value leaves a field that is not a string (or a slice
// of strings) as it was: an empty form input is not a zero.
func setField(v reflect.Value, vals []string) error {
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Uint8 && !v.Addr().Type().Implements(textUnmarshaler) {
		out := reflect.MakeSlice(v.Type(), 0, len(vals))
		for _, s := range vals {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := setScalar(e, s); err != nil {
				return err
			}
			out = reflect.Append(out, e)
		}
		v.Set(out)
		return nil
	}
	if len(vals) == 0 {
		return nil
	}
	return setScalar(v, vals[0])
}

// setScalar parses s into v.
func setScalar(v reflect.Value, s string) error {
	if v.Kind() == reflect.Pointer {
		if s == "" && v.Type().Elem().Kind() != reflect.String {
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := setScalar(p.Elem(), s); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	if v.CanAddr() && v.Addr().Type().Implements(textUnmarshaler) {
		if s == "" {
			return nil
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return fmt.Errorf("%q: %v", s, err)
		}
		return nil
	}
	if v.Kind() == reflect.String {
		v.SetString(s)
		return nil
	}
	if s == "" {
		return nil
	}
	switch v.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not a boolean (true or false)", s)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Type() == durationType {
			d, err := time.ParseDuration(s)
			if err != nil {
				return fmt.Errorf("%q is not a duration (such as 1m30s)", s)
			}
			v.SetInt(int64(d))
			return nil
		}
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			return numberError(s, "an integer", err, v.Type())
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, v.Type().Bits())
		if err != nil {
			return numberError(s, "a non-negative integer", err, v.Type())
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil {
			return numberError(s, "a number", err, v.Type())
		}
		v.SetFloat(f)
	case reflect.Slice: // []byte
		v.SetBytes([]byte(s))
	default:
		return &bindTypeError{v.Type()}
	}
	return nil
}

// binding is what one Bind call found wrong.
type binding struct {
	errs    FieldErrors // values that do not parse: a 400
	typeErr error       // a field Bind cannot fill: the handler's bug
}

// bindTypeError: a tagged field of a type Bind cannot fill (a bug in the
// handler's struct: Bind returns it as is, a 500, and never to the client).
type bindTypeError struct{ t reflect.Type }

func (e *bindTypeError) Error() string {
	return "gwist: Bind cannot fill a field of type " + e.t.String()
}

func numberError(s, what string, err error, t reflect.Type) error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return fmt.Errorf("%q is out of range for %s", s, t)
	}
	return fmt.Errorf("%q is not %s", s, what)
}
