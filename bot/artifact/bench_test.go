package artifact

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/decide"
)

// unpackEvidence unpacks data as Evidence does, into the readers.
func unpackEvidence(data []byte, lim Limits) (int64, error) {
	bud := &Budget{}
	_, err := Unpack("art", bytes.NewReader(data), int64(len(data)), lim, bud, evidence.SniffLen, evidence.Known, func(file string, r io.Reader) error {
		_, err := evidence.Read("art/"+file, r, decide.Review)
		return err
	})
	return bud.Used, err
}

// BenchmarkUnpackBomb: a 1 MB zip of 16 × 62.5 MiB of evidence under the
// default 64 MiB budget — refused after 64 MiB, in constant memory.
func BenchmarkUnpackBomb(b *testing.B) {
	data := ghfake.FindingsZip(b, 16, 1000<<20/16)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		used, err := unpackEvidence(data, Limits{})
		if !errors.Is(err, ErrTooLarge) || used > DefaultBudget+64<<10 {
			b.Fatalf("used %d: %v", used, err)
		}
	}
}

// BenchmarkUnpackEvidence: a zip of 4 × 8 MiB of evidence within the
// budget, read whole; MB/s of unpacked bytes.
func BenchmarkUnpackEvidence(b *testing.B) {
	data := ghfake.FindingsZip(b, 4, 8<<20)
	b.SetBytes(32 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := unpackEvidence(data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
