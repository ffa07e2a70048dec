package ghfake

// Serving: the API handler (record, authenticate, inject faults, validate,
// dispatch, answer) and the artifact blob server it redirects to.

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// serveAPI is the API server's handler: record, authenticate, inject
// faults, validate, dispatch, validate the response, answer.
func (s *Server) serveAPI(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	_ = req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(body))

	path := req.URL.EscapedPath()
	rt, params, pathKnown := s.spec.match(req.Method, path)
	tmpl, opID := "", ""
	if rt != nil {
		tmpl, opID = rt.template, rt.opID
	}

	s.mu.Lock()
	idx := len(s.requests)
	s.requests = append(s.requests, Request{
		Method: req.Method, Path: path, RawQuery: req.URL.RawQuery,
		Header: req.Header.Clone(), Body: bytes.Clone(body), Operation: opID,
		Arrived: time.Now(),
	})
	var delay time.Duration
	for _, d := range s.delays {
		if matchPattern(d.pattern, req.Method, tmpl, path) {
			delay += d.d
		}
	}
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
		}
	}

	rec := httptest.NewRecorder()
	login, authed := s.authenticate(req)
	s.rateHeaders(rec.Header(), req)
	injected := true
	switch {
	case !authed:
		writeError(rec, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest")
	case s.injectFault(rec, req, tmpl, path):
	case rt == nil && pathKnown:
		s.violation("%s %s: method not allowed by the description", req.Method, path)
		writeError(rec, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
	case rt == nil:
		s.violation("%s %s: no operation of the description matches", req.Method, path)
		writeError(rec, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
	default:
		injected = false
	}

	var vin *openapi3filter.RequestValidationInput
	if rt != nil {
		in, err := s.spec.validateRequest(rt, params, req, body)
		if err != nil {
			s.violation("request %s %s (%s): %v", req.Method, path, opID, err)
		}
		vin = in
		if !injected {
			c := &call{s: s, w: rec, req: req, body: body, params: params, login: login, op: opID}
			s.dispatch(c)
		}
	}

	status := rec.Code
	if rt != nil && (!injected || (authed && resourceAnswer(status))) {
		raw := isRawAccept(req.Header.Get("Accept")) && status == http.StatusOK
		if err := s.spec.validateResponse(vin, status, rec.Header(), rec.Body.Bytes(), raw); err != nil {
			s.violation("response %d to %s %s (%s): %v", status, req.Method, path, opID, err)
		}
	}

	s.mu.Lock()
	s.requests[idx].Status = status
	s.mu.Unlock()

	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = w.Write(rec.Body.Bytes())
}

// authenticate maps the Authorization header to a known login.
func (s *Server) authenticate(req *http.Request) (string, bool) {
	h := req.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || (!strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token")) {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tok = strings.TrimSpace(tok)
	login, ok := s.tokenLogin(tok)
	if ok {
		s.used[login]++
		return login, true
	}
	if id, err := s.appOfJWT(tok); err == nil {
		return jwtLogin + strconv.FormatInt(id, 10), true
	}
	return "", false
}

const rateLimit = 5000

// rateHeaders sets GitHub's X-RateLimit-* headers for the caller.
func (s *Server) rateHeaders(h http.Header, req *http.Request) {
	_, tok, _ := strings.Cut(req.Header.Get("Authorization"), " ")
	s.mu.Lock()
	used := s.used[s.tokens[strings.TrimSpace(tok)]]
	reset := s.start.Add(time.Hour).Unix()
	s.mu.Unlock()
	remaining := rateLimit - used
	if remaining < 0 {
		remaining = 0
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(rateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
}

func isRawAccept(accept string) bool {
	return strings.Contains(accept, "application/vnd.github.raw") || strings.Contains(accept, "application/vnd.github.v3.raw")
}
