// Package kv is the client of tether_kv, the key-value store of Tether's
// local runtime, for code that runs inside a deployed function.
//
// A function learns the store's endpoint from its environment: in HCL,
// wire it explicitly,
//
//	env = { TETHER_KV_STORE_ENDPOINT = tether_kv.store.endpoint }
//
// and open it at run time:
//
//	store, err := kv.Open(os.Getenv("TETHER_KV_STORE_ENDPOINT"))
//	err = store.Put(ctx, "greeting", []byte("hello"))
//	v, err := store.Get(ctx, "greeting") // errors.Is(err, kv.ErrNotFound) when absent
//
// The store speaks plain HTTP on the loopback interface: GET, PUT and
// DELETE on /v1/kv/{key}, with the key path-escaped. Keys are at most
// MaxKeySize bytes and values at most MaxValueSize bytes; the client
// refuses larger ones before sending anything, and the server refuses them
// too, with a 4xx status and a message saying which limit was exceeded.
package kv
