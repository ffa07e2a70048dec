package cli

import (
	"bytes"
	"context"
	"github.com/gcloop/gcloop"
	"github.com/gcloop/gcloop/bot/action"
	"strings"
	"testing"
)

// TestHelpAndUsageStreams: -h and --help print usage on stdout with exit 0
// for every command, without needing git or sh; a usage mistake prints on
// stderr with exit 2.
func TestHelpAndUsageStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		code       int
		wantStdout string // a line stdout must hold; "" = stdout empty
		wantStderr string // a line stderr must hold; "" = stderr empty
	}{
		{[]string{"--help"}, exitOK, "Usage:", ""},
		{[]string{"-h"}, exitOK, "Usage:", ""},
		{[]string{"decide", "--help"}, exitOK, "Usage: gcloop decide [flags] EVIDENCE...", ""},
		{[]string{"decide", "-h"}, exitOK, "Usage: gcloop decide [flags] EVIDENCE...", ""},
		{[]string{"decide", "r.json", "--help"}, exitOK, "Usage: gcloop decide [flags] EVIDENCE...", ""},
		{[]string{"coverage", "--help"}, exitOK, "  gcloop coverage guard  [--base REV] [--before RESULTS] [--after RESULTS] [--patterns GLOB,...]", ""},
		{[]string{"coverage", "report", "--help"}, exitOK, "Usage: gcloop coverage report [--format json|markdown] [--files worst|all] FILE...", ""},
		{[]string{"coverage", "guard", "-h"}, exitOK, "Usage: gcloop coverage guard [--base REV] [--before RESULTS] [--after RESULTS] [--patterns GLOB,...]", ""},
		{[]string{"coverage", "cycle", "--help"}, exitOK, "Usage: gcloop coverage cycle --test CMD --fix CMD --coverage FILE [--junit FILE] [--target P] [--round N]", ""},
		{[]string{"run", "--help"}, exitOK, "Usage: gcloop run [--dry-run] [--INPUT VALUE ...]", ""},
		{[]string{"version", "--help"}, exitOK, "Usage: gcloop version", ""},
		{[]string{"bot", "--help"}, exitOK, "Usage: gcloop bot [--listen ADDR] [flags]", ""},
		{[]string{"bot", "-h"}, exitOK, "  --listen                 GCLOOP_LISTEN", ""},
		{[]string{"bot", "--bogus"}, exitUsage, "", "flag provided but not defined: -bogus"},
		{[]string{"bot", "x"}, exitUsage, "", `gcloop: bot: unexpected argument "x"`},
		{[]string{"bot", "redeliver"}, exitUsage, "", "gcloop: bot redeliver: want one delivery id, got 0 arguments"},
		{[]string{"bot", "redeliver", "d-1"}, exitNoResult, "", "gcloop: bot redeliver: GCLOOP_DATABASE_URL is not set: the in-memory store lives in the bot's process; redeliver from the dashboard, or run the bot on PostgreSQL"},
		{[]string{"bot"}, exitUsage, "", "gcloop: bot: GCLOOP_WEBHOOK_SECRET is not set: the bot refuses to start without the webhook secret set in the GitHub App's settings"},
		{[]string{"bot", "--webhook-secret", "s", "--gcloop_token", "t", "--repository", "shop"}, exitUsage, "", `gcloop: bot: GCLOOP_REPOSITORY "shop": want owner/name`},
		{[]string{}, exitUsage, "", "Usage:"},
		{[]string{"decide", "--bogus", "r.json"}, exitUsage, "", "flag provided but not defined: -bogus"},
		{[]string{"coverage", "report", "--bogus"}, exitUsage, "", "Usage: gcloop coverage report [--format json|markdown] [--files worst|all] FILE..."},
		{[]string{"run", "--bogus"}, exitUsage, "", "flag provided but not defined: -bogus"},
		{[]string{"version", "x"}, exitUsage, "", `gcloop: version: unexpected argument "x"`},
		{[]string{"coverage", "frob"}, exitUsage, "", `gcloop: coverage: unknown subcommand "frob" (want report, guard or cycle)`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			noTools := func(string) string { return "" } // no PATH: help needs no git
			code := Main(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, noTools)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tt.code, stderr.String())
			}
			check := func(name, got, want string) {
				if want == "" {
					if got != "" {
						t.Errorf("%s %q, want nothing", name, got)
					}
					return
				}
				if !strings.Contains("\n"+got, "\n"+want+"\n") {
					t.Errorf("%s has no line %q:\n%s", name, want, got)
				}
			}
			check("stdout", stdout.String(), tt.wantStdout)
			check("stderr", stderr.String(), tt.wantStderr)
		})
	}
}

// `gcloop run --help` says what each input does, in action.yml's words.
func TestRunHelpDescribesEveryInput(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"run", "--help"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	help := stdout.String()
	docs, err := action.InputDocs(gcloop.ActionYAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range action.InputNames {
		d, ok := docs[name]
		if !ok || d.Description == "" {
			t.Errorf("input %s: no description in action.yml", name)
			continue
		}
		if name == "dry-run" {
			continue // the flag of its own
		}
		first := strings.Fields(strings.ReplaceAll(d.Description, "`", ""))
		block := help[strings.Index(help, "  -"+name+" "):]
		if !strings.Contains(block, "Environment: INPUT_"+strings.ToUpper(name)+".") || !strings.HasPrefix(strings.TrimSpace(block[strings.Index(block, "\n"):]), strings.Join(first[:min(3, len(first))], " ")) {
			t.Errorf("input %s: the help does not describe it:\n%.300s", name, block)
		}
	}
}
