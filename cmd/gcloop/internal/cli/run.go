package cli

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gcloop/gcloop"
	"github.com/gcloop/gcloop/bot/action"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/wfcmd"
	"github.com/sethvargo/go-githubactions"
)

// inputUsage is an input's flag help: action.yml's description, wrapped,
// then its default (a workflow expression shown as the runner's) and its
// variable.
func inputUsage(name string, d action.InputDoc) string {
	var b strings.Builder
	line := 0
	// No backquotes: the flag package would take the first quoted word
	// for the value's name.
	for _, w := range strings.Fields(strings.ReplaceAll(d.Description, "`", "")) {
		if line > 0 && line+1+len(w) > 72 {
			b.WriteString("\n")
			line = 0
		} else if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	if d.Default != "" {
		fmt.Fprintf(&b, "Default in the action: %s. ", d.Default)
	}
	fmt.Fprintf(&b, "Environment: INPUT_%s.", strings.ToUpper(name))
	return b.String()
}

// multiFlag collects a flag given several times as lines.
type multiFlag struct {
	vals []string
	set  bool
}

func (m *multiFlag) String() string { return strings.Join(m.vals, "\n") }
func (m *multiFlag) Set(s string) error {
	m.vals, m.set = append(m.vals, s), true
	return nil
}

// runAction runs `gcloop run`: the GitHub Action. Inputs come from flags of
// the inputs' names when given, else from INPUT_<NAME> as the runner sets
// them (hyphens kept).
func runAction(env *Env, args []string) error {
	fs := newFlagSet("run", env)
	flags := map[string]*multiFlag{}
	docs, err := action.Docs(gcloop.ActionYAML)
	if err != nil {
		return err
	}
	for _, name := range action.InputNames {
		if name == "dry-run" {
			continue
		}
		m := &multiFlag{}
		flags[name] = m
		fs.Var(m, name, inputUsage(name, docs[name]))
	}
	dry := fs.Bool("dry-run", false, "print the comment, issues and commit the run would make; needs no token")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gcloop run [--dry-run] [--INPUT VALUE ...]")
		fmt.Fprintln(fs.Output(), "\nRuns the GitHub Action: each input is a flag of its name, or INPUT_<NAME> as the runner sets it.")
		fs.PrintDefaults()
	}
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(rest) > 0 {
		return usagef("run: unexpected argument %q", rest[0])
	}
	a := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(env.Stdout))
	get := func(name string) string {
		if m := flags[name]; m != nil && m.set {
			return strings.TrimSpace(m.String())
		}
		if name == "dry-run" && *dry {
			return "true"
		}
		return a.GetInput(name)
	}
	asAction := env.Getenv("GITHUB_ACTIONS") == "true"
	opts, err := action.Gather(get)
	if err != nil {
		var ies action.InputErrors
		if asAction && errors.As(err, &ies) {
			// One annotation per input, so the runner shows each.
			for _, ie := range ies {
				a.WithFieldsMap(map[string]string{"title": "gcloop: input " + ie.Name}).Errorf("%s", ie.Error())
			}
		}
		return usagef("run: %v", err)
	}
	// The progress log: on stdout beside the runner's workflow commands
	// in the action; on stderr by hand, where stdout is the dry run's.
	logw := env.Stderr
	if asAction {
		logw = env.Stdout
	}
	lg := action.NewLog(logw, asAction)
	defer lg.End()
	lg.LogInputs(opts)
	c, err := action.ReadContext(env.Getenv)
	if err != nil {
		return err
	}
	if c.Workspace == "" {
		c.Workspace = "."
	}
	// gcloop's identity is resolved by the runner from the token and the
	// bot-login input (bot/identity), at most one request, never in a
	// dry run.
	r := &action.Runner{Opts: opts, Ctx: c, Out: env.Stdout, Log: lg, Now: time.Now, Plain: &http.Client{Timeout: 5 * time.Minute}}
	if opts.StateKey != "" && c.OutputPath != "" {
		a.AddMask(opts.StateKey)
	}
	if !opts.DryRun {
		if opts.Token == "" {
			msg := "input token is empty: give the token input (default ${{ github.token }}), or --dry-run"
			if asAction {
				a.WithFieldsMap(map[string]string{"title": "gcloop: input token"}).Errorf("%s", msg)
			}
			return usagef("run: %s", msg)
		}
		if c.OutputPath != "" {
			a.AddMask(opts.Token)
		}
		gh, err := ghclient.New(ghclient.Options{Token: opts.Token, BaseURL: c.APIURL, UserAgent: "gcloop/" + Version()})
		if err != nil {
			return err
		}
		r.GH = gh
	}
	res, err := r.Run(env.Ctx)
	lg.End()
	if err != nil {
		var nd *decide.NoDecisionError
		if errors.As(err, &nd) || errors.Is(err, action.ErrNoPull) {
			if c.OutputPath != "" {
				a.Errorf("%s", oneLine(err.Error()))
			}
		}
		return err
	}
	for _, n := range res.Notes {
		lg.Note(n) // once: those met while reading are already printed
	}
	if res.Decision == nil { // a comment event: a /gc command or nothing
		return nil
	}
	if res.APIError != nil {
		fmt.Fprintln(env.Stderr, "gcloop: GitHub API:", wfcmd.Escape(oneLine(res.APIError.Error())))
		if c.OutputPath != "" {
			a.Errorf("gcloop: GitHub API unavailable, decision partial: %s", oneLine(res.APIError.Error()))
		}
	}
	// The files go under .gcloop/<id>/ in the workspace, the one directory
	// the next steps share with a Docker action, and the outputs carry
	// their workspace-relative paths; a run by hand writes them to a
	// temporary directory and gives absolute paths.
	outRoot, byHand, err := action.OutputRoot(env.Getenv("GITHUB_WORKSPACE"))
	if err != nil {
		return err
	}
	files, err := action.WriteFiles(outRoot, res)
	if err != nil {
		return err
	}
	if byHand {
		files = files.In(outRoot)
	}
	if opts.DryRun {
		action.PrintDryRun(env.Stdout, res)
	}
	if err := action.Publish(a, c, res, files, env.Stderr); err != nil {
		var fc *action.FileCommandError
		if errors.As(err, &fc) {
			// The workflow command goes to stdout, which the runner reads
			// even when the file commands cannot be written.
			a.Errorf("gcloop: %s", oneLine(err.Error()))
		}
		return err
	}
	if opts.Discoveries != "" {
		if err := action.AppendDiscoveries(c.Workspace, opts.Discoveries, res); err != nil {
			return err
		}
	}
	return failOn(opts.FailOn, res.Decision)
}
