// Package demo is `gcloop bot --demo`: the real bot against the fake
// GitHub of bot/ghfake, started in process on loopback, with a GitHub App
// installed on two sample repositories whose pull requests go through a
// scripted day of rounds — a fix round that opens fix issues, a push and a
// converged round, an escalation at the round cap, a maintainer's /gc
// retry and /gc approve — sent as signed webhook deliveries to the bot's
// own /webhook, so that the dashboard shows loops moving within seconds.
// Nothing leaves the machine: no token, no secret, no GitHub.
//
// The package has three parts: the world (world.go: the fake, its
// repositories and the payloads GitHub would send), the script
// (script.go: the day, step by step, each with the effect it must have on
// the fake) and the runner (run.go, demo.go: the bot, the deliveries, the
// pace).
package demo

import (
	"crypto/rand"
	"crypto/rsa"
	"embed"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// The world's names.
const (
	Org        = "acme"
	Shop       = "shop" // a review loop: max_rounds 2
	API        = "api"  // a validation loop
	AppID      = 4711
	AppSlug    = "gcloop-demo"
	Install    = 7
	Maintainer = "mona"   // may run /gc commands (maintain)
	Developer  = "hubber" // opens the pull requests and pushes
	// ActionToken is the fake's token for `gcloop run` (the action) on
	// the pull request Try, as a workflow's GITHUB_TOKEN would be.
	ActionToken = "ghs_gcloopdemoactiontoken"
	ActionLogin = "github-actions[bot]"
)

// Bot is the login the App's comments carry.
const Bot = AppSlug + "[bot]"

//go:embed samples/*.json
var samples embed.FS

// sample returns an embedded evidence file.
func sample(name string) []byte {
	b, err := samples.ReadFile("samples/" + name)
	if err != nil {
		panic(fmt.Sprintf("demo: sample %s is not embedded: %v", name, err)) // a build mistake
	}
	return b
}

const shopConfig = `# The demo's review loop: two critic rounds, then a person decides.
review:
  max_rounds: 2
  threshold: 7
  dispatch: review.yml
  commands:
    permission: maintain
  bot:
    artifacts: [review-results]
`

const apiConfig = `# The demo's validation loop.
validation:
  max_rounds: 3
  dispatch: validate.yml
  commands:
    permission: maintain
  bot:
    artifacts: [validation-report]
`

// Pull is one of the world's pull requests.
type Pull struct {
	Repo   string // name, under Org
	Number int
	Branch string
	Title  string
	loop   string // the loop's workflow: review or validation

	mu   sync.Mutex
	head string // the branch's newest commit
	push int    // pushes so far, for the commits' contents
}

// Head is the pull request's newest commit.
func (p *Pull) Head() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.head
}

// String names the pull request as the dashboard does: acme/shop#1.
func (p *Pull) String() string { return fmt.Sprintf("%s/%s#%d", Org, p.Repo, p.Number) }

// World is the fake GitHub with the demo's App, repositories and pull
// requests.
type World struct {
	GH  *ghfake.Server
	Key *rsa.PrivateKey // the App's private key, made for this run

	Cart   *Pull // acme/shop: findings, a push, converged
	Search *Pull // acme/shop: findings twice, escalated, /gc retry, converged
	Login  *Pull // acme/api: a failing validation, /gc approve
	Try    *Pull // acme/shop: left to the reader's `gcloop run`
}

// NewWorld starts the fake GitHub on loopback and builds the world: an App
// with a key made now, installed on acme, two repositories with their
// configuration and workflows, three pull requests, a maintainer.
func NewWorld() (*World, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("make the App's key: %w", err)
	}
	gh, err := ghfake.Start()
	if err != nil {
		return nil, fmt.Errorf("start the fake GitHub: %w", err)
	}
	w := &World{GH: gh, Key: key}
	gh.AddApp(ghfake.AppSpec{ID: AppID, Slug: AppSlug, Name: "gcloop (demo)", Owner: Org, Key: &key.PublicKey})
	gh.AddInstallation(AppID, Install, Org)

	main := w.addRepo(Shop, 501, shopConfig, "review.yml")
	w.Cart = w.addPull(Shop, main, "feature/cart", "Cart: checkout with saved cards", "review",
		map[string][]byte{"src/auth/jwt.ts": []byte("export const verify = (t: string) => decode(t);\n")})
	w.Search = w.addPull(Shop, main, "feature/search", "Search: incremental index", "review",
		map[string][]byte{"src/search/index.ts": []byte("export function rebuild() {}\n")})
	w.Try = w.addPull(Shop, main, "docs/try", "Docs: try the action on the fake", "review",
		map[string][]byte{"docs/try.md": []byte("# Try\n")})
	gh.AddToken(ActionToken, ActionLogin, true)
	main = w.addRepo(API, 502, apiConfig, "validate.yml")
	w.Login = w.addPull(API, main, "fix/login-timeout", "Login: fix the session timeout", "validation",
		map[string][]byte{"session.go": []byte("package api\n\nconst sessionTimeout = 30 * 60\n")})
	return w, nil
}

// Close stops the fake and returns the requests it found GitHub would
// refuse, if any.
func (w *World) Close() error { return w.GH.Close() }

func (w *World) addRepo(name string, id int64, config, workflow string) string {
	w.GH.AddRepo(Org, name, id, "main")
	w.GH.AddWorkflow(Org, name, workflow)
	files := map[string][]byte{"README.md": []byte("# " + name + "\n"), ".github/gcloop.yml": []byte(config)}
	base := w.GH.AddCommit(Org, name, "main", files)
	w.GH.AddFile(Org, name, "main", ".github/gcloop.yml", []byte(config))
	w.GH.SetPermission(Org, name, Maintainer, "maintain")
	w.GH.SetPermission(Org, name, Developer, "write")
	return base
}

func (w *World) addPull(repo, base, branch, title, loop string, files map[string][]byte) *Pull {
	head := w.GH.AddCommit(Org, repo, branch, files, base)
	n := w.GH.AddPull(Org, repo, ghfake.PullSpec{Title: title, User: Developer, HeadSHA: head, HeadRef: branch, BaseSHA: base})
	return &Pull{Repo: repo, Number: n, Branch: branch, Title: title, loop: loop, head: head}
}

// Push adds a commit to the pull request's branch, as its developer's
// fix would.
func (w *World) Push(p *Pull) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.push++
	note := fmt.Sprintf("// fixed in push %d\n", p.push)
	p.head = w.GH.AddCommit(Org, p.Repo, p.Branch, map[string][]byte{"FIXES.md": []byte(note)}, p.head)
	return p.head
}

// newID is a delivery id, unique as GitHub's are.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
