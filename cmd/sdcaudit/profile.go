package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the developers' profiles that the environment asks
// for (docs/performance.md, "How to run them"): SDCAUDIT_CPUPROFILE=FILE
// writes a CPU profile of the whole run, SDCAUDIT_TRACE=FILE an execution
// trace (go tool trace), for finding what stays serial on many cores. The
// returned function stops them; a profile that cannot be started is a
// message on stderr, never a change of the run's outcome.
func startProfiles() (stop func()) {
	var stops []func()
	if path := os.Getenv("SDCAUDIT_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err != nil {
			fmt.Fprintln(os.Stderr, "sdcaudit: cpu profile:", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "sdcaudit: cpu profile:", err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("SDCAUDIT_TRACE"); path != "" {
		if f, err := os.Create(path); err != nil {
			fmt.Fprintln(os.Stderr, "sdcaudit: trace:", err)
		} else if err := trace.Start(f); err != nil {
			fmt.Fprintln(os.Stderr, "sdcaudit: trace:", err)
			f.Close()
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
