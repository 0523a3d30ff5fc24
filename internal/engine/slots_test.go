package engine

import (
	"context"
	"testing"
	"time"
)

func TestSlotsGoToTheDeepestWaiterFirst(t *testing.T) {
	s := newSlots(1)
	if err := s.acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	order := make(chan int32, 3)
	for _, d := range []int32{1, 5, 3} {
		go func() {
			s.acquire(context.Background(), d)
			order <- d
			s.release()
		}()
	}
	// Let all three queue up behind the held slot.
	for {
		s.mu.Lock()
		n := len(s.waiting)
		s.mu.Unlock()
		if n == 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.release()
	for _, want := range []int32{5, 3, 1} {
		if got := <-order; got != want {
			t.Fatalf("slot went to depth %d, want %d", got, want)
		}
	}
}

func TestSlotsGiveUpWithTheContext(t *testing.T) {
	s := newSlots(1)
	s.acquire(context.Background(), 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.acquire(ctx, 0); err == nil {
		t.Fatal("acquire succeeded with a cancelled context and no free slot")
	}
	s.release()
	if err := s.acquire(context.Background(), 0); err != nil {
		t.Fatal("the slot was lost after a cancelled wait")
	}
}
