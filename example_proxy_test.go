package gwist_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"

	"github.com/gwist/gwist"
)

// A listener behind a load balancer on the loopback network: the
// balancer's PROXY header gives the client's address, which handlers see.
// Here the test plays the balancer and writes a version 1 header by hand
// (HAProxy: "server s1 127.0.0.1:PORT send-proxy").
func ExampleProxyProtocol() {
	app := gwist.New()
	app.GET("/whoami", func(c *gwist.Ctx) error { return c.String(200, c.RemoteAddr().String()) })
	addr, err := app.Start("127.0.0.1:0", gwist.ProxyProtocol(netip.MustParsePrefix("127.0.0.0/8")))
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	conn, err := net.Dial("tcp", addr.String())
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "PROXY TCP4 203.0.113.5 127.0.0.1 41000 80\r\n")
	fmt.Fprint(conn, "GET /whoami HTTP/1.1\r\nHost: example\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body))
	// Output: 203.0.113.5:41000
}
