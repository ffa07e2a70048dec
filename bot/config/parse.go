package config

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gcloop/gcloop/internal/lazyre"
	"github.com/gcloop/gcloop/internal/parse"
)

// maxDepth caps the nesting of the file; the deepest valid key sits at
// depth 3 (id, commands, max_retries).
const maxDepth = 16

// Parse reads a configuration file. Errors are *parse.Error values
// naming the file, the line and the key.
func Parse(name string, r io.Reader) (f *File, err error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, &parse.Error{File: name, Offset: -1, Msg: "read", Err: err}
	}
	if len(data) > MaxFileSize {
		return nil, parse.LineError(name, 0, "file larger than %d bytes", MaxFileSize)
	}
	// yaml.v3 has panicked on hostile input before (CVE-2022-28948); a
	// configuration reader must never take the process down.
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, parse.LineError(name, 1, "invalid YAML: %v", v)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &File{Name: name, Loops: map[string]*Section{}}, nil
		}
		return nil, yamlError(name, err, data)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlError(name, err, data)
		}
		return nil, parse.LineError(name, extra.Line, "a second YAML document: the file holds one")
	}
	if err := checkTree(name, &doc); err != nil {
		return nil, err
	}
	p := &parser{name: name}
	return p.file(&doc)
}

var yamlLine = lazyre.New(`^line (\d+): (.*)$`)

// parserProblems are the problems yaml.v3's parser (as opposed to its
// scanner) reports. yaml.v3 prints their line 0-based, and the scanner's
// 1-based; it omits the line altogether when the 0-based line is 0.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// yamlError turns a yaml.v3 syntax error into a one-line ParseError with a
// 1-based line. A problem found at the end of the input is put on the last
// line of data.
func yamlError(name string, err error, data []byte) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			if parserProblems[m[2]] {
				n++
			}
			last := bytes.Count(data, []byte("\n"))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				last++
			}
			n = max(min(n, last), 1)
			return parse.LineError(name, n, "invalid YAML: %s", m[2])
		}
	}
	if strings.HasPrefix(msg, "unknown anchor ") {
		// Raised without a line; anchors are refused anyway.
		return parse.LineError(name, aliasLine(data, msg), "aliases are not allowed (%s)", msg)
	}
	// Any other problem yaml.v3 reports without a line is put on line 1.
	return parse.LineError(name, 1, "invalid YAML: %s", msg)
}

// aliasLine returns the line of the first use of the alias that yaml.v3's
// "unknown anchor 'x' referenced" names, or 1 when it cannot be found.
func aliasLine(data []byte, msg string) int {
	anchor := strings.TrimSuffix(strings.TrimPrefix(msg, "unknown anchor '"), "' referenced")
	i := bytes.Index(data, []byte("*"+anchor))
	if anchor == "" || i < 0 {
		return 1
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// checkTree refuses anchors, aliases and deep nesting anywhere in the file.
func checkTree(name string, root *yaml.Node) error {
	type item struct {
		n     *yaml.Node
		depth int
	}
	stack := []item{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		if n.Kind == yaml.AliasNode {
			return parse.LineError(name, n.Line, "aliases are not allowed (*%s)", clip(n.Value))
		}
		if n.Anchor != "" {
			return parse.LineError(name, n.Line, "anchors and aliases are not allowed (&%s)", clip(n.Anchor))
		}
		if it.depth > maxDepth {
			return parse.LineError(name, n.Line, "nesting deeper than %d levels", maxDepth)
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, item{n.Content[i], it.depth + 1})
		}
	}
	return nil
}
