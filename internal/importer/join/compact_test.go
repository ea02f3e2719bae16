package join

import (
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sourcename"
)

// A request id is kept as 16 bytes only when its text comes back
// unchanged; anything else is kept as recorded.
func TestUUIDKeptAsBytesOnlyWhenItsTextComesBack(t *testing.T) {
	for _, tt := range []struct {
		id      string
		asBytes bool
	}{
		{"e8ad4b05-6183-4bc1-a806-b9a7bde602bf", true},
		{"00000000-0000-0000-0000-000000000000", true},
		{"E8AD4B05-6183-4BC1-A806-B9A7BDE602BF", false},
		{"e8ad4b05-6183-4bc1-a806-b9a7bde602bF", false},
		{"e8ad4b0516183-4bc1-a806-b9a7bde602bf", false},
		{"e8ad4b05-6183-4bc1-a806-b9a7bde602b", false},
		{"e8ad4b05-6183-4bc1-a806-b9a7bde602bg", false},
		{"", false},
	} {
		u, ok := parseUUID(tt.id)
		if ok != tt.asBytes {
			t.Errorf("parseUUID(%q) ok = %v", tt.id, ok)
			continue
		}
		b := []model.ProcessBinding{{ServerID: tt.id, Host: "h", Role: "decode", Process: "p", Ref: model.LineRef{Path: "h_decode_w0.out", Line: 7}}}
		wl := NewWorkerLog(sourcename.Identity{Worker: "decode-0", Host: "h", Role: "decode"}, b, nil)
		var buf [36]byte
		if got := string(wl.serverID(&wl.bindings[0], &buf)); got != tt.id {
			t.Errorf("%q kept as %q", tt.id, got)
		}
		if ok {
			if got := string(formatUUID(&buf, &u)); got != tt.id {
				t.Errorf("formatUUID(parseUUID(%q)) = %q", tt.id, got)
			}
		}
	}
}

// Trace ids of 32 lowercase hex digits are keyed by their bytes, others by
// their text; both link and find their owners alike.
func TestTraceOwnersByBytesAndByText(t *testing.T) {
	ids := []string{"0af7651916cd43dd8448eb211c80319c", "0AF7651916CD43DD8448EB211C80319C", "trace-1", ""}
	tr := newTraceOwners()
	for i, id := range ids {
		tr.link(id, i)
		tr.link(id, i) // the same request again keeps it
	}
	for i, id := range ids {
		if got, ok := tr.owner(id); !ok || got != i {
			t.Errorf("owner(%q) = %d, %v; want %d", id, got, ok, i)
		}
		tr.link(id, i+100)
		if got, ok := tr.owner(id); !ok || got != -1 {
			t.Errorf("after a second request, owner(%q) = %d, %v; want -1", id, got, ok)
		}
		tr.link(id, i)
		if got, _ := tr.owner(id); got != -1 {
			t.Errorf("a trace of several requests went back to one: %q", id)
		}
	}
	if len(tr.bytes) != 1 || len(tr.text) != 3 {
		t.Errorf("%d keyed by bytes, %d by text; want 1 and 3", len(tr.bytes), len(tr.text))
	}
	if _, ok := tr.owner("1af7651916cd43dd8448eb211c80319c"); ok {
		t.Error("an unlinked trace has an owner")
	}
}

// Keys past the packed bits are kept whole, and no two keys share a slot.
func TestProcTablePacksWhatFits(t *testing.T) {
	keys := []procKey{
		{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1},
		{1<<procRequestBits - 1, 1<<procHostBits - 1, 1<<procRoleBits - 1, 1<<procRIDBits - 1},
		{1 << procRequestBits, 0, 0, 0}, {0, 1 << procHostBits, 0, 0}, {0, 0, 1 << procRoleBits, 0}, {0, 0, 0, 1 << procRIDBits},
	}
	tab := newProcTable()
	for i, k := range keys {
		if _, fits := k.pack(); fits != (i < 6) {
			t.Errorf("%+v packs: %v", k, fits)
		}
		tab.put(k, procState{process: uint32(i)})
	}
	if len(tab.packed) != 6 || len(tab.wide) != 4 {
		t.Fatalf("%d packed, %d wide", len(tab.packed), len(tab.wide))
	}
	for i, k := range keys {
		if st, ok := tab.get(k); !ok || st.process != uint32(i) {
			t.Errorf("get(%+v) = %+v, %v", k, st, ok)
		}
	}
}

// Pairs noted once and linked together give every trace the owner that
// linking each span gives, whether kept as bytes or as text.
func TestLinksLinkAsEachSpanWould(t *testing.T) {
	const (
		lower = "abcdef01-2345-4678-89ab-cdef01234567"
		other = "00000000-0000-4000-8000-000000000001"
		upper = "ABCDEF01-2345-4678-89AB-CDEF01234567"
		hexA  = "0af7651916cd43dd8448eb211c80319c"
		hexB  = "1af7651916cd43dd8448eb211c80319c"
	)
	pairs := [][2]string{
		{hexA, lower}, {hexA, lower}, {"trace-text", upper}, {hexB, lower}, {hexB, other},
		{"TRACE-B", upper}, {"TRACE-B", other}, {hexA, ""}, {"0AF7651916CD43DD8448EB211C80319C", other},
	}
	stream := func() *Stream {
		in := Input{Bridges: NewBridges([]model.Bridge{
			{ClientID: "a", ServerID: lower}, {ClientID: "b", ServerID: other}, {ClientID: "c", ServerID: upper},
		})}
		st, err := NewStream([]model.ClientTiming{{ID: "a"}, {ID: "b"}, {ID: "c"}}, in)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	each, all := stream(), stream()
	links := NewLinks()
	for _, p := range pairs {
		each.LinkID(p[0], p[1])
		links.Note(p[0], p[1])
	}
	if links.Len() != 7 {
		t.Errorf("%d distinct pairs, want 7", links.Len())
	}
	all.LinkAll(links)
	for _, p := range pairs {
		wi, wok := each.j.traceOwner.owner(p[0])
		gi, gok := all.j.traceOwner.owner(p[0])
		if wi != gi || wok != gok {
			t.Errorf("trace %q: owner %d, %v; linked span by span %d, %v", p[0], gi, gok, wi, wok)
		}
	}
	if i, _ := all.j.traceOwner.owner(hexB); i != -1 {
		t.Errorf("a trace of two requests is owned by %d", i)
	}
}

// Bridges keep their ids as recorded, UUIDs as bytes and any other text
// as it is, with their lines and the window of their offset times.
func TestBridgesKeepTheirIDsAsRecorded(t *testing.T) {
	ns := func(v int64) *model.Timestamp { return &model.Timestamp{Raw: "t", UnixNS: &v} }
	in := []model.Bridge{
		{ClientID: "9f8cca66-9f7b-4d10-a909-72f26605f97a", ServerID: "e8ad4b05-6183-4bc1-a806-b9a7bde602bf", Ref: model.LineRef{Path: "a_frontend_0.out", Line: 3}, Time: ns(20)},
		{ClientID: "client-1", ServerID: "E8AD4B05-6183-4BC1-A806-B9A7BDE602BF", Ref: model.LineRef{Path: "b_frontend_1.out", Line: 9}, Time: ns(10)},
		{ClientID: "", ServerID: "req-7", Ref: model.LineRef{Path: "a_frontend_0.out", Line: 4}, Time: &model.Timestamp{Raw: "local"}},
	}
	b := NewBridges(in)
	if b.Len() != len(in) {
		t.Fatalf("%d bridges, want %d", b.Len(), len(in))
	}
	var buf bridgeIDs
	for k, want := range in {
		client, server := b.ids(k, &buf)
		if string(client) != want.ClientID || string(server) != want.ServerID || b.ref(k) != want.Ref {
			t.Errorf("bridge %d: %s, %s at %v; want %s, %s at %v", k, client, server, b.ref(k), want.ClientID, want.ServerID, want.Ref)
		}
	}
	if lo, hi, ok := b.Window(); !ok || lo != 10 || hi != 20 {
		t.Errorf("window %d..%d, %v; want 10..20", lo, hi, ok)
	}
	local := NewBridges(in[2:])
	if _, _, ok := local.Window(); ok {
		t.Error("a local time framed a window")
	}
}
