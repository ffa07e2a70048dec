package webhook_test

import (
	"testing"

	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

// TestMain stops the PostgreSQL cluster the tests of several replicas
// start (only when one of them runs).
func TestMain(m *testing.M) { pgtest.Main(m) }
