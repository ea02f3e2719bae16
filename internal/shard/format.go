package shard

import "fmt"

// magic opens every raw shard. The leading 0x89 is not ASCII, so a text file
// or a mangled 7-bit transfer is never mistaken for a shard (the PNG trick).
const magic = "\x89DSH"

// FormatVersion is the layout version this package writes and the newest one
// it reads. Any change to the byte layout, including a new Type or Encoding,
// bumps it (docs/format/shard.md, "Versioning").
const FormatVersion = 1

const (
	headerFixedBytes = len(magic) + 1 // magic + version byte
	trailerBytes     = 4              // CRC-32C, little-endian
)

// Limits enforced by both Encode and Decode, so the writer never produces a
// shard that a reader refuses. They bound every allocation driven by a length
// read from input.
const (
	maxNameBytes    = 4096    // kind, table and column names
	maxTables       = 4096    // tables per shard
	maxColumns      = 4096    // columns per table
	maxRows         = 1 << 22 // rows per table (4,194,304)
	maxStringBytes  = 1 << 24 // one dictionary entry (16 MiB)
	maxRawBytes     = 1 << 28 // an encoded shard (256 MiB); also caps Decompress output
	maxDecodedBytes = 1 << 28 // memory any decoded shard may occupy (256 MiB), see decodedCost
	// decodedPerRawByte lets a larger shard occupy more: a shard of n raw
	// bytes may take decodedPerRawByte×n when that is over maxDecodedBytes.
	// The budget exists because a constant or all-null column costs a few
	// bytes on disk and rows values in memory; an honest core costs 5.6
	// bytes a raw byte (424 MB for the 76 MB core of a million requests)
	// and ~14 at most (requests whose optional columns are all null), so a
	// fixed 256 MiB refused every core over ~630,000 requests while this
	// ratio still bounds what a few hostile bytes can ask for.
	decodedPerRawByte = 32
	// maxDecodedTotal caps every budget: what a 4 GiB wasm memory can hold
	// beside the page's own, and far over a core at maxRows requests.
	maxDecodedTotal = 1 << 31
)

// MaxRows is the most rows a table may hold, and so the most requests a
// report's core can carry.
const MaxRows = maxRows

// DecodeBudget is the memory a decoded shard whose raw form is rawBytes
// long may occupy, as Encode and every decoder count it (decodedCost plus
// dictionary bytes): maxDecodedBytes, or decodedPerRawByte for each raw
// byte when that is more, at most maxDecodedTotal. A reader that decodes
// some tables of a framed shard passes the whole shard's raw size (the
// manifest records it), so what the writer accepted for the whole shard is
// accepted for any part of it.
func DecodeBudget(rawBytes int) int64 {
	b := decodedPerRawByte * int64(max(rawBytes, 0))
	return min(max(b, maxDecodedBytes), maxDecodedTotal)
}

// Type is the value type of a column.
type Type uint8

// Column types. Zero is deliberately not a type, so a zero Column is invalid.
const (
	Int64   Type = 1 // Column.Ints
	Float64 Type = 2 // Column.Floats; finite values only
	String  Type = 3 // Column.Strings
	Bool    Type = 4 // Column.Bools
)

func (t Type) String() string {
	switch t {
	case Int64:
		return "int64"
	case Float64:
		return "float64"
	case String:
		return "string"
	case Bool:
		return "bool"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

func (t Type) valid() bool { return t >= Int64 && t <= Bool }

// Encoding is how a column's values are laid out in its body. The encoder
// picks one per column and records it, so readers never guess.
type Encoding uint8

// Column encodings. Zero is deliberately not an encoding.
const (
	EncVarint      Encoding = 1 // Int64: zigzag varint per value
	EncDeltaVarint Encoding = 2 // Int64: first value, then wrapping differences, all zigzag varint
	EncConstant    Encoding = 3 // Int64 or Float64: one value repeated for every valid row
	EncFloat64LE   Encoding = 4 // Float64: 8 bytes little-endian IEEE 754 per value
	EncDictionary  Encoding = 5 // String: first-seen dictionary, then a uvarint index per value
	EncBitmap      Encoding = 6 // Bool: one bit per value, least significant bit first
	// EncUUIDDictionary is EncDictionary whose entries are all canonical
	// lowercase UUIDs, stored as 16 bytes each instead of 36 characters.
	EncUUIDDictionary Encoding = 7
	// EncUUIDList stores one 16-byte UUID per value, in row order: for columns
	// of distinct UUIDs (request ids), where dictionary indexes are pure cost.
	EncUUIDList Encoding = 8
)

func (e Encoding) String() string {
	switch e {
	case EncVarint:
		return "varint"
	case EncDeltaVarint:
		return "delta-varint"
	case EncConstant:
		return "constant"
	case EncFloat64LE:
		return "float64-le"
	case EncDictionary:
		return "dictionary"
	case EncBitmap:
		return "bitmap"
	case EncUUIDDictionary:
		return "uuid-dictionary"
	case EncUUIDList:
		return "uuid-list"
	}
	return fmt.Sprintf("encoding(%d)", uint8(e))
}

// allows reports whether a column of type t may use encoding e.
func (e Encoding) allows(t Type) bool {
	switch e {
	case EncVarint, EncDeltaVarint:
		return t == Int64
	case EncConstant:
		return t == Int64 || t == Float64
	case EncFloat64LE:
		return t == Float64
	case EncDictionary, EncUUIDDictionary, EncUUIDList:
		return t == String
	case EncBitmap:
		return t == Bool
	}
	return false
}

// Validity flags: the byte before a column body that says which rows hold a value.
const (
	validAll    byte = 0 // every row has a value; Column.Valid decodes as nil
	validBitmap byte = 1 // a bitmap of ceil(rows/8) bytes follows, bit set = value present
	validNone   byte = 2 // no row has a value (a column that is unknown throughout)
)
