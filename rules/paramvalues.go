package rules

// The parameters of a rule as it decodes them, for the audit trail and
// `sdcaudit rules`: JSON-ready values and name=value texts.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Params builds the rule name from its parameters (decode, as for New)
// and returns its parameter struct as the rule decoded it (nil when the
// parameters do not decode), with the error of building the rule. The
// audit trail and `sdcaudit rules` both read a rule's parameters through
// it.
func Params(name string, decode Decoder) (any, error) {
	var got any
	spy := func(v any) error {
		if err := decode(v); err != nil {
			return err
		}
		if t := reflect.TypeOf(v); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
			got = v // the rule's parameter struct (not the map of the keys set)
		}
		return nil
	}
	_, err := New(name, spy)
	return got, err
}

// ParamValues turns a parameter struct from Params into JSON-ready
// data keyed by the YAML names of its fields ({} for nil).
func ParamValues(p any) map[string]any {
	if p != nil {
		if m, ok := paramValue(reflect.ValueOf(p)).(map[string]any); ok {
			return m
		}
	}
	return map[string]any{}
}

// FormatParams renders a parameter struct from Params as name=value
// texts in the order of its fields: a nested struct as a tuple of its
// fields ("(2,90)"), a list in brackets, an unset pointer as null.
func FormatParams(p any) []string {
	v := reflect.ValueOf(p)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, name+"="+paramText(v.Field(i)))
	}
	return out
}

// paramText renders one parameter value for FormatParams.
func paramText(v reflect.Value) string {
	if !v.IsValid() {
		return "null"
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface {
		if s, ok := v.Interface().(fmt.Stringer); ok {
			return s.String()
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "null"
		}
		return paramText(v.Elem())
	case reflect.Struct:
		parts := make([]string, 0, v.NumField())
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				parts = append(parts, paramText(v.Field(i)))
			}
		}
		return "(" + strings.Join(parts, ",") + ")"
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = paramText(v.Index(i))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case reflect.String:
		if v.Len() == 0 {
			return `""`
		}
	}
	return fmt.Sprint(v.Interface())
}

// paramValue turns a rule's parameter value into JSON-ready data keyed by
// the YAML names of its fields. Types with their own JSON form (exact
// decimals) are kept as they are.
func paramValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface {
		if _, ok := v.Interface().(json.Marshaler); ok {
			return v.Interface()
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return paramValue(v.Elem())
	case reflect.Struct:
		m := map[string]any{}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			m[name] = paramValue(v.Field(i))
		}
		return m
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = paramValue(v.Index(i))
		}
		return out
	case reflect.Map:
		m := map[string]any{}
		iter := v.MapRange()
		for iter.Next() {
			m[iter.Key().String()] = paramValue(iter.Value())
		}
		return m
	}
	return v.Interface()
}
