// Package azurite starts Azurite, Microsoft's Azure Storage emulator (the
// npm package azurite), for tests: its blob service on 127.0.0.1, on a
// free port, keeping blobs in memory, with one container made. Tests skip
// when it is not installed (npm install -g azurite; .ci/run installs it).
package azurite
