package main

import (
	"net"
	"testing"
)

func TestPortFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := portFree(addr); err == nil {
		t.Fatal("a listening port reported free")
	}
	ln.Close()
	if err := portFree(addr); err != nil {
		t.Fatalf("closed port reported busy: %v", err)
	}
}
