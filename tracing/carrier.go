package tracing

import (
	"fmt"
	"strings"

	"github.com/gwist/gwist"
)

// headerCarrier reads the request's headers for a propagator. Values are
// copies (Ctx.Header): a trace state kept in the span outlives the
// request's buffers.
type headerCarrier struct{ c *gwist.Ctx }

func (h headerCarrier) Get(key string) string { return h.c.Header(key) }

// Set does nothing: the request's headers are not the server's to change.
func (h headerCarrier) Set(string, string) {}

func (h headerCarrier) Keys() []string {
	fields := h.c.UnsafeRequest().Headers
	keys := make([]string, 0, len(fields))
	for _, f := range fields {
		keys = append(keys, strings.Clone(f.Name))
	}
	return keys
}

// typeName is the Go type of v, as fmt prints it.
func typeName(v any) string { return fmt.Sprintf("%T", v) }
