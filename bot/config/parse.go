package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// maxDepth caps the nesting of the file; the deepest valid key sits at
// depth 3 (id, commands, max_retries).
const maxDepth = 16

// Parse reads a configuration file. Errors are *decide.ParseError values
// naming the file, the line and the key.
func Parse(name string, r io.Reader) (f *File, err error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, &decide.ParseError{File: name, Offset: -1, Msg: "read", Err: err}
	}
	if len(data) > MaxFileSize {
		return nil, decide.LineError(name, 0, "file larger than %d bytes", MaxFileSize)
	}
	// yaml.v3 has panicked on hostile input before (CVE-2022-28948); a
	// configuration reader must never take the process down.
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, decide.LineError(name, 1, "invalid YAML: %v", v)
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
		return nil, decide.LineError(name, extra.Line, "a second YAML document: the file holds one")
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
			return decide.LineError(name, n, "invalid YAML: %s", m[2])
		}
	}
	if strings.HasPrefix(msg, "unknown anchor ") {
		// Raised without a line; anchors are refused anyway.
		return decide.LineError(name, aliasLine(data, msg), "aliases are not allowed (%s)", msg)
	}
	// Any other problem yaml.v3 reports without a line is put on line 1.
	return decide.LineError(name, 1, "invalid YAML: %s", msg)
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
			return decide.LineError(name, n.Line, "aliases are not allowed (*%s)", clip(n.Value))
		}
		if n.Anchor != "" {
			return decide.LineError(name, n.Line, "anchors and aliases are not allowed (&%s)", clip(n.Anchor))
		}
		if it.depth > maxDepth {
			return decide.LineError(name, n.Line, "nesting deeper than %d levels", maxDepth)
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, item{n.Content[i], it.depth + 1})
		}
	}
	return nil
}

type parser struct {
	name string
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) error {
	return decide.LineError(p.name, n.Line, format, args...)
}

func (p *parser) file(doc *yaml.Node) (*File, error) {
	f := &File{Name: p.name, Loops: map[string]*Section{}}
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return f, nil
		}
		root = root.Content[0]
	}
	if isNull(root) {
		return f, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.errf(root, "want a mapping of loop ids to sections, got %s", describe(root))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || isNull(k) {
			return nil, p.errf(k, "want a loop id, got %s", describe(k))
		}
		id := k.Value
		if !decide.ValidID(id) {
			return nil, p.errf(k, "loop id %q: %s", clip(id), decide.IDRule)
		}
		if prev, ok := f.Loops[id]; ok {
			return nil, p.errf(k, "duplicate loop id %q (first at line %d)", id, prev.Line)
		}
		s, err := p.section(id, k, v)
		if err != nil {
			return nil, err
		}
		f.Loops[id] = s
	}
	return f, nil
}

// keySpec describes one section key: the loop kinds that have it (nil: all)
// and how its value is read.
type keySpec struct {
	kinds []decide.Loop
	read  func(p *parser, s *Section, path string, v *yaml.Node) error
}

var sectionKeys map[string]keySpec

func init() {
	sectionKeys = map[string]keySpec{
		"loop": {read: func(*parser, *Section, string, *yaml.Node) error { return nil }},
		"max_rounds": {read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.MaxRounds, err = p.intIn(path, v, 1, 100)
			return err
		}},
		"threshold": {kinds: []decide.Loop{decide.Review}, read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.Threshold, err = p.numberIn(path, v, 1, 10)
			return err
		}},
		"target": {kinds: []decide.Loop{decide.Coverage}, read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.Target, err = p.numberIn(path, v, 0, 100)
			return err
		}},
		"layers": {kinds: []decide.Loop{decide.Coverage}, read: (*parser).layers},
		"stall": {read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.Stall, err = p.intIn(path, v, 0, 100)
			return err
		}},
		"audit": {kinds: []decide.Loop{decide.Audit}, read: (*parser).audit},
		"without_data": {kinds: []decide.Loop{decide.Critique}, read: func(p *parser, s *Section, path string, v *yaml.Node) error {
			val, err := p.enum(path, v, withoutDataChecks)
			s.WithoutData = &val
			return err
		}},
		"issues": {read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.Issues, err = p.boolean(path, v)
			return err
		}},
		"max_issues": {read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.MaxIssues, err = p.intIn(path, v, 1, MaxIssuesCap)
			return err
		}},
		"labels": {read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.Labels, err = p.strings(path, v, maxLabels, checkLabel)
			return err
		}},
		"commit": {kinds: []decide.Loop{decide.Coverage}, read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.Commit, err = p.boolean(path, v)
			return err
		}},
		"test_patterns": {kinds: []decide.Loop{decide.Coverage}, read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.TestPatterns, err = p.strings(path, v, maxListItems, checkPattern)
			return err
		}},
		"forbidden_markers": {kinds: []decide.Loop{decide.Coverage}, read: func(p *parser, s *Section, path string, v *yaml.Node) (err error) {
			s.ForbiddenMarkers, err = p.strings(path, v, maxListItems, checkMarker)
			return err
		}},
		"dispatch": {read: func(p *parser, s *Section, path string, v *yaml.Node) error {
			raw, err := p.str(path, v)
			if err != nil {
				return err
			}
			d, msg := normDispatch(raw)
			if msg != "" {
				return p.errf(v, "%s: %s", path, msg)
			}
			s.Dispatch = &d
			return nil
		}},
		"commands": {read: (*parser).commands},
		"bot":      {read: (*parser).bot},
	}
}

// keysFor lists the section keys a loop kind has, sorted.
func keysFor(l decide.Loop) []string {
	var out []string
	for k, spec := range sectionKeys {
		if spec.kinds == nil || hasLoop(spec.kinds, l) {
			out = append(out, k)
		}
	}
	return out
}

func hasLoop(ls []decide.Loop, l decide.Loop) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

func (p *parser) section(id string, k, v *yaml.Node) (*Section, error) {
	s := &Section{ID: id, Line: k.Line}
	idKind, idIsKind := kindOf(id)
	if isNull(v) {
		if !idIsKind {
			return nil, p.errf(k, "section %s: no loop kind: add `loop:` (review, critique, audit, validation or coverage)", id)
		}
		s.Loop = idKind
		return s, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, p.errf(v, "section %s: want a mapping of settings, got %s", id, describe(v))
	}
	if err := p.noDuplicates(id, v); err != nil {
		return nil, err
	}
	// The kind comes first: it decides which keys are valid.
	var loopNode *yaml.Node
	for i := 0; i+1 < len(v.Content); i += 2 {
		if v.Content[i].Value == "loop" && v.Content[i].Kind == yaml.ScalarNode {
			loopNode = v.Content[i+1]
		}
	}
	switch {
	case loopNode != nil:
		raw, err := p.str(id+".loop", loopNode)
		if err != nil {
			return nil, err
		}
		l, perr := decide.ParseLoop(raw)
		if perr != nil {
			return nil, p.errf(loopNode, "%s.loop: %v", id, perr)
		}
		if idIsKind && l != idKind {
			return nil, p.errf(loopNode, "%s.loop: a section named %s must be a %s loop, not %s; give it another id", id, id, idKind, l)
		}
		s.Loop = l
	case idIsKind:
		s.Loop = idKind
	default:
		return nil, p.errf(k, "section %s: no loop kind: add `loop:` (review, critique, audit, validation or coverage)", id)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		key := kn.Value
		spec, ok := sectionKeys[key]
		if !ok || kn.Kind != yaml.ScalarNode {
			return nil, p.unknown(kn, id, keysFor(s.Loop))
		}
		if spec.kinds != nil && !hasLoop(spec.kinds, s.Loop) {
			where := id
			if string(s.Loop) != id {
				where = fmt.Sprintf("%s (a %s loop)", id, s.Loop)
			}
			return nil, p.errf(kn, "key %q in %s applies only to %s loops", key, where, joinLoops(spec.kinds))
		}
		if err := spec.read(p, s, id+"."+key, vn); err != nil {
			return nil, err
		}
	}
	if s.Target != nil && s.Layers != nil {
		return nil, p.errf(keyNode(v, "layers"), "%s: target and layers both set: use target for every layer or layers for each", id)
	}
	return s, nil
}

func kindOf(id string) (decide.Loop, bool) {
	for _, l := range decide.Loops {
		if string(l) == id {
			return l, true
		}
	}
	return "", false
}

func joinLoops(ls []decide.Loop) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = string(l)
	}
	return strings.Join(parts, " and ")
}

// keyNode returns the key node named key in mapping m.
func keyNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return m
}

// noDuplicates refuses a mapping that repeats a key.
func (p *parser) noDuplicates(path string, m *yaml.Node) error {
	seen := make(map[string]int, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if line, ok := seen[k.Value]; ok {
			return p.errf(k, "duplicate key %q in %s (first at line %d)", clip(k.Value), path, line)
		}
		seen[k.Value] = k.Line
	}
	return nil
}

// unknown reports an unknown key, suggesting the nearest valid one.
func (p *parser) unknown(k *yaml.Node, path string, valid []string) error {
	if k.Kind != yaml.ScalarNode {
		return p.errf(k, "unknown key %s in %s", describe(k), path)
	}
	if s := suggest(k.Value, valid); s != "" {
		return p.errf(k, "unknown key %q in %s (did you mean %q?)", clip(k.Value), path, s)
	}
	return p.errf(k, "unknown key %q in %s", clip(k.Value), path)
}

func (p *parser) layers(s *Section, path string, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.errf(v, "%s: want a mapping of L1, L2 or L3 to target percents, got %s", path, describe(v))
	}
	s.Layers = make(map[string]float64, 3)
	lines := make(map[string]int, 3)
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		layer := ""
		if kn.Kind == yaml.ScalarNode {
			layer = normLayer(kn.Value)
		}
		if layer == "" {
			return p.errf(kn, "unknown layer %s in %s (want L1, L2 or L3)", describe(kn), path)
		}
		if line, ok := lines[layer]; ok {
			return p.errf(kn, "duplicate layer %s in %s (first at line %d)", layer, path, line)
		}
		lines[layer] = kn.Line
		t, err := p.numberIn(path+"."+layer, vn, 0, 100)
		if err != nil {
			return err
		}
		s.Layers[layer] = *t
	}
	return nil
}

// normLayer returns L1, L2 or L3 for a layer name in any case, or "" for
// anything else (including "").
func normLayer(s string) string {
	switch u := strings.ToUpper(strings.TrimSpace(s)); u {
	case "L1", "L2", "L3":
		return u
	}
	return ""
}

func (p *parser) audit(s *Section, path string, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.errf(v, "%s: want a mapping with partial, got %s", path, describe(v))
	}
	if err := p.noDuplicates(path, v); err != nil {
		return err
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		if kn.Kind != yaml.ScalarNode || kn.Value != "partial" {
			return p.unknown(kn, path, []string{"partial"})
		}
		val, err := p.enum(path+".partial", vn, auditPartials)
		if err != nil {
			return err
		}
		s.AuditPartial = &val
	}
	return nil
}

func (p *parser) commands(s *Section, path string, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.errf(v, "%s: want a mapping with permission and max_retries, got %s", path, describe(v))
	}
	if err := p.noDuplicates(path, v); err != nil {
		return err
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		key := ""
		if kn.Kind == yaml.ScalarNode {
			key = kn.Value
		}
		switch key {
		case "permission":
			val, err := p.enum(path+".permission", vn, permissions)
			if err != nil {
				return err
			}
			s.Permission = &val
		case "max_retries":
			n, err := p.intIn(path+".max_retries", vn, 0, maxRetriesCap)
			if err != nil {
				return err
			}
			s.MaxRetries = n
		default:
			return p.unknown(kn, path, []string{"permission", "max_retries"})
		}
	}
	return nil
}

func (p *parser) bot(s *Section, path string, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.errf(v, "%s: want a mapping with artifacts, got %s", path, describe(v))
	}
	if err := p.noDuplicates(path, v); err != nil {
		return err
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		if kn.Kind != yaml.ScalarNode || kn.Value != "artifacts" {
			return p.unknown(kn, path, []string{"artifacts"})
		}
		names, err := p.strings(path+".artifacts", vn, maxListItems, checkArtifact)
		if err != nil {
			return err
		}
		s.BotArtifacts = names
	}
	return nil
}

// Scalar readers. Each names the key's path and the line of the value.

func (p *parser) intIn(path string, v *yaml.Node, lo, hi int) (*int, error) {
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" {
		return nil, p.errf(v, "%s: want an integer from %d to %d, got %s", path, lo, hi, describe(v))
	}
	var n int
	if err := v.Decode(&n); err != nil || n < lo || n > hi {
		return nil, p.errf(v, "%s: want an integer from %d to %d, got %s", path, lo, hi, describe(v))
	}
	return &n, nil
}

func (p *parser) numberIn(path string, v *yaml.Node, lo, hi float64) (*float64, error) {
	if v.Kind != yaml.ScalarNode || (v.ShortTag() != "!!int" && v.ShortTag() != "!!float") {
		return nil, p.errf(v, "%s: want a number from %g to %g, got %s", path, lo, hi, describe(v))
	}
	var x float64
	if err := v.Decode(&x); err != nil || !(x >= lo && x <= hi) {
		return nil, p.errf(v, "%s: want a number from %g to %g, got %s", path, lo, hi, describe(v))
	}
	return &x, nil
}

func (p *parser) boolean(path string, v *yaml.Node) (*bool, error) {
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
		return nil, p.errf(v, "%s: want true or false, got %s", path, describe(v))
	}
	var b bool
	if err := v.Decode(&b); err != nil {
		return nil, p.errf(v, "%s: want true or false, got %s", path, describe(v))
	}
	return &b, nil
}

// str reads a scalar as the text written in the file; numbers and booleans
// count as their text, null does not.
func (p *parser) str(path string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || isNull(v) {
		return "", p.errf(v, "%s: want a string, got %s", path, describe(v))
	}
	switch v.ShortTag() {
	case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
		return v.Value, nil
	}
	return "", p.errf(v, "%s: want a string, got %s", path, describe(v))
}

func (p *parser) enum(path string, v *yaml.Node, valid []string) (string, error) {
	s, err := p.str(path, v)
	if err != nil {
		return "", err
	}
	if msg := checkEnum(s, valid); msg != "" {
		return "", p.errf(v, "%s: %s", path, msg)
	}
	return s, nil
}

// strings reads a list of strings, each checked by check (which returns a
// message, "" when the item is fine).
func (p *parser) strings(path string, v *yaml.Node, max int, check func(string) string) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, p.errf(v, "%s: want a list of strings, got %s", path, describe(v))
	}
	if len(v.Content) > max {
		return nil, p.errf(v, "%s: %d items, at most %d allowed", path, len(v.Content), max)
	}
	out := make([]string, 0, len(v.Content))
	for i, item := range v.Content {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		s, err := p.str(ipath, item)
		if err != nil {
			return nil, err
		}
		if msg := check(s); msg != "" {
			return nil, p.errf(item, "%s: %s", ipath, msg)
		}
		out = append(out, s)
	}
	return out, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe renders a value for an error message, on one line.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!int", "!!float", "!!bool":
			if !strings.ContainsAny(n.Value, "\n\r\t\"") {
				return clip(n.Value)
			}
		case "!!str", "!!timestamp":
		default:
			return fmt.Sprintf("%q tagged %q", clip(n.Value), clip(n.Tag))
		}
		return strconv.Quote(clip(n.Value))
	}
	return "nothing"
}

// clip shortens s to at most 40 runes for an error message.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-1]) + "…"
}
