package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/writers"
)

// TestWriteRunFilesReportsTheFailingOutput: summary.html and results.json
// are written concurrently; when one cannot be written, the run reports
// that output's error (not the cancellation its sibling saw) and writes
// no summary.json, the manifest of a complete run.
func TestWriteRunFilesReportsTheFailingOutput(t *testing.T) {
	for _, bad := range []string{writers.HTMLFile, writers.ACROFile} {
		dir := t.TempDir()
		// a directory in the way: the output cannot be renamed into place
		if err := os.Mkdir(filepath.Join(dir, bad), 0o755); err != nil {
			t.Fatal(err)
		}
		files, err := writeRunFiles(context.Background(), dir, &Result{}, true, true)
		if err == nil {
			t.Fatalf("%s in the way: no error (files %v)", bad, files)
		}
		if errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s in the way: got %v, want the error writing %s", bad, err, bad)
		}
		if _, err := os.Stat(filepath.Join(dir, "summary.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s in the way: summary.json written (%v)", bad, err)
		}
	}
}
