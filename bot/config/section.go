package config

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

type parser struct {
	name string
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) error {
	return parse.LineError(p.name, n.Line, format, args...)
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

// keySpec describes one key of a section: the loop kinds that have it
// (nil: all) and what it holds — a setting, or a group of settings written
// as a mapping (commands: {permission, max_retries}). The keys are built
// from the table of settings; loop is the only key of its own.
type keySpec struct {
	kinds   []decide.Loop
	setting *Setting
	group   []*Setting
	// sub are the keys of a group, in the table's order.
	sub []string
}

var sectionKeys = buildKeys()

func buildKeys() map[string]*keySpec {
	keys := map[string]*keySpec{"loop": {}}
	for _, st := range settings {
		name, sub, grouped := strings.Cut(st.Key, ".")
		switch {
		case st.Key == "":
		case !grouped:
			keys[name] = &keySpec{kinds: st.Kinds, setting: st}
		default:
			g := keys[name]
			if g == nil {
				g = &keySpec{kinds: st.Kinds}
				keys[name] = g
			}
			if st.Kinds == nil {
				g.kinds = nil
			}
			g.group = append(g.group, st)
			g.sub = append(g.sub, sub)
		}
	}
	return keys
}

// read reads the value of key k into vals.
func (p *parser) read(k *keySpec, vals *Values, path string, v *yaml.Node) error {
	switch {
	case k.setting != nil:
		return p.setting(k.setting, vals, path, v)
	case k.group != nil:
		return p.group(k, vals, path, v)
	}
	return nil // loop: read first, by section
}

// setting reads the value of one setting, as its type and limits say.
func (p *parser) setting(st *Setting, vals *Values, path string, v *yaml.Node) (err error) {
	switch f := st.field(vals).(type) {
	case **int:
		*f, err = p.intIn(path, v, int(st.Min), int(st.Max))
	case **float64:
		*f, err = p.numberIn(path, v, st.Min, st.Max)
	case **bool:
		*f, err = p.boolean(path, v)
	case *[]string:
		*f, err = p.strings(path, v, st.Items, st.Check)
	case *map[string]float64:
		*f, err = p.layers(path, v, st.Min, st.Max)
	case **string:
		var s string
		if st.Enum != nil {
			s, err = p.enum(path, v, st.Enum)
		} else if s, err = p.str(path, v); err == nil && st.Norm != nil {
			var msg string
			if s, msg = st.Norm(s); msg != "" {
				err = p.errf(v, "%s: %s", path, msg)
			}
		}
		if err == nil {
			*f = &s
		}
	default:
		panic(fmt.Sprintf("config: setting %s has a field of type %T", st.Name, f))
	}
	return err
}

// group reads a mapping of the settings of one group.
func (p *parser) group(k *keySpec, vals *Values, path string, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.errf(v, "%s: want a mapping with %s, got %s", path, andList(k.sub), describe(v))
	}
	if err := p.noDuplicates(path, v); err != nil {
		return err
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		j := -1
		if kn.Kind == yaml.ScalarNode {
			j = slices.Index(k.sub, kn.Value)
		}
		if j < 0 {
			return p.unknown(kn, path, k.sub)
		}
		if err := p.setting(k.group[j], vals, path+"."+k.sub[j], vn); err != nil {
			return err
		}
	}
	return nil
}

// keysFor lists the section keys a loop kind has, sorted.
func keysFor(l decide.Loop) []string {
	var out []string
	for k, spec := range sectionKeys {
		if spec.kinds == nil || slices.Contains(spec.kinds, l) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
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
		if spec.kinds != nil && !slices.Contains(spec.kinds, s.Loop) {
			where := id
			if string(s.Loop) != id {
				where = fmt.Sprintf("%s (a %s loop)", id, s.Loop)
			}
			return nil, p.errf(kn, "key %q in %s applies only to %s loops", key, where, joinLoops(spec.kinds))
		}
		if err := p.read(spec, &s.Values, id+"."+key, vn); err != nil {
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

// layers reads a mapping of the layers L1, L2 and L3 to numbers from lo to
// hi.
func (p *parser) layers(path string, v *yaml.Node, lo, hi float64) (map[string]float64, error) {
	if v.Kind != yaml.MappingNode {
		return nil, p.errf(v, "%s: want a mapping of L1, L2 or L3 to target percents, got %s", path, describe(v))
	}
	out := make(map[string]float64, 3)
	lines := make(map[string]int, 3)
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		layer := ""
		if kn.Kind == yaml.ScalarNode {
			layer = normLayer(kn.Value)
		}
		if layer == "" {
			return nil, p.errf(kn, "unknown layer %s in %s (want L1, L2 or L3)", describe(kn), path)
		}
		if line, ok := lines[layer]; ok {
			return nil, p.errf(kn, "duplicate layer %s in %s (first at line %d)", layer, path, line)
		}
		lines[layer] = kn.Line
		t, err := p.numberIn(path+"."+layer, vn, lo, hi)
		if err != nil {
			return nil, err
		}
		out[layer] = *t
	}
	return out, nil
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
