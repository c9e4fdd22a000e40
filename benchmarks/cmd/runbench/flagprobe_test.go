package main

import (
	"slices"
	"testing"
)

func TestFlagProbe(t *testing.T) {
	usage := `Usage of bin/gwist:
  -addr string
    	plaintext HTTP listen address (default "127.0.0.1:8080")
  -inline
    	run handlers on the event loop instead of the worker pool
  -workers int
    	worker pool size (0: default)
`
	have := parseUsageFlags(usage)
	if !have["addr"] || !have["inline"] || !have["workers"] || len(have) != 3 {
		t.Fatalf("parsed %v", have)
	}
	args := allServers[2].args(true, "c", "k") // gwist-noquickack over TLS
	got := missingFlags(args, have)
	want := []string{"-tls-addr", "-cert", "-key", "-quickack"}
	if !slices.Equal(got, want) {
		t.Fatalf("missing %v, want %v", got, want)
	}
	if missingFlags(args, nil) != nil {
		t.Fatal("unknown usage must assume every flag exists")
	}
	if parseUsageFlags("segmentation fault") != nil {
		t.Fatal("no flags listed: want nil")
	}
}
