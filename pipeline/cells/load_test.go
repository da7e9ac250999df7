package cells

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/rules"
)

// For picks the builder a schema asks for: microdata records, a cell
// summary of them, or a published (aggregate or wide) table.
func TestForPicksTheBuilder(t *testing.T) {
	micro := settings(t, "microdata: {dims: [region], value: v}\n")
	for _, tc := range []struct {
		name  string
		build func() (*Schema, error)
		want  Builder
	}{
		{"microdata", func() (*Schema, error) { return CompileSchema(micro, "in.csv") }, Microdata{}},
		{"cell summary", func() (*Schema, error) { return CompileCellsSchema(micro, "in.csv", rules.Needs{}) }, Summary{}},
		{"aggregate", func() (*Schema, error) {
			return CompileSchema(settings(t, "columns: {dims: [region], count: n}\n"), "in.csv")
		}, Aggregate{}},
		{"wide", func() (*Schema, error) {
			return CompileSchema(settings(t, "columns: {dims: [region], across: [year], value: count}\n"), "in.csv")
		}, Aggregate{}},
	} {
		sc, err := tc.build()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := For(sc); got != tc.want {
			t.Errorf("%s: For gives %T, want %T", tc.name, got, tc.want)
		}
	}
}
