package serve_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func ExampleStdHandler() {
	rec := httptest.NewRecorder()
	serve.StdHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/json", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	// Output: 200 application/json {"message":"Hello, World!"}
}
