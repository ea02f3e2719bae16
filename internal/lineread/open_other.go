//go:build !unix

package lineread

import "os"

const oNonblock = 0

func clearNonblock(*os.File) error { return nil }
