package pgtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNotFound is returned by Start when initdb or pg_ctl cannot be found;
// tests skip with it.
var ErrNotFound = errors.New("PostgreSQL's initdb and pg_ctl were not found on PATH or in /usr/lib/postgresql/*/bin (install the postgresql package)")

// User and Password are the cluster's superuser. The server asks for the
// password (scram-sha-256) even on loopback, so a wrong one is refused as
// it would be on a real server.
const (
	User     = "tether"
	Password = "tether-test-password"
)

// Server is one running throwaway cluster.
type Server struct {
	// Dir is the cluster's folder: data/, the socket and the log.
	Dir  string
	Port int
	bin  string
	// uid and gid run the server when the tests run as root; -1 otherwise.
	uid, gid int
	running  bool
	opts     Options
}

// Options change how the cluster runs.
type Options struct {
	// Fsync keeps PostgreSQL's fsync on, as on a real server: for
	// benchmarks. Tests leave it off (they crash Tether, never the
	// machine), which makes them faster.
	Fsync bool
}

// Binaries returns the folder holding initdb and pg_ctl.
func Binaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// The newest version first: 9.6 sorts after 15 as text, so by number.
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isFile(filepath.Join(d, "initdb")) && isFile(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	return "", ErrNotFound
}

func version(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Start creates and starts a cluster. The caller must call Stop.
func Start() (*Server, error) { return StartWith(Options{}) }

// StartWith is Start with options.
func StartWith(o Options) (*Server, error) {
	bin, err := Binaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tether-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, bin: bin, uid: -1, gid: -1, opts: o}
	if os.Geteuid() == 0 {
		if err := s.dropPrivileges(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := s.init(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// dropPrivileges picks the user the cluster runs as and gives it the folder.
func (s *Server) dropPrivileges() error {
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as: %w", err)
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		return fmt.Errorf("running as root, and setpriv (util-linux) is missing to run PostgreSQL as %s", u.Username)
	}
	s.uid, _ = strconv.Atoi(u.Uid)
	s.gid, _ = strconv.Atoi(u.Gid)
	return os.Chown(s.Dir, s.uid, s.gid)
}

// command runs one of the cluster's programs as the cluster's user.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.uid < 0 {
		return exec.Command(path, args...)
	}
	all := append([]string{"--reuid=" + strconv.Itoa(s.uid), "--regid=" + strconv.Itoa(s.gid), "--clear-groups", path}, args...)
	return exec.Command("setpriv", all...)
}

func (s *Server) run(name string, args ...string) error {
	cmd := s.command(name, args...)
	cmd.Dir = s.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func (s *Server) init() error {
	pwfile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(Password+"\n"), 0o600); err != nil {
		return err
	}
	if s.uid >= 0 {
		if err := os.Chown(pwfile, s.uid, s.gid); err != nil {
			return err
		}
	}
	defer os.Remove(pwfile)
	return s.run("initdb", "-D", filepath.Join(s.Dir, "data"), "-U", User, "--pwfile", pwfile,
		"--auth", "scram-sha-256", "-E", "UTF8", "--locale", "C", "--no-sync")
}

// Start starts the server, on the port it had before if it has run before.
func (s *Server) Start() error {
	if s.running {
		return nil
	}
	if s.Port == 0 {
		port, err := freePort()
		if err != nil {
			return err
		}
		s.Port = port
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", s.Port, s.Dir)
	if !s.opts.Fsync {
		opts += " -c fsync=off"
	}
	if err := s.run("pg_ctl", "start", "-w", "-t", "60", "-D", filepath.Join(s.Dir, "data"), "-l", filepath.Join(s.Dir, "log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.Dir, "log"))
		return fmt.Errorf("%v\nserver log:\n%s", err, log)
	}
	s.running = true
	return nil
}

// Halt stops the server at once, as a crash would, keeping its data; Start
// brings it back.
func (s *Server) Halt() error {
	if !s.running {
		return nil
	}
	s.running = false
	return s.run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", filepath.Join(s.Dir, "data"))
}

// Stop stops the server and removes its folder.
func (s *Server) Stop() error {
	err := s.Halt()
	return errors.Join(err, os.RemoveAll(s.Dir))
}

// ConnString is a connection string for database db ("postgres" when
// empty) as the superuser, over TCP on 127.0.0.1.
func (s *Server) ConnString(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", User, Password, s.Port, db)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
