package gwist

import (
	"encoding/json"
	"sync"
)

// jsonEncoder is a json.Encoder with the buffer it appends to, pooled so
// that Ctx.JSON allocates neither: json.Marshal returns a fresh slice per
// call.
type jsonEncoder struct {
	buf []byte
	enc *json.Encoder
}

// maxPooledJSON: an encoder whose buffer grew past it is dropped, so that
// one large document does not stay pinned in the pool.
const maxPooledJSON = 64 << 10

var jsonEncoders = sync.Pool{New: func() any {
	e := new(jsonEncoder)
	e.enc = json.NewEncoder(e)
	return e
}}

func (e *jsonEncoder) Write(p []byte) (int, error) {
	e.buf = append(e.buf, p...)
	return len(p), nil
}

func (e *jsonEncoder) release() {
	if cap(e.buf) <= maxPooledJSON {
		e.buf = e.buf[:0]
		jsonEncoders.Put(e)
	}
}
