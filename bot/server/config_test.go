package server

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// testKeyPEM is an App's private key.
func testKeyPEM() string { return string(ghfake.KeyPEM(ghfake.AppKeys()[0])) }

// testSecret is a webhook secret long enough for Gather.
const testSecret = "test-webhook-secret-0123456789"

func TestGather(t *testing.T) {
	t.Parallel()
	key := testKeyPEM()
	files := map[string][]byte{"/keys/app.pem": []byte(key), "/keys/junk.pem": []byte("junk")}
	readFile := func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return b, nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	tokenMode := map[string]string{"GCLOOP_WEBHOOK_SECRET": testSecret, "GCLOOP_TOKEN": "ghp_x", "GCLOOP_REPOSITORY": "octo/shop"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	appMode := map[string]string{"GCLOOP_WEBHOOK_SECRET": testSecret, "GCLOOP_APP_ID": "123", "GCLOOP_APP_PRIVATE_KEY_FILE": "/keys/app.pem"}
	tests := []struct {
		name  string
		env   map[string]string
		want  []string // each a line of the error; none: valid
		check func(t *testing.T, c *Config)
	}{
		{"a secret and a token are enough", tokenMode, nil, func(t *testing.T, c *Config) {
			if c.Listen != ":8080" || c.Workers != 4 || c.App() || c.Repository != "octo/shop" || c.ArtifactBudget != 64<<20 {
				t.Errorf("config = %+v", c)
			}
		}},
		{"an App with a key file", appMode, nil, func(t *testing.T, c *Config) {
			if !c.App() || c.AppID != 123 || c.Key == nil {
				t.Errorf("config = %+v", c)
			}
		}},
		{"an App with the key inline", map[string]string{"GCLOOP_WEBHOOK_SECRET": testSecret, "GCLOOP_APP_ID": "7", "GCLOOP_APP_PRIVATE_KEY": key}, nil, nil},
		{"every optional setting", with(tokenMode, "GCLOOP_LISTEN", "127.0.0.1:0", "GITHUB_API_URL", "https://ghe.example.com/api/v3",
			"GCLOOP_DATABASE_URL", "postgres://u@db/gcloop", "GCLOOP_OAUTH_CLIENT_ID", "Iv1.x", "GCLOOP_OAUTH_CLIENT_SECRET", "y",
			"GCLOOP_PUBLIC_URL", "https://gcloop.example.com", "GCLOOP_ALLOWED_ORIGINS", " https://a.example , b.example:8443,", "GCLOOP_WORKERS", "8", "GCLOOP_LEASE", "90s"),
			nil, func(t *testing.T, c *Config) {
				if len(c.AllowedOrigins) != 2 || c.AllowedOrigins[1] != "b.example:8443" || c.Workers != 8 || c.DatabaseURL == "" || c.Lease != 90*time.Second {
					t.Errorf("config = %+v", c)
				}
			}},
		{"no secret", with(tokenMode, "GCLOOP_WEBHOOK_SECRET", ""), []string{"GCLOOP_WEBHOOK_SECRET is not set: the bot refuses to start"}, nil},
		{"nothing at all", map[string]string{}, []string{"GCLOOP_WEBHOOK_SECRET is not set", "no GitHub credentials"}, nil},
		{"a token without a repository serves any", with(tokenMode, "GCLOOP_REPOSITORY", ""), nil, func(t *testing.T, c *Config) {
			if c.Repository != "" || c.Token != "ghp_x" {
				t.Errorf("config = %+v", c)
			}
		}},
		{"a repository that is not owner/name", with(tokenMode, "GCLOOP_REPOSITORY", "shop"), []string{`GCLOOP_REPOSITORY "shop": want owner/name`}, nil},
		{"an App and a token", with(appMode, "GCLOOP_TOKEN", "t"), []string{"both set"}, nil},
		{"an App id that is not a number", with(appMode, "GCLOOP_APP_ID", "my-app"), []string{`GCLOOP_APP_ID "my-app": want the App's numeric id`}, nil},
		{"a key without an App id", with(appMode, "GCLOOP_APP_ID", ""), []string{"GCLOOP_APP_ID is not set"}, nil},
		{"an App id without a key", with(appMode, "GCLOOP_APP_PRIVATE_KEY_FILE", ""), []string{"GCLOOP_APP_PRIVATE_KEY or GCLOOP_APP_PRIVATE_KEY_FILE is needed"}, nil},
		{"a missing key file", with(appMode, "GCLOOP_APP_PRIVATE_KEY_FILE", "/keys/none.pem"), []string{"GCLOOP_APP_PRIVATE_KEY_FILE: open /keys/none.pem"}, nil},
		{"a key file that holds no key", with(appMode, "GCLOOP_APP_PRIVATE_KEY_FILE", "/keys/junk.pem"), []string{"GCLOOP_APP_PRIVATE_KEY_FILE /keys/junk.pem: private key: no PEM block"}, nil},
		{"both key settings", with(appMode, "GCLOOP_APP_PRIVATE_KEY", key), []string{"GCLOOP_APP_PRIVATE_KEY and GCLOOP_APP_PRIVATE_KEY_FILE are both set"}, nil},
		{"an App limited to a repository", with(appMode, "GCLOOP_REPOSITORY", "o/r"), []string{"only a token is limited to one repository"}, nil},
		{"a listen address without a port", with(tokenMode, "GCLOOP_LISTEN", "localhost"), []string{`GCLOOP_LISTEN "localhost": want host:port`}, nil},
		{"a listen port out of range", with(tokenMode, "GCLOOP_LISTEN", ":99999"), []string{`port "99999" is not a number from 0 to 65535`}, nil},
		{"a relative API URL", with(tokenMode, "GITHUB_API_URL", "api.github.com"), []string{`GITHUB_API_URL "api.github.com": want an absolute http(s) URL`}, nil},
		{"a database URL of another kind", with(tokenMode, "GCLOOP_DATABASE_URL", "mysql://db"), []string{"GCLOOP_DATABASE_URL: want a postgres:// URL"}, nil},
		{"an OAuth id without its secret", with(tokenMode, "GCLOOP_OAUTH_CLIENT_ID", "x", "GCLOOP_PUBLIC_URL", "https://x.example"), []string{"go together"}, nil},
		{"OAuth without a public URL", with(tokenMode, "GCLOOP_OAUTH_CLIENT_ID", "x", "GCLOOP_OAUTH_CLIENT_SECRET", "y"), []string{"GCLOOP_PUBLIC_URL is not set"}, nil},
		{"a public URL that is not one", with(tokenMode, "GCLOOP_PUBLIC_URL", "/bot"), []string{`GCLOOP_PUBLIC_URL "/bot"`}, nil},
		{"a lease too short", with(tokenMode, "GCLOOP_LEASE", "10ms"), []string{`GCLOOP_LEASE "10ms": want a duration from 1s to 1h`}, nil},
		{"a lease without a unit", with(tokenMode, "GCLOOP_LEASE", "60"), []string{`GCLOOP_LEASE "60"`}, nil},
		{"a short dashboard token", with(tokenMode, "GCLOOP_DASHBOARD_TOKEN", "secret"), []string{"GCLOOP_DASHBOARD_TOKEN is too short"}, nil},
		{"an artifact budget", with(tokenMode, "GCLOOP_ARTIFACT_BUDGET", "32MiB"), nil, func(t *testing.T, c *Config) {
			if c.ArtifactBudget != 32<<20 {
				t.Errorf("artifact budget = %d, want 32 MiB", c.ArtifactBudget)
			}
		}},
		{"an artifact budget in decimal units", with(tokenMode, "GCLOOP_ARTIFACT_BUDGET", "64MB"), []string{`GCLOOP_ARTIFACT_BUDGET "64MB": want a size from 1MiB to 4GiB, such as 64MiB`}, nil},
		{"an artifact budget too small", with(tokenMode, "GCLOOP_ARTIFACT_BUDGET", "512KiB"), []string{`GCLOOP_ARTIFACT_BUDGET "512KiB"`}, nil},
		{"zero workers", with(tokenMode, "GCLOOP_WORKERS", "0"), []string{`GCLOOP_WORKERS "0": want a number from 1 to 256`}, nil},
		{"a short webhook secret", with(tokenMode, "GCLOOP_WEBHOOK_SECRET", "s3cret"),
			[]string{"GCLOOP_WEBHOOK_SECRET is too short (6 characters, want at least 20): make one with `openssl rand -hex 32`"}, nil},
		{"a webhook secret one short", with(tokenMode, "GCLOOP_WEBHOOK_SECRET", strings.Repeat("x", MinWebhookSecret-1)), []string{"GCLOOP_WEBHOOK_SECRET is too short (19 characters"}, nil},
		{"a webhook secret just long enough", with(tokenMode, "GCLOOP_WEBHOOK_SECRET", strings.Repeat("x", MinWebhookSecret)), nil, nil},
		{"metrics on their own address", with(tokenMode, "GCLOOP_METRICS_LISTEN", "127.0.0.1:9090"), nil, func(t *testing.T, c *Config) {
			if c.MetricsListen != "127.0.0.1:9090" {
				t.Errorf("MetricsListen = %q", c.MetricsListen)
			}
		}},
		{"a metrics address without a port", with(tokenMode, "GCLOOP_METRICS_LISTEN", "metrics"), []string{`GCLOOP_METRICS_LISTEN "metrics": want host:port`}, nil},
		{"metrics on the main address", with(tokenMode, "GCLOOP_LISTEN", ":8080", "GCLOOP_METRICS_LISTEN", ":8080"), []string{"GCLOOP_METRICS_LISTEN \":8080\" is GCLOOP_LISTEN's address"}, nil},
		{"unverified bytes in MiB", with(tokenMode, "GCLOOP_WEBHOOK_UNVERIFIED", "128MiB"), nil, func(t *testing.T, c *Config) {
			if c.MaxUnverified != 128<<20 {
				t.Errorf("MaxUnverified = %d", c.MaxUnverified)
			}
		}},
		{"unverified bytes as a number", with(tokenMode, "GCLOOP_WEBHOOK_UNVERIFIED", "1073741824"), nil, func(t *testing.T, c *Config) {
			if c.MaxUnverified != 1<<30 {
				t.Errorf("MaxUnverified = %d", c.MaxUnverified)
			}
		}},
		{"unverified bytes below the largest delivery", with(tokenMode, "GCLOOP_WEBHOOK_UNVERIFIED", "8MiB"), []string{`GCLOOP_WEBHOOK_UNVERIFIED "8MiB": want at least 25MiB`}, nil},
		{"unverified bytes that are no size", with(tokenMode, "GCLOOP_WEBHOOK_UNVERIFIED", "lots"), []string{`GCLOOP_WEBHOOK_UNVERIFIED "lots": want a size such as 64MiB`}, nil},
		{"unverified bytes negative", with(tokenMode, "GCLOOP_WEBHOOK_UNVERIFIED", "-64MiB"), []string{`GCLOOP_WEBHOOK_UNVERIFIED "-64MiB": want a size`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Gather(func(k string) string { return tt.env[k] }, readFile)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Gather: %v", err)
				}
				if tt.check != nil {
					tt.check(t, c)
				}
				return
			}
			var ce ConfigErrors
			if !errors.As(err, &ce) || len(ce) != len(tt.want) {
				t.Fatalf("Gather: err = %v, want %d errors %q", err, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if msg := ce[i].Error(); !strings.Contains(msg, w) || strings.Contains(msg, "\n") {
					t.Errorf("error %d = %q, want one line containing %q", i, msg, w)
				}
			}
		})
	}
}

// TestGatherSaysWhereTheSecretGoesAndThatARepositoryIsOptional: with a
// token there is no App, so a secret's mistake names the repository's
// webhook, not an App's settings; and no message makes GCLOOP_REPOSITORY
// look required next to a token (a token without it serves any repository).
func TestGatherSaysWhereTheSecretGoesAndThatARepositoryIsOptional(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		notWant string
	}{
		{"a token without a secret", map[string]string{"GCLOOP_TOKEN": "ghp_x"},
			"without the webhook secret set in the repository's webhook (Settings → Webhooks)", "App"},
		{"a token with a short secret", map[string]string{"GCLOOP_TOKEN": "ghp_x", "GCLOOP_WEBHOOK_SECRET": "short"},
			"set it in the repository's webhook (Settings → Webhooks) too", "App"},
		{"an App without a secret", map[string]string{"GCLOOP_APP_ID": "1", "GCLOOP_APP_PRIVATE_KEY": testKeyPEM()},
			"without the webhook secret set in the GitHub App's settings", "repository's webhook"},
		{"no credentials", map[string]string{"GCLOOP_WEBHOOK_SECRET": testSecret},
			"or GCLOOP_TOKEN (a token; GCLOOP_REPOSITORY, optional, limits it to one repository)", "GCLOOP_TOKEN and GCLOOP_REPOSITORY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Gather(func(k string) string { return tt.env[k] }, nil)
			var ce ConfigErrors
			if !errors.As(err, &ce) || len(ce) != 1 {
				t.Fatalf("Gather: err = %v, want one error", err)
			}
			if msg := ce[0].Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, tt.notWant) {
				t.Errorf("error = %q, want it to hold %q and not %q", msg, tt.want, tt.notWant)
			}
		})
	}
}

// FuzzGather: any values of the settings give a configuration or errors,
// never a panic, and every error is one line.
func FuzzGather(f *testing.F) {
	f.Add("s", "123", "", "ghp_x", "octo/shop", ":8080", "https://api.github.com", "postgres://db/x", "60s", "4")
	f.Add("", "x", "-----BEGIN RSA PRIVATE KEY-----\n", "", "a/b/c", "host", "ftp://x", "mysql://", "1ns", "-1")
	f.Fuzz(func(t *testing.T, secret, appID, key, token, repo, listen, api, db, lease, workers string) {
		env := map[string]string{"GCLOOP_WEBHOOK_SECRET": secret, "GCLOOP_APP_ID": appID, "GCLOOP_APP_PRIVATE_KEY": key,
			"GCLOOP_TOKEN": token, "GCLOOP_REPOSITORY": repo, "GCLOOP_LISTEN": listen, "GITHUB_API_URL": api,
			"GCLOOP_DATABASE_URL": db, "GCLOOP_LEASE": lease, "GCLOOP_WORKERS": workers}
		c, err := Gather(func(k string) string { return env[k] }, func(string) ([]byte, error) { return nil, fs.ErrNotExist })
		if (c == nil) == (err == nil) {
			t.Fatalf("Gather = %v, %v: want a configuration or an error", c, err)
		}
		var ce ConfigErrors
		if err != nil && errors.As(err, &ce) {
			for _, e := range ce {
				if strings.ContainsAny(e.Error(), "\n\r") && !strings.ContainsAny(fmt.Sprint(env), "\n\r") {
					t.Errorf("error %q spans lines", e)
				}
			}
		}
	})
}
