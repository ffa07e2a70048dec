package artifact

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/decide"
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
	// Unpacked is the uncompressed bytes the readers took, of lim.Budget.
	Unpacked int64
}

// Evidence downloads the artifacts names of workflow run runID (see List)
// and reads every file of them that is in a format gcloop reads (the
// evidence registry, bot/evidence) as evidence of loop ("" = any).
// plain fetches the blobs (see Download). The artifacts are checked
// against lim before they are downloaded (their announced size), spooled
// to temporary files that are gone when Evidence returns, and unpacked
// file by file straight into the evidence readers, all of them together
// within lim.Budget. An artifact over a limit, or unsafe, is an error for
// which Refused is true.
func Evidence(ctx context.Context, gh runAPI, plain *http.Client, owner, repo string, runID int64, names []string, loop decide.Loop, lim Limits) (*Read, error) {
	lim = lim.withDefaults()
	arts, err := List(ctx, gh, owner, repo, runID, names)
	if err != nil {
		return nil, err
	}
	// Every artifact is checked before the first is downloaded.
	for _, a := range arts {
		if a.GetSizeInBytes() > lim.MaxZip {
			return nil, fmt.Errorf("artifact %q: announced as %d bytes, more than %s: %w", a.GetName(), a.GetSizeInBytes(), Size(lim.MaxZip), ErrTooLarge)
		}
	}
	out := &Read{Artifacts: len(arts)}
	b := &Budget{}
	for _, a := range arts {
		if err := readOne(ctx, gh, plain, owner, repo, a.GetName(), a.GetID(), a.GetSizeInBytes(), loop, lim, b, out); err != nil {
			return nil, err
		}
	}
	out.Unpacked = b.Used
	return out, nil
}

// readOne downloads one artifact and reads its evidence into out.
func readOne(ctx context.Context, gh artifactsAPI, plain *http.Client, owner, repo, name string, id, announced int64, loop decide.Loop, lim Limits, b *Budget, out *Read) error {
	sp, err := Download(ctx, gh, owner, repo, id, announced, plain, lim)
	if err != nil {
		return err
	}
	defer sp.Close()
	skipped, err := Unpack(name, sp, sp.Size, lim, b, evidence.SniffLen, evidence.Known, func(file string, r io.Reader) error {
		full := name + "/" + file
		e, err := evidence.Read(full, r, loop)
		if err != nil {
			return fmt.Errorf("artifact %s: %w", name, err)
		}
		out.Pieces = append(out.Pieces, Piece{Name: full, Evidence: e})
		return nil
	})
	for _, s := range skipped {
		out.Skipped = append(out.Skipped, name+"/"+s)
	}
	return err
}
