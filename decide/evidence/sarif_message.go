// SARIF messages: text, or a message string given by id with its
// {0}, {1}… placeholders filled from arguments.

package evidence

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
)

// sarifMessage is what the reader keeps of a message object.
type sarifMessage struct {
	text string   // text, else markdown
	id   string   // the id of a message string, when given by id
	args []string // arguments for the placeholders (at most sarifMaxArgs)
}

// readMessage reads a message or multiformatMessageString: its text (else
// markdown), id and arguments.
func (sr *sarifReader) readMessage(field string) (sarifMessage, error) {
	s := sr.sc
	var m sarifMessage
	var md string
	err := sr.readObject(field, func(k []byte) error {
		var err error
		switch string(k) {
		case "text":
			m.text, err = s.StringValOf(field, ".text", sarifMaxMessage, sr.textOf())
		case "markdown":
			md, err = s.StringValOf(field, ".markdown", sarifMaxMessage, sr.textOf())
		case "id":
			m.id, err = s.StringVal(field, ".id", sarifMaxField)
		case "arguments":
			if null, err := s.Null(); null || err != nil {
				return err
			}
			err = s.Array(field, ".arguments", func(i int) error {
				a, err := s.StringVal(field, fmt.Sprintf(".arguments[%d]", i), sarifMaxField)
				if err == nil && len(m.args) < sarifMaxArgs {
					m.args = append(m.args, a)
				}
				return err
			})
		default:
			err = s.Skip(8)
		}
		return err
	})
	if m.text = strings.TrimSpace(m.text); m.text == "" {
		m.text = strings.TrimSpace(md)
	}
	return m, err
}

// textOf is how readMessage makes a text's string: borrowed from the
// part's buffer on a worker of the split reading (borrowText), else a
// string of its own (nil).
func (sr *sarifReader) textOf() func([]byte) string {
	if sr.texts == nil {
		return nil
	}
	return sr.borrowText
}

// borrowText copies b into the part's text buffer and returns a string
// over those bytes, without an allocation of its own: most results are
// neither kept nor new, and allocating each message cost a sixth of a
// compact log's read. The string is valid only until the part is used
// again (cutPart hands parts round), so commit gives a finding it keeps
// a string of its own (sarifPrepared.borrowed).
func (sr *sarifReader) borrowText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	start := len(*sr.texts)
	*sr.texts = append(*sr.texts, b...)
	return unsafe.String(&(*sr.texts)[start], len(b))
}

// readText reads a multiformatMessageString for its text (else markdown).
func (sr *sarifReader) readText(field string) (string, error) {
	m, err := sr.readMessage(field)
	return m.text, err
}

// readMessageStrings reads a map of id → multiformatMessageString. What is
// kept counts against the run's sarifMaxStrings budget.
func (sr *sarifReader) readMessageStrings(run *sarifRun, field string) (map[string]string, error) {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return nil, err
	}
	var out map[string]string
	err := s.Object("", field, func(key []byte) error {
		id := string(key)
		text, err := sr.readText(field + "." + jsonscan.Cap(id, 64))
		if err != nil || text == "" {
			return err
		}
		if run.strBytes += len(id) + len(text); run.strBytes > sarifMaxStrings {
			sr.extraStrings++
			return nil
		}
		if out == nil {
			out = map[string]string{}
		}
		out[id] = text
		return nil
	})
	return out, err
}

// sarifFillMessage sets a result's message (SARIF §3.11): its text, else
// the message string its id names — the rule's messageStrings, else the
// globalMessageStrings of the rule's tool component (comp, -1 for the
// driver) — with the placeholders filled from its arguments. A message
// that cannot be resolved falls back to the rule's description, the id,
// the rule id.
func sarifFillMessage(f *decide.Finding, m sarifMessage, comp int, rule *sarifRule, run *sarifRun) {
	text := m.text
	if text == "" && m.id != "" {
		if rule != nil {
			text = rule.msgs[m.id]
		}
		if text == "" {
			text = run.global[comp][m.id]
		}
	}
	if text != "" {
		if len(m.args) > 0 {
			text = sarifFormat(text, m.args)
		}
		f.Message = jsonscan.Cap(text, sarifMaxMessage)
		return
	}
	switch {
	case rule != nil && rule.desc != "":
		f.Message = rule.desc
	case m.id != "":
		f.Message = m.id
	case f.Rule != "":
		f.Message = f.Rule
	default:
		f.Message = "(no message)"
	}
}

// sarifFormat fills the placeholders {0}, {1}… of a SARIF message string
// from args (SARIF §3.11.5); "{{" and "}}" stand for literal braces, and a
// placeholder without its argument is left as written.
func sarifFormat(s string, args []string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c:
			b.WriteByte(c)
			i++
		case c == '{':
			j := i + 1
			for j < len(s) && j-i <= 3 && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == '}' {
				if n, _ := strconv.Atoi(s[i+1 : j]); n < len(args) {
					b.WriteString(args[n])
					i = j
					continue
				}
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		if b.Len() > sarifMaxMessage {
			break
		}
	}
	return b.String()
}
