// Package pipelinetest holds what the tests of pipeline and pipeline/cells
// share: settings resolved from a YAML text, and the first line where two
// outputs differ.
package pipelinetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
)

// Settings resolves the YAML configuration y over the embedded profiles,
// as a config file is (configs.Parse, configs.Resolve); an error fails t.
func Settings(t testing.TB, y string) *configs.Settings {
	t.Helper()
	c, err := configs.Parse("test.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FirstDiff is the first line where the outputs want and got differ,
// with both versions of it ("" when they are the same).
func FirstDiff(want, got []byte) string {
	lw, lg := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(lw), len(lg)) {
		var x, y string
		if i < len(lw) {
			x = lw[i]
		}
		if i < len(lg) {
			y = lg[i]
		}
		if x != y {
			return fmt.Sprintf("line %d\n want %s\n  got %s", i+1, x, y)
		}
	}
	return ""
}
