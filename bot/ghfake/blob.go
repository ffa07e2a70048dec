package ghfake

// The hosts outside the API: the artifact storage a download redirects to,
// the raw file host and the web host's OAuth token exchange. Their
// requests are kept apart from the API's.

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// StreamArtifacts makes the artifact storage send downloads in chunks
// without a Content-Length, as a proxy on the way may; by default it sends
// the length, as GitHub's storage does.
func (s *Server) StreamArtifacts(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streamArtifacts = on
}

// BlobRequests returns every request the hosts outside the API (the
// artifact storage, the raw file host, the web host) received, in order.
func (s *Server) BlobRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.blobRequests))
	for i, r := range s.blobRequests {
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// statusWriter keeps the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets a streamed answer go out in chunks.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// serveBlob is the blob server's handler: record the request, inject
// faults, then the raw file host under /raw/ or the artifact storage.
func (s *Server) serveBlob(w http.ResponseWriter, req *http.Request) {
	path := req.URL.EscapedPath()
	s.mu.Lock()
	idx := len(s.blobRequests)
	s.blobRequests = append(s.blobRequests, Request{Method: req.Method, Path: path, RawQuery: req.URL.RawQuery,
		Header: req.Header.Clone(), Arrived: time.Now()})
	s.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		s.mu.Lock()
		s.blobRequests[idx].Status = sw.status
		s.mu.Unlock()
	}()
	switch {
	case s.injectFault(sw, req, "", path):
	case strings.HasPrefix(req.URL.Path, rawPrefix):
		s.serveRaw(sw, req)
	case req.URL.Path == "/login/oauth/access_token":
		s.serveOAuthToken(sw, req)
	default:
		s.serveArtifact(sw, req)
	}
}

// serveArtifact is the artifact storage. Like GitHub's it refuses
// requests that carry an Authorization header and links past their
// expiry.
func (s *Server) serveArtifact(w *statusWriter, req *http.Request) {
	if req.Header.Get("Authorization") != "" {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>InvalidAuthenticationInfo</Code><Message>Authentication information is not given in the correct format.</Message></Error>`)
		return
	}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	exp, err := strconv.ParseInt(req.URL.Query().Get("se"), 10, 64)
	var id int64
	if err == nil && len(parts) == 2 && parts[0] == "artifacts" {
		id, err = strconv.ParseInt(parts[1], 10, 64)
	} else if err == nil {
		err = fmt.Errorf("bad blob path %q", req.URL.Path)
	}
	s.mu.Lock()
	now := s.now()
	stream := s.streamArtifacts
	var data []byte
	found := false
	if a, ok := s.artifacts[id]; ok && err == nil && a.token == req.URL.Query().Get("sig") {
		data, found = a.zip, true
	}
	s.mu.Unlock()
	switch {
	case !found:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>`)
	case now.Unix() > exp:
		http.Error(w, "download link expired", http.StatusGone)
	case stream:
		w.Header().Set("Content-Type", "application/zip")
		for len(data) > 0 {
			n := min(len(data), 4096)
			_, _ = w.Write(data[:n])
			w.Flush() // no Content-Length: chunked
			data = data[n:]
		}
	default:
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, _ = w.Write(data)
	}
}
