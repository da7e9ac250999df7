// Package pipeline runs an audit: read -> build cells -> evaluate cells with
// a bounded worker pool -> table decisions -> write. Each stage honours
// context cancellation; tables are processed concurrently up to a limit and
// their outputs are written atomically, in a deterministic order and form.
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
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
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
	schema *schema
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
			if j.Settings, detection, err = detectLayout(j.Path, j.Settings); err != nil {
				return nil, err
			}
			jobs[i].Settings = j.Settings
		}
		sc, err := compileSchema(j.Settings, j.Path)
		if err != nil {
			return nil, err
		}
		if j.Cells {
			if sc.mode != audit.Microdata {
				return nil, &configs.Error{Msg: fmt.Sprintf("%s: a cell summary needs the microdata's dimensions (--dims, --value, --holding or microdata: in the config)", j.Path), Err: configs.ErrInvalid}
			}
			if err := refuseCells(j.Path, rs.needs, j.Settings.Microdata != nil && len(j.Settings.Microdata.Parents) > 0); err != nil {
				return nil, err
			}
			sc.cells = true
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
		ropt := inputs.options(i, ReaderOptions(j.Settings))
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
	t, err := loadTable(ctx, src, j.Settings, c.schema, c.rules.needs, opt.Progress, workers)
	if err != nil {
		return nil, nil, err
	}
	t.Name = u.name
	noteDetection(t, c.detection)
	if t.Run, err = inputs.table(ctx, u.job, u.src); err != nil {
		return nil, nil, err
	}
	read := time.Now()
	settings := links.settings(k, j.Settings)
	if side != nil && len(side.cells) > 0 {
		own := *settings
		// the table's own statuses first: an a-priori file read later wins
		own.Apriori = append(slices.Clone(side.cells), settings.Apriori...)
		settings = &own
	}
	if err := Evaluate(ctx, t, c.rules, settings, workers); err != nil {
		return nil, nil, err
	}
	if links.deferred(k) {
		return t, nil, nil // protected and written with its linked tables
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

// ReaderOptions are the reader settings of a configuration.
func ReaderOptions(s *configs.Settings) readers.Options {
	o := readers.Options{Format: s.Input.Format, Sheet: s.Input.Sheet, Range: s.Input.Range, Encoding: s.Input.Encoding, Decimal: s.Input.Decimal, Wide: wideOptions(s),
		Metadata: s.Input.Metadata, MaxRecordBytes: s.Input.MaxRecordBytes, MaxFieldBytes: s.Input.MaxFieldBytes}
	switch s.Input.Delimiter {
	case "tab", "\\t", "\t":
		o.Delimiter = '\t'
	case "":
	default:
		o.Delimiter = []rune(s.Input.Delimiter)[0]
	}
	return o
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
	// What the released statistics need, whatever the rules. Power sums
	// are kept only up to the highest moment the table releases: an
	// intruder can use no other, and they cost time on every record.
	stats := publishedStats(&s.Publish)
	order := audit.PublishedOrder(stats)
	rs.needs.Powers = min(rs.needs.Powers, order)
	for _, st := range stats {
		switch st.Kind {
		case audit.KindSD, audit.KindVariance:
			rs.needs.SumSq = true
		case audit.KindMedian:
			rs.needs.Hist = true
		case audit.KindSkewness, audit.KindKurtosis:
			rs.needs.Powers = max(rs.needs.Powers, order)
		}
	}
	rs.needs.Powers = max(rs.needs.Powers, s.Publish.MomentOrder)
	if s.Publish.Has("median") && s.Measure == nil && s.Microdata != nil {
		return nil, &configs.Error{Msg: "publishing the median of microdata needs a measure domain (measure: {min, max, step})", Err: configs.ErrInvalid}
	}
	return rs, nil
}

// publishedStats are the statistics a publish list names: the names
// listed, then m1..mK of `moments: {order: K}`.
func publishedStats(p *configs.Publish) []audit.Statistic {
	var out []audit.Statistic
	for _, name := range p.Stats {
		if st, ok := audit.ParseStatistic(name); ok {
			out = append(out, st)
		}
	}
	for k := 1; k <= p.MomentOrder; k++ {
		out = append(out, audit.Moment(k))
	}
	return out
}

// LoadTable reads a source into a table of cells per the settings, with
// what the enabled rules need.
func LoadTable(ctx context.Context, src readers.Source, s *configs.Settings) (*audit.Table, error) {
	rs, err := BuildRules(s)
	if err != nil {
		return nil, err
	}
	file, _ := src.Where()
	sc, err := compileSchema(s, file)
	if err != nil {
		return nil, err
	}
	return loadTable(ctx, src, s, sc, rs.needs, nil, runtime.GOMAXPROCS(0))
}

// builder turns batches of rows into a table's cells.
type builder interface {
	add(*readers.Batch) error
	finish() error
}

// shardable builders can build parts of the input in parallel.
type shardable interface {
	builder
	newShard() builder
	absorb(shard builder)
}

// firstError returns the input error at the smallest row, so that the
// error reported does not depend on which shard met it first.
func firstError(errs []error) error {
	var best error
	bestRow := -1
	for _, err := range errs {
		if err == nil {
			continue
		}
		row := 1 << 62
		var re *readers.Error
		if errors.As(err, &re) && re.Row > 0 {
			row = re.Row
		}
		if best == nil || row < bestRow {
			best, bestRow = err, row
		}
	}
	return best
}

func loadTable(ctx context.Context, src readers.Source, s *configs.Settings, sc *schema, needs rules.Needs, progress func(int64), workers int) (*audit.Table, error) {
	file, sheet := src.Where()
	t := sc.newTable(src.Name(), file, sheet, s)
	t.Input = inputInfo(src)
	var b builder
	switch {
	case sc.cells:
		cb, err := newCellsBuilder(t, file, src.Header(), sc, needs)
		if err != nil {
			return nil, atHeaderRow(err, src)
		}
		cb.limits = limitsOf(s)
		b = cb
	case sc.mode == audit.Microdata:
		mb, err := newMicroBuilder(t, file, src.Header(), sc.value, sc.holding, needs)
		if err != nil {
			return nil, classify(atHeaderRow(err, src))
		}
		if mb.hier, err = newMicroHier(t, s, file, src.Header()); err != nil {
			return nil, atHeaderRow(err, src)
		}
		mb.limits = limitsOf(s)
		if typed, ok := readers.As[readers.Typed](src); ok && mb.valueOnly() {
			typed.ReadNumbers(mb.valIdx) // exact numbers without a text round trip
		}
		b = mb
	default:
		ab, err := newAggBuilder(t, file, src.Header(), sc, s.Markers)
		if err != nil {
			return nil, classify(atHeaderRow(err, src))
		}
		b = ab
	}
	if err := build(ctx, src, b, sheet, progress, workers); err != nil {
		return nil, wideError(src, err)
	}
	if !sc.cells && sc.mode == audit.Aggregate {
		text := map[string]bool{}
		if ab, ok := b.(*aggBuilder); ok {
			for j, i := range ab.extra {
				text[ab.header[i]] = ab.extraText[j]
			}
		}
		if err := inferStructure(t, s, src.Header(), text); err != nil {
			return nil, err
		}
	}
	if w, ok := readers.As[readers.Warner](src); ok {
		t.Warnings = append(t.Warnings, w.Warnings()...)
		if t.Structure != nil {
			t.Structure.Layout = append(t.Structure.Layout, w.Warnings()...)
		}
	}
	return t, nil
}

// build is the stage that reads batches concurrently with building cells.
// Microdata is built by several shards (batch i goes to shard i mod n, so
// the partition is deterministic; n is the number of workers, see
// partitions) that are merged in a fixed order. When
// the source can cut its text into chunks of whole records
// (readers.Chunker, delimited files), the reading goroutine only cuts
// them and each shard parses its chunks itself (parse_chunks.go): chunk i
// holds the records of batch i, so the partition and the results are the
// same. Every error is kept with its row and the smallest row wins; an
// error does not cancel the shards, so that an earlier row still being
// built is not lost.
func build(ctx context.Context, src readers.Source, b builder, sheet string, progress func(int64), workers int) error {
	workers = max(1, workers)
	shards := []builder{b}
	var chunks *chunkReader
	if sb, ok := b.(shardable); ok {
		for len(shards) < partitions(b, workers) {
			shards = append(shards, sb.newShard())
		}
		chunks = newChunkReader(src)
	}
	if mb, ok := b.(*microBuilder); ok {
		mb.workers = workers
	}
	// One goroutine per worker (at most one per shard); goroutine k builds
	// the shards k, k+n, k+2n, ... (see partitions).
	chans := make([]chan work, min(workers, len(shards)))
	for i := range chans {
		chans[i] = make(chan work, 2)
	}
	errs := make([]error, len(shards))
	var readErr error
	var records int64 // data records read (by the reading goroutine)
	var failed atomic.Bool
	g, gctx := errgroup.WithContext(ctx)
	if chunks == nil {
		skipUnread(src, b)
		decodeInParallel(gctx, src, workers)
	}
	g.Go(func() error {
		defer func() {
			for _, c := range chans {
				close(c)
			}
		}()
		for i := 0; !failed.Load(); i++ {
			var w work
			var err error
			if chunks != nil {
				w.chunk, err = chunks.next()
			} else {
				w.batch, err = src.Next()
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				readErr = withSheet(err, sheet)
				failed.Store(true)
				return nil
			}
			if w.chunk != nil {
				records += int64(w.chunk.Rows())
			} else {
				records += int64(len(w.batch.Rows))
			}
			if w.batch != nil && progress != nil {
				progress(int64(len(w.batch.Rows)))
			}
			w.shard = i % len(shards)
			select {
			case chans[w.shard%len(chans)] <- w:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for _, ch := range chans {
		g.Go(func() error {
			for w := range ch {
				k := w.shard
				if errs[k] != nil {
					continue // drain: the reader stops soon
				}
				bt, err := w.batch, error(nil)
				if w.chunk != nil {
					if bt, err = chunks.parse(w.chunk, progress); err != nil {
						errs[k] = withSheet(err, sheet)
						failed.Store(true)
						continue
					}
				}
				if err := shards[k].add(bt); err != nil {
					errs[k] = withSheet(err, sheet)
					failed.Store(true)
				}
				if err := gctx.Err(); err != nil {
					return err
				}
			}
			return nil
		})
	}
	waitErr := g.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := firstError(append(errs, readErr, waitErr)); err != nil {
		return err
	}
	if records == 0 {
		// an empty export is not a table without risk: nothing was audited
		file, _ := src.Where()
		return &readers.Error{File: file, Sheet: sheet, Err: fmt.Errorf("%w: the input has a header and no records, so there is nothing to audit", readers.ErrNoRows)}
	}
	enterStage(ctx, StageCells)
	if sb, ok := b.(shardable); ok {
		for _, sh := range shards[1:] {
			sb.absorb(sh)
		}
	}
	if err := b.finish(); err != nil {
		return withSheet(err, sheet)
	}
	return nil
}

func withSheet(err error, sheet string) error {
	var re *readers.Error
	if sheet != "" && errors.As(err, &re) && re.Sheet == "" {
		re.Sheet = sheet
	}
	return err
}

// classify marks builder set-up errors that are not input errors as
// configuration errors.
func classify(err error) error {
	var re *readers.Error
	if errors.As(err, &re) {
		return err
	}
	return &configs.Error{Err: err}
}

// Evaluate runs the cell rules on every cell with a bounded worker pool,
// then the table rules, then decides every cell's status and runs the
// table-level decisions.
func Evaluate(ctx context.Context, t *audit.Table, rs *RuleSet, s *configs.Settings, workers int) error {
	enterStage(ctx, StageRules)
	const chunk = 1024
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for lo := 0; lo < len(t.Cells); lo += chunk {
		hi := min(lo+chunk, len(t.Cells))
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			// One slab of findings for the chunk's cells, each cell's
			// slice capped at its own share (the cell and table rules'
			// findings) so that an append beyond it (secondary
			// suppression, an override) moves that cell's findings
			// elsewhere and never writes into the next cell's.
			k := len(rs.cell) + len(rs.table)
			slab := make([]audit.Finding, (hi-lo)*k)
			for i, c := range t.Cells[lo:hi] {
				c.Findings = slab[i*k : i*k : (i+1)*k]
				for _, r := range rs.cell {
					c.Findings = append(c.Findings, r.Check(t, c))
				}
			}
			return gctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, r := range rs.table {
		r.CheckTable(t)
	}
	if err := evaluateOtherCounts(ctx, t, rs); err != nil {
		return err
	}
	for _, c := range t.Cells {
		audit.Decide(c)
	}
	markUnassessed(t, rs.sensitive)
	keep, err := applyOverrides(t, s.Overrides)
	if err != nil {
		return err
	}
	ap, err := applyApriori(t, s.Apriori)
	if err != nil {
		return err
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
		return err
	}
	if ap != nil || prev != nil {
		aprioriOf.Store(t, &tableHints{ap: ap, prev: prev})
		defer aprioriOf.Delete(t)
	}
	if err := protectWithPrevious(ctx, t, s, workers, keep, prev); err != nil {
		return err
	}
	overrideStatuses(t)
	aprioriDifferences(t, ap)
	previousChanges(t, prev)
	return nil
}

// AuditSource reads one source and evaluates it: LoadTable followed by the
// rules and table decisions, without writing anything.
func AuditSource(ctx context.Context, src readers.Source, s *configs.Settings, workers int) (*audit.Table, error) {
	rs, err := BuildRules(s)
	if err != nil {
		return nil, err
	}
	file, _ := src.Where()
	sc, err := compileSchema(s, file)
	if err != nil {
		return nil, err
	}
	t, err := loadTable(ctx, src, s, sc, rs.needs, nil, workers)
	if err != nil {
		return nil, err
	}
	if err := Evaluate(ctx, t, rs, s, workers); err != nil {
		return nil, err
	}
	return t, nil
}
