//go:build unix

package engine

import "testing"

// The workers' ring keeps FIFO order across wrap-around and growth.
func TestBatchFIFOOrder(t *testing.T) {
	var q batchFIFO
	if q.pop() != nil {
		t.Fatal("pop on an empty queue returned a batch")
	}
	batches := make([]*batch, 100)
	for i := range batches {
		batches[i] = new(batch)
	}
	next, want := 0, 0
	// Push 3, pop 2, again and again: the head walks round the ring and the
	// ring grows while its head is not at index 0.
	for next < len(batches) {
		for i := 0; i < 3 && next < len(batches); i++ {
			q.push(batches[next])
			next++
		}
		for i := 0; i < 2; i++ {
			if b := q.pop(); b != batches[want] {
				t.Fatalf("pop %d: got batch %p, want %p", want, b, batches[want])
			}
			want++
		}
	}
	for want < len(batches) {
		if b := q.pop(); b != batches[want] {
			t.Fatalf("pop %d: got batch %p, want %p", want, b, batches[want])
		}
		want++
	}
	if q.len() != 0 || q.pop() != nil {
		t.Fatalf("queue not empty at the end: len %d", q.len())
	}
	for i, b := range q.ring {
		if b != nil {
			t.Fatalf("ring[%d] still holds a popped batch", i)
		}
	}
}
