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
	m := &TauMetadata{File: name, Safe: "S", Unsafe: "U", Protect: "P", Empty: "E"}
	fail := func(line int, format string, a ...any) error {
		return &Error{File: name, Err: fmt.Errorf("%w: line %d: %s", ErrMetadata, line, fmt.Sprintf(format, a...))}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxRDALine)
	line := 0
	var v *TauVar
	roleAt := 0
	setRole := func(role TauRole, line int) error {
		if v == nil {
			return fail(line, "<%s> before the first variable", strings.ToUpper(string(role)))
		}
		// NUMERIC with SHADOW, COSTVAR, ... (in either order) takes the
		// more specific role
		switch {
		case v.Role == "" || v.Role == TauNumeric:
			v.Role = role
		case role == TauNumeric:
		case v.Role != role:
			return fail(line, "variable %s has two roles: %s (line %d) and %s", v.Name, v.Role, roleAt, role)
		}
		roleAt = line
		return nil
	}
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if !utf8.Valid(text) {
			return nil, fail(line, "the line is not UTF-8 text")
		}
		toks, err := rdaTokens(string(text))
		if err != nil {
			return nil, fail(line, "%v", err)
		}
		if len(toks) == 0 || strings.HasPrefix(toks[0].text, "//") && !toks[0].quoted {
			continue
		}
		if !toks[0].keyword {
			// a variable line
			if len(m.Vars) >= maxRDAVars {
				return nil, fail(line, "more than %d variables", maxRDAVars)
			}
			if toks[0].quoted {
				return nil, fail(line, "a variable name is not quoted: %q", toks[0].text)
			}
			m.Vars = append(m.Vars, TauVar{Name: toks[0].text, Line: line, Decimals: -1})
			v = &m.Vars[len(m.Vars)-1]
			for _, t := range m.Vars[:len(m.Vars)-1] {
				if strings.EqualFold(t.Name, v.Name) {
					return nil, fail(line, "variable %s is given twice (first on line %d)", v.Name, t.Line)
				}
			}
			rest := toks[1:]
			for _, t := range rest {
				if t.keyword {
					return nil, fail(line, "keyword <%s> on the variable's line: put it on its own line below", t.text)
				}
			}
			if m.Separator == "" {
				// fixed width: name, start, length, missing codes
				if len(rest) < 2 || rest[0].quoted || rest[1].quoted {
					return nil, fail(line, "variable %s: a fixed-width file needs its first position and length after the name (or give <SEPARATOR> before the variables)", v.Name)
				}
				var e1, e2 error
				v.Start, e1 = strconv.Atoi(rest[0].text)
				v.Length, e2 = strconv.Atoi(rest[1].text)
				if e1 != nil || e2 != nil || v.Start < 1 || v.Length < 1 || v.Length > maxRDALine || v.Start > maxRDALine {
					return nil, fail(line, "variable %s: position %q and length %q must be positive integers", v.Name, rest[0].text, rest[1].text)
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
			continue
		}
		for i := 0; i < len(toks); i++ {
			t := toks[i]
			if !t.keyword {
				return nil, fail(line, "unexpected %q: want a keyword such as <NUMERIC>", t.text)
			}
			arg := func() (string, error) {
				if i+1 >= len(toks) || toks[i+1].keyword {
					return "", fail(line, "<%s> needs a value", t.text)
				}
				i++
				return toks[i].text, nil
			}
			args := func() []string {
				var out []string
				for i+1 < len(toks) && !toks[i+1].keyword {
					i++
					out = append(out, toks[i].text)
				}
				return out
			}
			kw := strings.ToUpper(t.text)
			needVar := func() error {
				if v == nil {
					return fail(line, "<%s> before the first variable", kw)
				}
				return nil
			}
			var err error
			switch kw {
			case "SEPARATOR":
				var s string
				if s, err = arg(); err == nil {
					if len(m.Vars) > 0 {
						err = fail(line, "<SEPARATOR> must come before the variables")
					} else if utf8.RuneCountInString(s) != 1 || s == "\"" || s == "\n" || s == "\r" {
						err = fail(line, "<SEPARATOR> %q: want one character", s)
					} else {
						m.Separator = s
					}
				}
			case "SAFE", "UNSAFE", "PROTECT", "EMPTY":
				var s string
				if s, err = arg(); err == nil {
					switch kw {
					case "SAFE":
						m.Safe = s
					case "UNSAFE":
						m.Unsafe = s
					case "PROTECT":
						m.Protect = s
					default:
						m.Empty = s
					}
				}
			case "RECODEABLE", "RECODABLE":
				err = setRole(TauExplanatory, line)
			case "NUMERIC":
				err = setRole(TauNumeric, line)
			case "FREQUENCY":
				err = setRole(TauFrequency, line)
			case "SHADOW":
				err = setRole(TauShadow, line)
			case "COSTVAR":
				err = setRole(TauCost, line)
			case "MAXSCORE":
				err = setRole(TauMaxScore, line)
			case "STATUS":
				err = setRole(TauStatus, line)
			case "LOWERPL":
				err = setRole(TauLowerPL, line)
			case "UPPERPL":
				err = setRole(TauUpperPL, line)
			case "WEIGHT":
				err = setRole(TauWeight, line)
			case "HOLDING":
				err = setRole(TauHolding, line)
			case "REQUEST", "RECORDKEY":
				if err = setRole(TauOther, line); err == nil {
					v.Unused = append(v.Unused, kw)
					args()
				}
			case "TOTCODE":
				if err = needVar(); err == nil {
					v.TotCode, err = arg()
					v.TotCode = strings.TrimSpace(v.TotCode)
				}
			case "HIERARCHICAL":
				if err = needVar(); err == nil && v.Role == "" {
					v.Role = TauExplanatory
				}
			case "HIERCODELIST":
				if err = needVar(); err == nil {
					v.HierFile, err = arg()
				}
			case "HIERLEADSTRING":
				if err = needVar(); err == nil {
					v.HierLead, err = arg()
				}
			case "HIERLEVELS":
				if err = needVar(); err == nil {
					for _, a := range args() {
						n, e := strconv.Atoi(a)
						if e != nil || n < 0 || n > 64 {
							err = fail(line, "<HIERLEVELS> %q: want digit counts such as 2 1 1 0", a)
							break
						}
						v.HierLevels = append(v.HierLevels, n)
					}
				}
			case "CODELIST":
				if err = needVar(); err == nil {
					v.CodeList, err = arg()
				}
			case "DECIMALS":
				if err = needVar(); err == nil {
					var s string
					if s, err = arg(); err == nil {
						n, e := strconv.Atoi(s)
						if e != nil || n < 0 || n > 30 {
							err = fail(line, "<DECIMALS> %q: want 0 to 30", s)
						}
						v.Decimals = n
					}
				}
			case "DISTANCE", "CKM", "PFILE", "PFILE_CONT", "PFILE_SEP", "INCLUDEZEROS", "SEPARATION", "PARITY", "SCALING", "TRUNCATE", "PEEP", "PEEPCODE":
				if err = needVar(); err == nil {
					v.Unused = append(v.Unused, kw)
					args()
				}
			default:
				err = fail(line, "unknown keyword <%s>", t.text)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fail(line+1, "%v", err)
	}
	if len(m.Vars) == 0 {
		return nil, fail(line, "no variables")
	}
	for i := range m.Vars {
		v := &m.Vars[i]
		if v.Role == "" {
			return nil, fail(v.Line, "variable %s has no role (want <RECODEABLE>, <NUMERIC>, <FREQUENCY>, <MAXSCORE>, <STATUS>, ...)", v.Name)
		}
		if v.HierFile != "" && len(v.HierLevels) > 0 {
			return nil, fail(v.Line, "variable %s has both <HIERCODELIST> and <HIERLEVELS>: give one", v.Name)
		}
		if v.Role == TauWeight {
			m.Notes = append(m.Notes, fmt.Sprintf("%s line %d: variable %s is a sampling weight: not applied (the rules count unweighted contributions, as tau-argus does unless told to apply weights; the totals are unweighted)", filepath.Base(name), v.Line, v.Name))
		}
		if len(v.Unused) > 0 {
			m.Notes = append(m.Notes, fmt.Sprintf("%s line %d: variable %s: %s not used by sdcaudit", filepath.Base(name), v.Line, v.Name, strings.Join(v.Unused, ", ")))
		}
	}
	return m, nil
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
