package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// A sharded run (Options.Shards = N, Options.Shard = I) audits the jobs
// whose index modulo N is I and writes their table outputs and, instead of
// summary.json/html and results.json, a partial summary
// summary.part-I-of-N.json. Merge reads the N partial summaries and writes
// the run's summary.json, summary.html and results.json exactly as the
// unsharded run would. A partial summary holds what those files show and
// nothing more: per table its summary, its dimensions and columns, and per
// cell its key, status, flagged rules and, for ok cells only, the
// published values (no contributions, no figures).

// PartSchema is the version of the partial summary's format (2: the run's
// identity, output digests and the content digest; shard_trust.go).
const PartSchema = 2

// PartFile is the name of shard i's partial summary out of n.
func PartFile(i, n int) string { return fmt.Sprintf("summary.part-%d-of-%d.json", i, n) }

var partName = regexp.MustCompile(`^summary\.part-([0-9]+)-of-([0-9]+)\.json$`)

type partFile struct {
	Schema  int    `json:"schema"`
	Shard   int    `json:"shard"`
	Shards  int    `json:"shards"`
	Version string `json:"version"`
	// Jobs is the number of inputs of the whole run and Config the
	// SHA-256 of its resolved configuration (configDigest): with Version
	// and Shards, what identifies the run.
	Jobs   int    `json:"jobs"`
	Config string `json:"config_sha256"`
	// Inputs are the files this shard read, with their SHA-256.
	Inputs []partInput `json:"inputs"`
	Tables []partTable `json:"tables"`
	// Links are the shard's link groups (a group never spans shards).
	Links []partLink `json:"links,omitempty"`
	// Digest is the SHA-256 of the file with an empty digest (encodePart);
	// it must stay the last field.
	Digest string `json:"digest"`
}

// partLink is a link group with the job index of its first table, which
// orders the groups of all shards as the unsharded run lists them.
type partLink struct {
	First int               `json:"first"`
	Group writers.LinkGroup `json:"group"`
}

type partTable struct {
	// Job is the table's job index in the whole (unsharded) run.
	Job     int                  `json:"job"`
	HTML    bool                 `json:"html"`
	ACRO    bool                 `json:"acro"`
	Summary writers.TableSummary `json:"summary"`
	// Files are the SHA-256 of each of the table's outputs (Summary.Outputs).
	Files map[string]string `json:"files"`
	Table partDigest        `json:"table"`
}

// partDigest is what summary.html and results.json read of a table.
type partDigest struct {
	Name         string       `json:"name"`
	Source       string       `json:"source"`
	Mode         audit.Mode   `json:"mode"`
	Dims         []string     `json:"dims"`
	Columns      []string     `json:"columns"`
	ColumnLabels []string     `json:"column_labels,omitempty"`
	Exactly      int          `json:"exactly_disclosed,omitempty"`
	Under        int          `json:"under_protected,omitempty"`
	Audited      bool         `json:"audited,omitempty"`
	Run          *audit.Trail `json:"run,omitempty"`
	// Structure is the table's structure, which summary.html describes.
	Structure *audit.Structure `json:"structure,omitempty"`
	// Warnings are the table's warnings, which summary.html lists.
	Warnings []string `json:"warnings,omitempty"`
	// UnusedColumns are the input columns a table built from records did
	// not read, which summary.html names.
	UnusedColumns []string   `json:"unused_columns,omitempty"`
	Cells         []partCell `json:"cells"`
}

type partCell struct {
	Key    []string          `json:"key"`
	Status audit.Status      `json:"status"`
	Flags  []partFlag        `json:"flags,omitempty"`
	Stats  map[string]string `json:"stats,omitempty"`
}

// partFlag is a failed or review finding: its rule and outcome only.
type partFlag struct {
	Rule   string        `json:"rule"`
	Status audit.Outcome `json:"status"`
}

func digest(t *audit.Table) partDigest {
	d := partDigest{Name: t.Name, Source: t.Source, Mode: t.Mode, Dims: t.Dims, Columns: t.Columns, ColumnLabels: t.ColumnLabels, Run: t.Run, Structure: t.Structure, Warnings: t.Warnings, UnusedColumns: t.UnusedColumns, Cells: make([]partCell, len(t.Cells))}
	if t.Audit != nil {
		d.Audited, d.Exactly, d.Under = true, t.Audit.ExactlyDisclosed, t.Audit.UnderProtected
	}
	for i, c := range t.Cells {
		pc := partCell{Key: c.Key, Status: c.Status}
		for _, f := range c.EachFinding() {
			if f.Outcome == audit.Fail || f.Outcome == audit.Review {
				pc.Flags = append(pc.Flags, partFlag{f.Rule, f.Outcome})
			}
		}
		if c.Status.Effective() == audit.StatusOK {
			for _, col := range t.Columns {
				if s, ok := c.Stats.Get(col); ok {
					if pc.Stats == nil {
						pc.Stats = map[string]string{}
					}
					pc.Stats[col] = s.Text
				}
			}
		}
		d.Cells[i] = pc
	}
	return d
}

func (d *partDigest) table() *audit.Table {
	t := &audit.Table{Name: d.Name, Source: d.Source, Mode: d.Mode, Dims: d.Dims, Columns: d.Columns, ColumnLabels: d.ColumnLabels, Run: d.Run, Structure: d.Structure, Warnings: d.Warnings, UnusedColumns: d.UnusedColumns, Cells: make([]*audit.Cell, len(d.Cells))}
	if d.Audited {
		t.Audit = &audit.Intervals{ExactlyDisclosed: d.Exactly, UnderProtected: d.Under}
	}
	for i, pc := range d.Cells {
		c := &audit.Cell{Key: pc.Key, Status: pc.Status}
		for _, f := range pc.Flags {
			c.Findings = append(c.Findings, audit.Finding{Rule: f.Rule, Outcome: f.Status})
		}
		for _, k := range slices.Sorted(maps.Keys(pc.Stats)) {
			c.Stats.Set(k, audit.Stat{Text: pc.Stats[k]})
		}
		t.Cells[i] = c
	}
	return t
}

// shardJobs returns the indexes of the jobs of shard opt.Shard.
func shardJobs(jobs []Job, opt Options) ([]int, error) {
	n := len(jobs)
	var idx []int
	if opt.Shards == 0 && opt.Shard == 0 {
		for i := range n {
			idx = append(idx, i)
		}
		return idx, nil
	}
	if opt.Shards < 1 || opt.Shard < 0 || opt.Shard >= opt.Shards {
		return nil, &configs.Error{Msg: fmt.Sprintf("--shard %d --shards %d: want 0 <= shard < shards", opt.Shard, opt.Shards), Err: configs.ErrInvalid}
	}
	// Tables that may be linked (docs/suppression.md) stay in one shard,
	// the shard of the group's first job, so that they are protected
	// together; the key is the file's, without the sheet, which may group
	// more than linking does but never less.
	// Tables linked by links: stay in one shard too (a link name is matched
	// to every job whose output name or file it may be). With linking
	// turned off (LinkOff) the groups are still recorded in the
	// summary (link_groups), so they stay together as well.
	grouped := opt.Link.Grouped()
	first := map[string]int{}
	home := make([]int, n)
	for i := range n {
		home[i] = i
		if grouped {
			if key, ok := linkKey(jobs[i].Settings, jobs[i].Path, ""); ok {
				if f, seen := first[key]; seen {
					home[i] = f
				} else {
					first[key] = i
				}
			}
		}
	}
	if grouped {
		for changed := true; changed; {
			changed = false
			for _, g := range opt.Links {
				low := n
				var in []int
				for i := range n {
					for _, name := range g {
						if mayLinkJob(name, jobs[i]) {
							in = append(in, i)
							low = min(low, home[i])
							break
						}
					}
				}
				for _, i := range in {
					old := home[i]
					for j := range n {
						if home[j] == old && old != low {
							home[j], changed = low, true
						}
					}
				}
			}
		}
	}
	for i := range n {
		if home[i]%opt.Shards == opt.Shard {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

// writePart writes the partial summary of a shard into dir.
func writePart(ctx context.Context, dir string, res *Result, outputs [][]string, tableJob []int, jobs []Job, opt Options) ([]string, error) {
	config, err := configDigest(jobs, opt)
	if err != nil {
		return nil, err
	}
	p := partFile{Schema: PartSchema, Shard: opt.Shard, Shards: opt.Shards, Version: opt.Version, Jobs: len(jobs), Config: config,
		Inputs: partInputs(res, tableJob, jobs), Tables: []partTable{}}
	for k, t := range res.Tables {
		j := jobs[tableJob[k]]
		files, err := outputDigests(ctx, dir, res.Summary.Tables[k].Outputs)
		if err != nil {
			return nil, err
		}
		p.Tables = append(p.Tables, partTable{Job: tableJob[k], HTML: j.Settings.Output.HTML, ACRO: j.Settings.Output.ACRO,
			Summary: res.Summary.Tables[k], Files: files, Table: digest(t)})
	}
	jobByName := map[string]int{}
	for k, t := range res.Tables {
		jobByName[t.Name] = tableJob[k]
	}
	for _, g := range res.Summary.LinkGroups {
		first := len(jobs)
		for _, n := range g.Tables {
			if j, ok := jobByName[n]; ok {
				first = min(first, j)
			}
		}
		p.Links = append(p.Links, partLink{First: first, Group: g})
	}
	name := PartFile(opt.Shard, opt.Shards)
	b, err := encodePart(&p)
	if err != nil {
		return nil, err
	}
	err = writers.WriteAtomic(ctx, filepath.Join(dir, name), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	return []string{name}, err
}

// Merge combines the partial summaries of a sharded run found in dirs
// (every shard exactly once) into the run's summary.json, summary.html and
// results.json in opt.Out, as the unsharded run writes them; table outputs
// in another directory than opt.Out are copied into it. Errors about the
// partial summaries are input errors (*readers.Error).
func Merge(ctx context.Context, dirs []string, opt Options) (*Result, error) {
	parts, where, err := readParts(dirs)
	if err != nil {
		return nil, err
	}
	type entry struct {
		t   partTable
		dir string
	}
	var all []entry
	for i, p := range parts {
		for _, t := range p.Tables {
			all = append(all, entry{t, where[i]})
		}
	}
	slices.SortStableFunc(all, func(a, b entry) int { return a.t.Job - b.t.Job })
	stage, err := beginStaging(opt.Out)
	if err != nil {
		return nil, err
	}
	defer stage.abort()
	res := &Result{}
	names := map[string]bool{}
	var html, acro bool
	var copied, files []string
	for _, e := range all {
		name := e.t.Summary.Table
		if names[name] {
			return nil, &readers.Error{File: e.dir, Err: fmt.Errorf("two shards wrote a table named %q", name)}
		}
		names[name] = true
		t := e.t.Table.table()
		res.Tables = append(res.Tables, t)
		html, acro = html || e.t.HTML, acro || e.t.ACRO
		same, err := sameDir(e.dir, opt.Out)
		if err != nil {
			return nil, err
		}
		if !same {
			copied = append(copied, name)
		}
		for _, f := range e.t.Summary.Outputs {
			// the output must be the file the part vouches for
			if err := checkOutput(ctx, filepath.Join(e.dir, f), e.t.Files[f]); err != nil {
				return nil, err
			}
			if !same {
				if err := copyOutput(ctx, filepath.Join(e.dir, f), filepath.Join(stage.dir, f)); err != nil {
					return nil, err
				}
				files = append(files, f)
			}
		}
	}
	ts := ""
	for _, t := range res.Tables {
		if t.Run != nil && t.Run.Timestamp != "" {
			ts = t.Run.Timestamp
			break
		}
	}
	res.Summary.Version = parts[0].Version
	res.Summary.Run = (&inputLog{version: parts[0].Version, timestamp: ts}).run(res.Tables)
	for _, e := range all {
		res.Summary.Add(e.t.Summary)
	}
	var links []partLink
	for _, p := range parts {
		links = append(links, p.Links...)
	}
	slices.SortStableFunc(links, func(a, b partLink) int { return a.First - b.First })
	for _, l := range links {
		res.Summary.LinkGroups = append(res.Summary.LinkGroups, l.Group)
	}
	run, err := writeRunFiles(ctx, stage.dir, res, html, acro)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := stage.commit(copied, files, run); err != nil {
		return nil, err
	}
	return res, nil
}

// readParts reads the partial summaries in dirs and checks that every
// shard of one run is there exactly once.
func readParts(dirs []string) ([]*partFile, []string, error) {
	var parts []*partFile
	var where, paths []string
	seen := map[int]string{}
	shards := 0
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil, &readers.Error{File: dir, Err: err}
		}
		for _, e := range ents {
			m := partName.FindStringSubmatch(e.Name())
			if m == nil || !e.Type().IsRegular() {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, nil, &readers.Error{File: path, Err: err}
			}
			p, err := decodePart(path, data)
			if err != nil {
				return nil, nil, err
			}
			i, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			switch {
			case p.Shard != i || p.Shards != n || n < 1 || i >= n:
				return nil, nil, &readers.Error{File: path, Err: fmt.Errorf("the file says shard %d of %d", p.Shard, p.Shards)}
			case shards != 0 && n != shards:
				return nil, nil, &readers.Error{File: path, Err: fmt.Errorf("a partial summary of %d shards, others are of %d", n, shards)}
			case len(parts) > 0:
				if err := sameRun(p, parts[0], path, paths[0]); err != nil {
					return nil, nil, err
				}
			}
			if prev, dup := seen[i]; dup {
				return nil, nil, &readers.Error{File: path, Err: fmt.Errorf("shard %d is also in %s", i, prev)}
			}
			seen[i], shards = path, n
			parts = append(parts, p)
			paths = append(paths, path)
			where = append(where, dir)
		}
	}
	if shards == 0 {
		return nil, nil, &readers.Error{File: dirs[0], Err: errors.New("no partial summary (summary.part-I-of-N.json) found")}
	}
	for i := range shards {
		if _, ok := seen[i]; !ok {
			return nil, nil, &readers.Error{File: dirs[0], Err: fmt.Errorf("the partial summary of shard %d of %d is missing (%s)", i, shards, PartFile(i, shards))}
		}
	}
	if err := checkRun(parts, paths); err != nil {
		return nil, nil, err
	}
	return parts, where, nil
}

// sameDir reports whether a and b are the same directory (b may not exist
// yet).
func sameDir(a, b string) (bool, error) {
	ia, err := os.Stat(a)
	if err != nil {
		return false, &readers.Error{File: a, Err: err}
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false, nil
	}
	return os.SameFile(ia, ib), nil
}

// copyOutput copies a shard's table output into the staging directory.
func copyOutput(ctx context.Context, src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return &readers.Error{File: src, Err: err}
	}
	defer in.Close()
	return writers.WriteAtomic(ctx, dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
