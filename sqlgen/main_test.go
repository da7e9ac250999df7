package sqlgen

import (
	"os"
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/pgtest"
)

// TestMain shares one PostgreSQL server among the package's tests (each
// gets a fresh database of its own): see pgtest.Main.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
