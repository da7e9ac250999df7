//go:build unix

package pipeline

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, every thread) the process
// has used: on a machine shared with other work it measures a run better
// than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
