package azstate

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/tetherhq/tether/internal/azurite"
)

// emulator is the Azurite all of the package's tests share, each in a
// container of its own; nil when Azurite is not installed.
var (
	emulator   *azurite.Server
	startErr   error
	containers atomic.Int64
)

func TestMain(m *testing.M) {
	emulator, startErr = azurite.Start("")
	code := m.Run()
	if emulator != nil {
		emulator.Close()
	}
	os.Exit(code)
}

// testSettings are the settings of a backend "azurerm" block for a new
// container of the emulator; the test skips without Azurite.
func testSettings(t testing.TB) (map[string]string, func(string) string) {
	t.Helper()
	if errors.Is(startErr, azurite.ErrMissing) {
		t.Skip(startErr)
	}
	if startErr != nil {
		t.Fatal(startErr)
	}
	name := fmt.Sprintf("tfstate%d", containers.Add(1))
	if err := emulator.CreateContainer(name); err != nil {
		t.Fatal(err)
	}
	s := map[string]string{"storage_account_name": azurite.Account, "container_name": name, "key": "app.terraform.tfstate", "access_key": azurite.Key}
	env := map[string]string{EndpointVariable: emulator.Endpoint}
	return s, func(n string) string { return env[n] }
}
