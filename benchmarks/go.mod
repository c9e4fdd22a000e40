module github.com/gwist/gwist/benchmarks

go 1.26.0

// The framework under test, built from this checkout (examples/hello, and
// servers/gzipjson, which imports it).
replace github.com/gwist/gwist => ../

require (
	connectrpc.com/connect v1.21.1
	github.com/gorilla/websocket v1.5.3
	github.com/gwist/gwist v0.0.0-00010101000000-000000000000
	github.com/lesismal/llib v1.2.2
	github.com/lesismal/nbio v1.6.8
	github.com/panjf2000/gnet/v2 v2.9.7
	github.com/valyala/fasthttp v1.79.0
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
	golang.org/x/net v0.63.0
	golang.org/x/sys v0.50.0
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/panjf2000/ants/v2 v2.12.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	gopkg.in/natefinch/lumberjack.v2 v2.2.1 // indirect
)
