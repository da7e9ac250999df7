package configs

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Override is an output checker's a-priori decision about one cell, as in
// tau-argus's a-priori files: mark it safe, suppress it (unsafe) or
// protect it from secondary suppression, with a reason and a name. In a
// config it is an item of `overrides:`; a CSV file given by --overrides
// has the columns dims..., action, reason, by.
type Override struct {
	// Table limits the override to the table of that output name; empty
	// means every table of the run.
	Table string `yaml:"table"`
	// Cell names the cell: a level for every dimension (the total label
	// for a margin).
	Cell map[string]string `yaml:"cell"`
	// Action is safe, suppress (or unsafe) or protected.
	Action string `yaml:"action"`
	// Reason and By say why and who: both are required.
	Reason string `yaml:"reason"`
	By     string `yaml:"by"`
	// Source is where the override was written ("release.yaml:12",
	// "overrides.csv row 3"), for messages.
	Source string `yaml:"-"`
}

// Override actions.
const (
	OverrideSafe      = "safe"
	OverrideSuppress  = "suppress"
	OverrideProtected = "protected"
)

var overrideActions = []string{OverrideSafe, OverrideSuppress, OverrideProtected}

// normalize checks an override's action, reason and author.
func (o *Override) normalize() error {
	a := strings.ToLower(strings.TrimSpace(o.Action))
	if a == "unsafe" {
		a = OverrideSuppress
	}
	if !slices.Contains(overrideActions, a) {
		msg := fmt.Sprintf("override action %q: want safe, suppress (or unsafe) or protected", o.Action)
		if s := Suggest(o.Action, append(overrideActions, "unsafe")); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return errors.New(msg)
	}
	o.Action = a
	if strings.TrimSpace(o.Reason) == "" {
		return errors.New("override needs a reason")
	}
	if strings.TrimSpace(o.By) == "" {
		return errors.New("override needs the name of who decided it (by)")
	}
	if len(o.Cell) == 0 {
		return errors.New("override needs the cell: a level for every dimension")
	}
	return nil
}

// overrideLines sets the Source of each override of a parsed config from
// the document node (the mapping of the file).
func (c *Config) overrideLines(doc *yaml.Node) {
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "overrides" || doc.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for j, it := range doc.Content[i+1].Content {
			if j < len(c.Overrides) {
				c.Overrides[j].Source = fmt.Sprintf("%s:%d", c.file, it.Line)
			}
		}
	}
}

// checkOverrides checks every override of a parsed config.
func (c *Config) checkOverrides() error {
	var errs []error
	for i := range c.Overrides {
		o := &c.Overrides[i]
		if o.Source == "" {
			o.Source = fmt.Sprintf("%s: overrides[%d]", c.file, i)
		}
		if err := o.normalize(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o.Source, err))
		}
	}
	if len(errs) > 0 {
		return &Error{Msg: errors.Join(errs...).Error(), Err: ErrInvalid}
	}
	return nil
}

// maxOverrides bounds an overrides file, so that its size cannot drive an
// unbounded allocation.
const maxOverrides = 1 << 20

// LoadOverrides reads a CSV overrides file: a header naming the dimension
// columns, then action, reason and by (in any order, case-insensitive);
// one row per cell. Errors name the file, row and column.
func LoadOverrides(path string) ([]Override, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer f.Close()
	r := csv.NewReader(&cappedReader{r: f, left: MaxOverridesBytes, path: path, what: "overrides file", maxLine: 1 << 20})
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: path, Msg: "empty overrides file: want a header with the dimensions, action, reason and by", Err: ErrInvalid}
		}
		if e := (*Error)(nil); errors.As(err, &e) {
			return nil, e
		}
		return nil, &Error{File: path, Msg: err.Error(), Err: ErrInvalid}
	}
	role := map[string]int{}
	var dims []int
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		head[i] = h
		switch l := strings.ToLower(h); l {
		case "action", "reason", "by", "table":
			role[l] = i
		default:
			if h == "" {
				return nil, &Error{File: path, Line: 1, Msg: fmt.Sprintf("column %d has no name", i+1), Err: ErrInvalid}
			}
			dims = append(dims, i)
		}
	}
	for _, need := range []string{"action", "reason", "by"} {
		if _, ok := role[need]; !ok {
			return nil, &Error{File: path, Line: 1, Msg: fmt.Sprintf("the header has no %s column (want the dimensions, then action, reason and by; got %s)", need, excerpt(strings.Join(head, ", "))), Err: ErrInvalid}
		}
	}
	if len(dims) == 0 {
		return nil, &Error{File: path, Line: 1, Msg: "the header names no dimension column", Err: ErrInvalid}
	}
	var out []Override
	var errs []error
	for row := 2; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if e := (*Error)(nil); errors.As(err, &e) {
				return nil, e
			}
			return nil, &Error{File: path, Msg: err.Error(), Err: ErrInvalid}
		}
		if len(out) >= maxOverrides {
			return nil, &Error{File: path, Line: row, Msg: fmt.Sprintf("more than %d overrides", maxOverrides), Err: ErrInvalid}
		}
		if len(rec) != len(head) {
			errs = append(errs, fmt.Errorf("%s row %d: %d columns, the header has %d", path, row, len(rec), len(head)))
			continue
		}
		o := Override{Cell: map[string]string{}, Action: rec[role["action"]], Reason: strings.TrimSpace(rec[role["reason"]]), By: strings.TrimSpace(rec[role["by"]]),
			Source: fmt.Sprintf("%s row %d", path, row)}
		if i, ok := role["table"]; ok {
			o.Table = strings.TrimSpace(rec[i])
		}
		for _, i := range dims {
			o.Cell[head[i]] = strings.TrimSpace(rec[i])
		}
		if err := o.normalize(); err != nil {
			errs = append(errs, fmt.Errorf("%s row %d: %w", path, row, err))
			continue
		}
		out = append(out, o)
	}
	if len(errs) > 0 {
		return nil, &Error{Msg: errors.Join(errs...).Error(), Err: ErrInvalid}
	}
	return out, nil
}
