package providertest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"sort"
	"strings"
)

// AddModule publishes a version of a module on the server's module
// registry (service modules.v1 at /v1/modules/): the files, by slash path,
// are packed as a .tar.gz that the download endpoint names with
// X-Terraform-Get, as a relative URL. The module's address is
// HOST/NAMESPACE/NAME/SYSTEM.
func (s *Server) AddModule(namespace, name, system, version string, files map[string]string) error {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write([]byte(files[n])); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	id := namespace + "/" + name + "/" + system
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modules == nil {
		s.modules = map[string][]string{}
	}
	s.modules[id] = append(s.modules[id], version)
	s.files["/files/modules/"+namespace+"-"+name+"-"+system+"-"+version+".tar.gz"] = buf.Bytes()
	return nil
}

// serveModules answers the module registry protocol:
// NAMESPACE/NAME/SYSTEM/versions and NAMESPACE/NAME/SYSTEM/VERSION/download.
func (s *Server) serveModules(w http.ResponseWriter, parts []string) {
	if len(parts) < 4 {
		http.NotFound(w, nil)
		return
	}
	id := strings.Join(parts[:3], "/")
	s.mu.Lock()
	versions := append([]string(nil), s.modules[id]...)
	s.mu.Unlock()
	if len(versions) == 0 {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	switch {
	case len(parts) == 4 && parts[3] == "versions":
		var vs []map[string]string
		for _, v := range versions {
			vs = append(vs, map[string]string{"version": v})
		}
		writeJSON(w, map[string]any{"modules": []any{map[string]any{"versions": vs}}})
	case len(parts) == 5 && parts[4] == "download":
		for _, v := range versions {
			if v == parts[3] {
				w.Header().Set("X-Terraform-Get", "/files/modules/"+strings.Join(parts[:3], "-")+"-"+v+".tar.gz")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}
