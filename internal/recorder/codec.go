package recorder

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/proto"
)

// frame is one gRPC message as it travels, undecoded.
type frame []byte

// passCodec passes frames through as they are and encodes or decodes any
// other message as protobuf. The server's services that go-plugin
// registers (health, broker, controller, stdio) need the latter; the
// forwarded calls the former. Its name is protobuf's, so that both ends
// see the content type they expect.
type passCodec struct{}

func (passCodec) Name() string { return "proto" }

func (passCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *frame:
		return *m, nil
	case proto.Message:
		return proto.Marshal(m)
	}
	return nil, fmt.Errorf("recorder: cannot encode %T", v)
}

func (passCodec) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *frame:
		// gRPC does not promise that data outlives the call.
		*m = bytes.Clone(data)
		return nil
	case proto.Message:
		return proto.Unmarshal(data, m)
	}
	return fmt.Errorf("recorder: cannot decode into %T", v)
}
