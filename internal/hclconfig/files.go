package hclconfig

import (
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
)

// Files keeps the configuration files one command has read and parsed.
// A command walks its configuration several times before planning
// (Modules to install the modules, Requirements to start the providers,
// Load once their schemas are known); given the same Files in their
// Options, they read and parse each file once. The zero Files is ready to
// use, and it is safe for concurrent use.
//
// A file is kept as first read: a command that changes configuration
// files between walks needs a new Files.
type Files struct {
	mu   sync.Mutex
	read map[string]*readFile
}

// readFile is one file as read: its text, its syntax tree (nil when it
// could not be read) and what reading or parsing it reported.
type readFile struct {
	src   []byte
	file  *hcl.File
	diags hcl.Diagnostics
	// trimmed is set once the syntax tree holds only the top-level blocks
	// that Backend reads (see Files.trim).
	trimmed bool

	// mu guards calls: the function calls in file, found once (see
	// functionCalls) and found again once the file is trimmed.
	mu         sync.Mutex
	calls      []*hclsyntax.FunctionCallExpr
	callsFound bool
}

// backendBlocks are the top-level block types Backend reads.
var backendBlocks = map[string]bool{"terraform": true, "variable": true, "locals": true}

// file reads and parses the file at path, naming it name in ranges and
// diagnostics, or returns it as read before. A nil Files reads every time.
// Only Backend's walk (backendOnly) takes a file trimmed to its blocks;
// every other walk reads a trimmed file again whole.
func (fs *Files) file(path, name string, backendOnly bool) *readFile {
	if fs == nil {
		return readAndParse(path, name)
	}
	key := path + "\x00" + name
	fs.mu.Lock()
	rf, ok := fs.read[key]
	ok = ok && (backendOnly || !rf.trimmed)
	fs.mu.Unlock()
	if ok {
		return rf
	}
	// Parsed without the lock, so that files are parsed side by side
	// (see files); the first one stored is the one every walk gets.
	rf = readAndParse(path, name)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if kept, ok := fs.read[key]; ok && (backendOnly || !kept.trimmed) {
		return kept
	}
	if fs.read == nil {
		fs.read = map[string]*readFile{}
	}
	fs.read[key] = rf
	return rf
}

// files is file of each of paths, named by names, the files read and
// parsed on as many goroutines as the process has processors: reading a
// configuration of many files takes about as long as its largest.
func (fs *Files) files(paths, names []string, backendOnly bool) []*readFile {
	out := make([]*readFile, len(paths))
	inParallel(len(paths), func(i int) { out[i] = fs.file(paths[i], names[i], backendOnly) })
	return out
}

func readAndParse(path, name string) *readFile {
	src, err := os.ReadFile(path)
	if err != nil {
		return &readFile{diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read file", Detail: err.Error()}}}
	}
	rf := &readFile{src: src}
	if strings.HasSuffix(name, ".json") {
		rf.file, rf.diags = hcljson.Parse(src, name)
	} else if file, ok := parseChunked(src, name); ok {
		rf.file = file
	} else {
		rf.file, rf.diags = hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	}
	return rf
}

// trim drops, from every native-syntax file kept, the top-level blocks
// that Backend does not read, once the configuration is loaded. The
// configuration's nodes keep the bodies they evaluate, but not the blocks
// around them: at 100,000 resources their headers (type, labels and
// ranges) are some 40 MB that the files alone would keep for the rest of
// the command, and after Load only the backend block is read again.
func (fs *Files) trim() {
	if fs == nil {
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, rf := range fs.read {
		if rf.file == nil || rf.trimmed {
			continue
		}
		body, ok := rf.file.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		var kept hclsyntax.Blocks
		for _, b := range body.Blocks {
			if backendBlocks[b.Type] {
				kept = append(kept, b)
			}
		}
		body.Blocks = kept
		rf.trimmed = true
		rf.mu.Lock()
		rf.calls, rf.callsFound = nil, false
		rf.mu.Unlock()
	}
}
