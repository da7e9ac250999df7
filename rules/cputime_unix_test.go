//go:build unix

package rules_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, for per-core rates that
// do not depend on other load on the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
