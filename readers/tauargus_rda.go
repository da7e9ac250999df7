package readers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tau-argus metadata files (.rda) describe a table input (.tab) or
// microdata (.asc fixed width, or a delimited file when the metadata
// gives a SEPARATOR): one line per variable, its name (with, for fixed
// width files, its first position and length, then its missing codes),
// followed by indented keyword lines giving its role and attributes:
//
//	   <SEPARATOR> ";"
//	Region "99"
//	    <RECODEABLE>
//	    <TOTCODE> "Total"
//	    <HIERARCHICAL>
//	    <HIERCODELIST> "region2.hrc"
//	    <HIERLEADSTRING> "@"
//	Var2
//	    <NUMERIC>
//	    <DECIMALS> 2
//
// ParseRDA reads every keyword of the tau-argus manual that changes what
// a table means; keywords of tau-argus's other methods (cell key method,
// record keys, request variables) are accepted and noted as not used.

// ErrMetadata is wrapped by every error of a tau-argus metadata file.
var ErrMetadata = errors.New("tau-argus metadata")

// TauRole is the role of a variable in tau-argus metadata.
type TauRole string

// Variable roles.
const (
	TauExplanatory TauRole = "explanatory" // RECODEABLE (a dimension)
	TauNumeric     TauRole = "numeric"     // NUMERIC: a response variable
	TauFrequency   TauRole = "frequency"   // FREQUENCY: contributors per cell
	TauShadow      TauRole = "shadow"      // SHADOW: the variable safety rules look at
	TauCost        TauRole = "cost"        // COSTVAR: the suppression cost
	TauMaxScore    TauRole = "maxscore"    // MAXSCORE: a top contribution
	TauStatus      TauRole = "status"      // STATUS: the cell's a-priori status
	TauLowerPL     TauRole = "lower_pl"    // LOWERPL: lower protection level
	TauUpperPL     TauRole = "upper_pl"    // UPPERPL: upper protection level
	TauWeight      TauRole = "weight"      // WEIGHT: the record's sampling weight
	TauHolding     TauRole = "holding"     // HOLDING: the record's holding id
	TauOther       TauRole = "other"       // REQUEST, RECORDKEY: not used
)

// TauVar is one variable of a metadata file.
type TauVar struct {
	Name string
	// Line is the metadata line naming the variable.
	Line int
	// Start and Length are the 1-based first position and the width of
	// a fixed-width field (0 in delimited files).
	Start, Length int
	// Missing are the variable's missing codes.
	Missing []string
	// Role is the variable's role; a NUMERIC that is also SHADOW, COSTVAR,
	// LOWERPL or UPPERPL takes that role.
	Role TauRole
	// TotCode is the code of the variable's total (TOTCODE; "" when not
	// given, meaning "Total").
	TotCode string
	// HierFile and HierLead are the hierarchy file (HIERCODELIST) and its
	// indentation (HIERLEADSTRING, default "@"); HierLevels the digit
	// widths of a code hierarchy (HIERLEVELS).
	HierFile   string
	HierLead   string
	HierLevels []int
	// CodeList is the labels file (CODELIST), for people only.
	CodeList string
	// Decimals is the number of decimals (DECIMALS), -1 when not given.
	Decimals int
	// Unused lists the keywords given that sdcaudit does not use.
	Unused []string
}

// TauMetadata is a parsed metadata file.
type TauMetadata struct {
	// File is the metadata file's path.
	File string
	// Separator is the field separator of a delimited data file; "" for
	// fixed width.
	Separator string
	// Safe, Unsafe, Protect and Empty are the status codes of the STATUS
	// variable (defaults S, U, P, E; SAFE, UNSAFE, PROTECT, EMPTY).
	Safe, Unsafe, Protect, Empty string
	Vars                         []TauVar
	// Notes are remarks for the report (keywords not used, ...).
	Notes []string
}

// maxRDALine and maxRDAVars bound a metadata file.
const (
	maxRDALine = 64 << 10
	maxRDAVars = 10000
)

// ParseRDA reads a tau-argus metadata file. Errors name the file and line.
func ParseRDA(name string, r io.Reader) (*TauMetadata, error) {
	p := &rdaParser{name: name, m: &TauMetadata{File: name, Safe: "S", Unsafe: "U", Protect: "P", Empty: "E"}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxRDALine)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Bytes()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, p.failAt(p.line+1, "%v", err)
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.m, nil
}

// rdaParser is ParseRDA's state: the metadata so far, the line being read
// and the variable its keywords apply to.
type rdaParser struct {
	name   string
	m      *TauMetadata
	line   int
	v      *TauVar // the last variable, nil before the first
	roleAt int     // the line that gave v its role

	// The keyword line being read and the index of its current token.
	toks []rdaToken
	i    int
}

// failAt is an error of the metadata file at line.
func (p *rdaParser) failAt(line int, format string, a ...any) error {
	return &Error{File: p.name, Err: fmt.Errorf("%w: line %d: %s", ErrMetadata, line, fmt.Sprintf(format, a...))}
}

// fail is an error of the metadata file at the current line.
func (p *rdaParser) fail(format string, a ...any) error { return p.failAt(p.line, format, a...) }

// parseLine reads one line: a comment, a variable or keywords.
func (p *rdaParser) parseLine(text []byte) error {
	if p.line == 1 {
		text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	}
	if !utf8.Valid(text) {
		return p.fail("the line is not UTF-8 text")
	}
	toks, err := rdaTokens(string(text))
	if err != nil {
		return p.fail("%v", err)
	}
	if len(toks) == 0 || strings.HasPrefix(toks[0].text, "//") && !toks[0].quoted {
		return nil
	}
	if !toks[0].keyword {
		return p.variable(toks)
	}
	p.toks = toks
	for p.i = 0; p.i < len(toks); p.i++ {
		if err := p.keyword(); err != nil {
			return err
		}
	}
	return nil
}

// variable reads a variable line: its name, its position and length in a
// fixed-width file (or a width in a delimited one) and missing codes.
func (p *rdaParser) variable(toks []rdaToken) error {
	m := p.m
	if len(m.Vars) >= maxRDAVars {
		return p.fail("more than %d variables", maxRDAVars)
	}
	if toks[0].quoted {
		return p.fail("a variable name is not quoted: %q", toks[0].text)
	}
	m.Vars = append(m.Vars, TauVar{Name: toks[0].text, Line: p.line, Decimals: -1})
	v := &m.Vars[len(m.Vars)-1]
	p.v = v
	for _, t := range m.Vars[:len(m.Vars)-1] {
		if strings.EqualFold(t.Name, v.Name) {
			return p.fail("variable %s is given twice (first on line %d)", v.Name, t.Line)
		}
	}
	rest := toks[1:]
	for _, t := range rest {
		if t.keyword {
			return p.fail("keyword <%s> on the variable's line: put it on its own line below", t.text)
		}
	}
	if m.Separator == "" {
		// fixed width: name, start, length, missing codes
		if len(rest) < 2 || rest[0].quoted || rest[1].quoted {
			return p.fail("variable %s: a fixed-width file needs its first position and length after the name (or give <SEPARATOR> before the variables)", v.Name)
		}
		var e1, e2 error
		v.Start, e1 = strconv.Atoi(rest[0].text)
		v.Length, e2 = strconv.Atoi(rest[1].text)
		if e1 != nil || e2 != nil || v.Start < 1 || v.Length < 1 || v.Length > maxRDALine || v.Start > maxRDALine {
			return p.fail("variable %s: position %q and length %q must be positive integers", v.Name, rest[0].text, rest[1].text)
		}
		rest = rest[2:]
	} else if len(rest) > 0 && !rest[0].quoted {
		// delimited: an unquoted width may come first
		if _, err := strconv.Atoi(rest[0].text); err == nil {
			rest = rest[1:]
		}
	}
	for _, t := range rest {
		v.Missing = append(v.Missing, strings.TrimSpace(t.text))
	}
	return nil
}

// arg consumes the value of the keyword at p.i.
func (p *rdaParser) arg() (string, error) {
	if p.i+1 >= len(p.toks) || p.toks[p.i+1].keyword {
		return "", p.fail("<%s> needs a value", p.toks[p.i].text)
	}
	p.i++
	return p.toks[p.i].text, nil
}

// args consumes every value after the keyword at p.i.
func (p *rdaParser) args() []string {
	var out []string
	for p.i+1 < len(p.toks) && !p.toks[p.i+1].keyword {
		p.i++
		out = append(out, p.toks[p.i].text)
	}
	return out
}

// needVar refuses keyword kw before the first variable.
func (p *rdaParser) needVar(kw string) error {
	if p.v == nil {
		return p.fail("<%s> before the first variable", kw)
	}
	return nil
}

// setRole gives the current variable role; NUMERIC with SHADOW, COSTVAR,
// ... (in either order) takes the more specific role.
func (p *rdaParser) setRole(role TauRole) error {
	v := p.v
	if v == nil {
		return p.fail("<%s> before the first variable", strings.ToUpper(string(role)))
	}
	switch {
	case v.Role == "" || v.Role == TauNumeric:
		v.Role = role
	case role == TauNumeric:
	case v.Role != role:
		return p.fail("variable %s has two roles: %s (line %d) and %s", v.Name, v.Role, p.roleAt, role)
	}
	p.roleAt = p.line
	return nil
}

// rdaRoles are the keywords that give a variable its role.
var rdaRoles = map[string]TauRole{
	"RECODEABLE": TauExplanatory, "RECODABLE": TauExplanatory,
	"NUMERIC": TauNumeric, "FREQUENCY": TauFrequency, "SHADOW": TauShadow,
	"COSTVAR": TauCost, "MAXSCORE": TauMaxScore, "STATUS": TauStatus,
	"LOWERPL": TauLowerPL, "UPPERPL": TauUpperPL, "WEIGHT": TauWeight,
	"HOLDING": TauHolding,
}

// keyword reads the keyword at p.i and its values.
func (p *rdaParser) keyword() error {
	t := p.toks[p.i]
	if !t.keyword {
		return p.fail("unexpected %q: want a keyword such as <NUMERIC>", t.text)
	}
	kw := strings.ToUpper(t.text)
	if role, ok := rdaRoles[kw]; ok {
		return p.setRole(role)
	}
	switch kw {
	case "SEPARATOR":
		s, err := p.arg()
		switch {
		case err != nil:
			return err
		case len(p.m.Vars) > 0:
			return p.fail("<SEPARATOR> must come before the variables")
		case utf8.RuneCountInString(s) != 1 || s == "\"" || s == "\n" || s == "\r":
			return p.fail("<SEPARATOR> %q: want one character", s)
		}
		p.m.Separator = s
		return nil
	case "SAFE", "UNSAFE", "PROTECT", "EMPTY":
		s, err := p.arg()
		if err != nil {
			return err
		}
		switch kw {
		case "SAFE":
			p.m.Safe = s
		case "UNSAFE":
			p.m.Unsafe = s
		case "PROTECT":
			p.m.Protect = s
		default:
			p.m.Empty = s
		}
		return nil
	case "REQUEST", "RECORDKEY":
		if err := p.setRole(TauOther); err != nil {
			return err
		}
		p.v.Unused = append(p.v.Unused, kw)
		p.args()
		return nil
	}
	return p.variableKeyword(kw, t.text)
}

// variableKeyword reads a keyword that describes the current variable
// (text is the keyword as written).
func (p *rdaParser) variableKeyword(kw, text string) error {
	var err error
	switch kw {
	case "TOTCODE", "HIERARCHICAL", "HIERCODELIST", "HIERLEADSTRING", "HIERLEVELS", "CODELIST", "DECIMALS",
		"DISTANCE", "CKM", "PFILE", "PFILE_CONT", "PFILE_SEP", "INCLUDEZEROS", "SEPARATION", "PARITY", "SCALING", "TRUNCATE", "PEEP", "PEEPCODE":
		if err := p.needVar(kw); err != nil {
			return err
		}
	default:
		return p.fail("unknown keyword <%s>", text)
	}
	v := p.v
	switch kw {
	case "TOTCODE":
		v.TotCode, err = p.arg()
		v.TotCode = strings.TrimSpace(v.TotCode)
	case "HIERARCHICAL":
		if v.Role == "" {
			v.Role = TauExplanatory
		}
	case "HIERCODELIST":
		v.HierFile, err = p.arg()
	case "HIERLEADSTRING":
		v.HierLead, err = p.arg()
	case "HIERLEVELS":
		for _, a := range p.args() {
			n, e := strconv.Atoi(a)
			if e != nil || n < 0 || n > 64 {
				return p.fail("<HIERLEVELS> %q: want digit counts such as 2 1 1 0", a)
			}
			v.HierLevels = append(v.HierLevels, n)
		}
	case "CODELIST":
		v.CodeList, err = p.arg()
	case "DECIMALS":
		var s string
		if s, err = p.arg(); err == nil {
			n, e := strconv.Atoi(s)
			if e != nil || n < 0 || n > 30 {
				err = p.fail("<DECIMALS> %q: want 0 to 30", s)
			}
			v.Decimals = n
		}
	default: // DISTANCE, CKM, ...: read, not used
		v.Unused = append(v.Unused, kw)
		p.args()
	}
	return err
}

// finish checks the variables once every line is read and adds the notes.
func (p *rdaParser) finish() error {
	m := p.m
	if len(m.Vars) == 0 {
		return p.fail("no variables")
	}
	for i := range m.Vars {
		v := &m.Vars[i]
		if v.Role == "" {
			return p.failAt(v.Line, "variable %s has no role (want <RECODEABLE>, <NUMERIC>, <FREQUENCY>, <MAXSCORE>, <STATUS>, ...)", v.Name)
		}
		if v.HierFile != "" && len(v.HierLevels) > 0 {
			return p.failAt(v.Line, "variable %s has both <HIERCODELIST> and <HIERLEVELS>: give one", v.Name)
		}
		if v.Role == TauWeight {
			m.Notes = append(m.Notes, fmt.Sprintf("%s line %d: variable %s is a sampling weight: not applied (the rules count unweighted contributions, as tau-argus does unless told to apply weights; the totals are unweighted)", filepath.Base(p.name), v.Line, v.Name))
		}
		if len(v.Unused) > 0 {
			m.Notes = append(m.Notes, fmt.Sprintf("%s line %d: variable %s: %s not used by sdcaudit", filepath.Base(p.name), v.Line, v.Name, strings.Join(v.Unused, ", ")))
		}
	}
	return nil
}

type rdaToken struct {
	text    string
	keyword bool // <WORD>
	quoted  bool // "text"
}

// rdaTokens splits a metadata line into keywords (<WORD>), quoted texts
// ("a b", with "" for a quote) and bare words.
func rdaTokens(s string) ([]rdaToken, error) {
	var out []rdaToken
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '<':
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				return nil, fmt.Errorf("keyword %q has no closing >", s[i:])
			}
			out = append(out, rdaToken{text: s[i+1 : i+j], keyword: true})
			i += j + 1
		case c == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, fmt.Errorf("quoted text %s has no closing quote", s[i:])
				}
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			out = append(out, rdaToken{text: b.String(), quoted: true})
			i = j + 1
		default:
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' && s[j] != '<' && s[j] != '"' {
				j++
			}
			out = append(out, rdaToken{text: s[i:j]})
			i = j
		}
	}
	return out, nil
}

// LoadRDA reads a metadata file from disk.
func LoadRDA(path string) (*TauMetadata, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer f.Close()
	m, err := ParseRDA(path, io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, err
	}
	// a codelist only labels codes: one that is missing is noted
	for _, v := range m.Vars {
		if v.CodeList == "" {
			continue
		}
		if _, ok := m.Relative(v.CodeList); !ok {
			m.Notes = append(m.Notes, fmt.Sprintf("%s line %d: variable %s: the codelist %q is not beside the metadata (labels only: not needed)", filepath.Base(path), v.Line, v.Name, v.CodeList))
		}
	}
	return m, nil
}

// FindFile returns path when it exists, else the file of the same
// directory whose name matches path's case-insensitively (tau-argus
// metadata written on Windows names "REGION.CDL" for region.cdl); ok is
// false when neither exists.
func FindFile(path string) (string, bool) {
	if _, err := os.Stat(path); err == nil {
		return path, true
	}
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return path, false
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(e.Name(), base) {
			return filepath.Join(dir, e.Name()), true
		}
	}
	return path, false
}

// Relative resolves a file named in the metadata against its directory,
// case-insensitively where the exact name is missing.
func (m *TauMetadata) Relative(name string) (string, bool) {
	name = strings.ReplaceAll(name, `\`, "/")
	if !filepath.IsAbs(name) {
		name = filepath.Join(filepath.Dir(m.File), name)
	}
	if p, ok := FindFile(name); ok {
		return p, true
	}
	// a Windows path elsewhere: the file's base name beside the metadata
	return FindFile(filepath.Join(filepath.Dir(m.File), filepath.Base(name)))
}

// TauDataFile finds the data file of a metadata file given alone: the
// file of the same base name with extension .tab, .asc, .csv, .dat or
// .txt, matched case-insensitively.
func TauDataFile(rda string) (string, error) {
	stem := strings.TrimSuffix(rda, filepath.Ext(rda))
	for _, ext := range []string{".tab", ".asc", ".csv", ".dat", ".txt"} {
		if p, ok := FindFile(stem + ext); ok {
			return p, nil
		}
	}
	return "", &Error{File: rda, Err: fmt.Errorf("%w: no data file beside it (looked for %s with .tab, .asc, .csv, .dat or .txt); give the data file with --metadata %s", ErrMetadata, filepath.Base(stem), filepath.Base(rda))}
}

// TauMetadataFor finds the metadata beside a tau-argus data file: the
// .rda of the same base name, matched case-insensitively.
func TauMetadataFor(data string) (string, bool) {
	return FindFile(strings.TrimSuffix(data, filepath.Ext(data)) + ".rda")
}

// Tabular reports whether the metadata describes a table (cells with
// their frequency, top contributions, status ...) rather than microdata.
func (m *TauMetadata) Tabular() bool {
	for _, v := range m.Vars {
		switch v.Role {
		case TauFrequency, TauMaxScore, TauStatus, TauCost, TauShadow, TauLowerPL, TauUpperPL:
			return true
		}
	}
	return false
}

// ByRole returns the variables of a role, in file order.
func (m *TauMetadata) ByRole(role TauRole) []TauVar {
	var out []TauVar
	for _, v := range m.Vars {
		if v.Role == role {
			out = append(out, v)
		}
	}
	return out
}

// LevelPrefixes are the code lengths of the levels above the codes of a
// <HIERLEVELS> hierarchy, top first: "3 1 1 0 0" gives [3 4] (a code of
// 5 digits, its parent its first 4, their parent the first 3).
func (v TauVar) LevelPrefixes() []int {
	var cum []int
	n := 0
	for _, l := range v.HierLevels {
		if l > 0 {
			n += l
			cum = append(cum, n)
		}
	}
	if len(cum) == 0 {
		return nil
	}
	return cum[:len(cum)-1]
}

// LevelColumn is the name of the column a microdata source adds for the
// codes of variable name at a <HIERLEVELS> level of that length.
func LevelColumn(name string, length int) string {
	return fmt.Sprintf("%s@%d", name, length)
}
