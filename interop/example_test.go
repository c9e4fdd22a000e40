package interop_test

import (
	"context"
	"fmt"
	"log"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/interop"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"

	"github.com/gwist/gwist"
)

// A gRPC service mounted beside REST routes on one gwist port: the
// grpc.Server is an http.Handler, and WrapHandler mounts it on its
// service's path. HTTP/2 is on (h2c on this plaintext listener; h2 through
// ALPN on a TLS one).
func Example_grpc() {
	gs := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(gs, interop.NewTestServer())
	defer gs.Stop()

	app := gwist.New(gwist.WithHTTP2(true))
	app.GET("/api/hello", func(c *gwist.Ctx) error { return c.String(200, "hello") })
	app.POST("/grpc.testing.TestService/:method", gwist.WrapHandler(gs))
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer app.Shutdown(context.Background())

	cc, err := grpc.NewClient(addr.String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()
	resp, err := testgrpc.NewTestServiceClient(cc).UnaryCall(context.Background(),
		&testgrpc.SimpleRequest{ResponseSize: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(resp.GetPayload().GetBody()), "bytes over", "gRPC")
	// Output: 3 bytes over gRPC
}
