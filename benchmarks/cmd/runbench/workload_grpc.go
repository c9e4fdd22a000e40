package main

import (
	"fmt"
	"strconv"

	"github.com/gwist/gwist/benchmarks/internal/grpcbody"
)

// The gRPC rows: one service (internal/grpcbody) served by
// servers/grpcsvc four ways. Only the grpc-* workloads run them.
var grpcRows = []string{"grpc-gwist", "grpc-native", "grpc-nethttp", "grpc-connect"}

// grpcArgs are h2load's arguments for a gRPC call with the framed request
// body in file: POST, application/grpc, te: trailers, prior-knowledge h2c.
func grpcArgs(n int, file, url string) []string {
	return []string{"-n", strconv.Itoa(n), "-c", "16", "-m", "10", "-d", file,
		"-H", "content-type: application/grpc", "-H", "te: trailers", url}
}

// grpcWorkload: gRPC calls over h2c with h2load, unary (EmptyCall) or
// server streaming (StreamingOutputCall, grpcbody.StreamMessages responses
// of grpcbody.StreamPayload bytes).
func grpcWorkload(streaming bool) workload {
	w := workload{name: "grpc-unary", title: "gRPC unary (EmptyCall) over h2c, 16 connections × 10 streams", tool: "h2load",
		rows: grpcRows, primary: "srv_us", higher: false,
		metrics: []metric{{"rps", "calls/s", 0}, {"srv_us", "server µs CPU/call", 2}, {"failed", "failed", 0}}}
	path, body := grpcbody.EmptyCallPath, "grpc-empty.bin"
	if streaming {
		w.name = "grpc-stream"
		w.title = fmt.Sprintf("gRPC server streaming (%d × %d-byte responses per call) over h2c, 16 connections × 10 streams",
			grpcbody.StreamMessages, grpcbody.StreamPayload)
		path, body = grpcbody.StreamPath, "grpc-stream.bin"
	}
	w.note = "The same service (grpc-go's interop TestService) on gwist (a grpc.Server mounted with gwist.WrapHandler), on grpc-go's own server, on net/http (grpc.Server.ServeHTTP) and with connect-go on net/http. " +
		"h2load counts a call as succeeded on HTTP 200; servers/grpcsvc's test checks every mode with grpc-go's client. " +
		"Server CPU per call: the server's utime+stime (/proc/PID/stat) over the measured run ÷ calls."
	w.commands = func(o options) []string {
		return []string{shellJoin("h2load", grpcArgs(o.h2N, body, "http://"+plainPH+path))}
	}
	w.run = func(e *env, s *server) outcome {
		empty, stream, err := grpcbody.WriteBodies(e.binDir)
		if err != nil {
			return outcome{err: err}
		}
		file := empty
		if streaming {
			file = stream
		}
		url := "http://" + s.def.plainAddr() + path
		return runH2load(e, s, grpcArgs(e.o.h2Warm, file, url), grpcArgs(e.o.h2N, file, url))
	}
	return w
}
