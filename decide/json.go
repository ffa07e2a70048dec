package decide

import (
	"bytes"
	"encoding/json"
	"io"
)

// decisionJSON is the decision JSON of DESIGN §8, fields in contract
// order; absent values are null, never omitted. ID, Summary, Movement and
// History extend the contract.
type decisionJSON struct {
	Schema      string        `json:"schema"`
	Loop        Loop          `json:"loop"`
	ID          string        `json:"id"`
	Decision    Outcome       `json:"decision"`
	Verdict     string        `json:"verdict"`
	Forced      bool          `json:"forced"`
	Advisory    bool          `json:"advisory"`
	Stalled     bool          `json:"stalled"`
	Round       int           `json:"round"`
	MaxRounds   int           `json:"max_rounds"`
	Score       *float64      `json:"score"`
	Signal      *string       `json:"signal"`
	Counts      Counts        `json:"counts"`
	Coverage    *float64      `json:"coverage"`
	PassRate    *float64      `json:"pass_rate"`
	Target      *float64      `json:"target"`
	Regressions any           `json:"regressions,omitempty"`
	Tasks       []Task        `json:"tasks"`
	Reasons     []string      `json:"reasons"`
	Notes       []string      `json:"notes"`
	Status      string        `json:"status"`
	Summary     string        `json:"summary,omitempty"`
	Movement    movementJSON  `json:"movement"`
	History     []RoundRecord `json:"history"`
}

// movementJSON is the movement in the decision JSON: since is null, not
// omitted, when nothing persists.
type movementJSON struct {
	Previous   int  `json:"previous"`
	Fixed      int  `json:"fixed"`
	New        int  `json:"new"`
	Persisting int  `json:"persisting"`
	Since      *int `json:"since"`
}

func toMovementJSON(m Movement) movementJSON {
	j := movementJSON{Previous: m.Previous, Fixed: m.Fixed, New: m.New, Persisting: m.Persisting}
	if m.Since > 0 {
		j.Since = &m.Since
	}
	return j
}

// MarshalJSON renders the decision JSON of DESIGN §8.
func (d *Decision) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // reasons say "<" and "≥"; the report escapes for HTML itself
	if err := enc.Encode(d.jsonForm()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// WriteJSON writes the decision JSON, indented by two spaces as
// json.Indent would, with a final newline.
func (d *Decision) WriteJSON(w io.Writer) error {
	compact, err := d.MarshalJSON()
	if err != nil {
		return err
	}
	out := appendIndented(make([]byte, 0, 2*len(compact)+1), compact)
	_, err = w.Write(append(out, '\n'))
	return err
}

// jsonForm is the decision as its JSON has it.
func (d *Decision) jsonForm() decisionJSON {
	j := decisionJSON{
		Schema: DecisionSchema, Loop: d.Loop, ID: d.ID, Decision: d.Outcome, Verdict: d.Verdict,
		Forced: d.Forced, Advisory: d.Advisory, Stalled: d.Stalled, Round: d.Round, MaxRounds: d.MaxRounds,
		Counts: d.Counts, Tasks: nonNil(d.Tasks), Reasons: nonNil(d.Reasons), Notes: nonNil(d.Notes),
		Status: d.Status, Summary: d.Summary, Movement: toMovementJSON(d.Movement), History: nonNil(d.History),
	}
	if d.Loop == Review || d.Loop == Audit {
		j.Score = d.Score
		if d.Signal != "" {
			j.Signal = &d.Signal
		}
	}
	if d.Loop == Coverage {
		j.Coverage, j.PassRate, j.Target = d.Coverage, d.PassRate, d.Target
	}
	if d.Loop == Validation {
		j.Regressions = d.Regressions // a nil *int encodes as null
	}
	if j.Status == "" {
		j.Status = StatusComplete
	}
	return j
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
