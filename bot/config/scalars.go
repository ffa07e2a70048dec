package config

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

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
