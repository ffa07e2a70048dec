package ghfake

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// specRelPath is where the trimmed GitHub description lives, relative to
// the directory that holds go.mod.
// embeddedSpec is GitHub's REST description trimmed to gcloop's operations
// (openapi/README.md says where it comes from).
//
//go:embed openapi/openapi-subset.json
var embeddedSpec []byte

// spec is the loaded GitHub description plus the routes built from it.
type spec struct {
	doc    *openapi3.T
	routes []*route
}

// route is one operation of the description, split into path segments.
type route struct {
	method   string
	template string
	opID     string
	segs     []segment
	literals int
	kin      *routers.Route
}

// segment is one piece of a path template: a literal or a parameter.
type segment struct {
	literal string
	param   string
	multi   bool // x-multi-segment: the parameter may hold slashes
}

var (
	specOnce sync.Once
	specVal  *spec
	specErr  error
)

// loadSpec loads the description once per process.
func loadSpec() (*spec, error) {
	specOnce.Do(func() {
		// Violation messages name the failing field; the schema and value
		// dumps kin-openapi appends would run to pages.
		openapi3.SchemaErrorDetailsDisabled = true
		specVal, specErr = parseSpec(embeddedSpec)
	})
	return specVal, specErr
}

func parseSpec(data []byte) (*spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("ghfake: load the embedded openapi subset: %w", err)
	}
	s := &spec{doc: doc}
	for _, tmpl := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(tmpl)
		for method, op := range item.Operations() {
			r := &route{method: method, template: tmpl, opID: op.OperationID}
			multi := map[string]bool{}
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p.Value == nil || p.Value.In != openapi3.ParameterInPath {
					continue
				}
				if v, ok := p.Value.Extensions["x-multi-segment"].(bool); ok && v {
					multi[p.Value.Name] = true
				}
			}
			for _, part := range strings.Split(strings.TrimPrefix(tmpl, "/"), "/") {
				if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
					name := part[1 : len(part)-1]
					r.segs = append(r.segs, segment{param: name, multi: multi[name]})
					continue
				}
				r.segs = append(r.segs, segment{literal: part})
				r.literals++
			}
			r.kin = &routers.Route{Spec: doc, Server: doc.Servers[0], Path: tmpl, PathItem: item, Method: method, Operation: op}
			s.routes = append(s.routes, r)
		}
	}
	sort.Slice(s.routes, func(i, j int) bool {
		return s.routes[i].template+s.routes[i].method < s.routes[j].template+s.routes[j].method
	})
	return s, nil
}

// match finds the operation for method and escaped path. It returns the
// route and its path parameters (unescaped; multi-segment ones joined with
// slashes). methodKnown reports whether some operation matched the path
// with another method.
func (s *spec) match(method, escapedPath string) (r *route, params map[string]string, pathKnown bool) {
	parts := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			parts[i] = u
		}
	}
	for _, cand := range s.routes {
		got := map[string]string{}
		if !matchSegs(cand.segs, parts, got) {
			continue
		}
		pathKnown = true
		if cand.method != method {
			continue
		}
		if r == nil || cand.literals > r.literals {
			r, params = cand, got
		}
	}
	return r, params, pathKnown
}

// matchSegs matches template segments against path parts, letting a
// multi-segment parameter take one or more parts.
func matchSegs(segs []segment, parts []string, out map[string]string) bool {
	if len(segs) == 0 {
		return len(parts) == 0
	}
	if len(parts) == 0 {
		return false
	}
	sg := segs[0]
	if sg.literal != "" || sg.param == "" {
		return parts[0] == sg.literal && matchSegs(segs[1:], parts[1:], out)
	}
	if parts[0] == "" {
		// A trailing multi-segment parameter may be empty: GitHub answers
		// GET …/contents/ with the repository's root, which is how
		// go-github asks for it.
		if sg.multi && len(segs) == 1 && len(parts) == 1 {
			out[sg.param] = ""
			return true
		}
		return false
	}
	if !sg.multi {
		out[sg.param] = parts[0]
		if matchSegs(segs[1:], parts[1:], out) {
			return true
		}
		delete(out, sg.param)
		return false
	}
	// Longest first: a ref like heads/feature/x takes everything left
	// unless later literals (e.g. /pulls) need some.
	for n := len(parts) - len(segs) + 1; n >= 1; n-- {
		if strings.Join(parts[:n], "") == "" {
			continue
		}
		out[sg.param] = strings.Join(parts[:n], "/")
		if matchSegs(segs[1:], parts[n:], out) {
			return true
		}
	}
	delete(out, sg.param)
	return false
}

// validationOptions skips authentication (the fake checks tokens itself).
var validationOptions = &openapi3filter.Options{
	AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
	MultiError:         true,
}

// validateRequest checks a request (its body given separately, since the
// handler consumes it) against its operation.
func (s *spec) validateRequest(r *route, params map[string]string, req *http.Request, body []byte) (*openapi3filter.RequestValidationInput, error) {
	clone := req.Clone(context.Background())
	clone.Body = io.NopCloser(bytes.NewReader(body))
	if len(body) == 0 {
		clone.Body = http.NoBody
	}
	checked := params
	for k, v := range params {
		if v == "" {
			// Only a trailing multi-segment parameter matches empty (the
			// root of …/contents/), which GitHub answers though its
			// description marks the parameter required: checked as "/".
			checked = maps.Clone(params)
			checked[k] = "/"
		}
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    clone,
		PathParams: checked,
		Route:      r.kin,
		Options:    validationOptions,
	}
	return in, openapi3filter.ValidateRequest(context.Background(), in)
}

// validateResponse checks a recorded response against its operation.
// rawBody skips the body check (raw media types the description lacks).
func (s *spec) validateResponse(in *openapi3filter.RequestValidationInput, status int, header http.Header, body []byte, rawBody bool) error {
	opts := validationOptions
	if rawBody {
		o := *validationOptions
		o.ExcludeResponseBody = true
		opts = &o
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Options:                opts,
	}
	out.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), out)
}
