// Command othercookie is a go-plugin plugin of some other program: it
// expects another magic cookie than Terraform's, and so refuses to start
// under the plugin client, saying why on stderr.
package main

import goplugin "github.com/hashicorp/go-plugin"

func main() {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: goplugin.HandshakeConfig{
			ProtocolVersion:  1,
			MagicCookieKey:   "OTHER_PROGRAM_PLUGIN_COOKIE",
			MagicCookieValue: "not-terraform",
		},
		GRPCServer: goplugin.DefaultGRPCServer,
	})
}
