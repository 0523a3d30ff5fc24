package provider

import "context"

type objectKey struct{}

// WithObject is ctx carrying the address of the resource or data source
// instance a provider call is made for (aws_instance.web[0],
// data.aws_ami.x). The engine sets it on every plan, apply and read call
// so that a wrapping provider can serve one object differently from the
// rest of its type, as terraform test's override_resource and
// override_data do; providers themselves never need it.
//
// A ctx that already names addr is returned as it is: an instance's
// context is made once for all of its calls.
func WithObject(ctx context.Context, addr string) context.Context {
	if ObjectFrom(ctx) == addr {
		return ctx
	}
	return context.WithValue(ctx, objectKey{}, addr)
}

// ObjectFrom is the address WithObject put in ctx, "" when none.
func ObjectFrom(ctx context.Context) string {
	s, _ := ctx.Value(objectKey{}).(string)
	return s
}
