// Package kv is the client of a store (tether_kv, builtin.Kv) for code
// that runs inside a deployed function or test: the same Get, Put and
// Delete on this machine and on AWS.
//
// A function learns the store's endpoint from its environment: in HCL,
// wire it explicitly,
//
//	env = { TETHER_KV_STORE_ENDPOINT = tether_kv.store.endpoint }
//
// (a Go program's closures get it without asking, and call
// store.Client()), and open it at run time:
//
//	store, err := kv.Open(os.Getenv("TETHER_KV_STORE_ENDPOINT"))
//	err = store.Put(ctx, "greeting", []byte("hello"))
//	v, err := store.Get(ctx, "greeting") // errors.Is(err, kv.ErrNotFound) when absent
//
// The endpoint takes one of two forms:
//
//   - http://127.0.0.1:PORT, the local runtime's store, which speaks plain
//     HTTP: GET, PUT and DELETE on /v1/kv/{key}, with the key
//     path-escaped.
//   - dynamodb://TABLE?region=REGION, a DynamoDB table whose hash key is
//     the string attribute "key"; a value is the binary attribute "value"
//     of its item. The client is aws-sdk-go-v2's, configured from the
//     environment as any AWS program: credentials from AWS_ACCESS_KEY_ID,
//     AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (set by Lambda from the
//     function's role) or a profile; the region from the endpoint, else
//     AWS_REGION; AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL to send
//     the requests to another endpoint. Reads are strongly consistent.
//
// Keys are non-empty UTF-8 of at most MaxKeySize bytes, and values at most
// MaxValueSize bytes, small enough for a DynamoDB item. The client refuses
// anything else before sending a request, so a program behaves the same
// on both; the local store refuses it too, with a 4xx status and a message
// saying which limit was exceeded. Errors from DynamoDB name the table and
// region.
package kv
