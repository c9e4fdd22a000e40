// Package interop tests gwist against independent RPC stacks that run on
// net/http handlers: grpc-go's server and client (grpc_test.go) and, in
// cmd/conformance-server, the Connect conformance suite's server under
// test (connect-go mounted on gwist). It is a module of its own so that
// grpc-go, connect-go and the conformance suite never enter gwist's
// go.mod.
package interop
