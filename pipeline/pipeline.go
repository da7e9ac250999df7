// Package pipeline runs an audit: read and build cells (package cells) ->
// Evaluate (the rules on every cell with a bounded worker pool, the
// decisions, overrides, a-priori cells, the previous release) -> Protect
// (secondary suppression and the interval audit; linked tables together,
// once every table is evaluated) -> write. Each stage honours context
// cancellation; tables are processed concurrently up to a limit and their
// outputs are written atomically (stage.go), in a deterministic order and
// form; a run may be one of several shards (shard.go, Merge), and every
// output carries the run's trail (trail.go).
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/writers"
)

// Job is one input file with its resolved settings.
type Job struct {
	Path     string
	Name     string // output base name; the file's base name when empty
	Settings *configs.Settings
	// Cells says that Path is a cell summary (docs/cells.md) of the
	// microdata the settings describe, not the microdata itself.
	Cells bool
}

// Options control a run.
type Options struct {
	// Out is the output directory (created when missing).
	Out string
	// Workers bounds concurrent tables and cell-evaluation workers
	// (default: the number of CPUs).
	Workers int
	// Log receives progress messages; never confidential values at info level.
	Log zerolog.Logger
	// Progress, when set, is told how many rows have been read.
	Progress func(rows int64)
	// Stage, when set, is told each stage a table enters (StageRead,
	// StageCells, ...); tables run concurrently, so calls may interleave.
	Stage func(stage string)
	// ReadBytes, when set, is told how many bytes of the input files have
	// been read (delimited text files; other formats do not report).
	ReadBytes func(n int64)
	// Version is written into summary.json.
	Version string
	// Shard and Shards, when Shards > 0, make the run one of Shards
	// shards: it audits the jobs whose index modulo Shards is Shard and
	// writes a partial summary instead of the run's summary (see Merge).
	Shard, Shards int
	// Timestamp, when set, is the run's wall-clock time written into the
	// audit trail of every output (outputs are otherwise byte-identical).
	Timestamp string
	// BeforeCommit, when set, is called once every output is written to
	// the staging directory and before any is moved into the output
	// directory; an error (such as ctx.Err()) abandons the run's outputs.
	// The command's interrupt test uses it to signal at a known stage.
	BeforeCommit func(ctx context.Context) error
	// Link says whether the tables that share cells (microdata tables
	// from the same records) are protected together (LinkOn; see
	// linked.go), only recorded as groups in the reports (LinkOff) or not
	// looked for (LinkNone, the zero value).
	Link LinkMode
	// Links are groups of tables (by output name) linked explicitly
	// (the release file's links:), such as aggregate tables from
	// elsewhere; see links_cells.go.
	Links [][]string
	// MaxCoverCells bounds the cells of a link group's cover table (0:
	// 250,000). A group whose cover would be larger is protected table by
	// table and its primary cells go to review (the joint system is not
	// checked); tests lower it to reach that path on a small release.
	MaxCoverCells int
	// AuditTuning bounds the interval audit's work on the tables not
	// linked to others (nil: intervals.DefaultTuning); tests lower it to
	// reach the budgeted paths on a small table.
	AuditTuning *intervals.Tuning
	// JointWork is the work budget of secondary suppression's joint
	// search (suppress.JointOptions.Work; 0: its default), for every
	// table of the run: a test hook, which tests whose subject is not
	// that search's quality lower under the race detector.
	JointWork float64
}

// maxCoverCells is o.MaxCoverCells or its default.
func (o Options) maxCoverCells() int {
	if o.MaxCoverCells > 0 {
		return o.MaxCoverCells
	}
	return 250_000
}

// LinkMode is what a run does with tables that share cells.
type LinkMode uint8

// The link modes.
const (
	// LinkNone leaves the tables independent and finds no groups (check
	// without --linked).
	LinkNone LinkMode = iota
	// LinkOff finds the groups and records them in the reports, but
	// protects each table on its own (a release file's linked: false).
	LinkOff
	// LinkOn protects each group's tables together (--linked, or a
	// release file by default).
	LinkOn
)

// Grouped reports whether the run finds groups of linked tables (LinkOff
// or LinkOn).
func (m LinkMode) Grouped() bool { return m != LinkNone }

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Result is the outcome of a run.
type Result struct {
	Summary writers.RunSummary
	Tables  []*audit.Table
}

// Run audits every job and writes the outputs. It returns the result even
// when some table needs a person; errors are input, configuration or
// output failures.
func Run(ctx context.Context, jobs []Job, opt Options) (*Result, error) {
	if opt.Workers < 0 {
		return nil, &configs.Error{Msg: fmt.Sprintf("workers must be 0 (the number of CPUs) or more, got %d", opt.Workers), Err: configs.ErrInvalid}
	}
	// Validate every configuration before reading anything (but the
	// layout of a crosstab given without one: compileJobs).
	jobs = slices.Clone(jobs)
	built, err := compileJobs(jobs)
	if err != nil {
		return nil, err
	}
	// A shard audits its own jobs only (shard.go); runJob maps its jobs
	// to their index in the whole run.
	runJob, err := shardJobs(jobs, opt)
	if err != nil {
		return nil, err
	}
	all := jobs
	jobs, built = pick(jobs, runJob), pick(built, runJob)
	inputs := newInputLog(jobs, opt.Version, opt.Timestamp)
	units, err := openUnits(jobs, inputs, opt.ReadBytes)
	defer func() {
		for _, u := range units {
			u.src.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	if err := checkOverrideTables(jobs, units, all); err != nil {
		return nil, err
	}
	lunits := make([]linkUnit, len(units))
	for k, u := range units {
		file, page := u.src.Where()
		lunits[k] = linkUnit{job: u.job, name: u.name, file: file, page: page}
	}
	links, err := planLinks(jobs, lunits, opt)
	if err != nil {
		return nil, err
	}
	// Every output goes to a staging directory first; see stage.go.
	stage, err := beginStaging(opt.Out)
	if err != nil {
		return nil, err
	}
	defer stage.abort()
	res := &Result{Tables: make([]*audit.Table, len(units))}
	outputs := make([][]string, len(units))
	// One CPU budget: up to opt.workers() tables at once, and the stages
	// of each table share what the others leave.
	tables := min(opt.workers(), max(len(units), 1))
	inner := max(1, opt.workers()/tables)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(tables)
	for k, u := range units {
		g.Go(func() error {
			t, files, err := auditUnit(gctx, u, jobs[u.job], built[u.job], stage.dir, opt, inner, inputs, links, k)
			res.Tables[k], outputs[k] = t, files
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := finishLinked(ctx, links, jobs, lunits, stage.dir, res, outputs, opt); err != nil {
		return nil, err
	}
	res.Summary.LinkGroups = links.summary()
	res.Summary.Version = opt.Version
	res.Summary.Run = inputs.run(res.Tables)
	for k, t := range res.Tables {
		res.Summary.Add(writers.TableSummary{Table: t.Name, Source: t.Source, Mode: t.Mode, Outputs: outputs[k], Summary: t.Summarize()})
	}
	tableJob := make([]int, len(units))
	for k, u := range units {
		tableJob[k] = runJob[u.job]
	}
	if err := commitRun(ctx, stage, res, outputs, opt, func() ([]string, error) {
		if opt.Shards > 0 {
			return writePart(ctx, stage.dir, res, outputs, tableJob, all, opt)
		}
		return writeRun(ctx, stage.dir, res, jobs)
	}); err != nil {
		return nil, err
	}
	return res, nil
}

// pick returns the elements of s at the indexes idx.
func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, k := range idx {
		out[i] = s[k]
	}
	return out
}

// compiled is a job's configuration compiled once: its rules and the
// schema of its tables.
type compiled struct {
	rules  *RuleSet
	schema *cells.Schema
	// detection is the crosstab layout detected (detectLayout), else nil.
	detection *readers.WideDetection
}

// compileJobs builds and validates the rules and the table schema of every
// job, and the output names given.
func compileJobs(jobs []Job) ([]compiled, error) {
	built := make([]compiled, len(jobs))
	for i, j := range jobs {
		rs, err := BuildRules(j.Settings)
		if err != nil {
			var ce *configs.Error
			if errors.As(err, &ce) && ce.File != "" {
				return nil, err // it names the config file and line
			}
			return nil, fmt.Errorf("%s: %w", j.Path, err)
		}
		var detection *readers.WideDetection
		if !j.Cells {
			if j.Settings, detection, err = cells.DetectLayout(j.Path, j.Settings); err != nil {
				return nil, err
			}
			jobs[i].Settings = j.Settings
		}
		compile := cells.CompileSchema
		if j.Cells {
			compile = func(s *configs.Settings, file string) (*cells.Schema, error) {
				return cells.CompileCellsSchema(s, file, rs.needs)
			}
		}
		sc, err := compile(j.Settings, j.Path)
		if err != nil {
			return nil, err
		}
		built[i] = compiled{rs, sc, detection}
		if j.Name != "" {
			if err := checkName(j.Name, j.Path); err != nil {
				return nil, err
			}
		}
	}
	return built, nil
}

// unit is one table of one job's file.
type unit struct {
	job  int
	src  readers.Source
	name string
}

// openUnits opens every table of every job and checks their output
// names. The units opened are returned with an error too (to be closed).
func openUnits(jobs []Job, inputs *inputLog, onBytes func(int64)) ([]unit, error) {
	var units []unit
	names := map[string]string{}
	for i, j := range jobs {
		ropt := inputs.options(i, cells.ReaderOptions(j.Settings))
		if onBytes != nil && ropt.Tee != nil {
			ropt.Tee = io.MultiWriter(ropt.Tee, byteCounter(onBytes))
		}
		srcs, err := readers.Open(j.Path, ropt)
		if err != nil {
			return units, err
		}
		for _, s := range srcs {
			s = inputs.count(s)
			name := s.Name()
			if j.Name != "" {
				name = j.Name
				if len(srcs) > 1 {
					name = j.Name + "_" + s.Name()
				}
			}
			units = append(units, unit{i, s, name})
			if err := checkName(name, j.Path); err != nil {
				return units, err
			}
			if prev, dup := names[name]; dup {
				return units, &configs.Error{Msg: fmt.Sprintf("two inputs would write outputs named %q (%s and %s); give one a name in the release file", name, prev, j.Path), Err: configs.ErrInvalid}
			}
			names[name] = j.Path
		}
	}
	return units, nil
}

// auditUnit reads, evaluates and writes one table with the given number of
// workers, and returns it with the names of the files written.
// Tables of a link group are evaluated here but protected and written
// with their group (finishLinked); links may be nil.
func auditUnit(ctx context.Context, u unit, j Job, c compiled, dir string, opt Options, workers int, inputs *inputLog, links *linkPlan, k int) (*audit.Table, []string, error) {
	log := opt.Log.With().Str("table", u.name).Logger()
	log.Info().Str("file", j.Path).Msg("reading")
	ctx = withStage(ctx, opt.Stage)
	enterStage(ctx, StageRead)
	start := time.Now()
	src := u.src
	side, err := captureSide(src, j.Settings)
	if err != nil {
		return nil, nil, err
	}
	if side != nil {
		src = side
	}
	t, err := cells.Load(ctx, cells.Input{Src: src, Settings: j.Settings, Schema: c.schema, Needs: c.rules.needs, Workers: workers, Rows: opt.Progress, Finishing: cellsStage(ctx)})
	if err != nil {
		return nil, nil, err
	}
	t.Name = u.name
	cells.NoteDetection(t, c.detection)
	if t.Run, err = inputs.table(ctx, u.job, u.src); err != nil {
		return nil, nil, err
	}
	read := time.Now()
	settings := j.Settings
	if side != nil && len(side.cells) > 0 {
		own := *settings
		// the table's own statuses first: an a-priori file read later wins
		own.Apriori = append(slices.Clone(side.cells), settings.Apriori...)
		settings = &own
	}
	ev, err := Evaluate(ctx, t, c.rules, settings, workers)
	if err != nil {
		return nil, nil, err
	}
	if links.deferred(k) {
		ev.record(t)
		return t, nil, nil // protected and written with its linked tables (finishLinked)
	}
	ev.hints.auditTuning = opt.AuditTuning
	ev.hints.jointWork = opt.JointWork
	if err := Protect(ctx, t, settings, ev, workers); err != nil {
		return nil, nil, err
	}
	t.Link = links.link(k, t.Name)
	evaluated := time.Now()
	enterStage(ctx, StageWrite)
	files, err := writeTable(ctx, dir, t, outputWriters(u.src, j.Settings), workers)
	if err != nil {
		return nil, nil, err
	}
	log.Debug().Int64("read_ms", read.Sub(start).Milliseconds()).Int64("evaluate_ms", evaluated.Sub(read).Milliseconds()).Int64("write_ms", time.Since(evaluated).Milliseconds()).Msg("stage times")
	s := t.Summarize()
	log.Info().Int("cells", s.Cells).Int("primary", s.Primary).Int("secondary", s.Secondary).Int("review", s.Review).Msg("audited")
	if len(t.Warnings) > 0 {
		// the texts go to the checker's report only
		log.Warn().Int("warnings", len(t.Warnings)).Msg("the table has warnings: see its report")
	}
	return t, files, nil
}

// commitRun writes the run's own outputs and moves every output from the
// staging directory into the output directory, unless interrupted.
func commitRun(ctx context.Context, stage *staging, res *Result, outputs [][]string, opt Options, writeRun func() ([]string, error)) error {
	run, err := writeRun()
	if err != nil {
		return err
	}
	if opt.BeforeCommit != nil {
		if err := opt.BeforeCommit(ctx); err != nil {
			return err
		}
	}
	// The last point where an interrupt is honoured.
	if err := ctx.Err(); err != nil {
		return err
	}
	var tables, files []string
	for k, t := range res.Tables {
		tables = append(tables, t.Name)
		files = append(files, outputs[k]...)
	}
	return stage.commit(tables, files, run)
}

// checkName validates the output base name of an input: outputs are
// never written outside the output directory (configuration error, exit 2).
func checkName(name, path string) error {
	if len(name) > writers.MaxNameBytes {
		return &configs.Error{Msg: fmt.Sprintf("output name %q (for %s): %d bytes, at most %d (its outputs add up to 17 bytes to it); give a shorter name", readers.Excerpt(name), path, len(name), writers.MaxNameBytes), Err: configs.ErrInvalid}
	}
	if err := writers.CheckName(name); err != nil {
		return &configs.Error{Msg: fmt.Sprintf("output name %q (for %s): %v", readers.Excerpt(name), path, err), Err: err}
	}
	return nil
}

// writeTable writes every output of one table, concurrently (writers only
// read the table), and returns the file names in a fixed order.
func writeTable(ctx context.Context, dir string, t *audit.Table, ws []writers.TableWriter, workers int) ([]string, error) {
	ws = slices.DeleteFunc(slices.Clone(ws), func(w writers.TableWriter) bool {
		sk, ok := w.(interface{ Skip(*audit.Table) bool })
		return ok && sk.Skip(t) // an output this table does not need
	})
	files := make([]string, len(ws))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for i, w := range ws {
		files[i] = w.File(t)
		g.Go(func() error { return writers.WriteTable(gctx, dir, w, t) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return files, nil
}

// RuleSet is the rules a configuration enables, built once per job.
type RuleSet struct {
	cell  []rules.CellRule
	table []rules.TableRule
	needs rules.Needs
	// sensitive are the enabled sensitivity rules (assess.go).
	sensitive []string
}

// Needs returns what the rules and the published statistics need per cell.
func (rs *RuleSet) Needs() rules.Needs { return rs.needs }

// BuildRules builds and validates the enabled rules of the settings.
// Errors are *configs.Error wrapping the rule's error (a
// *rules.ParamError, a *configs.Error of its parameters' YAML, ...).
func BuildRules(s *configs.Settings) (*RuleSet, error) {
	rs := &RuleSet{}
	var errs []*configs.Error
	for _, r := range s.Rules {
		if _, known := rules.Lookup(r.Name); !known {
			// named anywhere, even disabled: a typo is an error
			errs = append(errs, r.RuleError(rules.ErrUnknownRule, "", rules.Names()))
			continue
		}
		if !r.Enabled {
			continue
		}
		rule, err := rules.New(r.Name, r.Decode)
		if err != nil {
			var ce *configs.Error
			var pe *rules.ParamError
			switch {
			case errors.As(err, &ce):
				errs = append(errs, ce)
			case errors.As(err, &pe):
				errs = append(errs, r.RuleError(err, pe.Param, nil))
			default:
				errs = append(errs, r.RuleError(err, "", nil))
			}
			continue
		}
		ok := false
		if c, is := rule.(rules.CellRule); is {
			rs.cell = append(rs.cell, c)
			ok = true
		}
		if t, is := rule.(rules.TableRule); is {
			rs.table = append(rs.table, t)
			ok = true
		}
		if !ok {
			return nil, fmt.Errorf("rule %s checks neither cells nor tables", r.Name)
		}
		rs.sensitive = append(rs.sensitive, sensitivityRules([]string{r.Name})...)
		if n, is := rule.(rules.Needer); is {
			rs.needs = rs.needs.Merge(n.Needs())
		}
	}
	slices.SortStableFunc(errs, func(a, b *configs.Error) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	if err := configs.JoinErrors(errs); err != nil {
		return nil, err
	}
	rs.needs = cells.PublishedNeeds(&s.Publish, rs.needs)
	if s.Publish.Has("median") && s.Measure == nil && s.Microdata != nil {
		return nil, &configs.Error{Msg: "publishing the median of microdata needs a measure domain (measure: {min, max, step})", Err: configs.ErrInvalid}
	}
	return rs, nil
}

// cellRules are the cell rules as they judge t: on an aggregate table
// whose published values are rounded (input.rounded: B), at every value
// the rounded count and total stand for (rules.ForRounded).
func (rs *RuleSet) cellRules(t *audit.Table, s *configs.Settings) []rules.CellRule {
	return forRounded(rs.cell, roundedBase(t, s), rules.ForRounded)
}

// tableRules are the table rules as they judge t: on a rounded
// aggregate table, within the rounding (rules.ForRoundedTable).
func (rs *RuleSet) tableRules(t *audit.Table, s *configs.Settings) []rules.TableRule {
	return forRounded(rs.table, roundedBase(t, s), rules.ForRoundedTable)
}

// forRounded returns rs, each wrapped for the rounding base b (rs itself
// when b is nil: the table is not rounded).
func forRounded[R any](rs []R, b *decimal.Dec, wrap func(R, decimal.Dec) R) []R {
	if b == nil {
		return rs
	}
	out := make([]R, len(rs))
	for i, r := range rs {
		out[i] = wrap(r, *b)
	}
	return out
}

// roundedBase is the base t's published values are rounded to
// (input.rounded, aggregate tables only), nil when they are exact.
func roundedBase(t *audit.Table, s *configs.Settings) *decimal.Dec {
	b := s.Input.Rounded
	if t.Mode != audit.Aggregate || b == nil || b.Sign() <= 0 {
		return nil
	}
	return b
}

// LoadTable reads a source into a table of cells per the settings, with
// what the enabled rules need.
func LoadTable(ctx context.Context, src readers.Source, s *configs.Settings) (*audit.Table, error) {
	rs, err := BuildRules(s)
	if err != nil {
		return nil, err
	}
	file, _ := src.Where()
	sc, err := cells.CompileSchema(s, file)
	if err != nil {
		return nil, err
	}
	return cells.Load(ctx, cells.Input{Src: src, Settings: s, Schema: sc, Needs: rs.needs, Workers: runtime.GOMAXPROCS(0), Finishing: cellsStage(ctx)})
}

// Evaluate runs the cell rules on every cell with a bounded worker pool,
// then the table rules, then decides every cell's status and applies the
// overrides, the a-priori cells and the previous release's statuses. It
// does not protect the table: Protect does, with what Evaluate returns.
func Evaluate(ctx context.Context, t *audit.Table, rs *RuleSet, s *configs.Settings, workers int) (*Evaluation, error) {
	enterStage(ctx, StageRules)
	cellRules, tableRules := rs.cellRules(t, s), rs.tableRules(t, s)
	const chunk = 1024
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	// The findings of the cell rules, and then of the table rules, go in
	// columns, one set per chunk of cells (audit.RuleFindings): a byte
	// per cell and rule, not a finding.
	nc, nt := len(cellRules), len(tableRules)
	cols := make([]*audit.RuleFindings, (len(t.Cells)+chunk-1)/chunk)
	for lo := 0; lo < len(t.Cells); lo += chunk {
		hi := min(lo+chunk, len(t.Cells))
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			rf := audit.NewRuleFindings(hi-lo, nc+nt)
			cols[lo/chunk] = rf
			for i, c := range t.Cells[lo:hi] {
				rf.Attach(c, i)
				for j, r := range cellRules {
					rf.Put(c, i, j, r.Check(t, c))
				}
			}
			return gctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, r := range tableRules {
		r.CheckTable(t)
	}
	if nt > 0 {
		for i, c := range t.Cells {
			if rf := cols[i/chunk]; rf != nil {
				rf.MoveFindings(c, i%chunk, nc, nt)
			}
		}
	}
	if err := evaluateOtherCounts(ctx, t, cellRules, tableRules); err != nil {
		return nil, err
	}
	for _, c := range t.Cells {
		audit.Decide(c)
	}
	markUnassessed(t, rs.sensitive)
	if err := applyOverrides(t, s.Overrides); err != nil {
		return nil, err
	}
	keep := protectedCells(t)
	ap, err := applyApriori(t, s.Apriori)
	if err != nil {
		return nil, err
	}
	if ap != nil {
		for c := range ap.keep {
			if keep == nil {
				keep = map[*audit.Cell]bool{}
			}
			keep[c] = true
		}
	}
	prev, err := applyPrevious(t, s)
	if err != nil {
		return nil, err
	}
	return &Evaluation{keep: keep, hints: tableHints{ap: ap, prev: prev}}, nil
}

// Evaluation is what evaluating a table leaves for protecting it: the
// cells kept out of secondary suppression (protected overrides, a-priori
// cells) and what the a-priori cells and the previous release give
// secondary suppression.
type Evaluation struct {
	keep  map[*audit.Cell]bool
	hints tableHints
}

// Protect runs secondary suppression and the interval audit of an
// evaluated table as the settings ask, then records the decisions
// (record).
func Protect(ctx context.Context, t *audit.Table, s *configs.Settings, ev *Evaluation, workers int) error {
	if err := protectWithPrevious(ctx, t, s, workers, ev.keep, &ev.hints); err != nil {
		return err
	}
	withholdBeside(t, ev.keep)
	ev.record(t)
	return nil
}

// record notes in the table's report each override's final status, the
// cells whose status differs from their a-priori status and the changes
// from the previous release. A table protected with its linked tables is
// recorded when evaluated (finishLinked notes the override statuses again
// once they are protected).
func (ev *Evaluation) record(t *audit.Table) {
	overrideStatuses(t)
	aprioriDifferences(t, ev.hints.ap)
	previousChanges(t, ev.hints.prev)
}

// AuditSource reads one source, evaluates and protects it: LoadTable
// followed by Evaluate and Protect, without writing anything.
func AuditSource(ctx context.Context, src readers.Source, s *configs.Settings, workers int) (*audit.Table, error) {
	return auditSource(ctx, src, s, workers, 0)
}

// auditSource is AuditSource with the joint search's work budget
// jointWork (Options.JointWork; 0: its default), the tests' hook.
func auditSource(ctx context.Context, src readers.Source, s *configs.Settings, workers int, jointWork float64) (*audit.Table, error) {
	rs, err := BuildRules(s)
	if err != nil {
		return nil, err
	}
	file, _ := src.Where()
	sc, err := cells.CompileSchema(s, file)
	if err != nil {
		return nil, err
	}
	t, err := cells.Load(ctx, cells.Input{Src: src, Settings: s, Schema: sc, Needs: rs.needs, Workers: workers, Finishing: cellsStage(ctx)})
	if err != nil {
		return nil, err
	}
	ev, err := Evaluate(ctx, t, rs, s, workers)
	if err != nil {
		return nil, err
	}
	ev.hints.jointWork = jointWork
	if err := Protect(ctx, t, s, ev, workers); err != nil {
		return nil, err
	}
	return t, nil
}
