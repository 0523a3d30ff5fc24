package codegen

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"
)

// initialisms are written in capitals in Go names, as golint asks:
// `instance_id` becomes InstanceID.
var initialisms = map[string]bool{
	"acl": true, "api": true, "ascii": true, "cpu": true, "css": true, "dns": true,
	"eof": true, "guid": true, "html": true, "http": true, "https": true, "id": true,
	"ip": true, "json": true, "qps": true, "ram": true, "rpc": true, "sla": true,
	"smtp": true, "sql": true, "ssh": true, "tcp": true, "tls": true, "ttl": true,
	"udp": true, "ui": true, "uid": true, "uuid": true, "uri": true, "url": true,
	"utf8": true, "vm": true, "xml": true, "xmpp": true, "xsrf": true, "xss": true,
}

// goName turns a schema name (snake_case, possibly with other punctuation)
// into an exported Go name. The result is always a valid exported
// identifier: a name with no letters or digits becomes X, and one that
// cannot start with a capital (a digit, a letter with no upper case) is
// prefixed with X. Exported names cannot clash with Go's keywords, which
// are all lower case, so `type` simply becomes Type.
func goName(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		lower := strings.ToLower(part)
		if initialisms[lower] {
			b.WriteString(strings.ToUpper(lower))
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	name := b.String()
	if name == "" {
		return "X"
	}
	if first := []rune(name)[0]; !unicode.IsUpper(first) {
		// A digit, or a letter with no capital: not an exported name.
		return "X" + name
	}
	return name
}

// PackageName is the package name of generated bindings made from a name:
// see packageName.
func PackageName(s string) string { return packageName(s) }

// packageName turns a name into a Go package name: lower-case letters and
// digits. A keyword or a predeclared identifier gets the suffix x (a
// provider named `type` generates package typex), as does `tether`, the
// name the generated code imports the SDK under.
func packageName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	name := b.String()
	if name == "" {
		return "provider"
	}
	if name[0] >= '0' && name[0] <= '9' {
		name = "p" + name
	}
	if token.IsKeyword(name) || predeclared[name] || name == "tether" {
		name += "x"
	}
	return name
}

// ProviderPackage is the default package of a provider's bindings, for
// its local name: the name as a package name, with the suffix "provider"
// where that is the name of a package of Go's standard library (time is
// timeprovider, http httpprovider, tls tlsprovider), which a program would
// otherwise have to import under another name beside the standard one.
// cdktf and Pulumi keep such names (time) and leave the renaming to the
// program; the built-in provider's bindings are builtin.
func ProviderPackage(name string) string {
	pkg := packageName(name)
	if stdlib[pkg] {
		pkg += "provider"
	}
	return pkg
}

// stdlib holds the last elements of the paths of Go's standard library
// packages (`go list std`, less internal and vendored ones), which are
// the names they are imported under.
var stdlib = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`adler32 aes ascii85 asn1 ast atomic base32 base64 big binary bits
		bufio build buildinfo bytes bzip2 cgi cgo cipher cmp cmplx color comment constant constraint
		context cookiejar coverage crc32 crc64 crypto csv debug des doc draw driver dsa dwarf ecdh
		ecdsa ed25519 elf elliptic embed encoding errors exec expvar fcgi filepath fips140 flag
		flate fmt fnv format fs fstest gif gob gosym gzip hash heap hex hkdf hmac hpke html http
		httptest httptrace httputil image importer io iotest ioutil iter jpeg json jsonrpc list log
		lzw macho mail maphash maps math md5 metrics mime mlkem multipart net netip os palette
		parse parser path pbkdf2 pe pem pkix plan9obj plugin png pprof printer quick
		quotedprintable race rand rc4 reflect regexp ring rpc rsa runtime scanner sha1 sha256 sha3
		sha512 signal slices slog smtp sort sql strconv strings structs subtle suffixarray sync
		synctest syntax syscall syslog tabwriter tar template testing textproto time tls token
		trace types tzdata unicode unique unsafe url user utf16 utf8 version weak x509 xml zip
		zlib`) {
		stdlib[name] = true
	}
}

var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true,
	"complex128": true, "error": true, "float32": true, "float64": true, "int": true,
	"int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true,
	"uint64": true, "uintptr": true, "true": true, "false": true, "iota": true,
	"nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true,
	"make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true,
}

// namespace hands out unique Go identifiers within one scope (a package,
// or the fields and methods of one type). The first claim of a name gets
// it as it is; a later claim of a taken name gets the lowest free numeric
// suffix, starting at 2. Claims happen in sorted schema order, so the
// outcome never depends on map iteration.
type namespace struct {
	taken map[string]bool
}

func newNamespace(reserved ...string) *namespace {
	ns := &namespace{taken: map[string]bool{}}
	for _, r := range reserved {
		ns.taken[r] = true
	}
	return ns
}

// claim reserves name, or the first free suffixed form of it.
func (ns *namespace) claim(name string) string {
	if !ns.taken[name] {
		ns.taken[name] = true
		return name
	}
	for i := 2; ; i++ {
		n := name + strconv.Itoa(i)
		if !ns.taken[n] {
			ns.taken[n] = true
			return n
		}
	}
}

// claimGroup reserves several names derived from one base (File, NewFile,
// FileArgs) together: if any of them is taken, the base gets a numeric
// suffix and all are tried again, so that related names stay related.
func (ns *namespace) claimGroup(base string, forms func(base string) []string) string {
	try := base
	for i := 2; ; i++ {
		names := forms(try)
		free := true
		for _, n := range names {
			if ns.taken[n] {
				free = false
				break
			}
		}
		if free {
			for _, n := range names {
				ns.taken[n] = true
			}
			return try
		}
		try = base + strconv.Itoa(i)
	}
}

// fileName is a generated file's name for a type name. A name whose last
// underscore-separated part is a GOOS, a GOARCH or "test" would be read by
// the go command as a build constraint or a test file, so it gets a
// trailing underscore.
func fileName(prefix, typeName string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range strings.ToLower(typeName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteRune('_')
		}
	}
	name := b.String()
	parts := strings.Split(name, "_")
	if last := parts[len(parts)-1]; knownOS[last] || knownArch[last] || last == "test" {
		name += "_"
	}
	return name + ".go"
}

// From go/build's syslist.
var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
	"hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true,
	"netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true,
	"windows": true, "zos": true,
}

var knownArch = map[string]bool{
	"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true,
	"arm64": true, "arm64be": true, "loong64": true, "mips": true, "mipsle": true,
	"mips64": true, "mips64le": true, "mips64p32": true, "mips64p32le": true,
	"ppc": true, "ppc64": true, "ppc64le": true, "riscv": true, "riscv64": true,
	"s390": true, "s390x": true, "sparc": true, "sparc64": true, "wasm": true,
}
