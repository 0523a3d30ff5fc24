package synth

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// backend is the root module's Terraform backend block for what the
// configuration declares, nil for none. Terraform keeps its state where
// Tether was told to keep Tether's, with two exceptions, each a warning
// at the setting: the local backend's files are SQLite for Tether and
// JSON for Terraform, so its path settings would make the two tools write
// one file in two formats and are left out; and a connection string that
// holds a password is left out of a file meant to be committed, for
// Terraform's pg backend to read from PG_CONN_STR instead.
func (s *synth) backend() map[string]any {
	b := s.cfg.Backend
	if b == nil {
		return nil
	}
	names := make([]string, 0, len(b.Settings))
	for k := range b.Settings {
		names = append(names, k)
	}
	sort.Strings(names)
	settings := map[string]any{}
	for _, k := range names {
		v := b.Settings[k]
		switch {
		case b.Type == "local":
			s.warnAt(b.Ranges[k], "Backend setting not written", "Tether's local backend keeps state in SQLite files and Terraform's in JSON: the local backend's "+k+" is left out, and Terraform keeps terraform.tfstate in the output folder.")
		case b.Type == "pg" && k == "conn_str" && holdsPassword(v):
			// No subject: the snippet under it would print the password.
			s.warnAt(hcl.Range{}, "Backend setting not written", "The pg backend's conn_str"+at(b.Ranges[k])+" holds a password and is left out of the Terraform JSON: give it to terraform in PG_CONN_STR (or the password in PGPASSWORD).")
		case b.Type == "pg" && k == "skip_schema_creation":
			settings[k] = v == "true"
		default:
			settings[k] = v
		}
	}
	if b.Type == "local" {
		// Terraform's default is the local backend.
		return nil
	}
	return map[string]any{b.Type: settings}
}

// holdsPassword reports whether a PostgreSQL connection string, in URL or
// key=value form, carries a password.
func holdsPassword(conn string) bool {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err != nil {
			return true // cannot tell: keep it out
		}
		if _, ok := u.User.Password(); ok {
			return true
		}
		return u.Query().Has("password")
	}
	return passwordKey.MatchString(conn)
}

// passwordKey finds a password key in key=value form, where libpq allows
// blanks around the equals sign.
var passwordKey = regexp.MustCompile(`(^|\s)password\s*=`)

func (s *synth) warnAt(rng hcl.Range, summary, detail string) {
	d := &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: detail}
	if rng.Filename != "" {
		d.Subject = rng.Ptr()
	}
	s.diags = append(s.diags, d)
}

// at is " at FILE:LINE:COLUMN" for rng, empty when it has no file.
func at(rng hcl.Range) string {
	if rng.Filename == "" {
		return ""
	}
	return fmt.Sprintf(" at %s:%d:%d", rng.Filename, rng.Start.Line, rng.Start.Column)
}
