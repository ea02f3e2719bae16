// Package jsonscan is the schema-directed JSON scanner every JSON-reading
// parser uses: a validating reader over one in-memory record that hands out
// keys, strings and number literals without building a tree, and exact
// conversions of number literals.
//
// Parsers keep only the fields they need and let everything else be skipped
// in place, so a record carrying a large array (AIPerf's inter_chunk_latency)
// or thousands of span attributes costs one validating pass and almost no
// allocation. Number literals stay text until a caller converts them with
// Scaled, which works in decimal and never rounds through float64. Nesting is
// bounded (Scanner.MaxDepth) so hostile input cannot exhaust the stack, and
// every SyntaxError carries the byte offset it was found at.
//
// Two walking styles share one implementation: Object and Array visit
// members with a callback and skip what the callback left, while OpenObject,
// NextMember and NextElement let a decoder drive the loop itself.
//
// A Scanner reads one of two dialects. JSON accepts exactly what
// encoding/json accepts and words errors as encoding/json does. Python also
// accepts NaN, Infinity and -Infinity, which Python's json module writes for
// non-finite floats (the benchmark clients are Python programs), and words
// errors as the client-export parsers always have.
//
// It imports only the standard library.
package jsonscan
