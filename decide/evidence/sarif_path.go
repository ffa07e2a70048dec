// File paths from SARIF artifact locations and originalUriBaseIds.

package evidence

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// readBases reads originalUriBaseIds: name → {uri, uriBaseId}. Only bases
// given as absolute file: URIs are kept, to make absolute paths relative.
func (sr *sarifReader) readBases(run *sarifRun, what string) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	return s.Object(what, "", func(key []byte) error {
		name := string(key)
		var uri, parent string
		err := s.Object(what+".", name, func(k []byte) error {
			var err error
			switch string(k) {
			case "uri":
				uri, err = s.StringVal(what, ".uri", sarifMaxField)
			case "uriBaseId":
				parent, err = s.StringVal(what, ".uriBaseId", sarifMaxField)
			default:
				err = s.Skip(4)
			}
			return err
		})
		if err != nil {
			return err
		}
		if p, ok := sarifFileURIPath(uri); ok && parent == "" && len(run.bases) < 64 {
			if !strings.HasSuffix(p, "/") {
				p += "/"
			}
			if run.bases == nil {
				run.bases = map[string]string{}
			}
			run.bases[name] = p
		}
		return nil
	})
}

// sarifPath turns an artifact URI into a file path: file:// URIs lose their
// scheme, an absolute path under a known uriBaseId root becomes relative to
// it, percent escapes are decoded and a leading "./" is dropped.
func sarifPath(uri, baseID string, bases map[string]string) string {
	uri = strings.TrimSpace(uri)
	if uri == "" {
		return ""
	}
	p, isFile := sarifFileURIPath(uri)
	if !isFile {
		if strings.Contains(uri, "://") {
			return uri // some other scheme: keep as given
		}
		p = sarifUnescape(uri)
		if strings.HasPrefix(p, "%") && baseID == "" {
			// "%SRCROOT%/a.go": a base id spelled into the uri.
			if i := strings.Index(p[1:], "%"); i >= 0 {
				p = strings.TrimLeft(p[i+2:], "/")
			}
		}
	}
	if bases != nil {
		p = sarifRelBase(p, bases)
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// sarifRelBase makes an absolute path relative to the longest matching
// base.
func sarifRelBase(p string, bases map[string]string) string {
	if !strings.HasPrefix(p, "/") && !(len(p) > 2 && p[1] == ':') {
		return p
	}
	best := ""
	for _, b := range bases {
		if strings.HasPrefix(p, b) && len(b) > len(best) {
			best = b
		}
	}
	if best != "" && len(p) > len(best) {
		return p[len(best):]
	}
	return p
}

// sarifFileURIPath returns the path of a file: URI; ok is false for
// anything else.
func sarifFileURIPath(uri string) (string, bool) {
	if len(uri) < 5 || !strings.EqualFold(uri[:5], "file:") {
		return "", false
	}
	rest := uri[5:]
	// "file:///p" and "file://localhost/p" are the local path "/p";
	// "file://host/share" keeps its host as a UNC path "//host/share".
	if strings.HasPrefix(rest, "///") {
		rest = rest[2:]
	} else if strings.HasPrefix(strings.ToLower(rest), "//localhost/") {
		rest = rest[len("//localhost"):]
	}
	p := sarifUnescape(rest)
	// "/C:/x" is the Windows path "C:/x".
	if len(p) > 3 && p[0] == '/' && p[2] == ':' && p[3] == '/' {
		p = p[1:]
	}
	return p, true
}

func sarifUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	if u, err := url.PathUnescape(s); err == nil && utf8.ValidString(u) {
		return u
	}
	return s
}
