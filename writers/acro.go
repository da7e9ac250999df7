package writers

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// ACROFile is the name of the run's results file in ACRO's shape.
const ACROFile = "results.json"

// ACROVersion is the version of ACRO's results format that results.json
// follows: ACRO 0.4's table records, whose "sdc" dictionary has the keys
// below. The SACRO viewer accepts results of version 0.4 and later.
const ACROVersion = "0.4.12"

// acroKeys maps sdcaudit's rules to the keys of ACRO's sdc dictionary;
// every other rule keeps its own name as an extra key.
var acroKeys = map[string]string{
	"negative":  "negative",
	"missing":   "missing",
	"threshold": "threshold",
	"p_percent": "p-ratio",
	"dominance": "nk-rule",
	"all_zero":  "all-values-are-same",
}

// acroOrder is the order of ACRO's own keys; extra keys follow sorted.
var acroOrder = []string{"negative", "missing", "threshold", "p-ratio", "nk-rule", "all-values-are-same"}

// ACROResults writes results.json, the run in the shape of ACRO's results
// file (acro/record.py, finalise_json) so that an output checker can open
// an sdcaudit run in the SACRO viewer: one record per table, of type
// "table", whose file is the table's publishable CSV (NAME.safe.csv) with
// the sdc dictionary of ACRO's table checks. See docs/formats.md for the
// mapping of rules and statuses. It holds no confidential values: rule
// names, counts and cell positions only.
type ACROResults struct {
	// Timestamp is written into every record ("" unless asked).
	Timestamp string
}

// WriteRunContext writes results.json for the tables of a run; it returns
// ctx.Err() soon after ctx is cancelled.
func (a ACROResults) WriteRunContext(ctx context.Context, w io.Writer, tables []*audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cc := canceller{ctx: ctx}
	results := ordered{}
	for _, t := range tables {
		if t == nil {
			continue
		}
		rec, err := a.record(&cc, t)
		if err != nil {
			return err
		}
		results = append(results, kv{t.Name, rec})
	}
	b, err := json.MarshalIndent(ordered{{"version", ACROVersion}, {"results", results}}, "", "    ")
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	return nil
}

// acroStatus returns ACRO's status of a table: "fail" when the interval
// audit found a withheld cell that the published table still discloses
// (exactly or within its protection), "review" when any cell is withheld
// (ACRO's status once suppression has been applied) or needs review,
// "pass" when every cell is published.
func acroStatus(t *audit.Table, s audit.Summary) string {
	switch {
	case t.Audit != nil && t.Audit.ExactlyDisclosed+t.Audit.UnderProtected > 0:
		return "fail"
	case s.NeedsPerson():
		return "review"
	}
	return "pass"
}

func (a ACROResults) record(cc *canceller, t *audit.Table) (ordered, error) {
	s := t.Summarize()
	status := acroStatus(t, s)
	cols := make([]string, len(t.Columns))
	for i := range t.Columns {
		cols[i] = t.ColumnLabel(i)
	}
	// The sdc dictionary: per key, the cells flagged (fail or review) and
	// their positions [row, column] in the safe CSV's body, columns
	// counted after the dimension columns (ACRO's index columns).
	counts := map[string]int{}
	cells := map[string][][2]int{}
	outcome := make([]string, len(t.Cells))
	for row, c := range t.Cells {
		if err := cc.next(); err != nil {
			return nil, err
		}
		var b strings.Builder
		for _, k := range acroCellKeys(c) {
			counts[k]++
			for j := range cols {
				cells[k] = append(cells[k], [2]int{row, j})
			}
			b.WriteString(k + "; ")
		}
		outcome[row] = b.String()
		if outcome[row] == "" {
			outcome[row] = "ok"
		}
	}
	keys := append([]string(nil), acroOrder...)
	var extra []string
	for k := range counts {
		if !slices.Contains(acroOrder, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	keys = append(keys, extra...)
	sum := ordered{{"suppressed", true}}
	pos := ordered{}
	summary := status + "; "
	for _, k := range keys {
		sum = append(sum, kv{k, counts[k]})
		p := cells[k]
		if p == nil {
			p = [][2]int{}
		}
		pos = append(pos, kv{k, p})
		if counts[k] > 0 {
			summary += fmt.Sprintf("%s: %d cells suppressed; ", k, counts[k])
		}
	}
	if status == "fail" {
		summary += fmt.Sprintf("interval audit: %d cells exactly disclosed, %d under-protected; ", t.Audit.ExactlyDisclosed, t.Audit.UnderProtected)
	}
	if status == "pass" {
		summary = "pass"
	}
	// every column of a row has the row's outcome
	rows := make(ordered, len(outcome))
	for i, o := range outcome {
		rows[i] = kv{strconv.Itoa(i), o}
	}
	out := ordered{}
	for _, col := range cols {
		out = append(out, kv{col, rows})
	}
	exception := ""
	if s.Primary+s.Secondary+s.Review > 0 {
		exception = "Suppression automatically applied where needed"
	}
	return ordered{
		{"uid", t.Name},
		{"status", status},
		{"type", "table"},
		{"properties", ordered{{"method", "sdcaudit"}, {"mitigation", "suppress"}, {"mode", string(t.Mode)}}},
		{"files", []ordered{{{"name", ACROTableFile(t)}, {"sdc", ordered{{"summary", sum}, {"cells", pos}}}}}},
		{"outcome", out},
		{"command", acroCommand(t)},
		{"summary", summary},
		{"timestamp", a.Timestamp},
		{"comments", overrideComments(t)},
		{"exception", exception},
	}, nil
}

// acroCellKeys lists the ACRO keys under which cell c is flagged, in
// order of its findings, or its suppression status when no finding flags it.
func acroCellKeys(c *audit.Cell) []string {
	var keys []string
	// a checker's override that marked the cell safe silences its findings
	overridden := statusOf(c) == audit.StatusOK
	for _, f := range c.EachFinding() {
		if overridden || f.Outcome != audit.Fail && f.Outcome != audit.Review {
			continue
		}
		k := acroKey(f.Rule)
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 && Suppressed(c) {
		keys = append(keys, string(c.Status))
	}
	return keys
}

// acroCommand is the command line recorded for table t.
func acroCommand(t *audit.Table) string {
	command := "sdcaudit check"
	if t.Run != nil && len(t.Run.Inputs) > 0 {
		command += " " + t.Run.Inputs[0].Name
		if t.Run.Inputs[0].Sheet != "" {
			command += " --sheet " + t.Run.Inputs[0].Sheet
		}
		if t.Run.Profile != "" {
			command += " --profile " + t.Run.Profile
		}
	}
	return command
}

func acroKey(rule string) string {
	if k, ok := acroKeys[rule]; ok {
		return k
	}
	return rule
}

// kv and ordered are a JSON object whose keys keep their order.
type kv struct {
	k string
	v any
}

type ordered []kv

func (o ordered) MarshalJSON() ([]byte, error) {
	return o.appendJSON(make([]byte, 0, 1024))
}

// appendJSON appends o as compact JSON. The values results.json holds
// (texts, integers, truth values, positions, nested objects and lists of
// them) are written here rather than by encoding/json's reflection, which
// also compacted every nested object's JSON again at each level; other
// values go through json.Marshal. Strings are not HTML-escaped here:
// encoding/json escapes them when it compacts the document
// (json.MarshalIndent), so the file is the same.
func (o ordered) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	for i, e := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = report.AppendString(b, e.k)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, e.v); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return report.AppendString(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case ordered:
		return v.appendJSON(b)
	case []ordered:
		return appendList(b, v, func(b []byte, o ordered) ([]byte, error) { return o.appendJSON(b) })
	case []string:
		return appendList(b, v, func(b []byte, s string) ([]byte, error) { return report.AppendString(b, s), nil })
	case [][2]int:
		return appendList(b, v, func(b []byte, p [2]int) ([]byte, error) {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(p[0]), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(p[1]), 10)
			return append(b, ']'), nil
		})
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// appendList appends v as a JSON array (null when nil, as json.Marshal
// writes a nil slice), each element by each.
func appendList[T any](b []byte, v []T, each func([]byte, T) ([]byte, error)) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = each(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// overrideComments lists the checker's overrides as results.json comments.
func overrideComments(t *audit.Table) []string {
	out := []string{}
	for _, o := range t.Overrides {
		out = append(out, "override "+o.Cell+": "+o.Action+" by "+o.By+": "+o.Reason+" ("+o.Source+")")
	}
	return out
}

// ChecksumDir is the directory of ACRO's checksums beside results.json:
// checksums/NAME.txt holds the hex SHA-256 of the file NAME that
// results.json lists (results.json's own included), which the SACRO
// viewer compares with the file's bytes (sacro/models.py, annotate).
const ChecksumDir = "checksums"

// ACROTableFile is the file results.json lists for table t: its safe CSV
// when the table has one dimension (one header row and one index column,
// the geometry in which the SACRO viewer highlights sdc.cells), else
// NAME.sacro.csv, the same rows with the dimensions in one index column.
func ACROTableFile(t *audit.Table) string {
	if len(t.Dims) > 1 {
		return SACROCSV{}.File(t)
	}
	return SafeCSV{}.File(t)
}

// ACROListed returns the files results.json lists for the tables, in
// order, then results.json itself.
func ACROListed(tables []*audit.Table) []string {
	var out []string
	for _, t := range tables {
		if t != nil {
			out = append(out, ACROTableFile(t))
		}
	}
	return append(out, ACROFile)
}

// SACROCSV writes NAME.sacro.csv for a table of several dimensions: the
// rows of NAME.safe.csv with the dimension columns joined into one index
// column ("region / sector" over "North / C"), so that the SACRO viewer,
// which highlights a position [row, column] of sdc.cells counting one
// header row and one index column, marks the withheld values.
type SACROCSV struct {
	Options
}

// File returns NAME.sacro.csv.
func (SACROCSV) File(t *audit.Table) string { return t.Name + ".sacro.csv" }

// Skip says the table's safe CSV is listed instead (one dimension).
func (SACROCSV) Skip(t *audit.Table) bool { return len(t.Dims) <= 1 }

// WriteContext implements TableWriter.
func (s SACROCSV) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	cw := csv.NewWriter(w)
	nd := len(t.Dims)
	rec := []string{}
	return writeRows(ctx, t, s.Marker, func(r []string) error {
		if nd <= 1 || len(r) < nd {
			return cw.Write(r)
		}
		rec = append(rec[:0], strings.Join(r[:nd], " / "))
		rec = append(rec, r[nd:]...)
		return cw.Write(rec)
	}, func() error {
		cw.Flush()
		return cw.Error()
	})
}

// WriteChecksums writes checksums/NAME.txt into dir for every name, each
// the hex SHA-256 of the file NAME, looked up in dir and then in each of
// also (the output directory, for table files a merge leaves in place).
// It returns the names written ("checksums/NAME.txt"), in order. Written
// after results.json, as ACRO writes them when it finalises.
func WriteChecksums(ctx context.Context, dir string, also []string, names []string) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, ChecksumDir), 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		if err := CheckName(name); err != nil {
			return nil, fmt.Errorf("checksum of %q: %w", name, err)
		}
		sum, err := fileSHA256(append([]string{dir}, also...), name)
		if err != nil {
			return nil, err
		}
		rel := ChecksumDir + "/" + name + ".txt"
		if err := WriteAtomic(ctx, filepath.Join(dir, ChecksumDir, name+".txt"), func(w io.Writer) error {
			_, err := io.WriteString(w, sum)
			return err
		}); err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

func fileSHA256(dirs []string, name string) (string, error) {
	var first error
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, name))
		if err != nil {
			if first == nil {
				first = err
			}
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	return "", fmt.Errorf("checksum of %s: %w", name, first)
}
