// The tool of a SARIF run: its components and their rules
// (reportingDescriptors), and how a result finds its rule.

package evidence

import (
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
)

// readTool reads tool.driver and tool.extensions with their rules.
func (sr *sarifReader) readTool(run *sarifRun, what string) error {
	s := sr.sc
	err := s.Object(what, "", func(key []byte) error {
		switch string(key) {
		case "driver":
			return sr.readComponent(run, -1, what+".driver")
		case "extensions":
			return s.Array(what, ".extensions", func(i int) error {
				return sr.readComponent(run, i, fmt.Sprintf("%s.extensions[%d]", what, i))
			})
		}
		return s.Skip(3)
	})
	if err != nil {
		return err
	}
	run.toolSeen = true
	return nil
}

// readComponent reads a toolComponent: its name and its rules.
func (sr *sarifReader) readComponent(run *sarifRun, comp int, what string) error {
	s := sr.sc
	return s.Object(what, "", func(key []byte) error {
		var err error
		switch {
		case string(key) == "name" && comp == -1:
			run.driver, err = s.StringVal(what, ".name", sarifMaxField)
		case string(key) == "rules":
			err = sr.readRules(run, comp, what+".rules")
		case string(key) == "globalMessageStrings":
			var m map[string]string
			if m, err = sr.readMessageStrings(run, what+".globalMessageStrings"); err == nil && m != nil {
				if run.global == nil {
					run.global = map[int]map[string]string{}
				}
				run.global[comp] = m
			}
		default:
			err = s.Skip(4)
		}
		return err
	})
}

func (sr *sarifReader) readRules(run *sarifRun, comp int, what string) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	list := run.comps[comp]
	err := s.Array(what, "", func(i int) error {
		if run.rules >= sarifMaxRules {
			sr.extraRules++
			return s.Skip(5)
		}
		rule, err := sr.readRule(run)
		if err != nil {
			return sarifPrefix(err, fmt.Sprintf("%s[%d]", what, i))
		}
		list = append(list, rule)
		run.rules++
		return nil
	})
	if err != nil {
		return err
	}
	run.comps[comp] = list
	// Index by id once the slice stops growing; the first rule of an id wins.
	for i := range list {
		if id := list[i].id; id != "" {
			if _, dup := run.byID[id]; !dup {
				run.byID[id] = &list[i]
			}
		}
	}
	return nil
}

// readRule reads one reportingDescriptor.
func (sr *sarifReader) readRule(run *sarifRun) (sarifRule, error) {
	s := sr.sc
	var rule sarifRule
	var short, full, name string
	err := s.Object("", "rule", func(key []byte) error {
		var err error
		switch string(key) {
		case "id":
			rule.id, err = s.StringVal("", "id", sarifMaxField)
		case "name":
			name, err = s.StringVal("", "name", sarifMaxDesc)
		case "shortDescription":
			short, err = sr.readText("shortDescription")
		case "fullDescription":
			full, err = sr.readText("fullDescription")
		case "messageStrings":
			rule.msgs, err = sr.readMessageStrings(run, "messageStrings")
		case "defaultConfiguration":
			err = sr.readObject("defaultConfiguration", func(k []byte) error {
				if string(k) != "level" {
					return s.Skip(7)
				}
				at := s.Off()
				lv, err := s.StringVal("defaultConfiguration.", "level", 64)
				if err != nil || lv == "" {
					return err
				}
				var known bool
				if rule.level, known = sarifLevel(lv); !known {
					return s.Errorf(at, "unknown defaultConfiguration.level %q (want error, warning, note or none)", lv)
				}
				return nil
			})
		case "properties":
			var sc sarifScore
			if sc, err = sr.readProperties(); err == nil {
				if sev, ok := sc.severity(); ok {
					rule.score, rule.hasScore = sev, true
				} else if sc.bad != "" {
					sr.badScores++
				}
			}
		default:
			err = s.Skip(6)
		}
		return err
	})
	if err != nil {
		return rule, err
	}
	switch {
	case short != "":
		rule.desc = jsonscan.Cap(short, sarifMaxDesc)
	case full != "":
		rule.desc = jsonscan.Cap(full, sarifMaxDesc)
	default:
		rule.desc = name
	}
	return rule, nil
}

// sarifRule is what the reader keeps of one reportingDescriptor.
type sarifRule struct {
	id       string
	desc     string
	level    string // defaultConfiguration.level, lower case; "" when absent
	score    decide.Severity
	hasScore bool
	msgs     map[string]string // messageStrings: id → text
}

// sarifRuleRef names the rule of a result: a tool component (-1 for the
// driver, else an extension index), an index into its rules (-1 when
// absent) and an id.
type sarifRuleRef struct {
	comp  int
	index int
	id    string
}

// lookup finds the rule of a result: by index in its component, else by
// id (a hierarchical id "a/b" falls back to "a"). missing counts results
// that named a rule the run does not have.
func (run *sarifRun) lookup(ref sarifRuleRef, missing *int) *sarifRule {
	if ref.index >= 0 {
		if list := run.comps[ref.comp]; ref.index < len(list) {
			return &list[ref.index]
		}
	}
	if ref.id != "" {
		if r := run.byID[ref.id]; r != nil {
			return r
		}
		if i := strings.IndexByte(ref.id, '/'); i > 0 {
			if r := run.byID[ref.id[:i]]; r != nil {
				return r
			}
		}
	}
	if (ref.index >= 0 || ref.id != "") && run.rules > 0 {
		*missing++
	}
	return nil
}
