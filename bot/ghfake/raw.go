package ghfake

// The raw file host (raw.githubusercontent.com): the download_url of the
// contents API, where a file over 1 MB is read.

import (
	"net/http"
	"net/url"
	"strings"
)

// maxInlineContent is the largest file the contents API returns inline
// (base64 in the JSON); a larger one comes with encoding "none".
const maxInlineContent = 1 << 20

// rawPrefix is the raw host's path on the fake's blob server.
const rawPrefix = "/raw/"

// rawURL is the download_url of path at ref. Callers hold s.mu.
func (s *Server) rawURL(r *repoState, ref, path string) string {
	return s.blob.URL + rawPrefix + pathEscape(r.owner) + "/" + pathEscape(r.name) + "/" + url.PathEscape(ref) + "/" + pathEscape(path)
}

// serveRaw answers GET /raw/{owner}/{repo}/{ref}/{path}: the file's bytes,
// a token or not, as text/plain; "404: Not Found" for any other.
func (s *Server) serveRaw(w http.ResponseWriter, req *http.Request) {
	path := req.URL.EscapedPath()
	parts := strings.SplitN(strings.TrimPrefix(path, rawPrefix), "/", 4)
	var data []byte
	found := false
	if len(parts) == 4 && req.Method == http.MethodGet {
		owner, err1 := url.PathUnescape(parts[0])
		name, err2 := url.PathUnescape(parts[1])
		ref, err3 := url.PathUnescape(parts[2])
		file, err4 := url.PathUnescape(parts[3])
		if err1 == nil && err2 == nil && err3 == nil && err4 == nil {
			s.mu.Lock()
			if r, ok := s.repos[strings.ToLower(owner+"/"+name)]; ok {
				data, found = r.files[ref][file]
				if !found {
					data, found = (&call{s: s, repo: r}).fileAt(ref, file)
				}
			}
			s.mu.Unlock()
		}
	}
	if !found {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("404: Not Found"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(data)
}
