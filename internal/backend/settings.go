package backend

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/durable"
)

// Settings are the backend init settled: the block's arguments with the
// -backend-config values over them.
type Settings struct {
	Type   string            `json:"type"`
	Config map[string]string `json:"config,omitempty"`
	// Hash identifies the configuration's backend block as init read it
	// (empty for no block), so that plan and up notice a changed block.
	Hash string `json:"hash,omitempty"`
}

// Local is the backend of a configuration with no backend block.
var Local = Settings{Type: "local"}

const settingsFile = "backend.json"

// ErrOverridesWithoutBlock refuses -backend-config for a configuration with
// no backend block (Terraform only warns, and the values go nowhere).
var ErrOverridesWithoutBlock = errors.New("-backend-config was given, but the configuration has no backend block to configure; add terraform { backend \"pg\" {} } (or \"local\") first, or in a Go program s.Backend(tether.PG{})")

// Equal reports whether two settings choose the same place.
func (s Settings) Equal(o Settings) bool {
	if s.Type != o.Type || len(s.Config) != len(o.Config) {
		return false
	}
	for k, v := range s.Config {
		if o.Config[k] != v {
			return false
		}
	}
	return true
}

// FromBlock makes settings from the configuration's backend block (nil for
// none) and the -backend-config values (from Overrides), which win.
func FromBlock(b *config.Backend, overrides map[string]string) (Settings, error) {
	s := Settings{Type: "local", Config: map[string]string{}, Hash: BlockHash(b)}
	if b != nil {
		s.Type = b.Type
		for k, v := range b.Settings {
			s.Config[k] = v
		}
	} else if len(overrides) > 0 {
		return s, ErrOverridesWithoutBlock
	}
	// Overrides checked the values against the backend's arguments.
	for k, v := range overrides {
		s.Config[k] = v
	}
	return s, nil
}

func argList(typ string) string {
	var names []string
	for n := range config.BackendArguments[typ] {
		names = append(names, n)
	}
	sort.Strings(names)
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// BlockHash identifies a backend block by its type and evaluated settings.
func BlockHash(b *config.Backend) string {
	if b == nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(b.Type))
	for _, k := range sortedKeys(b.Settings) {
		fmt.Fprintf(h, "\x00%s\x00%s", k, b.Settings[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ReadSettings returns what init recorded in stateDir, nil when it never
// recorded anything.
func ReadSettings(stateDir string) (*Settings, error) {
	path := filepath.Join(stateDir, settingsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Settings
	if err := json.Unmarshal(b, &s); err != nil || config.BackendArguments[s.Type] == nil {
		return nil, fmt.Errorf("%s is damaged; run tether init -reconfigure to choose the backend again", path)
	}
	return &s, nil
}

// WriteSettings records s in stateDir, durably: init writes it after the
// state moved and before the old copy is set aside, so once it returns it
// must outlive a crash. The file may hold a connection string with its
// password, as Terraform's does, so only the user may read it.
func WriteSettings(stateDir string, s Settings) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(stateDir, settingsFile), append(b, '\n'), 0o600)
}

// InitRequiredError says the backend block differs from what init settled.
type InitRequiredError struct {
	Block  *config.Backend
	Reason string
}

func (e *InitRequiredError) Error() string {
	at := ""
	if e.Block != nil {
		r := e.Block.DeclRange
		at = fmt.Sprintf("%s:%d:%d: ", r.Filename, r.Start.Line, r.Start.Column)
	}
	return fmt.Sprintf("%sBackend initialization required: %s. Run tether init (with -migrate-state to move existing state, or -reconfigure to start afresh)", at, e.Reason)
}

// Resolve returns the settings plan and up use: what init recorded, as
// long as the configuration's backend block (nil for none) is the one init
// read. Without a record and without a block, state is local as always.
func Resolve(stateDir string, block *config.Backend) (Settings, error) {
	stored, err := ReadSettings(stateDir)
	if err != nil {
		return Settings{}, err
	}
	if stored == nil {
		if block == nil {
			return Local, nil
		}
		return Settings{}, &InitRequiredError{Block: block, Reason: fmt.Sprintf("the configuration chooses the %q backend, which tether init has not set up", block.Type)}
	}
	if stored.Hash != BlockHash(block) {
		reason := "the backend configuration changed since tether init"
		if block == nil {
			reason = fmt.Sprintf("the configuration no longer has the %q backend block that tether init set up", stored.Type)
		}
		return Settings{}, &InitRequiredError{Block: block, Reason: reason}
	}
	return *stored, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
