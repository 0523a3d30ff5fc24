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
	return &objectCtx{ctx, addr}
}

// ObjectContext holds a context WithObject would make, for a caller that
// names each of many objects in a value it makes for the object anyway
// (the engine's record of an apply's visit): With then allocates nothing
// of its own. The zero ObjectContext is ready.
type ObjectContext struct{ c objectCtx }

// With is WithObject(ctx, addr), made in o. While the context is in use,
// o must not be given to With again.
func (o *ObjectContext) With(ctx context.Context, addr string) context.Context {
	if ObjectFrom(ctx) == addr {
		return ctx
	}
	o.c = objectCtx{ctx, addr}
	return &o.c
}

// objectCtx is a context naming an object: one allocation for each
// instance, where context.WithValue makes two (its context, and the
// address as an interface value).
type objectCtx struct {
	context.Context
	addr string
}

func (c *objectCtx) Value(key any) any {
	if key == (objectKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// ObjectFrom is the address WithObject put in ctx, "" when none.
func ObjectFrom(ctx context.Context) string {
	if c, ok := ctx.Value(objectKey{}).(*objectCtx); ok {
		return c.addr
	}
	return ""
}
