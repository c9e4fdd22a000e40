package serve

import (
	"os"
	"path/filepath"
	"testing"
)

// writeAllocs writes a pprof profile (gzip-compressed protobuf), and fails
// on a path it cannot create.
func TestWriteAllocs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allocs.pb.gz")
	if err := writeAllocs(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("not gzip: % x", b[:min(len(b), 8)])
	}
	if err := writeAllocs(filepath.Join(t.TempDir(), "missing", "x")); err == nil {
		t.Fatal("a path in a missing directory: no error")
	}
}
