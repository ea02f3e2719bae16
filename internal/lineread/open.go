package lineread

import (
	"fmt"
	"os"
)

// Open opens an input file for reading, refusing anything but a regular
// file: a named pipe at an input path would block the build forever, and a
// device (/dev/zero) would be read until memory runs out. The file is
// opened without blocking and checked before any read, so a FIFO is refused
// even when nothing writes to it.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s, not a regular file; refusing to read it", path, kindOf(st.Mode()))
	}
	if err := clearNonblock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "of type " + m.Type().String()
}
