package configs

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// problems checks a config document before it is decoded and reports
// every problem at once, each with file:line:column, the key path, what
// was expected and, for a mistyped key, the key meant: unknown keys,
// values of the wrong kind (a word where a number is expected, a single
// value where a list is), and bad indentation at the line where it is.
// It returns nil when the document has none of these (decoding then
// reports anything else).
func problems(file string, data []byte) error {
	return problemsOf(file, data, reflect.TypeFor[Config]())
}

// problemsOf is problems for a document decoded into a value of type t.
func problemsOf(file string, data []byte, t reflect.Type) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return syntaxProblem(file, data, err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	var out []*Error
	duplicateKeys(file, doc.Content[0], "", &out)
	walkProblems(file, doc.Content[0], t, "", &out)
	if len(out) == 0 {
		return nil
	}
	first := out[0]
	first.More = out[1:]
	return first
}

// duplicateKeys reports every key given twice in one mapping, at any
// depth (`rules: {threshold: {min: 5, min: 7}}`): YAML would keep one of
// them silently.
func duplicateKeys(file string, n *yaml.Node, path string, out *[]*Error) {
	switch n.Kind {
	case yaml.MappingNode:
		first := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.Value != "<<" {
				if f, dup := first[k.Value]; dup {
					where := path
					if where == "" {
						where = "the top level"
					}
					*out = append(*out, &Error{File: file, Line: k.Line, Column: k.Column, Msg: fmt.Sprintf("key %q is given twice in %s (first on line %d); keep one", k.Value, where, f.Line), Err: ErrInvalid})
				} else {
					first[k.Value] = k
				}
			}
			duplicateKeys(file, n.Content[i+1], keyPath(path, k.Value), out)
		}
	case yaml.SequenceNode:
		for i, it := range n.Content {
			duplicateKeys(file, it, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

func keyPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func walkProblems(file string, n *yaml.Node, t reflect.Type, path string, out *[]*Error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	add := func(at *yaml.Node, err error, format string, a ...any) {
		*out = append(*out, &Error{File: file, Line: at.Line, Column: at.Column, Msg: fmt.Sprintf(format, a...), Err: err})
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if t == nodeType || reflect.PointerTo(t).Implements(yamlUnmarshaler) {
		return
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		if n.Kind != yaml.ScalarNode {
			add(n, ErrInvalid, "%s: expected a single value, got a %s", path, kindName(n))
			return
		}
		v := reflect.New(t).Interface().(interface{ UnmarshalText([]byte) error })
		if err := v.UnmarshalText([]byte(n.Value)); err != nil {
			add(n, ErrInvalid, "%s: %v", path, err)
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			add(n, ErrInvalid, "%s: expected a mapping (keys and values), got a %s", path, kindName(n))
			return
		}
		fields := map[string]reflect.Type{}
		var names []string
		structFields(t, fields, &names)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := fields[k.Value]
			if !ok {
				where := path
				if where == "" {
					where = "the top level"
				}
				msg := fmt.Sprintf("%s %q in %s", ErrUnknownKey, k.Value, where)
				if s := Suggest(k.Value, names); s != "" {
					msg += "; did you mean " + s + "?"
				}
				add(k, ErrUnknownKey, "%s (known: %s)", msg, strings.Join(names, ", "))
				continue
			}
			walkProblems(file, n.Content[i+1], ft, keyPath(path, k.Value), out)
		}
	case reflect.Slice:
		switch n.Kind {
		case yaml.SequenceNode:
			for i, it := range n.Content {
				walkProblems(file, it, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
			}
		default:
			add(n, ErrInvalid, "%s: expected a list such as [a, b], got a %s", path, kindName(n))
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			add(n, ErrInvalid, "%s: expected a mapping (keys and values), got a %s", path, kindName(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkProblems(file, n.Content[i+1], t.Elem(), keyPath(path, n.Content[i].Value), out)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Kind != yaml.ScalarNode {
			add(n, ErrInvalid, "%s: expected a whole number, got a %s", path, kindName(n))
		} else if _, err := strconv.ParseInt(n.Value, 0, 64); err != nil {
			add(n, ErrInvalid, "%s: expected a whole number, got %q", path, n.Value)
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			add(n, ErrInvalid, "%s: expected true or false, got %s", path, valueText(n))
		}
	case reflect.Float32, reflect.Float64:
		if n.Kind != yaml.ScalarNode {
			add(n, ErrInvalid, "%s: expected a number, got a %s", path, kindName(n))
		} else if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
			add(n, ErrInvalid, "%s: expected a number, got %q", path, n.Value)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			add(n, ErrInvalid, "%s: expected a single value, got a %s", path, kindName(n))
		}
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "single value"
}

func valueText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return "a " + kindName(n)
}

// syntaxProblem turns a YAML syntax error into an *Error; when the text
// has a line indented unlike the lines around it (yaml then blames the
// start of the enclosing mapping), the error names that line.
func syntaxProblem(file string, data []byte, err error) error {
	e := yamlError(file, err).(*Error)
	if line, col, ok := badIndent(string(data)); ok && (line > e.Line || e.Line == 0) {
		return &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf("bad indentation: this line is indented by %d spaces, unlike the keys before it (%s)", col-1, e.Msg), Err: errors.Join(ErrInvalid, err)}
	}
	return e
}

// badIndent finds the first line whose indentation matches no open
// level: deeper lines must be nested under a key, and a line going back
// out must return to the indentation of an earlier key.
func badIndent(text string) (line, col int, ok bool) {
	stack := []int{0}
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimLeft(l, " ")
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "---") {
			continue
		}
		ind := len(l) - len(t)
		if strings.HasPrefix(t, "- ") {
			// list items may sit at their key's indentation
			ind += 0
		}
		top := stack[len(stack)-1]
		switch {
		case ind > top:
			stack = append(stack, ind)
		case ind < top:
			for len(stack) > 0 && stack[len(stack)-1] > ind {
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 0 || stack[len(stack)-1] != ind {
				return i + 1, ind + 1, true
			}
		}
	}
	return 0, 0, false
}

// positions records where the rules and the profile are written.
func (c *Config) positions(doc *yaml.Node) {
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		switch k.Value {
		case "profile":
			c.profileAt = [2]int{v.Line, v.Column}
		case "rules":
			if v.Kind != yaml.MappingNode {
				continue
			}
			c.ruleAt = map[string][2]int{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				c.ruleAt[v.Content[j].Value] = [2]int{v.Content[j].Line, v.Content[j].Column}
			}
		}
	}
}

// RuleError is the error of a rule setting: at the rule's key (or the
// parameter's, when param names one), with a suggestion when known lists
// names the rule may have meant.
func (r RuleSetting) RuleError(err error, param string, known []string) *Error {
	e := &Error{File: r.file, Line: r.at[0], Column: r.at[1], Err: err}
	if param != "" && r.params != nil {
		name, _, _ := strings.Cut(param, "[")
		name, _, _ = strings.Cut(name, ".")
		for i := 0; i+1 < len(r.params.Content); i += 2 {
			if k := r.params.Content[i]; k.Value == name {
				e.Line, e.Column = k.Line, k.Column
			}
		}
	}
	if known != nil {
		msg := fmt.Sprintf("unknown rule %q in rules", r.Name)
		if s := Suggest(r.Name, known); s != "" {
			msg += "; did you mean " + s + "?"
		}
		e.Msg = msg + " (known: " + strings.Join(known, ", ") + ")"
	}
	return e
}

// JoinErrors returns the first error with the others as its More, or nil.
func JoinErrors(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	errs[0].More = append(errs[0].More, errs[1:]...)
	return errs[0]
}
