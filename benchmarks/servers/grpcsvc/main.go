// Command grpcsvc serves the benchmarks' gRPC service (internal/grpcbody)
// over prior-knowledge h2c in one of four ways, so that the gRPC rows
// compare the same service on each:
//
//	-mode gwist    a grpc.Server mounted on a gwist App with gwist.WrapHandler
//	-mode native   grpc-go's own server (grpc.Server.Serve)
//	-mode nethttp  a grpc.Server as an http.Handler on net/http (ServeHTTP)
//	-mode connect  connect-go's handlers (gRPC protocol) on net/http
package main

import (
	"context"
	"flag"
	"net"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/gwist/gwist"

	"github.com/gwist/gwist/benchmarks/internal/grpcbody"
	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func main() {
	f := serve.RegisterFlags(flag.CommandLine, "127.0.0.1:8080")
	mode := flag.String("mode", "gwist", "gwist, native, nethttp or connect")
	flag.Parse()
	name := "grpcsvc-" + *mode
	if f.Addr == "" {
		serve.Fatal(name, errNoAddr)
	}
	switch *mode {
	case "gwist":
		serveGwist(name, f.Addr, newGRPC())
	case "native":
		ln, err := net.Listen("tcp", f.Addr)
		if err != nil {
			serve.Fatal(name, err)
		}
		gs := newGRPC()
		go func() { serve.WaitSignal(); gs.Stop() }()
		serve.Announce("http", ln.Addr().String())
		if err := gs.Serve(ln); err != nil {
			serve.Fatal(name, err)
		}
	case "nethttp":
		serve.NetHTTP(name, &serve.Flags{Addr: f.Addr}, newGRPC())
	case "connect":
		serve.NetHTTP(name, &serve.Flags{Addr: f.Addr}, connectHandler())
	default:
		serve.Fatal(name, errMode)
	}
}

type stringError string

func (e stringError) Error() string { return string(e) }

const (
	errNoAddr = stringError("-addr is required (the gRPC rows are h2c only)")
	errMode   = stringError("-mode must be gwist, native, nethttp or connect")
)

func newGRPC() *grpc.Server {
	gs := grpc.NewServer()
	testpb.RegisterTestServiceServer(gs, grpcbody.Service{})
	return gs
}

// serveGwist mounts gs beside an ordinary route, as a service would be.
func serveGwist(name, addr string, gs *grpc.Server) {
	app := gwist.New(gwist.WithHTTP2(true))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	app.POST("/grpc.testing.TestService/:method", gwist.WrapHandler(gs))
	bound, err := app.Start(addr)
	if err != nil {
		serve.Fatal(name, err)
	}
	serve.Announce("http", bound.String())
	serve.WaitSignal()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = app.Shutdown(ctx)
}

// connectHandler serves the same two methods with connect-go, without
// generated code.
func connectHandler() http.Handler {
	svc := grpcbody.Service{}
	mux := http.NewServeMux()
	mux.Handle(grpcbody.EmptyCallPath, connect.NewUnaryHandler(grpcbody.EmptyCallPath,
		func(ctx context.Context, req *connect.Request[testpb.Empty]) (*connect.Response[testpb.Empty], error) {
			res, err := svc.EmptyCall(ctx, req.Msg)
			if err != nil {
				return nil, err
			}
			return connect.NewResponse(res), nil
		}))
	mux.Handle(grpcbody.StreamPath, connect.NewServerStreamHandler(grpcbody.StreamPath,
		func(_ context.Context, req *connect.Request[testpb.StreamingOutputCallRequest], stream *connect.ServerStream[testpb.StreamingOutputCallResponse]) error {
			for _, p := range req.Msg.GetResponseParameters() {
				resp := &testpb.StreamingOutputCallResponse{Payload: &testpb.Payload{Body: make([]byte, p.GetSize())}}
				if err := stream.Send(resp); err != nil {
					return err
				}
			}
			return nil
		}))
	return mux
}
