package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/gcloop/gcloop/internal/wfcmd"
)

// decideOptions are the flags of `gcloop decide` (DESIGN §8).
type decideOptions struct {
	loop, id, sha, state, stateOut, config, format, failOn string
	round                                                  int
	set                                                    map[string]bool
	evidence                                               []string
	// overrides are the loop settings the flags give; they layer over
	// the configuration file.
	overrides config.Overrides
}

func parseDecideFlags(env *Env, args []string) (*decideOptions, error) {
	o := &decideOptions{}
	fs := newFlagSet("decide", env)
	fs.StringVar(&o.loop, "loop", "", "loop kind: review, critique, audit, validation or coverage (sniffed from the evidence when absent)")
	fs.StringVar(&o.id, "id", "", "loop id (default: the loop kind)")
	fs.IntVar(&o.round, "round", 0, "round to decide (default: from --state, else 1)")
	settings := settingFlags(fs)
	fs.StringVar(&o.sha, "sha", "", "head sha of the round (the same sha as the last round re-decides it)")
	fs.StringVar(&o.state, "state", "", "state file with the loop's history (missing: a fresh loop)")
	fs.StringVar(&o.stateOut, "state-out", "", "write the updated state to this file")
	fs.StringVar(&o.config, "config", "", "configuration file (.github/gcloop.yml)")
	fs.StringVar(&o.format, "format", "markdown", "output format: markdown or json")
	fs.StringVar(&o.failOn, "fail-on", "never", "exit 3 when the decision matches: never, fix or escalate")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gcloop decide [flags] EVIDENCE...")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, flagError(err)
	}
	o.evidence = pos
	o.overrides = settings()
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	switch {
	case len(o.evidence) == 0:
		return nil, usagef("decide: no evidence files given")
	case o.format != "markdown" && o.format != "json":
		return nil, usagef("decide: --format %q: want markdown or json", o.format)
	case o.failOn != "never" && o.failOn != "fix" && o.failOn != "escalate":
		return nil, usagef("decide: --fail-on %q: want never, fix or escalate", o.failOn)
	case o.set["round"] && o.round < 1:
		return nil, usagef("decide: --round %d: rounds start at 1", o.round)
	case o.id != "" && !decide.ValidID(o.id):
		return nil, usagef("decide: --id %q: %s", o.id, decide.IDRule)
	}
	if o.loop != "" {
		l, err := decide.ParseLoop(o.loop)
		if err != nil {
			return nil, usagef("decide: --loop: %v", err)
		}
		o.loop = string(l)
	}
	return o, nil
}

func runDecide(env *Env, args []string) error {
	o, err := parseDecideFlags(env, args)
	if err != nil {
		return err
	}
	st, stateNote, err := loadState(o.state)
	if err != nil {
		return err
	}
	pieces, err := evidence.ReadPaths(o.evidence, decide.Loop(o.loop))
	if err != nil {
		return err
	}
	ev, err := decide.Merge(pieces...)
	if err != nil {
		return err
	}
	var file *config.File
	if o.config != "" {
		if file, err = readConfigFile(o.config); err != nil {
			return err
		}
	}
	p, err := round.Decide(round.DecideInput{Loop: decide.Loop(o.loop), ID: o.id, Evidence: ev, File: file,
		Overrides: o.overrides, State: st, SHA: o.sha, Round: o.round, Now: now(env)})
	var (
		nd  *decide.NoDecisionError
		pe  *parse.Error
		sle *round.SeveralLoopsError
		me  *round.MismatchError
	)
	switch {
	case err == nil:
	case errors.As(err, &nd), errors.As(err, &pe):
		return err
	case errors.As(err, &sle):
		return usagef("decide: the evidence speaks for several loops (%s): choose one with --loop", strings.Join(sle.Loops, ", "))
	case errors.As(err, &me):
		return fmt.Errorf("state %s holds loop %s (id %s), not %s (id %s)", o.state, me.Loop, me.ID, me.WantLoop, me.WantID)
	default:
		return usagef("decide: %v", err)
	}
	d := p.Decision
	if stateNote != "" {
		d.Notes = append(d.Notes, stateNote)
	}
	if err := writeDecision(env, d, o.format); err != nil {
		return err
	}
	if o.stateOut != "" {
		st := p.State
		st.MaxRounds = p.Settings.Config.MaxRounds
		st.Record(d.Record())
		st.RecordFiles(d.Round, d.Files)
		if p.Final != "" {
			st.Status = p.Final
		}
		if err := writeState(o.stateOut, st); err != nil {
			return err
		}
	}
	return failOn(o.failOn, d)
}

// loadState reads a state file: a missing file is a fresh loop, a corrupt
// one starts from round 1 with a note.
func loadState(path string) (*decide.State, string, error) {
	if path == "" {
		return nil, "", nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read state %s: %w", path, err)
	}
	defer f.Close()
	st, err := decide.DecodeState(f)
	if err != nil {
		return nil, fmt.Sprintf("state %s unreadable (%v): started from round 1", path, err), nil
	}
	return st, "", nil
}

func writeState(path string, st *decide.State) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := st.Encode(f); err != nil {
		f.Close()
		return fmt.Errorf("write state %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write state %s: %w", path, err)
	}
	return nil
}

func writeDecision(env *Env, d *decide.Decision, format string) error {
	if format == "json" {
		return d.WriteJSON(env.Stdout)
	}
	md, err := report.Markdown(d, report.Options{})
	if err != nil {
		return err
	}
	return wfcmd.WriteBlock(env.Stdout, md) // the report holds evidence text
}

// failOn returns exit 3 when the decision matches --fail-on.
func failOn(mode string, d *decide.Decision) error {
	if (mode == "escalate" && d.Outcome == decide.Escalate) || (mode == "fix" && d.Outcome != decide.Converge) {
		return &exitError{code: exitFailOn, msg: fmt.Sprintf("decision %s (%s) matches --fail-on %s", d.Outcome, d.Verdict, mode)}
	}
	return nil
}

// now is the decision time: SOURCE_DATE_EPOCH when set (reproducible
// output), else the clock.
func now(env *Env) time.Time {
	if s := env.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return env.Now().UTC().Truncate(time.Second)
}
