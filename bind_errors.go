package gwist

import "strings"

// FieldError says what is wrong with one field of a value Bind filled:
// a value that does not parse, or one the Validator refused.
type FieldError struct {
	// Field is the field's name as the client sent it: the tag's name
	// ("title", "page", "X-Limit"), or the name the Validator reports.
	Field string `json:"field"`
	// In is where the value came from: "path", "query", "header", "form"
	// or "body"; "" when the Validator does not say.
	In string `json:"in,omitempty"`
	// Message says what is wrong ("is not an integer", "failed max=200").
	Message string `json:"error"`
}

// FieldErrors is the error, wrapped in a 400 *HTTPError, of a Bind whose
// fields did not parse or did not validate: one FieldError per field.
// JSONErrorHandler lists them in its answer.
type FieldErrors []FieldError

func (fe FieldErrors) Error() string {
	var b strings.Builder
	for i, e := range fe {
		if i > 0 {
			b.WriteString("; ")
		}
		if e.In != "" {
			b.WriteString(e.In)
			b.WriteByte(' ')
		}
		b.WriteString(e.Field)
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}
