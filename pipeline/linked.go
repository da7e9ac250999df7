package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/link"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/internal/unionfind"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// Linked tables (issue 17, docs/suppression.md "Linked tables"): the
// microdata tables of a run that come from the same records (same file and
// sheet, value, holding and total label) share cells, at least the grand
// total. They are protected together on their cover table: the microdata
// table over the union of their dimensions, built from the same records,
// in which every cell of every member is a cell (a margin in the
// dimensions the member lacks). Cover cells that no member publishes are
// unpublished: free for the intruder, never suppressed in any output.

// linkPlan is the link groups of a run.
type linkPlan struct {
	groups []*linkGroup
	of     []int // unit -> group, -1 when in none
	on     bool  // protect the groups together
}

type linkGroup struct {
	units []int
	names []string
	exact bool
	why   string
	cells bool // the cover is built from the members' cells (link.Options.Records nil)
}

// linkUnit is what planning needs of one input table.
type linkUnit struct {
	job        int
	name       string
	file, page string
}

// planLinks finds the groups of units that come from the same microdata.
// linkKey is what tables linked as "the same microdata" share: the file
// (and sheet), value, holding, total label and reader settings; ok is
// false for tables that are not microdata.
func linkKey(s *configs.Settings, path, page string) (key string, ok bool) {
	if s == nil || s.Microdata == nil || len(s.Microdata.Dims) == 0 {
		return "", false
	}
	file, err := filepath.Abs(path)
	if err != nil {
		file = path
	}
	ro := cells.ReaderOptions(s)
	return strings.Join([]string{file, page, s.Microdata.Value, s.Microdata.Holding, s.TotalLabel, ro.Format, string(ro.Delimiter), s.Input.Range}, "\x00"), true
}

func planLinks(jobs []Job, units []linkUnit, opt Options) (*linkPlan, error) {
	lp := &linkPlan{of: make([]int, len(units)), on: opt.Link == LinkOn}
	for i := range lp.of {
		lp.of[i] = -1
	}
	if !opt.Link.Grouped() {
		return lp, nil
	}
	// Union-find over the units: the same microdata, then links:.
	sets := unionfind.New(len(units))
	find, union := sets.Find, sets.Union
	keys := make([]string, len(units))
	firstOf := map[string]int{}
	for k, u := range units {
		key, ok := linkKey(jobs[u.job].Settings, u.file, u.page)
		if !ok {
			continue
		}
		keys[k] = key
		if f, seen := firstOf[key]; seen {
			union(f, k)
		} else {
			firstOf[key] = k
		}
	}
	explicit, err := explicitLinks(units, opt.Links)
	if err != nil {
		return nil, err
	}
	for _, g := range explicit {
		for _, k := range g[1:] {
			union(g[0], k)
		}
	}
	byRoot := map[int]*linkGroup{}
	var order []int
	for k, u := range units {
		r := find(k)
		g := byRoot[r]
		if g == nil {
			g = &linkGroup{exact: true}
			byRoot[r] = g
			order = append(order, r)
		}
		g.units = append(g.units, k)
		g.names = append(g.names, u.name)
	}
	for _, r := range order {
		g := byRoot[r]
		if len(g.units) < 2 {
			continue
		}
		g.why = "the same microdata"
		for _, k := range g.units {
			if keys[k] == "" || keys[k] != keys[g.units[0]] {
				g.cells = true // not all from one file's records
			}
		}
		if g.cells {
			g.why = "linked in the release file (links:)"
		}
		for _, k := range g.units {
			lp.of[k] = len(lp.groups)
		}
		lp.groups = append(lp.groups, g)
	}
	return lp, nil
}

// deferred reports whether unit k is protected with its group after every
// table of the run is evaluated.
func (lp *linkPlan) deferred(k int) bool { return lp.on && lp.of[k] >= 0 }

// link is the Link of unit k (named name) for its report, or nil.
func (lp *linkPlan) link(k int, name string) *audit.Link {
	if lp.of[k] < 0 {
		return nil
	}
	g := lp.groups[lp.of[k]]
	others := slices.DeleteFunc(slices.Clone(g.names), func(n string) bool { return n == name })
	return &audit.Link{Linked: lp.on, Tables: others, Exact: lp.on && g.exact, Reason: g.why}
}

// summary lists the groups for summary.json.
func (lp *linkPlan) summary() []writers.LinkGroup {
	var out []writers.LinkGroup
	for _, g := range lp.groups {
		out = append(out, writers.LinkGroup{Tables: slices.Clone(g.names), Linked: lp.on, Exact: lp.on && g.exact, Reason: g.why})
	}
	return out
}

// protectLinked protects every group of the plan together (link.Protect):
// the evaluated tables of the run are in tables (by unit).
func (lp *linkPlan) protectLinked(ctx context.Context, jobs []Job, units []linkUnit, tables []*audit.Table, opt Options) error {
	workers := opt.workers()
	if !lp.on {
		return nil
	}
	for _, g := range lp.groups {
		if err := ctx.Err(); err != nil {
			return err
		}
		members := make([]*audit.Table, len(g.units))
		settings := make([]*configs.Settings, len(g.units))
		for a, k := range g.units {
			members[a], settings[a] = tables[k], jobs[units[k].job].Settings
		}
		if !wantsProtection(settings) {
			continue
		}
		group := make([]link.Member, len(members))
		for a, t := range members {
			s := settings[a]
			mo := suppressOptions(t, s, workers)
			mo.Joint.Work = opt.JointWork // a test hook (Options.JointWork)
			mo.AuditTuning = opt.AuditTuning
			group[a] = link.Member{Table: t, Options: mo, Hierarchies: s.Suppression.Hierarchies, Secondary: s.Suppression.Secondary, Keep: protectedCells(t)}
		}
		lo := link.Options{MaxCells: opt.maxCoverCells()}
		if !g.cells {
			u := units[g.units[0]]
			lo.Records = func(ctx context.Context, dims []string) (*audit.Table, string, error) {
				return readCover(ctx, jobs[u.job].Path, u.page, settings[0], dims, workers)
			}
		}
		reason, err := protectLinkedCrossed(ctx, group, lo)
		if err != nil {
			return err
		}
		if reason != "" {
			g.exact = false
			g.why = reason
			if err := protectApart(ctx, members, settings, reason, workers, &tableHints{auditTuning: opt.AuditTuning, jointWork: opt.JointWork}); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxCrossedRounds bounds the rounds of protectLinkedCrossed: a round
// that adds a withheld cell is followed by another, and each adds at
// least one, so the bound is deterministic work, not a clock.
const maxCrossedRounds = 8

// protectLinkedCrossed protects a group of linked tables (link.Protect)
// in which a member has two or more breakdowns of one total
// (audit.Structure.Crossed). The group's cover does not cross those
// breakdowns: alone, it would let the published lines of one breakdown
// give back a primary the other protects (All people − Aged 16-64 − Aged
// 65+ = Aged 0-15). So each such member is then protected through its own
// cover with the breakdowns crossed (link.ProtectBreakdowns), the group's
// withheld cells kept withheld, and the group again with the member's new
// cells, until neither adds a cell. A member whose cross cannot be
// protected, or rounds past maxCrossedRounds, gets every cell withheld
// (link.WithholdEvery) and the group one more round. Each pattern is safe
// in each system; an intruder combining both is not modelled, so the
// member's withheld cells stay "review" (link.CrossedLinked). A non-empty
// reason is link.Protect's: the group is then protected apart.
func protectLinkedCrossed(ctx context.Context, group []link.Member, lo link.Options) (string, error) {
	var crossed []int
	for a, m := range group {
		if ax, _ := m.Table.Structure.Crossed(); ax != nil {
			crossed = append(crossed, a)
		}
	}
	// the audits of earlier rounds are stale: their interval findings
	// are dropped at the end (from[m][c]: where round's findings start)
	from := make([][]int, len(group))
	crossAudit := map[int]*audit.Intervals{}
	for round := 0; ; round++ {
		for a, m := range group {
			from[a] = from[a][:0]
			for _, c := range m.Table.Cells {
				from[a] = append(from[a], len(c.Findings))
			}
		}
		reason, err := link.Protect(ctx, group, lo)
		if err != nil || reason != "" || len(crossed) == 0 {
			return reason, err
		}
		added := false
		for _, a := range crossed {
			m := group[a]
			t := m.Table
			if !m.Secondary {
				continue
			}
			before := withheldCells(t)
			why := ""
			if round < maxCrossedRounds {
				res, w, err := link.ProtectBreakdowns(ctx, t, m.Options, true, m.Keep, lo.MaxCells)
				if err != nil {
					return "", err
				}
				why = w
				crossAudit[a] = res
			} else {
				why = fmt.Sprintf("still adding cells after %d rounds with the linked tables", maxCrossedRounds)
			}
			if why != "" {
				delete(crossAudit, a)
				link.WithholdEvery(t, m.Keep, fmt.Sprintf("the breakdowns of a total could not be protected through their cross with the linked tables' withheld cells (%s): every cell is withheld, since their relations could give a primary back; a person decides", why))
			}
			added = added || withheldCells(t) > before
		}
		if !added {
			break
		}
	}
	for a, m := range group {
		for c, cell := range m.Table.Cells {
			kept := cell.Findings[:0]
			for k, f := range cell.Findings {
				if f.Rule != "interval_audit" || k >= from[a][c] {
					kept = append(kept, f)
				}
			}
			cell.Findings = kept
		}
	}
	for _, a := range crossed {
		if res := crossAudit[a]; res != nil {
			t := group[a].Table
			t.Audit = link.CombinedAudit(t.Audit, res)
		}
		if !group[a].Secondary {
			link.CrossedApart(group[a].Table, "audited with its linked tables, whose cover does not cross the breakdowns")
			continue
		}
		var others []string
		for b, m := range group {
			if b != a {
				others = append(others, m.Table.Name)
			}
		}
		link.CrossedLinked(group[a].Table, strings.Join(others, ", "))
	}
	return "", nil
}

// withheldCells counts t's withheld cells (primary or secondary).
func withheldCells(t *audit.Table) int {
	n := 0
	for _, c := range t.Cells {
		if c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary {
			n++
		}
	}
	return n
}

func wantsProtection(ss []*configs.Settings) bool {
	for _, s := range ss {
		if s.Suppression.Secondary || s.Suppression.Audit {
			return true
		}
	}
	return false
}

// readCover reads the group's records again into the microdata table over
// dims, the cover table of link.Protect. A non-empty reason says why it
// cannot.
//
// The members' cells are the cover's margins, yet the cover of tables cut
// from one microdata file is read from the records, not built from those
// cells as for links: (link's cover from cells), because the records tell
// what the cells do not:
//   - nesting an intruder knows: a district lies within one region. No
//     member crosses district and region, so only the records show it;
//     the cover merges such pairs into one hierarchical dimension
//     (mergeNested). A cover from cells would leave the district x region
//     cells free unknowns: an intruder weaker than the real one, who
//     knows the geography, and primaries called protected that are not;
//   - an exact cover for every shape: tables crossing in a cycle (region
//     x sector, region x size, sector x size) have no cover from cells
//     (the group would be protected apart, its primaries to review);
//   - a check of every member cell (count and total) against the records.
//
// Holdings and largest contributions are not among the reasons: the
// cover's protection levels come from the members' cells (equal to the
// cover's), and its unpublished cells need none. Keeping the records of
// the first read instead would hold every record of the group in memory
// (the builders aggregate as they read); the second read costs the time
// of one more pass over the file (docs/suppression.md, "Linked tables").
func readCover(ctx context.Context, path, page string, s *configs.Settings, dims []string, workers int) (*audit.Table, string, error) {
	cs := *s
	md := *s.Microdata
	md.Dims = dims
	cs.Microdata = &md
	cs.Measure = nil
	cs.Publish = configs.Publish{}
	srcs, err := readers.Open(path, cells.ReaderOptions(&cs))
	if err != nil {
		return nil, "", err
	}
	defer func() {
		for _, src := range srcs {
			src.Close()
		}
	}()
	var src readers.Source
	for _, x := range srcs {
		if _, sh := x.Where(); sh == page {
			src = x
		}
	}
	if src == nil {
		return nil, fmt.Sprintf("the sheet %q of %s could not be read again for the cover table", page, path), nil
	}
	sc, err := cells.CompileSchema(&cs, path)
	if err != nil {
		return nil, "", err
	}
	cover, err := cells.Load(ctx, cells.Input{Src: src, Settings: &cs, Schema: sc, Workers: workers, Finishing: cellsStage(ctx)})
	if err != nil {
		return nil, "", err
	}
	return cover, "", nil
}

// protectApart protects every member on its own (the group cannot be
// linked exactly) and sends its primary cells to review with the reason.
// hints carry the run's audit tuning and joint work budget
// (Options.AuditTuning, Options.JointWork), as for a table protected on
// its own.
func protectApart(ctx context.Context, members []*audit.Table, settings []*configs.Settings, reason string, workers int, hints *tableHints) error {
	for a, t := range members {
		if err := protectTable(ctx, t, settings[a], workers, protectedCells(t), hints); err != nil {
			return err
		}
		var others []string
		for _, o := range members {
			if o.Name != t.Name {
				others = append(others, o.Name)
			}
		}
		link.Apart(t, others, reason)
	}
	return nil
}

// finishLinked protects the deferred tables of the run together and writes
// their outputs.
func finishLinked(ctx context.Context, lp *linkPlan, jobs []Job, units []linkUnit, dir string, res *Result, outputs [][]string, opt Options) error {
	if err := lp.protectLinked(ctx, jobs, units, res.Tables, opt); err != nil {
		return err
	}
	for k, t := range res.Tables {
		if !lp.deferred(k) {
			continue
		}
		t.Link = lp.link(k, t.Name)
		withholdBeside(t, protectedCells(t))
		overrideStatuses(t)
		start := time.Now()
		files, err := writeTable(ctx, dir, t, tableWriters(jobs[units[k].job].Settings), opt.workers())
		if err != nil {
			return err
		}
		log := opt.Log.With().Str("table", t.Name).Logger()
		s := t.Summarize()
		log.Debug().Dur("write", time.Since(start)).Msg("stage times")
		log.Info().Int("cells", s.Cells).Int("primary", s.Primary).Int("secondary", s.Secondary).Int("review", s.Review).Msg("audited with its linked tables")
		outputs[k] = files
	}
	return nil
}

// explicitLinks maps the links: groups to units. A name that is no table
// of the run is a configuration error naming it.
func explicitLinks(units []linkUnit, links [][]string) ([][]int, error) {
	if len(links) == 0 {
		return nil, nil
	}
	byName := make(map[string]int, len(units))
	var names []string
	for k, u := range units {
		byName[u.name] = k
		names = append(names, u.name)
	}
	var out [][]int
	for i, g := range links {
		var ks []int
		for _, name := range g {
			k, ok := byName[name]
			if !ok {
				msg := fmt.Sprintf("links[%d]: %q is not a table of the release (tables: %s)", i, name, strings.Join(names, ", "))
				if s := configs.Suggest(name, names); s != "" {
					msg += "; did you mean " + s + "?"
				}
				return nil, &configs.Error{Msg: msg, Err: configs.ErrInvalid}
			}
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
		out = append(out, ks)
	}
	return out, nil
}

// mayLinkJob reports whether a link name may be a table of job j (its
// output name, or a sheet of it): sharding keeps such jobs together.
func mayLinkJob(name string, j Job) bool {
	base := j.Name
	if base == "" {
		base = strings.TrimSuffix(filepath.Base(j.Path), filepath.Ext(j.Path))
	}
	return name == base || strings.HasPrefix(name, base+"_")
}
