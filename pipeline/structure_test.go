package pipeline

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/writers"
)

const (
	structureDir     = "../testdata/structure/"
	stillbirthsYAML  = "columns: {dims: [Registration type, Age of father], across: [Age of mother], value: count}\n"
	injuriesYAML     = "columns: {dims: [Area code, Area], count: Workers}\n"
	stillbirthsFAA   = "Fathers All ages"
	stillbirthsMAA   = "Mothers All ages"
	stillbirthsNotSt = "Age not stated"
)

// lpAttack is an intruder's LP written apart from the tool: the relations
// are given by hand as lists of cell names (the first is the sum of the
// others); known maps published cells to their values, and every other
// cell named is an unknown >= 0. It returns, per unknown, [lo, hi]
// (hi = +Inf when unbounded).
func lpAttack(t *testing.T, rels [][]string, known map[string]float64) map[string][2]float64 {
	t.Helper()
	exact := make(map[string]*big.Rat, len(known))
	for k, v := range known {
		exact[k] = new(big.Rat).SetFloat64(v)
	}
	return lpAttackExact(t, rels, exact)
}

// lpAttackExact is lpAttack with the published values given exactly.
func lpAttackExact(t *testing.T, rels [][]string, known map[string]*big.Rat) map[string][2]float64 {
	t.Helper()
	var vars []string
	idx := map[string]int{}
	for _, r := range rels {
		for _, k := range r {
			if _, ok := known[k]; ok {
				continue
			}
			if _, ok := idx[k]; !ok {
				idx[k] = len(vars)
				vars = append(vars, k)
			}
		}
	}
	nv := len(vars)
	var rows [][]*big.Rat
	var rhs []*big.Rat
	for _, r := range rels {
		row := make([]*big.Rat, nv)
		for j := range row {
			row[j] = new(big.Rat)
		}
		b := new(big.Rat)
		unknown := false
		for j, k := range r {
			coef := big.NewRat(-1, 1)
			if j == 0 {
				coef = big.NewRat(1, 1)
			}
			if v, ok := known[k]; ok {
				b.Sub(b, new(big.Rat).Mul(coef, v))
			} else {
				row[idx[k]].Add(row[idx[k]], coef)
				unknown = true
			}
		}
		if unknown {
			rows, rhs = appendIndependent(rows, rhs, row, b)
		} else if b.Sign() != 0 {
			t.Fatalf("the published cells of %v do not add up", r)
		}
	}
	A := mat.NewDense(max(len(rows), 1), max(nv, 1), nil)
	bf := make([]float64, max(len(rows), 1))
	for i, row := range rows {
		for j, v := range row {
			f, _ := v.Float64()
			A.Set(i, j, f)
		}
		bf[i], _ = rhs[i].Float64()
	}
	out := map[string][2]float64{}
	for v, name := range vars {
		c := make([]float64, max(nv, 1))
		c[v] = 1
		lo, _, err := lp.Simplex(c, A, bf, 1e-9, nil)
		if err != nil {
			t.Fatalf("%s: min: %v", name, err)
		}
		c[v] = -1
		hi, _, err := lp.Simplex(c, A, bf, 1e-9, nil)
		switch {
		case errors.Is(err, lp.ErrUnbounded):
			hi = math.Inf(1)
		case err != nil:
			t.Fatalf("%s: max: %v", name, err)
		default:
			hi = -hi
		}
		out[name] = [2]float64{lo, hi}
	}
	return out
}

// readGrid reads a wide CSV's body: row labels (joined by " / ") ->
// column label -> text, and the column labels in order (headerRow:
// the header's index among the non-blank records).
func readGrid(t *testing.T, path string, labels int, headerRow int) (map[string]map[string]string, []string, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cols := recs[headerRow][labels:]
	grid := map[string]map[string]string{}
	var rows []string
	for _, rec := range recs[headerRow+1:] {
		if len(rec) < labels+len(cols) {
			break
		}
		k := strings.Join(rec[:labels], " / ")
		rows = append(rows, k)
		grid[k] = map[string]string{}
		for j, c := range cols {
			grid[k][c] = rec[labels+j]
		}
	}
	return grid, rows, cols
}

// stillbirthsRelations are the stillbirths table's relations as a person
// reads them: the "Fathers All ages" row is the sum of all twelve rows
// below it (sole registrations included), the "Mothers All ages" column
// the sum of the columns right of it.
func stillbirthsRelations(rows, cols []string) [][]string {
	var rels [][]string
	top := "Joint registration / " + stillbirthsFAA
	for _, c := range cols {
		r := []string{top + "|" + c}
		for _, row := range rows {
			if row != top {
				r = append(r, row+"|"+c)
			}
		}
		rels = append(rels, r)
	}
	for _, row := range rows {
		r := []string{row + "|" + stillbirthsMAA}
		for _, c := range cols {
			if c != stillbirthsMAA {
				r = append(r, row+"|"+c)
			}
		}
		rels = append(rels, r)
	}
	return rels
}

// TestStillbirthsProtected: the stillbirths table (issue 24) has its
// margins found ("Fathers All ages" by arithmetic the total of every row,
// "Mothers All ages"), secondary suppression is applied, and an
// independent LP over the relations a person reads finds no primary cell
// recoverable from what the safe table publishes. Before the structure
// was inferred, the margins were ordinary cells: no secondary cell, and
// the suppressed (Fathers All ages, Age not stated) = 3 was recoverable.
func TestStillbirthsProtected(t *testing.T) {
	path := structureDir + "stillbirths.csv"
	tab := auditFile(t, path, stillbirthsYAML)
	if tab.Structure == nil || !tab.Structure.Margins {
		t.Fatalf("no margins found: %+v", tab.Structure)
	}
	grid, rows, cols := readGrid(t, path, 2, 1)
	status := map[string]audit.Status{}
	for _, c := range tab.Cells {
		status[c.Key[0]+" / "+c.Key[1]+"|"+c.Key[2]] = c.Status
	}
	known := map[string]float64{}
	var primaries []string
	secondary := 0
	for _, row := range rows {
		for _, c := range cols {
			k := row + "|" + c
			st, ok := status[k]
			if !ok {
				t.Fatalf("cell %s not read", k)
			}
			switch st {
			case audit.StatusPrimary:
				primaries = append(primaries, k)
			case audit.StatusSecondary:
				secondary++
			default:
				v, err := big.NewRat(0, 1).SetString(grid[row][c])
				if !err {
					t.Fatalf("cell %s: %q", k, grid[row][c])
				}
				known[k], _ = v.Float64()
			}
		}
	}
	if len(primaries) == 0 || secondary == 0 {
		t.Fatalf("%d primary and %d secondary cells: the test needs both", len(primaries), secondary)
	}
	iv := lpAttack(t, stillbirthsRelations(rows, cols), known)
	for _, p := range primaries {
		b := iv[p]
		if b[1]-b[0] < 1-1e-6 {
			t.Errorf("primary %s is recoverable from the safe table: [%g, %g]", p, b[0], b[1])
		}
	}
	// no class-rule flood: the rows are nested, not crossed
	class := 0
	for _, c := range tab.Cells {
		for _, f := range c.AllFindings() {
			if f.Rule == "class" && f.Outcome == audit.Fail {
				class++
			}
		}
	}
	if class > 3 {
		t.Errorf("class rule fails %d of %d cells of nested rows", class, len(tab.Cells))
	}
}

// TestStillbirthsAuditReceived: audit of a received copy of the
// stillbirths table with one recoverable suppression (the cell (Fathers
// All ages, Age not stated) = 3, its row published) reports it exactly
// disclosed (the command exits 1), with and without the layout given;
// an independent LP agrees. Before, it was [0, unbounded] protected.
func TestStillbirthsAuditReceived(t *testing.T) {
	src, err := os.ReadFile(structureDir + "stillbirths.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Joint registration,"+stillbirthsFAA+",") {
			lines[i] = strings.TrimSuffix(strings.TrimRight(l, "\r"), ",3") + ",x\r"
		}
	}
	path := filepath.Join(t.TempDir(), "received.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, y := range []string{stillbirthsYAML, "columns: {value: count}\n"} {
		_, res, err := AuditFile(context.Background(), path, settings(t, y), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Cells) != 1 || !res.Cells[0].Exact || res.ExactlyDisclosed != 1 || !res.NeedsPerson() {
			t.Errorf("%s: audit %+v, want the one suppressed cell exactly disclosed", y, res.Cells)
		}
	}
	grid, rows, cols := readGrid(t, path, 2, 1)
	known := map[string]float64{}
	for _, row := range rows {
		for _, c := range cols {
			if v, ok := new(big.Rat).SetString(grid[row][c]); ok {
				known[row+"|"+c], _ = v.Float64()
			}
		}
	}
	iv := lpAttack(t, stillbirthsRelations(rows, cols), known)
	b := iv["Joint registration / "+stillbirthsFAA+"|"+stillbirthsNotSt]
	if b[0] != 3 || b[1] != 3 {
		t.Errorf("independent LP: [%g, %g], want [3, 3]", b[0], b[1])
	}
}

// injuriesTree is the hierarchy of the injuries table as a person reads
// its GSS codes.
var injuriesTree = map[string][]string{
	"K03000001": {"E92000001", "W92000004", "S92000003"},
	"E92000001": {"E12000001", "E12000002"},
	"E12000001": {"E06000001", "E06000002", "E06000047"},
	"E12000002": {"E06000008", "E06000009", "E08000003"},
	"W92000004": {"W06000015", "W06000011"},
	"S92000003": {"S12000036", "S12000049"},
}

// TestInjuriesHierarchy: an injuries table whose Area column holds Great
// Britain > country > region > local authority has its hierarchy found
// from the GSS codes and confirmed by sums; its employee and
// self-employed counts are found by arithmetic (workers = employees +
// self-employed) and audited as counts of the same cells, its rates are
// withheld with their rows, and the columns it does not understand are
// listed in a warning and not written. An independent LP over the
// hierarchy in all three count columns at once (and workers = employees
// + self-employed in every row) finds no primary recoverable from the
// safe table. Before, Hartlepool's 3 self-employed (and the rates) were
// dropped unaudited, and no margin was found.
func TestInjuriesHierarchy(t *testing.T) {
	path := structureDir + "injuries.csv"
	tab := auditFile(t, path, injuriesYAML)
	st := tab.Structure
	if st == nil || len(st.Axes) != 1 {
		t.Fatalf("structure %+v", st)
	}
	ax := st.Axes[0]
	full := map[string]string{}
	for _, code := range ax.Codes {
		full[code[:9]] = code
	}
	for p, ch := range injuriesTree {
		for _, c := range ch {
			if ax.Parent[full[c]] != full[p] {
				t.Errorf("parent of %s is %q, want %q", c, ax.Parent[full[c]], full[p])
			}
		}
	}
	roles := map[string]audit.Role{}
	for _, c := range st.Columns {
		roles[c.Column] = c.Role
		if c.Written && !c.Audited && c.Role != audit.RoleDimension && c.Role != audit.RoleDerived {
			t.Errorf("column %q written to the safe table without being audited", c.Column)
		}
	}
	for col, want := range map[string]audit.Role{"Employees": audit.RoleCount, "Self-employed": audit.RoleCount, "Rate per 100,000 self-employed": audit.RoleDerived, "Compared with Great Britain": audit.RoleUnderstood, "Employment (thousands)": audit.RoleUnderstood} {
		if roles[col] != want {
			t.Errorf("column %q: role %q, want %q", col, roles[col], want)
		}
	}
	grid, rows, cols := readGrid(t, path, 2, 0)
	_ = cols
	counts := []string{"Workers", "Employees", "Self-employed"}
	status := map[string]*audit.Cell{}
	for _, c := range tab.Cells {
		status[c.Key[0]] = c
	}
	known := map[string]float64{}
	sensitive := map[string]bool{} // "code|column" of a primary's count
	withheld := 0
	for _, row := range rows {
		code := row[:9]
		c := status[code]
		if c == nil {
			t.Fatalf("row %s not read", row)
		}
		if c.Status == audit.StatusOK {
			for _, k := range counts {
				v, _ := new(big.Rat).SetString(grid[row][k])
				known[code+"|"+k], _ = v.Float64()
			}
			continue
		}
		withheld++
		for _, f := range c.AllFindings() {
			if f.Rule != "threshold" || f.Outcome != audit.Fail {
				continue
			}
			col := "Workers"
			for _, k := range counts[1:] {
				if strings.HasPrefix(f.Message(), k+": ") {
					col = k
				}
			}
			sensitive[code+"|"+col] = true
		}
	}
	if len(sensitive) < 2 || !sensitive["E06000001|Self-employed"] {
		t.Fatalf("the test needs primaries in several columns, Hartlepool's self-employed among them: %v", sensitive)
	}
	var rels [][]string
	for _, k := range counts {
		for p, ch := range injuriesTree {
			r := []string{p + "|" + k}
			for _, c := range ch {
				r = append(r, c+"|"+k)
			}
			rels = append(rels, r)
		}
	}
	for _, row := range rows {
		code := row[:9]
		rels = append(rels, []string{code + "|Workers", code + "|Employees", code + "|Self-employed"})
	}
	iv := lpAttack(t, rels, known)
	for k := range sensitive {
		if b := iv[k]; b[1]-b[0] < 1-1e-6 {
			t.Errorf("primary %s recoverable: [%g, %g]", k, b[0], b[1])
		}
	}
	// the safe table: every withheld row withholds its rates too; the
	// columns not understood are not in it
	var b strings.Builder
	if err := (writers.SafeCSV{Options: writers.Options{Marker: "x"}}).Write(&b, tab); err != nil {
		t.Fatal(err)
	}
	safe := b.String()
	if strings.Contains(safe, "Compared with") || strings.Contains(safe, "Employment") {
		t.Errorf("a column not understood is in the safe table:\n%s", safe)
	}
	if !strings.Contains(safe, "E06000001,Hartlepool,x,x,x,x,x,x") || strings.Count(safe, ",x,x,x,x,x,x") != withheld {
		t.Errorf("withheld rows do not withhold every column:\n%s", safe)
	}
	var warned bool
	for _, w := range tab.Warnings {
		if strings.Contains(w, "2 columns not understood") && strings.Contains(w, `"Compared with Great Britain"`) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning lists the columns not understood: %q", tab.Warnings)
	}
}

// TestNoMarginsWarning: a table without margins says that secondary
// suppression was not applied for that reason.
func TestNoMarginsWarning(t *testing.T) {
	tab, err := auditText(t, "g,n\na,3\nb,40\nc,50\n", "columns: {dims: [g], count: n}\n")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tab.Warnings, noMargins) || tab.Structure == nil || tab.Structure.Margins {
		t.Errorf("warnings %q", tab.Warnings)
	}
	// an unlabelled total is found by arithmetic
	tab, err = auditText(t, "g,h,n\na,x,3\na,y,40\na,z,43\nb,x,5\nb,y,7\nb,z,12\n", "columns: {dims: [g, h], count: n}\n")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(tab.Warnings, noMargins) || tab.Structure == nil || tab.Structure.Axes[1].Found["z"] != "arithmetic" {
		t.Errorf("warnings %q, structure %+v", tab.Warnings, tab.Structure.Axes)
	}
}

// TestColumnKeys: columns.counts, columns.derived and columns.safe give
// columns their roles; a safe column is written, a key naming no column
// is a configuration error naming the columns.
func TestColumnKeys(t *testing.T) {
	y := "columns: {dims: [Area code, Area], count: Workers, counts: [Employees, Self-employed], derived: {\"Rate per 100,000 workers\": Workers}, safe: [Employment (thousands)]}\n"
	tab := auditFile(t, structureDir+"injuries.csv", y)
	roles := map[string]audit.ColumnRole{}
	for _, c := range tab.Structure.Columns {
		roles[c.Column] = c
	}
	if r := roles["Employment (thousands)"]; r.Role != audit.RolePublished || !r.Written || !slices.Contains(tab.ColumnLabels, "Employment (thousands)") {
		t.Errorf("safe column: %+v, columns %v", r, tab.ColumnLabels)
	}
	if r := roles["Rate per 100,000 workers"]; r.Role != audit.RoleDerived || r.Of != "Workers" {
		t.Errorf("derived column: %+v", r)
	}
	if r := roles["Self-employed"]; r.Role != audit.RoleCount || !r.Audited {
		t.Errorf("count column: %+v", r)
	}
	_, err := auditText(t, "g,n,m\na,3,1\nb,40,2\n", "columns: {dims: [g], count: n, counts: [k]}\n")
	var ce *configs.Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `columns.counts: "k" is not a column`) {
		t.Errorf("err = %v", err)
	}
}
