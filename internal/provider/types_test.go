package provider

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// Lazy types decode each schema once, on first lookup, and say apart a
// missing type from one whose schema cannot be had.
func TestLazyTypes(t *testing.T) {
	var mu sync.Mutex
	decoded := map[string]int{}
	types := LazyTypes([]string{"b", "a", "broken"}, func(name string) (*ResourceSchema, error) {
		mu.Lock()
		decoded[name]++
		mu.Unlock()
		if name == "broken" {
			return nil, errors.New("attribute \"x\": invalid type")
		}
		return &ResourceSchema{Version: int64(len(name)), Block: &Block{}}, nil
	})
	if got := strings.Join(types.Names(), ","); got != "a,b,broken" {
		t.Errorf("names %s, want a,b,broken", got)
	}
	if types.Len() != 3 || !types.Has("broken") || types.Has("c") {
		t.Errorf("len %d, has broken %v, has c %v", types.Len(), types.Has("broken"), types.Has("c"))
	}
	if len(decoded) != 0 {
		t.Fatalf("decoded before any lookup: %v", decoded)
	}

	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rs, ok, err := types.Get("a"); !ok || err != nil || rs == nil || rs.Version != 1 {
				t.Errorf("Get(a) = %v, %v, %v", rs, ok, err)
			}
		}()
	}
	wg.Wait()
	if rs, ok, err := types.Get("c"); rs != nil || ok || err != nil {
		t.Errorf("Get(c) = %v, %v, %v; want no type and no error", rs, ok, err)
	}
	for range 2 {
		rs, ok, err := types.Get("broken")
		if rs != nil || !ok || err == nil || !strings.Contains(err.Error(), `the schema of "broken" cannot be used: attribute "x": invalid type`) {
			t.Errorf("Get(broken) = %v, %v, %v; want the type, with its error", rs, ok, err)
		}
	}
	if decoded["a"] != 1 || decoded["broken"] != 1 || decoded["b"] != 0 || decoded["c"] != 0 {
		t.Errorf("decoded %v, want a and broken once each", decoded)
	}
	if _, err := types.All(); err == nil || !strings.Contains(err.Error(), `"broken"`) {
		t.Errorf("All() error %v, want broken's", err)
	}
}

func TestEagerTypes(t *testing.T) {
	rs := &ResourceSchema{Block: &Block{}}
	types := NewTypes(map[string]*ResourceSchema{"x": rs, "gone": nil})
	if got, ok, err := types.Get("x"); got != rs || !ok || err != nil {
		t.Errorf("Get(x) = %v, %v, %v", got, ok, err)
	}
	if types.Has("gone") || types.Len() != 1 {
		t.Errorf("a nil schema is a type: %v", types.Names())
	}
	var none *Types
	if rs, ok, err := none.Get("x"); rs != nil || ok || err != nil || none.Len() != 0 || none.Names() != nil {
		t.Errorf("nil Types has x: %v, %v, %v", rs, ok, err)
	}
	if all, err := none.All(); err != nil || len(all) != 0 {
		t.Errorf("nil Types All() = %v, %v", all, err)
	}
}
