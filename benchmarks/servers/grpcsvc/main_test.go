package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/gwist/gwist/benchmarks/internal/grpcbody"
)

// The test binary runs main when asked to, so that each mode is tested as
// the process the suite starts.
func TestMain(m *testing.M) {
	if os.Getenv("GRPCSVC_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// Every mode serves the benchmarks' calls correctly to grpc-go's client
// over h2c: the rows measure working services.
func TestModesServeTheCalls(t *testing.T) {
	for _, mode := range []string{"gwist", "native", "nethttp", "connect"} {
		t.Run(mode, func(t *testing.T) {
			addr := startMode(t, mode)
			cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			client := testpb.NewTestServiceClient(cc)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := client.EmptyCall(ctx, &testpb.Empty{}); err != nil {
				t.Fatalf("EmptyCall: %v", err)
			}
			stream, err := client.StreamingOutputCall(ctx, grpcbody.StreamRequest())
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				resp, err := stream.Recv()
				if err != nil {
					if n != grpcbody.StreamMessages {
						t.Fatalf("after %d responses: %v", n, err)
					}
					break
				}
				if len(resp.GetPayload().GetBody()) != grpcbody.StreamPayload {
					t.Fatalf("response %d: %d payload bytes", n, len(resp.GetPayload().GetBody()))
				}
				n++
			}
		})
	}
}

// startMode runs this binary's main in mode on a free port and returns
// the address it announced.
func startMode(t *testing.T, mode string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-mode", mode)
	cmd.Env = append(os.Environ(), "GRPCSVC_MAIN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, addr, ok := strings.Cut(sc.Text(), "http://"); ok {
			go func() {
				for sc.Scan() {
				}
			}()
			return strings.TrimSpace(addr)
		}
	}
	t.Fatalf("%s: no address announced", mode)
	return ""
}
