package intervals

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestMain: see tabletest.Main.
func TestMain(m *testing.M) { tabletest.Main(m) }
