package tachometer

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/apache/arrow/go/v17/parquet/schema"
)

// parquetRecordWriter writes the capture writer's record batches as Parquet
// row groups through the column chunk writers of parquet/file, one row
// group per batch: number columns as they are, text columns as the batch's
// dictionary and its indices, which become the chunk's dictionary page and
// its data pages. It writes the file the Arrow Parquet writer (pqarrow)
// writes for the same batches, without linking pqarrow, whose compute
// kernels, Flight and gRPC would otherwise come with every binary that
// imports this package.
type parquetRecordWriter struct {
	w      *file.Writer
	fields []arrow.Field
}

func newParquetRecordWriter(s *arrow.Schema, w io.Writer, props *parquet.WriterProperties) (*parquetRecordWriter, error) {
	nodes := make(schema.FieldList, 0, s.NumFields())
	for _, f := range s.Fields() {
		n, err := captureParquetNode(f)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	root, err := schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1)
	if err != nil {
		return nil, err
	}
	// An empty (not absent) key-value list, as the Arrow writer stores.
	fw := file.NewParquetWriter(w, root, file.WithWriterProps(props), file.WithWriteMetadata(make(metadata.KeyValueMetadata, 0)))
	return &parquetRecordWriter{w: fw, fields: s.Fields()}, nil
}

// captureParquetNode is the Parquet column of one capture writer field.
func captureParquetNode(f arrow.Field) (schema.Node, error) {
	rep := parquet.Repetitions.Required
	if f.Nullable {
		rep = parquet.Repetitions.Optional
	}
	var logical schema.LogicalType = schema.NoLogicalType{}
	var phys parquet.Type
	switch f.Type.ID() {
	case arrow.DICTIONARY, arrow.STRING:
		logical, phys = schema.StringLogicalType{}, parquet.Types.ByteArray
	case arrow.FLOAT64:
		phys = parquet.Types.Double
	case arrow.INT64:
		logical, phys = schema.NewIntLogicalType(64, true), parquet.Types.Int64
	default:
		return nil, fmt.Errorf("capture writer: no Parquet column for %s", f.Type)
	}
	return schema.NewPrimitiveNodeLogical(f.Name, rep, logical, phys, -1, -1)
}

// write adds rec as one row group.
func (p *parquetRecordWriter) write(rec arrow.Record) error {
	rg := p.w.AppendRowGroup()
	for i, col := range rec.Columns() {
		cw, err := rg.NextColumn()
		if err != nil {
			return err
		}
		if err := writeCaptureColumn(cw, col, p.fields[i].Nullable); err != nil {
			return fmt.Errorf("column %q: %w", p.fields[i].Name, err)
		}
	}
	return rg.Close()
}

func writeCaptureColumn(cw file.ColumnChunkWriter, col arrow.Array, nullable bool) (err error) {
	var defs []int16
	if nullable {
		defs = make([]int16, col.Len())
		for i := range defs {
			if col.IsValid(i) {
				defs[i] = 1
			}
		}
	}
	switch a := col.(type) {
	case *array.Float64:
		wr := cw.(*file.Float64ColumnChunkWriter)
		if a.NullN() == 0 {
			_, err = wr.WriteBatch(a.Float64Values(), defs, nil)
		} else {
			wr.WriteBatchSpaced(a.Float64Values(), defs, nil, a.NullBitmapBytes(), int64(a.Data().Offset()))
		}
		return err
	case *array.Int64:
		_, err = cw.(*file.Int64ColumnChunkWriter).WriteBatch(a.Int64Values(), defs, nil)
		return err
	case *array.Dictionary:
		// The batch's dictionary holds each value once, so its indices are
		// the chunk's dictionary indices as they stand.
		enc, ok := cw.CurrentEncoder().(interface {
			PutDictionary(arrow.Array) error
			NumEntries() int
		})
		if !ok {
			return errors.New("text column is not dictionary-encoded")
		}
		if err := enc.PutDictionary(a.Dictionary()); err != nil {
			return err
		}
		if enc.NumEntries() != a.Dictionary().Len() {
			return errors.New("a batch dictionary repeats a value")
		}
		return cw.WriteDictIndices(a.Indices(), defs, nil)
	}
	return fmt.Errorf("no Parquet writer for %s", col.DataType())
}

func (p *parquetRecordWriter) close() error { return p.w.Close() }
