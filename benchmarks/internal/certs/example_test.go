package certs_test

import (
	"crypto/tls"
	"fmt"
	"os"

	"github.com/gwist/gwist/benchmarks/internal/certs"
)

// Every server in a run is started with the same -cert and -key files.
func ExampleWriteFiles() {
	dir, _ := os.MkdirTemp("", "certs")
	defer os.RemoveAll(dir)
	certFile, keyFile, err := certs.WriteFiles(dir)
	if err != nil {
		panic(err)
	}
	_, err = tls.LoadX509KeyPair(certFile, keyFile)
	fmt.Println(err == nil)
	// Output: true
}
