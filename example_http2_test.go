package gwist_test

import (
	"fmt"

	"github.com/gwist/gwist"
)

// HTTP/2 is on for TLS listeners by default; WithHTTP2(true) adds h2c on
// plaintext ones, and WithHTTP2Limits changes its limits (zero fields
// keep their defaults). A value out of range makes Start fail.
func ExampleWithHTTP2Limits() {
	app := gwist.New(
		gwist.WithHTTP2(true),
		gwist.WithHTTP2Limits(gwist.HTTP2Limits{
			MaxConcurrentStreams: 100,
			StreamWindow:         256 << 10,
		}),
	)
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, c.Protocol()) })

	bad := gwist.New(gwist.WithHTTP2Limits(gwist.HTTP2Limits{MaxFrameSize: 1000}))
	_, err := bad.Start("127.0.0.1:0")
	fmt.Println(err)
	// Output: gwist: invalid option WithHTTP2Limits(MaxFrameSize=1000): must be 0 (the default) or from 16384 to 16777215
}
