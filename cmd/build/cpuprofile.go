package main

import (
	"os"
	"runtime/pprof"
)

// startCPUProfile starts writing a CPU profile to path; stop ends it and
// closes the file. dsight query takes it as a hidden --cpuprofile, so a
// slow question can be reported with the profile of exactly that process.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
