package backends

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/azurite"
	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/httpstatefake"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/azstate"
	"github.com/tetherhq/tether/internal/state/httpstate"
	"github.com/tetherhq/tether/internal/state/s3state"
)

const s3BackendTF = `terraform {
  backend "s3" {
    bucket         = "tfstate"
    key            = "adopt/terraform.tfstate"
    region         = "eu-west-1"
    dynamodb_table = "locks"
    use_lockfile   = true
    use_path_style = true

    skip_credentials_validation = true
    skip_requesting_account_id  = true
    skip_metadata_api_check     = true
  }
}
`

const azurermBackendTF = `terraform {
  backend "azurerm" {
    storage_account_name = "devstoreaccount1"
    container_name       = "tfstate"
    key                  = "adopt.terraform.tfstate"
  }
}
`

const gcsBackendTF = `terraform {
  backend "gcs" {
    bucket = "tfstate"
    prefix = "adopt"
  }
}
`

const httpBackendTF = `terraform {
  backend "http" {}
}
`

// remoteBackend is one backend terraform and tether share in
// TestTerraformRemoteBackends.
type remoteBackend struct {
	name, block string
	// start starts its emulator and returns the environment both tools
	// need, the documents it stores (checked for secrets), and a way for
	// the test to hold Tether's lock on the default workspace.
	start func(t *testing.T) (env []string, stored func() [][]byte, lockAsTether func() state.Unlocker)
	// where names Terraform's state in init's question, aside where init
	// says it went.
	where, aside string
	// shownID, when set, is the ID terraform names for the lock the test
	// holds as Tether (else TetherLockID): the gcs backend's is the lock
	// file's generation.
	shownID func() string
	// lockBeforeTakeover checks the lock while Terraform's state is still
	// there: terraform's gcs backend reads the state before it locks, and
	// would stop at Tether's document first.
	lockBeforeTakeover bool
	// terraformForceUnlocks checks that terraform force-unlock releases
	// Tether's lock (azurerm: the lease ID is the lock ID it prints).
	terraformForceUnlocks bool
}

// TestTerraformRemoteBackends runs terraform 1.11 and tether against the
// same emulator with the same backend block: backend "s3" (lock file and
// DynamoDB lock both on), backend "gcs" (fake-gcs-server, through
// storage_custom_endpoint and an access token), backend "azurerm"
// (Azurite, reached by both as https://devstoreaccount1.blob.core.windows.net
// through a proxy on 127.0.0.1) and backend "http":
//
//   - terraform applies; while a terraform apply waits for its answer,
//     holding its lock, tether init -force-copy is refused naming it;
//   - tether init -force-copy takes the state over, setting Terraform's
//     aside, and tether plan finds nothing to change, with the secrets
//     sealed;
//   - while tether holds the lock, terraform plan is refused naming it;
//   - once tether took the state over, terraform refuses Tether's
//     document as state.
func TestTerraformRemoteBackends(t *testing.T) {
	t.Parallel()
	tools, baseEnv := adoptionTools(t)
	for _, be := range []remoteBackend{
		{name: "s3", block: s3BackendTF, start: startS3ForTerraform,
			where: `Terraform's state of workspace "default" at s3://tfstate/adopt/terraform.tfstate`,
			aside: "s3://tfstate/adopt/terraform.tfstate.terraform-adopted-"},
		{name: "azurerm", block: azurermBackendTF, start: startAzureForTerraform,
			where:              `Terraform's state of workspace "default" at azurerm://devstoreaccount1/tfstate/adopt.terraform.tfstate`,
			aside:              "azurerm://devstoreaccount1/tfstate/adopt.terraform.tfstate.terraform-adopted-",
			lockBeforeTakeover: true, terraformForceUnlocks: true},
		{name: "gcs", block: gcsBackendTF, start: e2e.StartGCSForTerraform,
			where:              `Terraform's state of workspace "default" at gs://tfstate/adopt/default.tfstate`,
			aside:              "gs://tfstate/adopt/default.tfstate.terraform-adopted-",
			shownID:            func() string { return e2e.GCSLockGeneration(t, "adopt/default.tflock") },
			lockBeforeTakeover: true},
		{name: "http", block: httpBackendTF, start: startHTTPForTerraform,
			where: `Terraform's state of workspace "default" at http://127.0.0.1:`,
			aside: ".tether/terraform-adopted-default.tfstate"},
	} {
		t.Run(be.name, func(t *testing.T) {
			extra, stored, lockAsTether := be.start(t)
			env := append(append([]string{}, baseEnv...), extra...)
			dir := filepath.Join(t.TempDir(), "adopt")
			if err := e2e.CopyTree(filepath.Join("testdata", "adopt"), dir, ""); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "backend.tf"), []byte(be.block), 0o644); err != nil {
				t.Fatal(err)
			}
			tf := func(args ...string) e2e.CmdResult {
				return e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: dir, Env: env}.Run(args...)
			}
			tt := func(args ...string) e2e.CmdResult {
				return e2e.Side{Name: "tether", Bin: tools.Tether, Dir: dir, Env: env}.Run(args...)
			}
			for _, args := range [][]string{{"init", "-input=false", "-no-color"}, e2e.TFApply} {
				if r := tf(args...); r.Err != nil || r.Code != 0 {
					t.Fatalf("want exit 0\n%s", r)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate")); err == nil {
				t.Fatalf("terraform wrote terraform.tfstate: the %s backend was not used", be.name)
			}

			// Terraform holds its lock while it waits for an answer.
			stop := holdTerraformLock(t, tools.Terraform, dir, env)
			r := tt("init", "-force-copy")
			if r.Code != 1 || !strings.Contains(r.Stderr, `locked by operation "terraform OperationTypeApply"`) {
				t.Errorf("tether init while terraform apply holds the lock: want a refusal naming terraform's operation\n%s", r)
			}
			stop()

			// Tether holds the lock: terraform is refused, naming it.
			checkTetherLock := func() {
				unlock := lockAsTether()
				shown := e2e.TetherLockID
				if be.shownID != nil {
					shown = be.shownID()
				}
				r := tf("plan", "-input=false", "-no-color", "-lock-timeout=0s")
				if r.Code != 1 || !strings.Contains(r.Stderr, "Error acquiring the state lock") || !strings.Contains(r.Stderr, shown) {
					t.Errorf("terraform plan while tether holds the lock: want a refusal naming tether's lock %s\n%s", shown, r)
				}
				if err := unlock.Unlock(); err != nil {
					t.Fatal(err)
				}
			}
			if be.lockBeforeTakeover {
				checkTetherLock()
			}
			if be.terraformForceUnlocks {
				unlock := lockAsTether()
				if r := tf("force-unlock", "-force", "-no-color", e2e.TetherLockID); r.Code != 0 {
					t.Errorf("terraform force-unlock of tether's lock: want exit 0\n%s", r)
				}
				// Tether notices at its unlock that the lock is gone: a
				// LockLostError when it checks before folding a journal in,
				// ErrLockNotHeld when it had nothing to fold.
				var lost *state.LockLostError
				if err := unlock.Unlock(); !errors.As(err, &lost) && !errors.Is(err, state.ErrLockNotHeld) {
					t.Errorf("tether's unlock after terraform broke its lock: want it to say the lock was lost, got %v", err)
				}
			}
			takeOver(t, tt, be.where, be.aside)
			for _, doc := range stored() {
				if strings.Contains(string(doc), adoptCanary) {
					t.Errorf("the %s backend holds the sensitive value in clear text", be.name)
				}
			}

			if !be.lockBeforeTakeover {
				checkTetherLock()
			}
			// Terraform cannot use Tether's document as its state: it
			// stops rather than planning to create everything again.
			r = tf("plan", "-input=false", "-no-color")
			if r.Code != 1 || !strings.Contains(r.Stderr, "Unsupported state file format") {
				t.Errorf("terraform plan on the state tether took over: want a refusal\n%s", r)
			}
		})
	}
}

func startS3ForTerraform(t *testing.T) ([]string, func() [][]byte, func() state.Unlocker) {
	emus, env, err := e2e.StartS3Emulators(t.Cleanup)
	if err != nil {
		t.Fatal(err)
	}
	stored := func() [][]byte {
		list, err := emus.Mem.ListBucket("tfstate", nil, e2e.Gofakes3Page())
		if err != nil {
			t.Fatal(err)
		}
		var docs [][]byte
		for _, o := range list.Contents {
			if strings.Contains(o.Key, "terraform-adopted") {
				continue // Terraform's own state, as it kept it
			}
			obj, err := emus.Mem.GetObject("tfstate", o.Key, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(obj.Contents)
			obj.Contents.Close()
			docs = append(docs, body)
		}
		return docs
	}
	lock := func() state.Unlocker {
		getenv := e2e.EnvLookup(env)
		cfg, err := s3state.FromSettings(map[string]string{
			"bucket": "tfstate", "key": "adopt/terraform.tfstate", "region": "eu-west-1", "dynamodb_table": "locks",
			"use_path_style": "true", "skip_credentials_validation": "true", "skip_metadata_api_check": "true",
			"access_key": getenv("AWS_ACCESS_KEY_ID"), "secret_key": getenv("AWS_SECRET_ACCESS_KEY"),
		}, getenv)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s3state.Connect(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		st, err := b.Open(context.Background(), s3state.DefaultWorkspace)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return e2e.LockStore(t, st)
	}
	return env, stored, lock
}

// startAzureForTerraform starts Azurite with the container tfstate and the
// proxy through which terraform and tether reach it as the public cloud's
// account devstoreaccount1, with an account SAS token.
func startAzureForTerraform(t *testing.T) ([]string, func() [][]byte, func() state.Unlocker) {
	srv, err := azurite.Start("tfstate")
	if errors.Is(err, azurite.ErrMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	proxy, err := srv.Proxy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	token, err := azurite.AccountSAS()
	if err != nil {
		t.Fatal(err)
	}
	env := append([]string{"ARM_SAS_TOKEN=" + token}, proxy.Env...)
	// This process reaches Azurite directly.
	direct := func(name string) string {
		if name == azstate.EndpointVariable {
			return srv.Endpoint
		}
		return ""
	}
	connect := func() *azstate.Backend {
		cfg, err := azstate.FromSettings(map[string]string{"storage_account_name": azurite.Account, "container_name": "tfstate",
			"key": "adopt.terraform.tfstate", "access_key": azurite.Key}, direct)
		if err != nil {
			t.Fatal(err)
		}
		b, err := azstate.Connect(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	stored := func() [][]byte {
		docs, err := srv.Blobs("tfstate", "terraform-adopted")
		if err != nil {
			t.Fatal(err)
		}
		return docs
	}
	lock := func() state.Unlocker {
		st, err := connect().Open(context.Background(), azstate.DefaultWorkspace)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return e2e.LockStore(t, st)
	}
	return env, stored, lock
}

func startHTTPForTerraform(t *testing.T) ([]string, func() [][]byte, func() state.Unlocker) {
	srv := httpstatefake.Start("tf", "pw")
	t.Cleanup(srv.Close)
	env := []string{"TF_HTTP_ADDRESS=" + srv.URL + "/state", "TF_HTTP_LOCK_ADDRESS=" + srv.URL + "/lock",
		"TF_HTTP_UNLOCK_ADDRESS=" + srv.URL + "/lock", "TF_HTTP_USERNAME=tf", "TF_HTTP_PASSWORD=pw"}
	lock := func() state.Unlocker {
		cfg, err := httpstate.FromSettings(map[string]string{}, e2e.EnvLookup(env))
		if err != nil {
			t.Fatal(err)
		}
		b, err := httpstate.Connect(context.Background(), cfg, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		st, err := b.Open(context.Background(), httpstate.DefaultWorkspace)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return e2e.LockStore(t, st)
	}
	return env, func() [][]byte { return [][]byte{srv.State("")} }, lock
}

// holdTerraformLock starts terraform apply -destroy without -auto-approve:
// it takes its lock and waits for an answer. stop answers no (nothing is
// destroyed) and waits for it to end.
func holdTerraformLock(t *testing.T, bin, dir string, env []string) (stop func()) {
	t.Helper()
	cmd := exec.Command(bin, "apply", "-destroy", "-no-color", "-refresh=false")
	cmd.Dir, cmd.Env = dir, env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	asked := make(chan error, 1)
	go func() {
		br := bufio.NewReader(out)
		var seen strings.Builder
		for {
			b, err := br.ReadByte()
			if err != nil {
				asked <- errors.New("terraform apply ended before asking:\n" + seen.String())
				return
			}
			seen.WriteByte(b)
			if strings.HasSuffix(seen.String(), "Enter a value: ") {
				asked <- nil
				io.Copy(io.Discard, br)
				return
			}
		}
	}()
	select {
	case err := <-asked:
		if err != nil {
			cmd.Process.Kill()
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("terraform apply did not ask within 2 minutes")
	}
	return func() {
		io.WriteString(stdin, "no\n")
		stdin.Close()
		cmd.Wait()
	}
}
