package main

import "testing"

func TestCountHeads(t *testing.T) {
	req := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	cases := []struct {
		chunks []string
		want   int
	}{
		{[]string{req}, 1},
		{[]string{req + req + req}, 3},
		{[]string{"GET / HTTP/1.1\r\nHost: x\r", "\n\r", "\n"}, 1},
		{[]string{"a\r\r\n\r\n"}, 1},
		{[]string{"\r\n\r\r\n\r\n"}, 1},
		{[]string{"GET / HTTP/1.1\r\n"}, 0},
		{[]string{req[:10], req[10:] + req[:20], req[20:]}, 2},
	}
	for i, c := range cases {
		total, state := 0, 0
		for _, ch := range c.chunks {
			var n int
			n, state = countHeads([]byte(ch), state)
			total += n
		}
		if total != c.want {
			t.Errorf("case %d: counted %d heads, want %d", i, total, c.want)
		}
	}
}

func TestCannedResponse(t *testing.T) {
	want := "HTTP/1.1 200 OK\r\nServer: gnetbare\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\nHello, World!"
	if string(response) != want {
		t.Fatalf("response = %q", response)
	}
	if len(batch) != batchSize*len(response) {
		t.Fatalf("batch is %d bytes", len(batch))
	}
}
