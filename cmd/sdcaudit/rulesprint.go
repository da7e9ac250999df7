package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// printRules prints one row per rule: name, on/off and what it checks,
// wrapped, ending with its parameter values ("parameters: min=10"). The
// values stay under CHECKS rather than in a column of their own, so that
// the table keeps its columns (RULE, profile, CHECKS) and its width.
func printRules(w io.Writer, profile string, list []ruleInfo) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "RULE\t%s\tCHECKS\n", strings.ToUpper(profile))
	for _, r := range list {
		lines := wrap(r.Doc, 64)
		params := r.text
		if len(params) == 0 {
			params = []string{"none"}
		}
		lines = append(lines, wrapItems("parameters:", params, 64)...)
		for i, l := range lines {
			if i == 0 {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, onOff(r.Enabled), l)
			} else {
				fmt.Fprintf(tw, "\t\t%s\n", l)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// wrapItems lists items after a label in lines of at most width
// characters, continuation lines indented under the first item.
func wrapItems(label string, items []string, width int) []string {
	indent := strings.Repeat(" ", len(label)+1)
	var lines []string
	line := label
	for _, it := range items {
		if line != label && line != indent && len(line)+1+len(it) > width {
			lines = append(lines, line)
			line = indent
		}
		if line == indent {
			line += it
		} else {
			line += " " + it
		}
	}
	return append(lines, line)
}

// printRulesLong prints each rule in full: what it checks, then each
// parameter with its value and meaning.
func printRulesLong(w io.Writer, profile string, list []ruleInfo) error {
	for i, r := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s in profile %s)\n", r.Name, onOff(r.Enabled), profile)
		for _, l := range wrap(r.Doc, 72) {
			fmt.Fprintf(w, "  %s\n", l)
		}
		if len(r.ParamDocs) == 0 {
			fmt.Fprintln(w, "  no parameters")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range r.ParamDocs {
			value := p.Name + " (not set)"
			for _, t := range r.text {
				if strings.HasPrefix(t, p.Name+"=") {
					value = t
				}
			}
			for k, l := range wrap(p.Doc, 60) {
				if k == 0 {
					fmt.Fprintf(tw, "  %s\t%s\n", value, l)
				} else {
					fmt.Fprintf(tw, "  \t%s\n", l)
				}
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// onOff renders an enabled flag as "on" or "off".
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// wrap splits text into lines of at most width characters at spaces (a
// longer word gets a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
