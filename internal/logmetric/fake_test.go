package logmetric

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
)

// fakeGen decodes a tiny line grammar so the reader can be tested without an
// engine adapter:
//
//	[YYYY-MM-DD HH:MM:SS(.fff)(@offset)] RANK PROCESS LABELS VALUES
//
// RANK is "-" or kind:index, PROCESS "-" or a word, LABELS "-" or k=v,k=v and
// VALUES name=number|null,... Lines not starting with '[' are ignored.
type fakeGen struct {
	name string
	defs []Definition
}

const (
	fakeActive = "log_test_active_requests"
	fakeLimit  = "log_test_request_limit"
	fakePages  = "log_test_active_pages"
	fakePool   = "log_test_pool_pages"
	fakeEvent  = "log_test_request_tokens"
)

func testDefs() []Definition {
	base := Definition{Component: ComponentWorkers, Group: GroupLogDerived, Temporal: TemporalSample}
	d := func(name, title, unit string, t Temporal, ref string, roles RoleSet) Definition {
		x := base
		x.Name, x.Title, x.Unit, x.Temporal, x.Reference, x.Roles = name, title, unit, t, ref, roles
		return x
	}
	active := d(fakeActive, "Active decode batch", "requests", TemporalSample, fakeLimit, 0)
	active.ReferenceLabel = "Logged batch limit"
	return []Definition{
		active,
		d(fakeLimit, "Logged decode batch limit", "requests", TemporalSetting, "", RoleDecode|RoleAgg),
		d(fakePages, "Active KV pages", "pages", TemporalSample, fakePool, 0),
		d(fakePool, "KV page pool size", "pages", TemporalSample, "", 0),
		d(fakeEvent, "Request tokens", "tokens", TemporalEvent, "", 0),
	}
}

func newFake() *fakeGen { return &fakeGen{name: "test", defs: testDefs()} }

func (g *fakeGen) Name() string              { return g.name }
func (g *fakeGen) Definitions() []Definition { return append([]Definition(nil), g.defs...) }

func (g *fakeGen) Decode(line []byte) (Observation, bool, error) {
	if !bytes.HasPrefix(line, []byte("[")) {
		return Observation{}, false, nil
	}
	end := bytes.IndexByte(line, ']')
	if end < 0 {
		return Observation{}, false, nil
	}
	stampText, offset, zoned := strings.Cut(string(line[1:end]), "@")
	stamp, n := ParseStamp([]byte(stampText), '.')
	if n == 0 || n != len(stampText) {
		return Observation{}, false, nil
	}
	if zoned {
		secs, err := strconv.Atoi(offset)
		if err != nil {
			return Observation{}, false, nil
		}
		stamp.Zoned, stamp.OffsetSeconds = true, secs
	}
	if err := stamp.Validate(); err != nil {
		return Observation{}, false, err
	}
	f := strings.Fields(string(line[end+1:]))
	if len(f) != 4 {
		return Observation{}, false, errors.New("fake: want 4 fields")
	}
	obs := Observation{Time: stamp}
	if f[0] != "-" {
		kind, idx, _ := strings.Cut(f[0], ":")
		i, err := strconv.Atoi(idx)
		if err != nil {
			return Observation{}, false, err
		}
		obs.Rank = Rank{Kind: kind, Index: i}
	}
	if f[1] != "-" {
		obs.Process = f[1]
	}
	if f[2] != "-" {
		for _, kv := range strings.Split(f[2], ",") {
			k, v, _ := strings.Cut(kv, "=")
			obs.Labels = append(obs.Labels, Label{Key: k, Value: v})
		}
	}
	for _, kv := range strings.Split(f[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		val := Value{Name: k}
		switch v {
		case "null":
			val.Null = true
		case "nan":
			val.Number = math.NaN()
		case "inf":
			val.Number = math.Inf(1)
		default:
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return Observation{}, false, err
			}
			val.Number = x
		}
		obs.Values = append(obs.Values, val)
	}
	return obs, true, nil
}
