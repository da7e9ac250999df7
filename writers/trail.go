package writers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
)

// writeTrail adds the table's audit trail to a report as its top-level
// "run" object (nothing when the table has none).
func writeTrail(bw *bufio.Writer, r *audit.Trail) error {
	if r == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	bw.WriteString(",\n\"run\": ")
	_, err = bw.Write(b)
	return err
}

// ParamsText writes a rule's resolved parameters as compact JSON for
// text outputs (the workbook, the HTML page).
func ParamsText(params map[string]any) string {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Sprint(params)
	}
	return string(b)
}

// trailRows are the audit trail's rows in a workbook's summary sheet.
func trailRows(r *audit.Trail) [][]any {
	if r == nil {
		return nil
	}
	rows := [][]any{{}, {"sdcaudit", r.Sdcaudit}}
	if r.Timestamp != "" {
		rows = append(rows, []any{"timestamp", r.Timestamp})
	}
	if r.Profile != "" {
		rows = append(rows, []any{"profile", r.Profile})
	}
	for _, in := range r.Inputs {
		rows = append(rows,
			[]any{"input", in.Name},
			[]any{"input size (bytes)", in.Size},
			[]any{"input sha256", in.SHA256},
			[]any{"input rows read", in.Rows},
			[]any{"input format", inputFormat(in)})
	}
	if s := r.Suppression; s != nil {
		rows = append(rows, []any{"suppression", suppressionText(s)})
	}
	for _, ru := range r.Rules {
		rows = append(rows, []any{"rule " + ru.Name, ruleState(ru.Enabled) + " " + ParamsText(ru.Params)})
	}
	return rows
}

// ruleState is a rule's state in the trail: enabled or disabled.
func ruleState(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// inputFormat describes how an input was read: format, sheet, range and
// encoding where known.
func inputFormat(in audit.InputTrail) string {
	parts := []string{in.Format}
	if in.Sheet != "" {
		parts = append(parts, "sheet "+in.Sheet)
	}
	if in.Range != "" {
		parts = append(parts, "range "+in.Range)
	}
	if in.Encoding != "" {
		parts = append(parts, in.Encoding)
	}
	return strings.Join(parts, ", ")
}

func suppressionText(s *audit.SuppressionTrail) string {
	t := fmt.Sprintf("secondary %t, audit %t, cost %s, protection %s, time limit %s", s.Secondary, s.Audit, s.Cost, s.Protection.String(), s.TimeLimit)
	if s.Method != "" {
		t = "method " + s.Method + ", " + t
	}
	return t
}

// trailHTML renders the run's audit trail as a section of summary.html.
func trailHTML(r *audit.Trail) (template.HTML, error) {
	if r == nil {
		return "", nil
	}
	type rule struct{ Name, State, Params string }
	type input struct {
		audit.InputTrail
		How string
	}
	var d struct {
		*audit.Trail
		RuleList    []rule
		InputList   []input
		Suppression string
	}
	d.Trail = r
	for _, ru := range r.Rules {
		d.RuleList = append(d.RuleList, rule{ru.Name, ruleState(ru.Enabled), ParamsText(ru.Params)})
	}
	for _, in := range r.Inputs {
		d.InputList = append(d.InputList, input{in, inputFormat(in)})
	}
	if r.Suppression != nil {
		d.Suppression = suppressionText(r.Suppression)
	}
	var b strings.Builder
	if err := trailTemplate.Execute(&b, d); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

var trailTemplate = template.Must(template.New("trail").Parse(`<h2>Audit trail</h2>
<table id="trail">
<tr><th>sdcaudit</th><td>{{.Sdcaudit}}</td></tr>
{{if .Timestamp}}<tr><th>timestamp</th><td>{{.Timestamp}}</td></tr>
{{end}}{{if .Profile}}<tr><th>profile</th><td>{{.Profile}}</td></tr>
{{end}}{{if .Suppression}}<tr><th>suppression</th><td>{{.Suppression}}</td></tr>
{{end}}</table>
<table id="trail-inputs">
<tr><th>input</th><th>size (bytes)</th><th>SHA-256</th><th>rows read</th><th>read as</th></tr>
{{range .InputList}}<tr><td>{{.Name}}</td><td class="num">{{.Size}}</td><td><code>{{.SHA256}}</code></td><td class="num">{{.Rows}}</td><td>{{.How}}</td></tr>
{{end}}</table>
{{if .RuleList}}<table id="trail-rules">
<tr><th>rule</th><th>state</th><th>parameters</th></tr>
{{range .RuleList}}<tr><td>{{.Name}}</td><td>{{.State}}</td><td><code>{{.Params}}</code></td></tr>
{{end}}</table>
{{else}}<p>The tables were audited with different settings: see each table's report.</p>
{{end}}`))
