package tachometer

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/schema"
)

// parquetArrowSchema gives each top-level column of a Parquet schema the
// Arrow type its storage and annotation stand for, so that one checkSchema
// judges Parquet and Arrow IPC captures alike. The mapping is the Parquet
// format's own (LogicalTypes.md): a column the checks accept gets exactly
// the type an Arrow reader would give it; any other gets a type that names
// what it holds in the error checkSchema reports.
//
// It is written here rather than taken from the Arrow Parquet reader
// (pqarrow) because that package also brings Arrow's compute kernels,
// Flight and gRPC into every binary that reads a capture.
func parquetArrowSchema(sc *schema.Schema) (*arrow.Schema, error) {
	root := sc.Root()
	fields := make([]arrow.Field, root.NumFields())
	for i := range fields {
		f, err := parquetField(root.Field(i))
		if err != nil {
			return nil, err
		}
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil), nil
}

func parquetField(n schema.Node) (arrow.Field, error) {
	f := arrow.Field{Name: n.Name(), Nullable: n.RepetitionType() == parquet.Repetitions.Optional}
	var err error
	switch n := n.(type) {
	case *schema.PrimitiveNode:
		f.Type, err = parquetLeafType(n)
	case *schema.GroupNode:
		// Nested columns are never accepted; a struct of the children
		// says what the column holds.
		children := make([]arrow.Field, n.NumFields())
		for i := range children {
			if children[i], err = parquetField(n.Field(i)); err != nil {
				return f, err
			}
		}
		f.Type = arrow.StructOf(children...)
	default:
		return f, fmt.Errorf("column %q: unknown Parquet schema node", n.Name())
	}
	if err != nil {
		return f, fmt.Errorf("column %q: %w", n.Name(), err)
	}
	if n.RepetitionType() == parquet.Repetitions.Repeated {
		f.Type, f.Nullable = arrow.ListOf(f.Type), false
	}
	return f, nil
}

// parquetLeafType is the Arrow type of one primitive column; a file whose
// annotation cannot apply to its storage is refused, as a reader must.
func parquetLeafType(n *schema.PrimitiveNode) (arrow.DataType, error) {
	logical, physical := n.LogicalType(), n.PhysicalType()
	if !logical.IsValid() || logical.Equals(schema.NullLogicalType{}) {
		return arrow.Null, nil
	}
	if d, ok := logical.(*schema.DecimalLogicalType); ok && physical != parquet.Types.Boolean &&
		physical != parquet.Types.Float && physical != parquet.Types.Double && physical != parquet.Types.Int96 {
		if d.Precision() <= 38 {
			return &arrow.Decimal128Type{Precision: d.Precision(), Scale: d.Scale()}, nil
		}
		return &arrow.Decimal256Type{Precision: d.Precision(), Scale: d.Scale()}, nil
	}
	bad := fmt.Errorf("%s cannot annotate Parquet %s", logical, physical)
	switch physical {
	case parquet.Types.Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case parquet.Types.Float:
		return arrow.PrimitiveTypes.Float32, nil
	case parquet.Types.Double:
		return arrow.PrimitiveTypes.Float64, nil
	case parquet.Types.Int96:
		return arrow.FixedWidthTypes.Timestamp_ns, nil
	case parquet.Types.Int32, parquet.Types.Int64:
		wide := physical == parquet.Types.Int64
		switch l := logical.(type) {
		case schema.NoLogicalType:
			if wide {
				return arrow.PrimitiveTypes.Int64, nil
			}
			return arrow.PrimitiveTypes.Int32, nil
		case *schema.IntLogicalType:
			if t := intType(l.BitWidth(), l.IsSigned()); t != nil && (l.BitWidth() == 64) == wide {
				return t, nil
			}
		case schema.DateLogicalType:
			if !wide {
				return arrow.FixedWidthTypes.Date32, nil
			}
		case *schema.TimeLogicalType:
			switch {
			case !wide && l.TimeUnit() == schema.TimeUnitMillis:
				return arrow.FixedWidthTypes.Time32ms, nil
			case wide && l.TimeUnit() == schema.TimeUnitMicros:
				return arrow.FixedWidthTypes.Time64us, nil
			case wide && l.TimeUnit() == schema.TimeUnitNanos:
				return arrow.FixedWidthTypes.Time64ns, nil
			}
		case *schema.TimestampLogicalType:
			if wide {
				return timestampType(l)
			}
		}
		return nil, bad
	case parquet.Types.ByteArray:
		switch logical.(type) {
		case schema.StringLogicalType:
			return arrow.BinaryTypes.String, nil
		case schema.NoLogicalType, schema.EnumLogicalType, schema.JSONLogicalType, schema.BSONLogicalType:
			return arrow.BinaryTypes.Binary, nil
		}
		return nil, bad
	case parquet.Types.FixedLenByteArray:
		switch logical.(type) {
		case schema.NoLogicalType, schema.IntervalLogicalType, schema.UUIDLogicalType:
			return &arrow.FixedSizeBinaryType{ByteWidth: n.TypeLength()}, nil
		case schema.Float16LogicalType:
			return arrow.FixedWidthTypes.Float16, nil
		}
		return nil, bad
	}
	return nil, fmt.Errorf("invalid Parquet physical type %s", physical)
}

func intType(bits int8, signed bool) arrow.DataType {
	types := map[int8][2]arrow.DataType{
		8:  {arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Int8},
		16: {arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int16},
		32: {arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int32},
		64: {arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Int64},
	}
	t, ok := types[bits]
	if !ok {
		return nil
	}
	if signed {
		return t[1]
	}
	return t[0]
}

// timestampType follows the format's rule that a timestamp written as a
// converted type (the older annotation) is adjusted to UTC.
func timestampType(l *schema.TimestampLogicalType) (arrow.DataType, error) {
	tz := ""
	if l.IsAdjustedToUTC() || l.IsFromConvertedType() {
		tz = "UTC"
	}
	units := map[schema.TimeUnitType]arrow.TimeUnit{
		schema.TimeUnitMillis: arrow.Millisecond, schema.TimeUnitMicros: arrow.Microsecond, schema.TimeUnitNanos: arrow.Nanosecond,
	}
	unit, ok := units[l.TimeUnit()]
	if !ok {
		return nil, fmt.Errorf("timestamp of unknown unit %s", l)
	}
	return &arrow.TimestampType{TimeZone: tz, Unit: unit}, nil
}
