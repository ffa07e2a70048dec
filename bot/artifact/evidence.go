package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/pushfix"
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
	// Patch is the generator's change handed over as a file
	// (evidence.PatchName), read with pushfix.ReadPatch; PatchErr says why
	// it could not be read (malformed, over its caps, two of them), and
	// the change is then refused. Both nil: the run left no patch.
	Patch    *pushfix.Patch
	PatchErr error
	// Baseline is the test results of the unchanged commit beside the
	// patch (evidence.BaselinePrefix); BaselineErr why they could not be
	// read.
	Baseline    *decide.TestFacts
	BaselineErr error
}

// Evidence downloads the artifacts names of workflow run runID (see List)
// and reads every file of them that is in a format gcloop reads (the
// evidence registry, bot/evidence) as evidence of loop ("" = any).
// plain fetches the blobs (see Download). The artifacts are checked
// against lim before they are downloaded (their announced size), spooled
// to temporary files that are gone when Evidence returns, and unpacked
// file by file straight into the evidence readers, all of them together
// within lim.Budget. A generator's change handed over as a patch
// (evidence.PatchName) and the test results of the unchanged commit beside
// it (evidence.BaselinePrefix) are told by name, kept in Read.Patch and
// Read.Baseline, charged to the same budget, and never read as evidence.
// An artifact over a limit, or unsafe, is an error for which Refused is
// true.
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
	return out.unpack(name, sp, sp.Size, loop, lim, b)
}

// unpack reads the artifact called name from r (size bytes) into out:
// its evidence, its patch and its baseline, within lim and b.
func (out *Read) unpack(name string, r io.ReaderAt, size int64, loop decide.Loop, lim Limits, b *Budget) error {
	keep := func(file string, head []byte) bool { return evidence.RoleOf(file, head) != evidence.Passed }
	skipped, err := UnpackFiles(name, r, size, lim, b, evidence.SniffLen, keep, func(file string, r io.Reader) error {
		full := name + "/" + file
		switch evidence.RoleOf(file, nil) {
		case evidence.Patch:
			return out.readPatch(full, r)
		case evidence.Baseline:
			return out.readBaseline(full, r)
		}
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

// readPatch reads the generator's patch; a patch that is refused is kept
// as PatchErr (the round says why), a failure to read it is an error.
func (out *Read) readPatch(name string, r io.Reader) error {
	if out.Patch != nil || out.PatchErr != nil {
		out.Patch, out.PatchErr = nil, fmt.Errorf("two patches of the generator's change (%s and another): %w", name, pushfix.ErrPatch)
		return nil
	}
	p, err := pushfix.ReadPatch(name, r, pushfix.PatchLimits{})
	switch {
	case errors.Is(err, pushfix.ErrPatch):
		out.PatchErr = err
	case err != nil:
		return fmt.Errorf("artifact file %s: %w", name, err)
	default:
		out.Patch = p
	}
	return nil
}

// readBaseline reads the test results of the unchanged commit.
func (out *Read) readBaseline(name string, r io.Reader) error {
	if out.Baseline != nil || out.BaselineErr != nil {
		out.Baseline, out.BaselineErr = nil, fmt.Errorf("two baselines (%s and another): which one holds the tests before the change cannot be told", name)
		return nil
	}
	t, err := evidence.ReadTests(name, r)
	if err != nil {
		out.BaselineErr = fmt.Errorf("baseline: %w", err)
		return nil
	}
	out.Baseline = t
	return nil
}
