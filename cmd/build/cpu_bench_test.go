package main

import "syscall"

// processCPU is the process's user and system CPU time in ns: benchmarks
// report it beside wall time because on a loaded machine wall time per op
// is mostly waiting for a core.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
