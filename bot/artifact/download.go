package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-github/v62/github"
)

// artifactsAPI is the part of go-github's ActionsService that Download needs.
type artifactsAPI interface {
	// DownloadArtifact returns the short-lived (about a minute) URL GitHub
	// redirects to; it does not download anything.
	DownloadArtifact(ctx context.Context, owner, repo string, artifactID int64, maxRedirects int) (*url.URL, *github.Response, error)
}

// listAPI is the part of go-github's ActionsService that List needs.
type listAPI interface {
	ListWorkflowRunArtifacts(ctx context.Context, owner, repo string, runID int64, opts *github.ListOptions) (*github.ArtifactList, *github.Response, error)
}

// maxRedirects is how many 301s (a renamed or transferred repository)
// DownloadArtifact may follow on the API host before the 302 to the blob.
const maxRedirects = 3

// Download spools artifact id to a temporary file and returns it; the
// caller closes it, which removes the file. The file is a zip, or the file
// itself for an artifact uploaded with archive: false (see Unpack).
// announced is the artifact's size_in_bytes from the artifact list (0 =
// unknown): an artifact announced over lim.MaxZip is refused before any
// request, and a download that runs past what was announced, or past
// lim.MaxZip, is cut off and refused. (What was announced is the zip's
// size for the artifacts of upload-artifact v4; older ones announce the
// sum of the files, to which their zip adds headers: a quarter and 64 KiB
// more is let through.) GitHub answers the API call with a
// 302 to a signed blob URL, which is fetched with plain — a client that
// must not add the GitHub token (the signature is the credential; a token
// would leak to the blob host). A nil plain uses a bare http.Client. A
// blob URL that is refused or has expired (401, 403, 404, 410), a 5xx or a
// broken connection is retried once with a fresh URL, at once. Only a blob
// failure earns that retry: a failed API call is retried by the client's
// transport alone and ends Download, so the two retry layers never nest.
func Download(ctx context.Context, gh artifactsAPI, owner, repo string, id, announced int64, plain *http.Client, lim Limits) (*Spool, error) {
	lim = lim.withDefaults()
	if plain == nil {
		plain = &http.Client{}
	}
	what := fmt.Sprintf("artifact %d of %s/%s", id, owner, repo)
	limit, why := lim.MaxZip, "more than "+Size(lim.MaxZip)
	if announced > lim.MaxZip {
		return nil, fmt.Errorf("%s: announced as %d bytes, %s: %w", what, announced, why, ErrTooLarge)
	}
	if slack := announced + announced/4 + 64<<10; announced > 0 && slack < limit {
		limit, why = slack, fmt.Sprintf("well past the %d bytes the artifact list announced", announced)
	}
	sp, err := newSpool(lim.Dir, lim.Dir == "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		u, err := location(ctx, gh, owner, repo, id)
		if err != nil {
			sp.Close()
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		retry, err := fetch(ctx, plain, u, sp, limit, why)
		if err == nil {
			return sp, nil
		}
		if !retry || ctx.Err() != nil {
			sp.Close()
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if rerr := sp.reset(); rerr != nil {
			sp.Close()
			return nil, fmt.Errorf("%s: %w", what, rerr)
		}
		lastErr = err
	}
	sp.Close()
	return nil, fmt.Errorf("%s: %w (twice, the second time with a fresh download URL)", what, lastErr)
}

// location asks the API for the blob URL.
func location(ctx context.Context, gh artifactsAPI, owner, repo string, id int64) (*url.URL, error) {
	u, resp, err := gh.DownloadArtifact(ctx, owner, repo, id, maxRedirects)
	status := 0
	if resp != nil && resp.Response != nil {
		status = resp.StatusCode
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		status = er.Response.StatusCode
	}
	switch {
	case err != nil && status == http.StatusNotFound:
		return nil, fmt.Errorf("get download URL: HTTP 404 (deleted, or the token lacks actions: read): %w", ErrNotFound)
	case err != nil && status == http.StatusGone:
		return nil, fmt.Errorf("get download URL: HTTP 410, past its retention period: %w", ErrExpired)
	case err != nil:
		return nil, fmt.Errorf("get download URL: %w", ghclient.Explained(err))
	case u == nil:
		return nil, errors.New("get download URL: GitHub sent no Location")
	case u.Scheme != "https" && u.Scheme != "http", u.Host == "":
		return nil, fmt.Errorf("get download URL: Location %q is not an absolute http(s) URL", redact(u))
	}
	return u, nil
}

// fetch GETs the blob into sp, at most limit bytes (why says what limit
// is, for the error). retry reports whether a fresh URL may help.
func fetch(ctx context.Context, plain *http.Client, u *url.URL, sp *Spool, limit int64, why string) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, fmt.Errorf("download: %w", err)
	}
	resp, err := plain.Do(req)
	if err != nil {
		return true, fmt.Errorf("download from %s: %w", u.Host, stripURL(err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden,
		resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusGone:
		return true, fmt.Errorf("download from %s: HTTP %d: the signed URL was refused or has expired", u.Host, resp.StatusCode)
	case resp.StatusCode >= 500:
		return true, fmt.Errorf("download from %s: HTTP %d", u.Host, resp.StatusCode)
	default:
		return false, fmt.Errorf("download from %s: HTTP %d, want 200", u.Host, resp.StatusCode)
	}
	if resp.ContentLength > limit {
		return false, fmt.Errorf("download from %s: %d bytes, %s: %w", u.Host, resp.ContentLength, why, ErrTooLarge)
	}
	n, err := io.Copy(sp, io.LimitReader(resp.Body, limit+1))
	sp.Size = n
	if n > limit {
		return false, fmt.Errorf("download from %s: %s: %w", u.Host, why, ErrTooLarge)
	}
	if err != nil {
		var werr *os.PathError
		if errors.As(err, &werr) { // the spool, not the network
			return false, fmt.Errorf("download from %s: %w", u.Host, err)
		}
		return true, fmt.Errorf("download from %s: read: %w", u.Host, stripURL(err))
	}
	return false, nil
}

// redact drops the query (the signature) from a URL for error messages.
func redact(u *url.URL) string {
	c := *u
	c.RawQuery = ""
	c.User = nil
	return c.String()
}

// stripURL removes the signed URL that *url.Error carries, keeping its cause.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// List returns the artifacts of a workflow run, reading every page. With no
// names it returns every artifact that has not expired. With names it returns
// one artifact per name, in the order asked (the newest if a name repeats), and
// fails naming every requested artifact that is missing or expired.
func List(ctx context.Context, gh listAPI, owner, repo string, runID int64, names []string) ([]*github.Artifact, error) {
	const maxPages = 1000
	opts := &github.ListOptions{PerPage: 100}
	var all []*github.Artifact
	for pages := 1; ; pages++ {
		page, resp, err := gh.ListWorkflowRunArtifacts(ctx, owner, repo, runID, opts)
		if err != nil {
			return nil, fmt.Errorf("list artifacts of run %d in %s/%s: %w", runID, owner, repo, ghclient.Explained(err))
		}
		if page != nil {
			for _, a := range page.Artifacts {
				if a != nil && a.GetName() != "" {
					all = append(all, a)
				}
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		if resp.NextPage <= opts.Page || pages >= maxPages {
			return nil, fmt.Errorf("list artifacts of run %d in %s/%s: pagination does not advance (page %d → %d)", runID, owner, repo, opts.Page, resp.NextPage)
		}
		opts.Page = resp.NextPage
	}

	if len(names) == 0 {
		var live []*github.Artifact
		for _, a := range all {
			if !a.GetExpired() {
				live = append(live, a)
			}
		}
		return live, nil
	}

	var (
		out              []*github.Artifact
		missing, expired []string
		done             = make(map[string]bool)
	)
	for _, name := range names {
		if done[name] {
			continue
		}
		done[name] = true
		var best *github.Artifact
		for _, a := range all {
			if a.GetName() == name && newer(a, best) {
				best = a
			}
		}
		switch {
		case best == nil:
			missing = append(missing, fmt.Sprintf("%q", name))
		case best.GetExpired():
			when := ""
			if t := best.GetExpiresAt().Time; !t.IsZero() {
				when = " on " + t.UTC().Format("2006-01-02")
			}
			expired = append(expired, fmt.Sprintf("%q (expired%s)", name, when))
		default:
			out = append(out, best)
		}
	}
	var problems []string
	if len(missing) > 0 {
		var have []string
		for _, a := range all {
			if n := fmt.Sprintf("%q", a.GetName()); !slices.Contains(have, n) {
				have = append(have, n)
			}
		}
		if len(have) > 20 {
			have = append(have[:20], fmt.Sprintf("and %d more", len(have)-20))
		}
		list := "none"
		if len(have) > 0 {
			list = strings.Join(have, ", ")
		}
		problems = append(problems, fmt.Sprintf("no artifact named %s (the run has: %s)", strings.Join(missing, ", "), list))
	}
	if len(expired) > 0 {
		problems = append(problems, fmt.Sprintf("expired: %s", strings.Join(expired, ", ")))
	}
	if len(problems) > 0 {
		err := ErrNotFound
		if len(missing) == 0 {
			err = ErrExpired
		}
		return nil, fmt.Errorf("artifacts of run %d in %s/%s: %s: %w", runID, owner, repo, strings.Join(problems, "; "), err)
	}
	return out, nil
}

// newer reports whether a should replace best: a live artifact beats an
// expired one, then the later creation time, then the higher id.
func newer(a, best *github.Artifact) bool {
	if best == nil {
		return true
	}
	if a.GetExpired() != best.GetExpired() {
		return !a.GetExpired()
	}
	at, bt := a.GetCreatedAt().Time, best.GetCreatedAt().Time
	if !at.Equal(bt) {
		return at.After(bt)
	}
	return a.GetID() > best.GetID()
}
