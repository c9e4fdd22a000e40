package interop

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/grpclog"
	"google.golang.org/grpc/interop"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// grpc-go's own interop service (google.golang.org/grpc/interop) on a
// grpc.Server mounted with gwist.WrapHandler beside an ordinary route,
// driven by grpc-go's client over h2 (TLS, ALPN) and h2c.

// service is grpc-go's interop test server, with UnaryCall answering a
// status with details when the request asks for code 3 (InvalidArgument),
// and the server side of cancellations reported on cancelled.
type service struct {
	testgrpc.TestServiceServer
	cancelled chan string   // the method whose context ended by the client's cancel
	waiting   chan struct{} // the handler waits for that cancel
}

func (s *service) UnaryCall(ctx context.Context, req *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	if st := req.GetResponseStatus(); st != nil && st.Code == int32(codes.InvalidArgument) {
		withDetails, err := status.New(codes.InvalidArgument, st.Message).WithDetails(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "payload", Description: "too short"}},
		})
		if err != nil {
			return nil, err
		}
		return nil, withDetails.Err()
	}
	return s.TestServiceServer.UnaryCall(ctx, req)
}

// StreamingInputCall, asked with a first message of 10 bytes, waits for
// the client to cancel and reports what its context says; otherwise it is
// the interop server's.
func (s *service) StreamingInputCall(stream grpc.ClientStreamingServer[testpb.StreamingInputCallRequest, testpb.StreamingInputCallResponse]) error {
	if md, _ := metadata.FromIncomingContext(stream.Context()); len(md.Get("x-wait-cancel")) == 0 {
		return s.TestServiceServer.StreamingInputCall(stream)
	}
	if _, err := stream.Recv(); err != nil {
		return err
	}
	s.waiting <- struct{}{}
	select {
	case <-stream.Context().Done():
		s.cancelled <- "StreamingInputCall: " + stream.Context().Err().Error()
	case <-time.After(5 * time.Second):
		s.cancelled <- "StreamingInputCall: not cancelled"
	}
	return stream.Context().Err()
}

// newGRPCApp is an App with an ordinary route and the gRPC service mounted
// beside it, and the service.
func newGRPCApp(t *testing.T) (*gwist.App, *service) {
	svc := &service{TestServiceServer: interop.NewTestServer(), cancelled: make(chan string, 4), waiting: make(chan struct{}, 4)}
	gs := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(gs, svc)
	t.Cleanup(gs.Stop)
	app := gwist.New(gwist.WithHTTP2(true))
	app.GET("/healthz", func(c *gwist.Ctx) error { return c.String(200, "ok "+c.Protocol()) })
	app.POST("/grpc.testing.TestService/:method", gwist.WrapHandler(gs))
	return app, svc
}

// grpcTarget is one way to reach the App: a gRPC client and an HTTP one.
type grpcTarget struct {
	name string
	cc   *grpc.ClientConn
	http *http.Client
	base string
	svc  *service
}

func grpcTargets(t *testing.T) []grpcTarget {
	cert, pool := testkit.SelfSigned("localhost")

	plainApp, plainSvc := newGRPCApp(t)
	plain := testkit.Serve(t, func() (net.Addr, error) { return plainApp.Start("127.0.0.1:0") }, plainApp.Shutdown)
	h2c, err := grpc.NewClient(plain, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h2c.Close() })

	tlsApp, tlsSvc := newGRPCApp(t)
	secure := testkit.Serve(t, func() (net.Addr, error) {
		return tlsApp.StartTLS("127.0.0.1:0", testkit.ServerConfig(cert))
	}, tlsApp.Shutdown)
	h2, err := grpc.NewClient(secure, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "localhost"})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h2.Close() })

	// The same service on net/http (h2c), the reference: TestGRPCNetHTTP.
	refSvc := &service{TestServiceServer: interop.NewTestServer(), cancelled: make(chan string, 4), waiting: make(chan struct{}, 4)}
	refGS := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(refGS, refSvc)
	t.Cleanup(refGS.Stop)
	protos := new(http.Protocols)
	protos.SetUnencryptedHTTP2(true)
	protos.SetHTTP1(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ref := &http.Server{Handler: refGS, Protocols: protos}
	go ref.Serve(ln)
	t.Cleanup(func() { ref.Close() })
	refCC, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { refCC.Close() })

	return []grpcTarget{
		{"net/http-h2c", refCC, nil, "", refSvc},
		{"h2c", h2c, testkit.Client(t, testkit.H1(nil)), "http://" + plain, plainSvc},
		{"h2", h2, testkit.Client(t, testkit.H2(&tls.Config{RootCAs: pool, ServerName: "localhost"})), "https://" + secure, tlsSvc},
	}
}

// fatalLogger turns grpc-go's interop checks (which call grpclog's Fatal)
// into test failures of the running subtest.
type fatalLogger struct {
	grpclog.LoggerV2
	mu sync.Mutex
	t  *testing.T
}

func (l *fatalLogger) current() *testing.T { l.mu.Lock(); defer l.mu.Unlock(); return l.t }
func (l *fatalLogger) set(t *testing.T)    { l.mu.Lock(); l.t = t; l.mu.Unlock() }

func (l *fatalLogger) Fatal(args ...any)                 { l.fail(fmt.Sprint(args...)) }
func (l *fatalLogger) Fatalln(args ...any)               { l.fail(fmt.Sprintln(args...)) }
func (l *fatalLogger) Fatalf(format string, args ...any) { l.fail(fmt.Sprintf(format, args...)) }

func (l *fatalLogger) fail(msg string) {
	if t := l.current(); t != nil {
		t.Error(msg)
	}
	runtime.Goexit() // ends the subtest's goroutine, as t.FailNow does
}

var logger = &fatalLogger{LoggerV2: grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard)}

func init() { grpclog.SetLoggerV2(logger) }

// TestGRPCInterop runs grpc-go's interop cases against the service on
// gwist: unary, client, server and bidi streaming (ping-pong: each reply
// before the next request), empty streams, deadlines, cancellations by the
// client, header and trailer metadata, status codes and messages.
func TestGRPCInterop(t *testing.T) {
	cases := []struct {
		name string
		run  func(ctx context.Context, tc testgrpc.TestServiceClient)
	}{
		{"empty_unary", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoEmptyUnaryCall(ctx, tc) }},
		{"large_unary", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoLargeUnaryCall(ctx, tc) }},
		{"client_streaming", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoClientStreaming(ctx, tc) }},
		{"server_streaming", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoServerStreaming(ctx, tc) }},
		{"ping_pong", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoPingPong(ctx, tc) }},
		{"empty_stream", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoEmptyStream(ctx, tc) }},
		{"timeout_on_sleeping_server", func(ctx context.Context, tc testgrpc.TestServiceClient) {
			interop.DoTimeoutOnSleepingServer(ctx, tc)
		}},
		{"cancel_after_begin", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoCancelAfterBegin(ctx, tc) }},
		{"cancel_after_first_response", func(ctx context.Context, tc testgrpc.TestServiceClient) {
			interop.DoCancelAfterFirstResponse(ctx, tc)
		}},
		{"custom_metadata", func(ctx context.Context, tc testgrpc.TestServiceClient) { interop.DoCustomMetadata(ctx, tc) }},
		{"status_code_and_message", func(ctx context.Context, tc testgrpc.TestServiceClient) {
			interop.DoStatusCodeAndMessage(ctx, tc)
		}},
		{"special_status_message", func(ctx context.Context, tc testgrpc.TestServiceClient) {
			interop.DoSpecialStatusMessage(ctx, tc)
		}},
	}
	for _, tg := range grpcTargets(t) {
		tc := testgrpc.NewTestServiceClient(tg.cc)
		for _, c := range cases {
			t.Run(tg.name+"/"+c.name, func(t *testing.T) {
				logger.set(t)
				defer logger.set(nil)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				c.run(ctx, tc)
			})
		}
		t.Run(tg.name+"/unimplemented_method", func(t *testing.T) {
			err := tg.cc.Invoke(context.Background(), "/grpc.testing.TestService/NoSuchMethod", &testpb.Empty{}, &testpb.Empty{})
			if status.Code(err) != codes.Unimplemented {
				t.Errorf("got %v, want Unimplemented", err)
			}
		})
	}
}

// Ordinary routes answer beside the service, on the same port.
func TestGRPCBesideRoutes(t *testing.T) {
	for _, tg := range grpcTargets(t) {
		if tg.http == nil {
			continue
		}
		resp, err := tg.http.Get(tg.base + "/healthz")
		if err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "ok ") {
			t.Errorf("%s: %d %q", tg.name, resp.StatusCode, body)
		}
	}
}

// A status with details reaches the client whole.
func TestGRPCStatusDetails(t *testing.T) {
	for _, tg := range grpcTargets(t) {
		tc := testgrpc.NewTestServiceClient(tg.cc)
		_, err := tc.UnaryCall(context.Background(), &testpb.SimpleRequest{
			ResponseStatus: &testpb.EchoStatus{Code: int32(codes.InvalidArgument), Message: "bad payload"},
		})
		st := status.Convert(err)
		if st.Code() != codes.InvalidArgument || st.Message() != "bad payload" {
			t.Errorf("%s: %v", tg.name, err)
			continue
		}
		var found bool
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok && len(br.FieldViolations) == 1 && br.FieldViolations[0].Field == "payload" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: details %v", tg.name, st.Details())
		}
	}
}

// The client's cancel reaches the handler: its context ends.
func TestGRPCClientCancelReachesServer(t *testing.T) {
	for _, tg := range grpcTargets(t) {
		tc := testgrpc.NewTestServiceClient(tg.cc)
		ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.Background(), "x-wait-cancel", "1"))
		stream, err := tc.StreamingInputCall(ctx)
		if err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		if err := stream.Send(&testpb.StreamingInputCallRequest{Payload: &testpb.Payload{Body: make([]byte, 10)}}); err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		select {
		case <-tg.svc.waiting: // the handler waits for the cancel
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the handler did not get the first message", tg.name)
		}
		cancel()
		select {
		case got := <-tg.svc.cancelled:
			if !strings.Contains(got, "canceled") {
				t.Errorf("%s: %s", tg.name, got)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: the handler's context did not end", tg.name)
		}
	}
}

// The server ends a bidi call with a status while the client still
// sends: the client gets the status, and its further sends fail with EOF
// (then the status), as grpc-go's client does against grpc-go's server.
func TestGRPCServerEndsBidi(t *testing.T) {
	for _, tg := range grpcTargets(t) {
		tc := testgrpc.NewTestServiceClient(tg.cc)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		stream, err := tc.FullDuplexCall(ctx)
		if err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		if err := stream.Send(&testpb.StreamingOutputCallRequest{
			ResponseStatus: &testpb.EchoStatus{Code: int32(codes.Aborted), Message: "server ends it"},
		}); err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		_, err = stream.Recv()
		if st := status.Convert(err); st.Code() != codes.Aborted || st.Message() != "server ends it" {
			t.Errorf("%s: %v", tg.name, err)
		}
		var sendErr error
		for range 100 {
			if sendErr = stream.Send(&testpb.StreamingOutputCallRequest{}); sendErr != nil {
				break
			}
		}
		if !errors.Is(sendErr, io.EOF) {
			t.Errorf("%s: send after the status: %v", tg.name, sendErr)
		}
		cancel()
	}
}
