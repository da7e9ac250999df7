package configs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hierarchy is a code hierarchy of one dimension read from a tau-argus
// hierarchy file (.hrc).
type Hierarchy struct {
	// Parent maps every code below the top level to its parent code.
	Parent map[string]string
	// Codes lists every code of the file in file order.
	Codes []string
	// Leaves are the codes without children: the only codes a record
	// may carry.
	Leaves map[string]bool
	// SHA256 is the hex SHA-256 of the file's bytes (LoadHRC), for the
	// audit trail.
	SHA256 string
}

// maxHRCLine bounds one line of a hierarchy file (a code is short).
const maxHRCLine = 64 << 10

// maxHRCDepth bounds the depth of a hierarchy.
const maxHRCDepth = 64

// ParseHRC reads a tau-argus hierarchy file: one code per line, each level
// of depth below the top prefixed by one more indent character (tau-argus's
// default is "@"):
//
//	North
//	@N1
//	@@N11
//
// Empty lines are skipped; spaces around a code and a trailing \r are
// ignored. A line deeper than one level below the previous line, a code
// given twice, an empty code or the total label as a code is an error
// naming the file and line.
func ParseHRC(name string, r io.Reader, indent rune, total string) (*Hierarchy, error) {
	if indent == 0 {
		indent = '@'
	}
	fail := func(line int, format string, a ...any) error {
		return &Error{File: name, Line: line, Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
	}
	h := &Hierarchy{Parent: map[string]string{}, Leaves: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxHRCLine)
	var path []string // path[d] is the last code seen at depth d
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if !utf8.Valid(text) {
			return nil, fail(line, "the line is not UTF-8 text")
		}
		s := strings.TrimRight(string(text), " \t\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		depth := 0
		for strings.HasPrefix(s, string(indent)) {
			s = s[utf8.RuneLen(indent):]
			depth++
		}
		code := strings.TrimSpace(s)
		switch {
		case code == "":
			return nil, fail(line, "no code after the indentation")
		case strings.HasPrefix(code, string(indent)):
			return nil, fail(line, "code %q starts with the indentation character %q after a space", code, string(indent))
		case depth > 0 && len(path) == 0:
			return nil, fail(line, "code %q is indented, but the first code must be at the top level", code)
		case depth > len(path):
			return nil, fail(line, "code %q is %d levels deep, but the line before it is only %d deep (one %q per level below its parent)", code, depth, len(path)-1, string(indent))
		case depth >= maxHRCDepth:
			return nil, fail(line, "code %q is more than %d levels deep", code, maxHRCDepth)
		case code == total:
			return nil, fail(line, "code %q is the total label: the total is implied above the top level", code)
		}
		if first, ok := seen[code]; ok {
			return nil, fail(line, "code %q is given twice (first on line %d)", code, first)
		}
		seen[code] = line
		path = append(path[:depth], code)
		if depth > 0 {
			p := path[depth-1]
			h.Parent[code] = p
			delete(h.Leaves, p)
		}
		h.Leaves[code] = true
		h.Codes = append(h.Codes, code)
	}
	if err := sc.Err(); err != nil {
		return nil, fail(line+1, "%v", err)
	}
	if len(h.Codes) == 0 {
		return nil, fail(0, "the hierarchy file lists no codes")
	}
	return h, nil
}

// LoadHRC reads a hierarchy file from disk (see ParseHRC).
func LoadHRC(path string, indent rune, total string) (*Hierarchy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read the hierarchy file", Err: err}
	}
	defer f.Close()
	sum := sha256.New()
	h, err := ParseHRC(path, io.TeeReader(io.LimitReader(f, maxHRCFile+1), sum), indent, total)
	if err != nil {
		return nil, err
	}
	if n, _ := f.Seek(0, io.SeekCurrent); n > maxHRCFile {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the hierarchy file is larger than %d bytes", maxHRCFile), Err: ErrInvalid}
	}
	h.SHA256 = hex.EncodeToString(sum.Sum(nil))
	return h, nil
}

// maxHRCFile bounds the size of a hierarchy file.
const maxHRCFile = 64 << 20

// anchorFiles resolves the relative hierarchy file paths of a layer
// against dir (the directory of the file that names them).
func (c *Config) anchorFiles(dir string) {
	for _, p := range []*string{&c.Apriori, &c.Previous} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	if c.Input != nil && c.Input.Metadata != "" && !filepath.IsAbs(c.Input.Metadata) {
		c.Input.Metadata = filepath.Join(dir, c.Input.Metadata)
	}
	if c.Suppression == nil {
		return
	}
	for d, p := range c.Suppression.HierarchyFiles {
		if p != "" && !filepath.IsAbs(p) {
			c.Suppression.HierarchyFiles[d] = filepath.Join(dir, p)
		}
	}
}

// resolveHierarchyFiles reads the hierarchy files of suppression.
// hierarchy_files into s.Hierarchies (child -> parent) and s.Leaves.
func resolveHierarchyFiles(p *Suppression, s *SuppressionSettings, total string) error {
	if p == nil || len(p.HierarchyFiles) == 0 {
		return nil
	}
	indent := '@'
	if p.HRCIndent != "" {
		r, size := utf8.DecodeRuneInString(p.HRCIndent)
		if size != len(p.HRCIndent) || r == utf8.RuneError || r == ' ' || r == '\t' {
			return &Error{Msg: fmt.Sprintf("suppression.hrc_indent must be one character other than a space, got %q", p.HRCIndent), Err: ErrInvalid}
		}
		indent = r
	}
	dims := make([]string, 0, len(p.HierarchyFiles))
	for d := range p.HierarchyFiles {
		dims = append(dims, d)
	}
	sort.Strings(dims)
	hier := make(map[string]map[string]string, len(s.Hierarchies)+len(dims))
	for d, m := range s.Hierarchies {
		hier[d] = m
	}
	s.HierarchyFiles = map[string]string{}
	s.Leaves = map[string]map[string]bool{}
	s.HierarchyDigests = map[string]string{}
	for _, d := range dims {
		if _, ok := hier[d]; ok {
			return &Error{Msg: fmt.Sprintf("dimension %q has both suppression.hierarchies and suppression.hierarchy_files: give one", d), Err: ErrInvalid}
		}
		path := p.HierarchyFiles[d]
		if path == "" {
			return &Error{Msg: fmt.Sprintf("suppression.hierarchy_files.%s is empty", d), Err: ErrInvalid}
		}
		h, err := LoadHRC(path, indent, total)
		if err != nil {
			return err
		}
		hier[d] = h.Parent
		s.HierarchyFiles[d] = path
		s.Leaves[d] = h.Leaves
		s.HierarchyDigests[d] = h.SHA256
	}
	s.Hierarchies = hier
	return nil
}
