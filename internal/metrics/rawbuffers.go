package metrics

import "sync"

// rawBuffers pools the buffers summaries are encoded into before they are
// compressed (built.encode): a capture encodes thousands of them, megabytes
// each, and allocating and zeroing a fresh one each time showed in its
// profile.
var rawBuffers sync.Pool // of *[]byte
