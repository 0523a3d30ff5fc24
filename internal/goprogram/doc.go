// Package goprogram builds the Go program in a folder for `tether -C
// DIR`, once per content.
//
// A program written with the SDK links most of Tether and several cloud
// SDKs: linking it takes seconds of CPU, and the executable is about 100
// MB. Build keys the executable by what it is built from: the build ID
// the go command gives every dependency (`go list -export -deps`: its
// Go version, GOOS/GOARCH, flags and sources), the build environment, and
// the names (within the module) and content of the main module's files
// that are compiled or embedded, go.mod and go.sum. It compiles the main
// module's packages with the module's folder trimmed from their file
// names, so that the folder the program sits in is not part of the
// executable: a copy of the program (a second checkout, a CI workspace, a
// test's copy) runs the executable the first one built, and an edited
// file makes a new one. The executable is never run stale: the key is
// taken afresh on every run.
//
// The SDK reads the program's source (to point diagnostics at the user's
// line, and to deduce what closures read), so tether gives the program
// the folder of its main module (DirEnv), and SourceFile names the
// trimmed files in full again.
package goprogram
