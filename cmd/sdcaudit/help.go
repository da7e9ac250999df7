package main

import "github.com/spf13/cobra"

// examples are the Example sections of the commands' --help, by command
// path.
var examples = map[string]string{
	"sdcaudit": `  sdcaudit check grants.csv --dims region,sector --value turnover --out out
  sdcaudit run release.yaml --out out
  sdcaudit reconstruct --n 7 --min 1 --max 5 --mean 2.857 --sd 1.574`,
	"sdcaudit check": `  # microdata: one record per contributor
  sdcaudit check firms.csv --dims region,sector --value turnover --holding group --out out
  # an aggregate table mapped by a config, with the checker's overrides
  sdcaudit check table.xlsx --sheet Turnover --config table.yaml --overrides overrides.csv
  # overrides.csv:
  #   region,sector,action,reason,by
  #   North,C,safe,published in the 2024 yearbook,J. Smith
  #   South,F,protected,key figure of the release,J. Smith
  # then open out/summary.html, then out/firms.annotated.xlsx
  # a cell summary computed in the engine by the query of sdcaudit sql
  sdcaudit check --cells cells.parquet --dims region,sector --value turnover --holding group`,
	"sdcaudit run": `  sdcaudit run release.yaml --out out
  sdcaudit run release.yaml --shards 3 --shard 0 --out s0   # one shard; see sdcaudit merge
  sdcaudit run release.yaml --out out --json > summary.json
  sdcaudit run release.yaml --log-format json --log-level info 2> run.log`,
	"sdcaudit audit": `  sdcaudit audit received.csv --dims region,sector --total turnover
  sdcaudit audit received.xlsx --sheet 2 --config table.yaml --json`,
	"sdcaudit reconstruct": `  sdcaudit reconstruct --n 7 --min 1 --max 5 --mean 2.857 --sd 1.574
  sdcaudit reconstruct --n 15 --min 1 --max 5 --mean 4.00 --sd 0.00 --json`,
	"sdcaudit reconstruct space":    `  sdcaudit reconstruct space --n 3-12 --min 1 --max 5 --dp exact,2`,
	"sdcaudit reconstruct disguise": `  sdcaudit reconstruct disguise --values 1,2,2,3,5 --min 1 --max 5 --method split-half`,
	"sdcaudit moments": `  sdcaudit moments --values firms.csv --column turnover --max-order 4
  sdcaudit moments --n 12 --raw 89,1893,66113`,
	"sdcaudit moments simulate": `  sdcaudit moments simulate --sizes 10,50 --means 2,5 --reps 100 --svg recovery.svg`,
	"sdcaudit rules": `  sdcaudit rules
  sdcaudit rules --profile tau-argus --json`,
	"sdcaudit rules compare": `  sdcaudit rules compare firms.csv --dims region,sector --value turnover --target 0.1
  sdcaudit rules compare --cells 500 --contributors 20 --dist exponential --seed 1 --svg rules.svg`,
	"sdcaudit sql": `  sdcaudit sql firms --dims region,sector --value turnover --dialect postgres
  sdcaudit sql firms --config table.yaml --dialect duckdb --top-k 3`,
	"sdcaudit merge": `  # three shards of a release, each in its own directory, then the run's summary
  sdcaudit run release.yaml --shards 3 --shard 0 --out s0
  sdcaudit run release.yaml --shards 3 --shard 1 --out s1
  sdcaudit run release.yaml --shards 3 --shard 2 --out s2
  sdcaudit merge s0 s1 s2 --out out`,
	"sdcaudit version": `  sdcaudit version`,
}

// exitCodesHelp is the exit-code paragraph of check and run.
const exitCodesHelp = `Exit codes: 0 nothing needs a person, 1 some cell failed a rule or needs
review (a release job must stop), 2 usage or configuration error, 3 input
could not be read, 4 interrupted or an output could not be written (the
previous run's outputs are then left as they were).`

// addExamples sets the Example of every command that has one.
func addExamples(c *cobra.Command) {
	if ex, ok := examples[c.CommandPath()]; ok && c.Example == "" {
		c.Example = ex
	}
	for _, sub := range c.Commands() {
		addExamples(sub)
	}
}
