package artifact

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/load"
)

// runAPI is what Evidence needs: listing a run's artifacts and their
// download URLs.
type runAPI interface {
	listAPI
	artifactsAPI
}

// Piece is one file of an artifact read as evidence.
type Piece struct {
	Name     string // artifact/file
	Evidence *decide.Evidence
}

// Read is the evidence of a run's artifacts.
type Read struct {
	// Artifacts counts the artifacts downloaded.
	Artifacts int
	// Pieces are the files read as evidence, in artifact and file order.
	Pieces []Piece
	// Skipped are the files in no format gcloop reads (artifact/file).
	Skipped []string
}

// Evidence downloads the artifacts names of workflow run runID (see List)
// and reads every file of them that is in a format gcloop reads (the
// evidence registry, internal/load) as evidence of loop ("" = any).
// plain fetches the blobs (see Download).
func Evidence(ctx context.Context, gh runAPI, plain *http.Client, owner, repo string, runID int64, names []string, loop decide.Loop, lim Limits) (*Read, error) {
	arts, err := List(ctx, gh, owner, repo, runID, names)
	if err != nil {
		return nil, err
	}
	out := &Read{Artifacts: len(arts)}
	for _, a := range arts {
		data, err := Download(ctx, gh, owner, repo, a.GetID(), plain, lim)
		if err != nil {
			return nil, err
		}
		files, err := Extract(a.GetName(), data, lim)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			name := a.GetName() + "/" + f.Name
			if !load.Known(load.Head(f.Data)) {
				out.Skipped = append(out.Skipped, name)
				continue
			}
			e, err := load.Read(name, bytes.NewReader(f.Data), loop)
			if err != nil {
				return nil, fmt.Errorf("artifact %s: %w", a.GetName(), err)
			}
			out.Pieces = append(out.Pieces, Piece{Name: name, Evidence: e})
		}
	}
	return out, nil
}
