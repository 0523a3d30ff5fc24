package cli

import "context"

func (e *env) providersLock(ctx context.Context, args []string) int {
	return e.errorf("not yet")
}

func (e *env) providersMirror(ctx context.Context, args []string) int {
	return e.errorf("not yet")
}

func (e *env) providersSchema(ctx context.Context, args []string) int {
	return e.errorf("not yet")
}
