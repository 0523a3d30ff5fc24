// Package azurite starts Azurite, Microsoft's Azure Storage emulator (the
// npm package azurite), for tests: its blob service on 127.0.0.1, on a
// free port, keeping blobs in memory, with one container made. Tests skip
// when it is not installed (npm install -g azurite; .ci/run installs it).
package azurite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// Account and Key are Azurite's well-known development account.
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// ErrMissing is Start's error when Azurite is not installed.
var ErrMissing = errors.New("azurite is not installed (npm install -g azurite): the Azure Blob Storage emulator these tests run against")

// Server is a running Azurite blob service.
type Server struct {
	// Endpoint is the account's blob service URL, path-style:
	// http://127.0.0.1:PORT/devstoreaccount1/.
	Endpoint string
	// Port is the port it listens on.
	Port int
	cmd  *exec.Cmd
	done chan struct{}
}

// binary finds azurite-blob on PATH, else under $AZURITE_HOME/node_modules/.bin.
func binary() (string, error) {
	if p, err := exec.LookPath("azurite-blob"); err == nil {
		return p, nil
	}
	if h := os.Getenv("AZURITE_HOME"); h != "" {
		p := filepath.Join(h, "node_modules", ".bin", "azurite-blob")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", ErrMissing
}

// Start starts Azurite and creates the container named (none when "").
// Close stops it.
func Start(containerName string) (*Server, error) {
	bin, err := binary()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// In memory, Azurite still writes its debug and extent files to the
	// working folder: a temporary one.
	dir, err := os.MkdirTemp("", "azurite-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port), "--inMemoryPersistence", "--skipApiVersionCheck", "--loose", "--disableProductStyleUrl", "--disableTelemetry")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	s := &Server{Port: port, Endpoint: fmt.Sprintf("http://127.0.0.1:%d/%s/", port, Account), cmd: cmd, done: make(chan struct{})}
	ready := make(chan error, 1)
	go func() {
		br := bufio.NewReader(out)
		var seen strings.Builder
		for {
			line, err := br.ReadString('\n')
			seen.WriteString(line)
			if strings.Contains(line, "successfully listens") {
				ready <- nil
				io.Copy(io.Discard, br)
				break
			}
			if err != nil {
				ready <- fmt.Errorf("azurite ended before listening:\n%s", seen.String())
				break
			}
		}
		cmd.Wait()
		os.RemoveAll(dir)
		close(s.done)
	}()
	select {
	case err := <-ready:
		if err != nil {
			return nil, err
		}
	case <-time.After(2 * time.Minute):
		s.Close()
		return nil, errors.New("azurite did not listen within 2 minutes")
	}
	if containerName != "" {
		if err := s.CreateContainer(containerName); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// CreateContainer creates a container.
func (s *Server) CreateContainer(name string) error {
	cred, err := container.NewSharedKeyCredential(Account, Key)
	if err != nil {
		return err
	}
	c, err := container.NewClientWithSharedKeyCredential(s.Endpoint+name, cred, nil)
	if err != nil {
		return err
	}
	_, err = c.Create(context.Background(), nil)
	return err
}

// Close stops Azurite and waits for it to end.
func (s *Server) Close() {
	if s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-s.done
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
