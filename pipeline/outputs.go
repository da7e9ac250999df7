package pipeline

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// tableWriters are the outputs of one table: always the checker's report
// and the publishable CSV; the others as the config's output section asks:
// annotated (NAME.annotated.xlsx), safe_xlsx (NAME.safe.xlsx) and findings
// (NAME.findings.parquet and NAME.findings.arrow).
func tableWriters(s *configs.Settings) []writers.TableWriter {
	ws := []writers.TableWriter{writers.Report{}, writers.SafeCSV{Options: writers.Options{Marker: s.Marker}}}
	if s.Output.SafeXLSX {
		ws = append(ws, writers.SafeXLSX{Options: writers.Options{Marker: s.Marker}})
	}
	if s.Output.Annotated {
		ws = append(ws, writers.Annotated{})
	}
	if s.Output.Findings {
		ws = append(ws, writers.FindingsParquet{}, writers.FindingsArrow{})
	}
	if s.Output.Apriori {
		ws = append(ws, writers.Apriori{})
	}
	if s.Output.ACRO {
		ws = append(ws, writers.SACROCSV{Options: writers.Options{Marker: s.Marker}})
	}
	return ws
}

// writeRun writes the run's outputs into dir: summary.json, and
// summary.html and results.json (ACRO's shape) when any table's settings
// ask for them. It returns their
// names, summary.json (the run's manifest) last.
func writeRun(ctx context.Context, dir string, r *Result, jobs []Job) ([]string, error) {
	var html, acro bool
	for _, j := range jobs {
		html = html || j.Settings.Output.HTML
		acro = acro || j.Settings.Output.ACRO
	}
	return writeRunFiles(ctx, dir, r, html, acro)
}

// writeRunFiles writes summary.json, and summary.html and results.json
// when asked. The page and results.json are written concurrently, then
// summary.json (the manifest) once both are complete.
func writeRunFiles(ctx context.Context, dir string, r *Result, html, acro bool) ([]string, error) {
	var files []string
	g, gctx := errgroup.WithContext(ctx)
	if html {
		g.Go(func() error {
			return writers.WriteAtomic(gctx, filepath.Join(dir, writers.HTMLFile), func(w io.Writer) error {
				return writers.SummaryHTML{}.WriteRunContext(gctx, w, &r.Summary, r.Tables)
			})
		})
		files = append(files, writers.HTMLFile)
	}
	if acro {
		g.Go(func() error {
			return writers.WriteAtomic(gctx, filepath.Join(dir, writers.ACROFile), func(w io.Writer) error {
				var a writers.ACROResults
				if r.Summary.Run != nil {
					a.Timestamp = r.Summary.Run.Timestamp
				}
				return a.WriteRunContext(gctx, w, r.Tables)
			})
		})
		files = append(files, writers.ACROFile)
	}
	if err := g.Wait(); err != nil {
		// a cancelled run reports ctx's error, not the writer's that saw
		// the group's cancellation
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if acro {
		// ACRO's checksums of every file results.json lists, itself
		// included, once results.json is written; the table files are in
		// the staging directory or (merge) already in the output directory
		sums, err := writers.WriteChecksums(ctx, dir, []string{filepath.Dir(dir)}, writers.ACROListed(r.Tables))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		files = append(files, sums...)
	}
	if err := writers.WriteAtomic(ctx, filepath.Join(dir, "summary.json"), func(w io.Writer) error {
		return writers.WriteSummary(w, &r.Summary)
	}); err != nil {
		return nil, err
	}
	return append(files, "summary.json"), nil
}

// outputWriters are the writers of a table read from src: those of the
// settings, with outputs that look like the input for a wide table: the
// annotated copy of its workbook, and the safe tables laid out wide unless
// output.layout is long.
func outputWriters(src readers.Source, s *configs.Settings) []writers.TableWriter {
	ws := tableWriters(s)
	ws0, ok := readers.As[readers.WideSource](src)
	if !ok {
		return ws
	}
	lay := ws0.Layout()
	x := &writers.Crosstab{File: lay.File, Sheet: lay.Sheet, Format: lay.Format, Rows: lay.Rows, Pos: make(map[string][][2]int, len(lay.Keys)),
		UnzipLimit: readers.DefaultMaxXLSXUnzipSize, XMLLimit: min(readers.MaxXLSXInMemory, readers.DefaultMaxXLSXUnzipSize)}
	x.Top, x.Bottom, x.Left = tableWindow(lay)
	var safe []string
	if s.Columns != nil {
		safe = s.Columns.Safe
	}
	for _, p := range lay.Unread(safe) {
		x.Withhold = append(x.Withhold, [2]int{p.Row, p.Col})
	}
	leads := lay.LabelLeads()
	for _, r := range lay.Body {
		for _, c := range lay.Labels {
			at := readers.WidePos{Row: r, Col: c}
			if r > len(lay.Rows) || c >= len(lay.Rows[r-1]) || lay.Rows[r-1][c] == "" {
				continue
			}
			if lead := leads[at]; lead != "" {
				if x.Lead == nil {
					x.Lead = map[[2]int]string{}
				}
				x.Lead[[2]int{r, c}] = lead
			}
		}
	}
	for i, k := range lay.Keys {
		key := strings.Join(k, "\x00")
		x.Pos[key] = append(x.Pos[key], [2]int{lay.Pos[i].Row, lay.Pos[i].Col})
	}
	wide := s.Output.Layout != "long"
	for i, w := range ws {
		switch w := w.(type) {
		case writers.Annotated:
			if lay.Format == "xlsx" {
				ws[i] = writers.AnnotatedCopy{Layout: x}
			}
		case writers.SafeCSV:
			if wide {
				ws[i] = writers.SafeWideCSV{Options: w.Options, Layout: x}
			}
		case writers.SafeXLSX:
			if wide {
				ws[i] = writers.SafeWideXLSX{Options: w.Options, Layout: x}
			}
		}
	}
	return ws
}

// tableWindow bounds a wide table on its sheet: from its first title row
// that holds something (else its first header row) to its last note row
// that holds something (else its last body row), and from the leftmost
// column any of those rows uses.
func tableWindow(lay *readers.WideLayout) (top, bottom, left int) {
	used := func(r int) bool {
		if r < 1 || r > len(lay.Rows) {
			return false
		}
		for _, v := range lay.Rows[r-1] {
			if strings.TrimSpace(v) != "" {
				return true
			}
		}
		return false
	}
	for _, rows := range [][]int{lay.Titles, lay.Header, lay.Body} {
		for _, r := range rows {
			if used(r) && (top == 0 || r < top) {
				top = r
			}
		}
	}
	for _, rows := range [][]int{lay.Header, lay.Body, lay.Notes} {
		for _, r := range rows {
			if used(r) && r > bottom {
				bottom = r
			}
		}
	}
	if top == 0 || bottom < top {
		return 0, 0, 0
	}
	left = -1
	for r := top; r <= bottom; r++ {
		for j, v := range lay.Rows[r-1] {
			if strings.TrimSpace(v) != "" && (left < 0 || j < left) {
				left = j
				break
			}
		}
	}
	return top, bottom, max(left, 0)
}
