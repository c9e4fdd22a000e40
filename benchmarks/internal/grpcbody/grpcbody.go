// Package grpcbody holds the gRPC service the benchmarks' gRPC rows serve
// (grpc-go's interop TestService: EmptyCall, and StreamingOutputCall for
// server streaming) and the request bodies h2load sends to it, framed as
// gRPC messages, so that every server under test answers the same calls.
package grpcbody

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"
)

// The methods' paths, as h2load requests them.
const (
	EmptyCallPath = "/grpc.testing.TestService/EmptyCall"
	StreamPath    = "/grpc.testing.TestService/StreamingOutputCall"
)

// StreamMessages and StreamPayload shape a server-streaming call: that
// many responses of that many payload bytes each.
const (
	StreamMessages = 10
	StreamPayload  = 64
)

// Service implements the two methods the benchmarks call.
type Service struct {
	testpb.UnimplementedTestServiceServer
}

// EmptyCall answers an empty message.
func (Service) EmptyCall(context.Context, *testpb.Empty) (*testpb.Empty, error) {
	return &testpb.Empty{}, nil
}

// StreamingOutputCall sends one response per ResponseParameters, each with
// a payload of the size asked for.
func (Service) StreamingOutputCall(req *testpb.StreamingOutputCallRequest, stream grpc.ServerStreamingServer[testpb.StreamingOutputCallResponse]) error {
	for _, p := range req.GetResponseParameters() {
		resp := &testpb.StreamingOutputCallResponse{Payload: &testpb.Payload{Body: make([]byte, p.GetSize())}}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
	return nil
}

// StreamRequest is the server-streaming call's request.
func StreamRequest() *testpb.StreamingOutputCallRequest {
	req := &testpb.StreamingOutputCallRequest{}
	for range StreamMessages {
		req.ResponseParameters = append(req.ResponseParameters, &testpb.ResponseParameters{Size: StreamPayload})
	}
	return req
}

// Frame is m as one gRPC length-prefixed message (uncompressed).
func Frame(m proto.Message) ([]byte, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 5, 5+len(b))
	binary.BigEndian.PutUint32(out[1:], uint32(len(b)))
	return append(out, b...), nil
}

// WriteBodies writes the two calls' framed request bodies into dir and
// returns their paths (for h2load -d).
func WriteBodies(dir string) (empty, stream string, err error) {
	e, err := Frame(&testpb.Empty{})
	if err != nil {
		return "", "", err
	}
	s, err := Frame(StreamRequest())
	if err != nil {
		return "", "", err
	}
	empty, stream = filepath.Join(dir, "grpc-empty.bin"), filepath.Join(dir, "grpc-stream.bin")
	if err := os.WriteFile(empty, e, 0o644); err != nil {
		return "", "", err
	}
	return empty, stream, os.WriteFile(stream, s, 0o644)
}
