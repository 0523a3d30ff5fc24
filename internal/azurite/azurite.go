package azurite

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
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
	// Client is the HTTP client that trusts its certificate (StartOAuth);
	// nil for plain HTTP.
	Client *http.Client
	cmd    *exec.Cmd
	done   chan struct{}
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
func Start(containerName string) (*Server, error) { return start(containerName, false) }

// StartOAuth starts Azurite over HTTPS, with a certificate for 127.0.0.1
// from a CA of its own (Client trusts it), accepting Azure AD bearer
// tokens as its basic OAuth mode does: any well-formed token for Azure
// Storage from an Azure AD issuer, signature unchecked (Token makes one).
func StartOAuth(containerName string) (*Server, error) { return start(containerName, true) }

func start(containerName string, oauth bool) (*Server, error) {
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
	args := []string{"--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port), "--inMemoryPersistence", "--skipApiVersionCheck", "--loose", "--disableTelemetry"}
	scheme := "http"
	var client *http.Client
	if oauth {
		certFile, keyFile, pool, err := serverCert(dir)
		if err != nil {
			return nil, err
		}
		args = append(args, "--oauth", "basic", "--cert", certFile, "--key", keyFile)
		scheme = "https"
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	}
	cmd := exec.Command(bin, args...)
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
	s := &Server{Port: port, Endpoint: fmt.Sprintf("%s://127.0.0.1:%d/%s/", scheme, port, Account), Client: client, cmd: cmd, done: make(chan struct{})}
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
	c, err := s.container(name)
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

// Blobs reads every blob of a container whose name does not contain skip.
func (s *Server) Blobs(containerName, skip string) ([][]byte, error) {
	c, err := s.container(containerName)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var out [][]byte
	p := c.NewListBlobsFlatPager(nil)
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Segment.BlobItems {
			if item.Name == nil || (skip != "" && strings.Contains(*item.Name, skip)) {
				continue
			}
			r, err := c.NewBlobClient(*item.Name).DownloadStream(ctx, nil)
			if err != nil {
				return nil, err
			}
			body, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				return nil, err
			}
			out = append(out, body)
		}
	}
	return out, nil
}

func (s *Server) container(name string) (*container.Client, error) {
	cred, err := container.NewSharedKeyCredential(Account, Key)
	if err != nil {
		return nil, err
	}
	var opts *container.ClientOptions
	if s.Client != nil {
		opts = &container.ClientOptions{}
		opts.Transport = s.Client
	}
	return container.NewClientWithSharedKeyCredential(s.Endpoint+name, cred, opts)
}

// List lists the names of a container's blobs, sorted.
func (s *Server) List(containerName string) ([]string, error) {
	c, err := s.container(containerName)
	if err != nil {
		return nil, err
	}
	var names []string
	p := c.NewListBlobsFlatPager(nil)
	for p.More() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			return nil, err
		}
		for _, item := range page.Segment.BlobItems {
			names = append(names, *item.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Put writes a blob as Terraform writes its state: no metadata.
func (s *Server) Put(containerName, name string, body []byte) error {
	c, err := s.container(containerName)
	if err != nil {
		return err
	}
	_, err = c.NewBlockBlobClient(name).UploadBuffer(context.Background(), body, nil)
	return err
}

// TerraformLock locks the blob as Terraform 1.11's azurerm backend does
// (RemoteClient.Lock): an empty blob first where there is none, an
// infinite lease whose id is the record's ID, and the record, base64
// JSON, in the blob's terraformlockid metadata.
func (s *Server) TerraformLock(containerName, name string, record []byte) error {
	var rec struct{ ID string }
	if err := json.Unmarshal(record, &rec); err != nil {
		return err
	}
	c, err := s.container(containerName)
	if err != nil {
		return err
	}
	ctx := context.Background()
	bc := c.NewBlobClient(name)
	if _, err := bc.GetProperties(ctx, nil); bloberror.HasCode(err, bloberror.BlobNotFound) {
		if _, err := c.NewBlockBlobClient(name).UploadBuffer(ctx, nil, nil); err != nil {
			return err
		}
	}
	lc, err := lease.NewBlobClient(bc, &lease.BlobClientOptions{LeaseID: &rec.ID})
	if err != nil {
		return err
	}
	if _, err := lc.AcquireLease(ctx, -1, nil); err != nil {
		return err
	}
	v := base64.StdEncoding.EncodeToString(record)
	_, err = bc.SetMetadata(ctx, map[string]*string{"terraformlockid": &v}, &blob.SetMetadataOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: &rec.ID}}})
	return err
}

// Installed reports whether Azurite is installed.
func Installed() bool {
	_, err := binary()
	return err == nil
}
