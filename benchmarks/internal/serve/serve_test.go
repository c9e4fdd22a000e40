package serve

import (
	"encoding/json"
	"flag"
	"testing"
)

func TestRegisterFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	f := RegisterFlags(fs, "127.0.0.1:1")
	if err := fs.Parse([]string{"-tls-addr", "127.0.0.1:2", "-cert", "c", "-key", "k"}); err != nil {
		t.Fatal(err)
	}
	want := Flags{Addr: "127.0.0.1:1", TLSAddr: "127.0.0.1:2", CertFile: "c", KeyFile: "k"}
	if *f != want {
		t.Fatalf("got %+v, want %+v", *f, want)
	}
}

func TestJSONBodyIsValid(t *testing.T) {
	var m map[string]string
	if err := json.Unmarshal([]byte(JSONBody), &m); err != nil || m["message"] != HelloBody {
		t.Fatalf("JSONBody %q: %v %v", JSONBody, m, err)
	}
}

func TestKeyPairGeneratesWhenEmpty(t *testing.T) {
	c, k, err := (&Flags{}).KeyPair()
	if err != nil || len(c) == 0 || len(k) == 0 {
		t.Fatalf("KeyPair: %d %d %v", len(c), len(k), err)
	}
}
