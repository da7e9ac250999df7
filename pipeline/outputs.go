package pipeline

import (
	"context"
	"io"
	"path/filepath"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/writers"
)

// The optional outputs, switched on in the config's output section:
// annotated (NAME.annotated.xlsx), safe_xlsx (NAME.safe.xlsx), findings
// (NAME.findings.parquet and NAME.findings.arrow) and html (summary.html).
func init() {
	ExtraWriters = func(s *configs.Settings) []writers.TableWriter {
		var ws []writers.TableWriter
		if s.Output.SafeXLSX {
			ws = append(ws, writers.SafeXLSX{Options: writers.Options{Marker: s.Marker}})
		}
		if s.Output.Annotated {
			ws = append(ws, writers.Annotated{})
		}
		if s.Output.Findings {
			ws = append(ws, writers.FindingsParquet{}, writers.FindingsArrow{})
		}
		return ws
	}
	RunWriters = func(s *configs.Settings) []func(ctx context.Context, dir string, r *Result) error {
		if !s.Output.HTML {
			return nil
		}
		return []func(ctx context.Context, dir string, r *Result) error{writeHTML}
	}
}

func writeHTML(ctx context.Context, dir string, r *Result) error {
	return writers.WriteAtomic(ctx, filepath.Join(dir, writers.HTMLFile), func(w io.Writer) error {
		return writers.SummaryHTML{}.WriteRun(w, &r.Summary, r.Tables)
	})
}
