package tachometer

import (
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/apache/arrow/go/v17/parquet/schema"
)

// TestParquetArrowSchemaMatchesArrowReader checks the reader's own
// Parquet-to-Arrow type mapping against the Arrow Parquet reader's, for
// every flat column storage and annotation: the types checkSchema accepts
// must be exactly those, and the rest must be named alike in its errors.
func TestParquetArrowSchemaMatchesArrowReader(t *testing.T) {
	type leaf struct {
		logical  schema.LogicalType
		physical parquet.Type
		length   int
	}
	leaves := []leaf{
		{schema.NoLogicalType{}, parquet.Types.Boolean, -1},
		{schema.NoLogicalType{}, parquet.Types.Int32, -1},
		{schema.NoLogicalType{}, parquet.Types.Int64, -1},
		{schema.NoLogicalType{}, parquet.Types.Int96, -1},
		{schema.NoLogicalType{}, parquet.Types.Float, -1},
		{schema.NoLogicalType{}, parquet.Types.Double, -1},
		{schema.NoLogicalType{}, parquet.Types.ByteArray, -1},
		{schema.NoLogicalType{}, parquet.Types.FixedLenByteArray, 12},
		{schema.StringLogicalType{}, parquet.Types.ByteArray, -1},
		{schema.EnumLogicalType{}, parquet.Types.ByteArray, -1},
		{schema.JSONLogicalType{}, parquet.Types.ByteArray, -1},
		{schema.BSONLogicalType{}, parquet.Types.ByteArray, -1},
		{schema.NullLogicalType{}, parquet.Types.Int32, -1},
		{schema.DateLogicalType{}, parquet.Types.Int32, -1},
		{schema.NewTimeLogicalType(true, schema.TimeUnitMillis), parquet.Types.Int32, -1},
		{schema.NewTimeLogicalType(true, schema.TimeUnitMicros), parquet.Types.Int64, -1},
		{schema.NewTimeLogicalType(false, schema.TimeUnitNanos), parquet.Types.Int64, -1},
		{schema.NewTimestampLogicalType(true, schema.TimeUnitNanos), parquet.Types.Int64, -1},
		{schema.NewTimestampLogicalType(false, schema.TimeUnitNanos), parquet.Types.Int64, -1},
		{schema.NewTimestampLogicalType(true, schema.TimeUnitMicros), parquet.Types.Int64, -1},
		{schema.NewTimestampLogicalType(false, schema.TimeUnitMillis), parquet.Types.Int64, -1},
		{schema.NewDecimalLogicalType(9, 2), parquet.Types.Int32, -1},
		{schema.NewDecimalLogicalType(18, 3), parquet.Types.Int64, -1},
		{schema.NewDecimalLogicalType(20, 4), parquet.Types.ByteArray, -1},
		{schema.NewDecimalLogicalType(40, 4), parquet.Types.FixedLenByteArray, 17},
		{schema.UUIDLogicalType{}, parquet.Types.FixedLenByteArray, 16},
		{schema.Float16LogicalType{}, parquet.Types.FixedLenByteArray, 2},
		{schema.IntervalLogicalType{}, parquet.Types.FixedLenByteArray, 12},
	}
	for _, bits := range []int{8, 16, 32, 64} {
		for _, signed := range []bool{true, false} {
			phys := parquet.Types.Int32
			if bits == 64 {
				phys = parquet.Types.Int64
			}
			leaves = append(leaves, leaf{schema.NewIntLogicalType(int8(bits), signed), phys, -1})
		}
	}
	for i, l := range leaves {
		for _, rep := range []parquet.Repetition{parquet.Repetitions.Required, parquet.Repetitions.Optional, parquet.Repetitions.Repeated} {
			n, err := schema.NewPrimitiveNodeLogical("c", rep, l.logical, l.physical, l.length, -1)
			if err != nil {
				t.Fatalf("leaf %d: %v", i, err)
			}
			root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{n}, -1)
			if err != nil {
				t.Fatal(err)
			}
			sc := schema.NewSchema(root)
			want, werr := pqarrow.FromParquet(sc, &pqarrow.ArrowReadProperties{}, nil)
			got, gerr := parquetArrowSchema(sc)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%s %s %s: error %v, the Arrow reader's %v", rep, l.physical, l.logical, gerr, werr)
			}
			if werr != nil {
				continue
			}
			w, g := want.Field(0), got.Field(0)
			if w.Type.String() != g.Type.String() || w.Nullable != g.Nullable {
				t.Errorf("%s %s %s: %s (nullable %v), the Arrow reader gives %s (nullable %v)",
					rep, l.physical, l.logical, g.Type, g.Nullable, w.Type, w.Nullable)
			}
		}
	}
}
