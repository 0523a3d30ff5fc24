package pgtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
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
	// exited is closed once the running server's process has exited.
	exited chan struct{}
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
	removeStale(bin)
	dir, err := os.MkdirTemp("", clusterPrefix)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
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
	return s.commandDying(name, false, args...)
}

// commandDying is command, for a program that is to die with the test
// process where the system allows (see dieWithParent), when dying is set.
func (s *Server) commandDying(name string, dying bool, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	var cmd *exec.Cmd
	if s.uid < 0 {
		cmd = exec.Command(path, args...)
	} else {
		all := []string{"--reuid=" + strconv.Itoa(s.uid), "--regid=" + strconv.Itoa(s.gid), "--clear-groups"}
		// Changing user clears the parent-death signal; setpriv sets it
		// again after the change.
		if dying && setprivPdeathsig() {
			all = append(all, "--pdeathsig="+parentDeathSignal)
		}
		cmd = exec.Command("setpriv", append(append(all, path), args...)...)
	}
	if dying {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		dieWithParent(cmd.SysProcAttr)
	}
	return cmd
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
//
// The server is the test process's own child (pg_ctl would leave it to
// run on its own), so that where the system allows it dies with the test
// process, however that ends: a test killed mid-way leaves no server
// running. See dieWithParent.
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
	data := filepath.Join(s.Dir, "data")
	args := []string{"-D", data, "-p", strconv.Itoa(s.Port), "-k", s.Dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"}
	if !s.opts.Fsync {
		args = append(args, "-c", "fsync=off")
	}
	logPath := filepath.Join(s.Dir, "log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := s.commandDying("postgres", true, args...)
	cmd.Stdout, cmd.Stderr = log, log
	started, exited := make(chan error, 1), make(chan struct{})
	go func() {
		// The kernel sends the parent-death signal when the thread that
		// started the process ends, not the process: this goroutine keeps
		// its thread, never unlocked, until the server has exited.
		runtime.LockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			cmd.Wait()
		}
		log.Close()
		close(exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := waitReady(data, cmd.Process.Pid, exited); err != nil {
		cmd.Process.Kill()
		<-exited
		out, _ := os.ReadFile(logPath)
		return fmt.Errorf("postgres %s: %w\nserver log:\n%s", strings.Join(args, " "), err, out)
	}
	s.running, s.exited = true, exited
	return nil
}

// waitReady waits until the server pid, of the cluster in data, accepts
// connections, as pg_ctl start -w does: its postmaster.pid says so. It
// gives up when the server exits, or after a minute (pg_ctl's default).
func waitReady(data string, pid int, exited <-chan struct{}) error {
	deadline := time.Now().Add(time.Minute)
	for {
		if ready(filepath.Join(data, "postmaster.pid"), pid) {
			return nil
		}
		select {
		case <-exited:
			return errors.New("the server exited at start")
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("the server did not accept connections within a minute")
		}
	}
}

// ready reports whether the lock file pidFile is the server pid's and says
// it accepts connections: its first line is the pid, and its eighth the
// status (PostgreSQL 10 and later).
func ready(pidFile string, pid int) bool {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) >= 8 && strings.TrimSpace(lines[0]) == strconv.Itoa(pid) && strings.TrimSpace(lines[7]) == "ready"
}

// Halt stops the server at once, as a crash would, keeping its data; Start
// brings it back.
func (s *Server) Halt() error {
	if !s.running {
		return nil
	}
	s.running = false
	err := s.run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", filepath.Join(s.Dir, "data"))
	if err == nil {
		<-s.exited
	}
	return err
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
