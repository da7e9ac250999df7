package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// What makes a partial summary trustworthy (docs/sharding.md): it names
// its run (the version, the SHA-256 of the resolved configuration of
// every job, the number of jobs and of shards, and the SHA-256 of each
// input it read), vouches for each table output it lists (their
// SHA-256), and ends with the SHA-256 of its own content. Merge refuses
// (exit 3, naming the part and what differs) a part that does not
// validate, whose digest does not match its content, that belongs to
// another run, or whose table outputs differ from those it vouches for.

// partInput is one input file a shard read: the job's index, its path as
// the run named it and its SHA-256.
type partInput struct {
	Job    int    `json:"job"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// configDigest returns the SHA-256 of a run's resolved configuration:
// for every job (in the run's order) its output name, the base name of
// its file, whether it is a cell summary, its resolved settings and its
// rules with every parameter; and the linking options, which decide the
// shards' partition and the protection. Paths enter by their base names
// (the files' contents are digested apart), so that shards of one run
// compute the same digest on any machine and in any working directory.
func configDigest(jobs []Job, opt Options) (string, error) {
	type jobConfig struct {
		Name     string            `json:"name"`
		File     string            `json:"file"`
		Cells    bool              `json:"cells"`
		Settings configs.Settings  `json:"settings"`
		Rules    []audit.RuleTrail `json:"rules"`
	}
	type runConfig struct {
		Jobs      []jobConfig `json:"jobs"`
		Linked    bool        `json:"linked"`
		LinkedOff bool        `json:"linked_off"`
		Links     [][]string  `json:"links"`
	}
	rc := runConfig{Linked: opt.Link == LinkOn, LinkedOff: opt.Link == LinkOff, Links: opt.Links}
	for _, j := range jobs {
		s := *j.Settings
		// hierarchy files by base name: their content is in HierarchyDigests
		if len(s.Suppression.HierarchyFiles) > 0 {
			hf := make(map[string]string, len(s.Suppression.HierarchyFiles))
			for d, p := range s.Suppression.HierarchyFiles {
				hf[d] = filepath.Base(p)
			}
			s.Suppression.HierarchyFiles = hf
		}
		// an override's source by its file's base name and line or row
		if len(s.Overrides) > 0 {
			s.Overrides = slices.Clone(s.Overrides)
			for i := range s.Overrides {
				s.Overrides[i].Source = filepath.Base(s.Overrides[i].Source)
			}
		}
		rc.Jobs = append(rc.Jobs, jobConfig{Name: j.Name, File: filepath.Base(j.Path), Cells: j.Cells, Settings: s, Rules: RuleTrails(j.Settings)})
	}
	b, err := json.Marshal(rc)
	if err != nil {
		return "", fmt.Errorf("the run's configuration digest: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// partInputs lists the input files a shard read, one per job, from the
// audit trail of its tables.
func partInputs(res *Result, tableJob []int, jobs []Job) []partInput {
	var out []partInput
	seen := map[int]bool{}
	for k, t := range res.Tables {
		j := tableJob[k]
		if seen[j] || t.Run == nil || len(t.Run.Inputs) == 0 {
			continue
		}
		seen[j] = true
		out = append(out, partInput{Job: j, Path: jobs[j].Path, SHA256: t.Run.Inputs[0].SHA256})
	}
	slices.SortFunc(out, func(a, b partInput) int { return a.Job - b.Job })
	return out
}

// outputDigests returns the SHA-256 of each of a table's outputs written
// in dir.
func outputDigests(ctx context.Context, dir string, files []string) (map[string]string, error) {
	out := make(map[string]string, len(files))
	for _, f := range files {
		_, sum, err := hashFile(ctx, filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		out[f] = sum
	}
	return out, nil
}

// digestField is how the content digest appears in a partial summary,
// the last field of its JSON object.
func digestField(sum string) []byte { return []byte(`"digest": "` + sum + `"`) }

// encodePart returns the bytes of a partial summary with its content
// digest: the SHA-256 of the file with an empty digest.
func encodePart(p *partFile) ([]byte, error) {
	p.Digest = ""
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append(b, '\n'))
	p.Digest = hex.EncodeToString(sum[:])
	b, err = json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decodePart reads a partial summary strictly (an unknown field is an
// error), checks its content digest and validates it.
func decodePart(path string, data []byte) (*partFile, error) {
	p := &partFile{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, &readers.Error{File: path, Err: fmt.Errorf("not a partial summary: %w", err)}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &readers.Error{File: path, Err: errors.New("not a partial summary: data after its JSON object")}
	}
	if p.Schema != PartSchema {
		return nil, &readers.Error{File: path, Err: fmt.Errorf("partial summary schema %d, this version reads %d (write the shards and merge them with the same version)", p.Schema, PartSchema)}
	}
	if !isSHA256(p.Digest) {
		return nil, &readers.Error{File: path, Err: errors.New("the partial summary has no content digest (digest)")}
	}
	field := digestField(p.Digest)
	at := bytes.LastIndex(data, field)
	if at < 0 {
		return nil, &readers.Error{File: path, Err: errors.New("the partial summary's content digest is not where it is written")}
	}
	blank := slices.Concat(data[:at], digestField(""), data[at+len(field):])
	if sum := sha256.Sum256(blank); hex.EncodeToString(sum[:]) != p.Digest {
		return nil, &readers.Error{File: path, Err: fmt.Errorf("the content does not match its digest %s: the file was edited or damaged after the shard wrote it", p.Digest)}
	}
	if err := p.validate(); err != nil {
		return nil, &readers.Error{File: path, Err: fmt.Errorf("does not validate: %w", err)}
	}
	return p, nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// partStatuses are the statuses a part's cell may have (StatusUnset is an
// undecided cell, shown as ok).
var partStatuses = []audit.Status{audit.StatusUnset, audit.StatusOK, audit.StatusPrimary, audit.StatusSecondary, audit.StatusReview}

// validate checks what a well-formed partial summary must hold: its run's
// identity, tables of that run with safe output names and the digests of
// their outputs, cells that fit their table, and summary counts equal to
// what its cells give.
func (p *partFile) validate() error {
	switch {
	case p.Shards < 1 || p.Shard < 0 || p.Shard >= p.Shards:
		return fmt.Errorf("shard %d of %d", p.Shard, p.Shards)
	case p.Jobs < 1:
		return fmt.Errorf("the run has %d inputs (jobs)", p.Jobs)
	case !isSHA256(p.Config):
		return errors.New("no configuration digest (config_sha256)")
	case p.Tables == nil:
		return errors.New("no tables list")
	}
	for _, in := range p.Inputs {
		if in.Job < 0 || in.Job >= p.Jobs || !isSHA256(in.SHA256) {
			return fmt.Errorf("input %q: job %d of %d, sha256 %q", in.Path, in.Job, p.Jobs, in.SHA256)
		}
	}
	names := map[string]bool{}
	for i := range p.Tables {
		if err := p.Tables[i].validate(p.Jobs); err != nil {
			return fmt.Errorf("tables[%d] (%q): %w", i, p.Tables[i].Summary.Table, err)
		}
		names[p.Tables[i].Summary.Table] = true
	}
	for i, l := range p.Links {
		if l.First < 0 || l.First >= p.Jobs || len(l.Group.Tables) < 2 {
			return fmt.Errorf("links[%d]: a group of %d tables from job %d", i, len(l.Group.Tables), l.First)
		}
		for _, n := range l.Group.Tables {
			if !names[n] {
				return fmt.Errorf("links[%d] names table %q, which the part does not hold", i, n)
			}
		}
	}
	return nil
}

func (t *partTable) validate(jobs int) error {
	d := &t.Table
	switch {
	case t.Job < 0 || t.Job >= jobs:
		return fmt.Errorf("job %d of %d", t.Job, jobs)
	case t.Summary.Table != d.Name || t.Summary.Source != d.Source || t.Summary.Mode != d.Mode:
		return fmt.Errorf("its summary names %q (%s, %s), its cells %q (%s, %s)", t.Summary.Table, t.Summary.Source, t.Summary.Mode, d.Name, d.Source, d.Mode)
	case len(d.Dims) == 0:
		return errors.New("no dimensions")
	}
	if err := writers.CheckName(d.Name); err != nil {
		return fmt.Errorf("table name: %w", err)
	}
	for _, f := range t.Summary.Outputs {
		if err := writers.CheckName(f); err != nil {
			return fmt.Errorf("output %q: %w", f, err)
		}
		if !isSHA256(t.Files[f]) {
			return fmt.Errorf("output %q has no digest", f)
		}
	}
	if len(t.Files) != len(t.Summary.Outputs) {
		return fmt.Errorf("digests of %d files for %d outputs", len(t.Files), len(t.Summary.Outputs))
	}
	for i, c := range d.Cells {
		switch {
		case len(c.Key) != len(d.Dims):
			return fmt.Errorf("cell %d: a key of %d levels for %d dimensions", i, len(c.Key), len(d.Dims))
		case !slices.Contains(partStatuses, c.Status):
			return fmt.Errorf("cell %v: status %q", c.Key, c.Status)
		case c.Status.Effective() != audit.StatusOK && len(c.Stats) > 0:
			return fmt.Errorf("cell %v: a %s cell with published values", c.Key, c.Status)
		}
		for k := range c.Stats {
			if !slices.Contains(d.Columns, k) {
				return fmt.Errorf("cell %v: value of %q, not a column of the table", c.Key, k)
			}
		}
		for _, f := range c.Flags {
			if f.Status != audit.Fail && f.Status != audit.Review {
				return fmt.Errorf("cell %v: flag %s with outcome %s", c.Key, f.Rule, f.Status)
			}
		}
	}
	got, want := d.table().Summarize(), t.Summary.Summary
	if got.Cells != want.Cells || got.OK != want.OK || got.Primary != want.Primary || got.Secondary != want.Secondary || got.Review != want.Review ||
		!(len(got.ByRule) == 0 && len(want.ByRule) == 0 || maps.Equal(got.ByRule, want.ByRule)) {
		return fmt.Errorf("its summary (%d cells: %d ok, %d primary, %d secondary, %d review) is not what its cells give (%d: %d, %d, %d, %d)",
			want.Cells, want.OK, want.Primary, want.Secondary, want.Review, got.Cells, got.OK, got.Primary, got.Secondary, got.Review)
	}
	return nil
}

// sameRun checks that part p (read from path) belongs to the run of the
// first part (read from first): the same version, configuration, number
// of inputs and shards.
func sameRun(p, q *partFile, path, first string) error {
	what := ""
	switch {
	case p.Version != q.Version:
		what = fmt.Sprintf("written by sdcaudit %s, %s by %s", p.Version, first, q.Version)
	case p.Shards != q.Shards:
		what = fmt.Sprintf("a part of %d shards, %s of %d", p.Shards, first, q.Shards)
	case p.Jobs != q.Jobs:
		what = fmt.Sprintf("a run of %d inputs, %s of %d", p.Jobs, first, q.Jobs)
	case p.Config != q.Config:
		what = fmt.Sprintf("its resolved configuration (sha256 %s) differs from that of %s (%s): another release file, rule parameter or option", p.Config[:12], first, q.Config[:12])
	default:
		return nil
	}
	return &readers.Error{File: path, Err: fmt.Errorf("a part of another run: %s", what)}
}

// checkRun checks, once every part is read, that the parts make one whole
// run: every input's tables are there, and an input file read by two
// shards had the same content for both.
func checkRun(parts []*partFile, paths []string) error {
	jobs := parts[0].Jobs
	has := make([]bool, jobs)
	holder := map[int]int{} // job -> the part holding its tables
	type seenInput struct{ sum, path string }
	byPath := map[string]seenInput{}
	for i, p := range parts {
		for _, t := range p.Tables {
			if h, ok := holder[t.Job]; ok && h != i {
				return &readers.Error{File: paths[i], Err: fmt.Errorf("holds tables of input %d of %d, which %s holds too", t.Job+1, jobs, paths[h])}
			}
			holder[t.Job] = i
			has[t.Job] = true
		}
		for _, in := range p.Inputs {
			if prev, ok := byPath[in.Path]; ok && prev.sum != in.SHA256 {
				return &readers.Error{File: paths[i], Err: fmt.Errorf("input %s had SHA-256 %s, for %s it had %s: the input changed between the shards", in.Path, in.SHA256[:12], prev.path, prev.sum[:12])}
			}
			byPath[in.Path] = seenInput{in.SHA256, paths[i]}
		}
	}
	for j, ok := range has {
		if !ok {
			return &readers.Error{File: paths[0], Err: fmt.Errorf("no partial summary holds the tables of input %d of %d", j+1, jobs)}
		}
	}
	return nil
}

// checkOutput checks that a table output (in a shard's directory) is the
// file its partial summary vouches for.
func checkOutput(ctx context.Context, path, want string) error {
	_, sum, err := hashFile(ctx, path)
	if err != nil {
		return err
	}
	if sum != want {
		return &readers.Error{File: path, Err: fmt.Errorf("SHA-256 %s, its partial summary vouches for %s: the output was edited or replaced after the shard wrote it", sum[:12], want[:12])}
	}
	return nil
}
