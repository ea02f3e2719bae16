package sqlstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// writeBoth writes d's store from rows and without them, and gives the
// first's stats; the two files must be byte for byte the same.
func writeBoth(t *testing.T, d *model.Dataset, rows *EvidenceRows) Stats {
	t.Helper()
	dir := t.TempDir()
	from, plain := filepath.Join(dir, "from.sqlite"), filepath.Join(dir, "plain.sqlite")
	st, err := WriteFrom(from, d, rows)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(plain, d); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(from)
	b, _ := os.ReadFile(plain)
	if !bytes.Equal(a, b) {
		t.Fatalf("the store laid out from the join's rows differs from the one read from the dataset (%d and %d bytes)", len(a), len(b))
	}
	openStore(t, from)
	return st
}

// The rows the join hands over make the store the pass over the finished
// dataset makes, byte for byte, and are used: the requests' ordinals the
// importer names before it orders the requests are their final ones.
func TestEvidenceRowsFromTheJoinAreUsed(t *testing.T) {
	rows := NewEvidenceRows(t.TempDir())
	defer rows.Close()
	d := tracedDatasetTapped(t, rows)
	// Twice: the rows make as many stores as asked, one at a time.
	writeBoth(t, d, rows)
	st := writeBoth(t, d, rows)
	if !st.EvidenceFromJoin {
		t.Fatal("the store read the evidence again rather than the rows the join encoded")
	}
	if st.Rows["server_spans"] <= int64(len(d.ServerSpans)) || st.Rows["lifecycle_stages"] == 0 || st.Rows["worker_bindings"] == 0 {
		t.Fatalf("rows %v", st.Rows)
	}
}

// feed hands d's evidence to rows as a join would, with the origin and
// sources given.
func feed(t *testing.T, d *model.Dataset, rows *EvidenceRows, origin int64, sources []model.Source) {
	t.Helper()
	owner := evidenceOwners(d)
	rows.BeginEvidence(origin, sources)
	if err := eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
		rows.Evidence(k, owner[k], ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rows.EndEvidence()
}

// Rows encoded with what the finished dataset contradicts are left: the
// store reads the evidence itself, and its bytes are the same.
func TestEvidenceRowsThatDoNotHoldAreLeft(t *testing.T) {
	d := tracedDataset(t)
	cases := []struct {
		name    string
		origin  int64
		sources []model.Source
		owner   func(k int) int
	}{
		{"every source known", d.Meta.OriginNS, d.Sources, nil},
		{"another origin", d.Meta.OriginNS - 1, d.Sources, nil},
		{"a source registered after the join", d.Meta.OriginNS, nil, nil},
		{"a source's id changed", d.Meta.OriginNS, renumbered(d.Sources), nil},
		{"a request's ordinal changed", d.Meta.OriginNS, d.Sources, func(k int) int { return k + 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows := NewEvidenceRows(t.TempDir())
			defer rows.Close()
			if c.owner == nil {
				feed(t, d, rows, c.origin, c.sources)
			} else {
				rows.BeginEvidence(c.origin, c.sources)
				if err := eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
					rows.Evidence(k, c.owner(k), ev)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				rows.EndEvidence()
			}
			st := writeBoth(t, d, rows)
			if want := c.name == "every source known"; st.EvidenceFromJoin != want {
				t.Fatalf("rows used: %v, want %v", st.EvidenceFromJoin, want)
			}
		})
	}
}

func renumbered(src []model.Source) []model.Source {
	out := append([]model.Source(nil), src...)
	for i := range out {
		out[i].ID += 100
	}
	return out
}

// Rows handed over out of order, or never ended, are an error the store
// names; a spill that cannot be made is one too.
func TestEvidenceRowsMisusedAreErrors(t *testing.T) {
	d := tracedDataset(t)
	write := func(rows *EvidenceRows) error {
		_, err := WriteFrom(filepath.Join(t.TempDir(), "s.sqlite"), d, rows)
		return err
	}
	out := NewEvidenceRows(t.TempDir())
	defer out.Close()
	out.BeginEvidence(d.Meta.OriginNS, d.Sources)
	out.Evidence(1, 0, &model.RequestEvidence{})
	out.EndEvidence()
	if err := write(out); err == nil || !strings.Contains(err.Error(), "handed over after 0 records") {
		t.Fatalf("out of order: %v", err)
	}
	open := NewEvidenceRows(t.TempDir())
	defer open.Close()
	open.BeginEvidence(d.Meta.OriginNS, d.Sources)
	if err := write(open); err == nil || !strings.Contains(err.Error(), "not ended") {
		t.Fatalf("never ended: %v", err)
	}
	missing := NewEvidenceRows(filepath.Join(t.TempDir(), "gone"))
	defer missing.Close()
	missing.BeginEvidence(d.Meta.OriginNS, d.Sources)
	missing.EndEvidence()
	if err := write(missing); err == nil || !strings.Contains(err.Error(), "evidence rows") {
		t.Fatalf("no spill directory: %v", err)
	}
}
