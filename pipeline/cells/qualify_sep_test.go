package cells

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/structure"
	"github.com/sdcaudit/sdcaudit/readers"
)

// TestQualifySepAgrees: the separator the reader qualifies repeated row
// labels with is the one the structure inference knows them by (its code
// prefix finder leaves such names alone).
func TestQualifySepAgrees(t *testing.T) {
	if readers.QualifySep != structure.QualifySep {
		t.Errorf("readers.QualifySep %q, structure.QualifySep %q", readers.QualifySep, structure.QualifySep)
	}
}
