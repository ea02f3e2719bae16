//go:build !(linux || darwin || freebsd || netbsd)

package importer

import "os"

// changeTime is unknown here; size and modification time are compared.
func changeTime(os.FileInfo) int64 { return 0 }
