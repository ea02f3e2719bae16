package logmetric

import (
	"errors"
	"fmt"
	"strings"
)

// Temporal says how a recorded value relates to time.
type Temporal uint8

const (
	// TemporalSample is a recorded observation; nothing is assumed before or
	// after it.
	TemporalSample Temporal = iota + 1
	// TemporalEvent is a per-request or per-batch observation: distinct
	// source lines stay distinct points even when time and value match, and
	// simultaneous events never count as conflicting samples.
	TemporalEvent
	// TemporalSetting is a configuration held from its timestamp until the
	// next setting in the same scope. A null value invalidates it.
	TemporalSetting
)

func (t Temporal) String() string {
	switch t {
	case TemporalSample:
		return "sample"
	case TemporalEvent:
		return "event"
	case TemporalSetting:
		return "setting"
	}
	return fmt.Sprintf("Temporal(%d)", uint8(t))
}

// RoleSet restricts a definition to worker roles. The zero set means every
// role.
type RoleSet uint8

const (
	RolePrefill RoleSet = 1 << iota
	RoleDecode
	RoleAgg
)

// Allows reports whether a worker of the given canonical role ("prefill",
// "decode", "agg"; "aggregated" is accepted as agg) may contribute values of
// a definition restricted to s. A restricted definition never applies to a
// source whose role is unknown.
func (s RoleSet) Allows(role string) bool {
	if s == 0 {
		return true
	}
	var r RoleSet
	switch role {
	case "prefill":
		r = RolePrefill
	case "decode":
		r = RoleDecode
	case "agg", "aggregated":
		r = RoleAgg
	}
	return s&r != 0
}

// Taxonomy placement shared by every log-derived family.
const (
	ComponentWorkers = "Workers"
	GroupLogDerived  = "Log-derived metrics"
)

// Definition describes one generated metric family. Generators return copies,
// so a Definition held by a caller cannot change a generator's catalog.
type Definition struct {
	// Name follows log_<component>_<metric>, where component is the producer
	// of the consumed log (tokenspeed, sglang, …).
	Name        string
	Title       string
	Unit        string
	Temporal    Temporal
	Description string
	// Reference names another definition of the same generator and unit
	// (a capacity limit or pool), paired only within the exact same scope.
	Reference      string
	ReferenceLabel string // legend label of the reference; Title of the referenced definition when empty
	Component      string
	Group          string
	// Roles limits which worker roles may contribute values; zero = all.
	Roles RoleSet
}

// Errors returned by Catalog (and therefore by Read), for errors.Is.
var (
	ErrNameCollision     = errors.New("log metric name collision")
	ErrInvalidReference  = errors.New("invalid log metric reference")
	ErrInvalidDefinition = errors.New("invalid log metric definition")
)

// Catalog validates the definitions of every generator together and returns
// them in generator order. Names must be unique across generators (the
// importer must also check them against other metric families), and a
// reference must name another definition of the same generator with the same
// unit.
func Catalog(gens ...Generator) ([]Definition, error) {
	idx, err := index(gens)
	if err != nil {
		return nil, err
	}
	return idx.all, nil
}

type defEntry struct {
	def Definition
	gen int
}

type catalogIndex struct {
	all    []Definition
	byName map[string]defEntry
}

func index(gens []Generator) (*catalogIndex, error) {
	idx := &catalogIndex{byName: map[string]defEntry{}}
	genNames := map[string]bool{}
	perGen := make([][]Definition, len(gens))
	for gi, g := range gens {
		name := g.Name()
		if name == "" {
			return nil, fmt.Errorf("%w: generator %d has no name", ErrInvalidDefinition, gi)
		}
		if genNames[name] {
			return nil, fmt.Errorf("%w: generator %s registered twice", ErrNameCollision, name)
		}
		genNames[name] = true
		defs := g.Definitions()
		perGen[gi] = defs
		for _, d := range defs {
			if err := checkDefinition(d); err != nil {
				return nil, fmt.Errorf("generator %s: %w", name, err)
			}
			if prev, ok := idx.byName[d.Name]; ok {
				return nil, fmt.Errorf("%w: %s (generators %s and %s)", ErrNameCollision, d.Name, gens[prev.gen].Name(), name)
			}
			idx.byName[d.Name] = defEntry{def: d, gen: gi}
			idx.all = append(idx.all, d)
		}
	}
	for gi, defs := range perGen {
		for _, d := range defs {
			if d.Reference == "" {
				continue
			}
			ref, ok := idx.byName[d.Reference]
			switch {
			case d.Reference == d.Name:
				return nil, fmt.Errorf("%w: %s refers to itself", ErrInvalidReference, d.Name)
			case !ok || ref.gen != gi:
				return nil, fmt.Errorf("%w: %s refers to missing definition %s", ErrInvalidReference, d.Name, d.Reference)
			case ref.def.Unit != d.Unit:
				return nil, fmt.Errorf("%w: %s (unit %q) refers to %s (unit %q)", ErrInvalidReference, d.Name, d.Unit, ref.def.Name, ref.def.Unit)
			}
		}
	}
	return idx, nil
}

func checkDefinition(d Definition) error {
	switch {
	case !strings.HasPrefix(d.Name, "log_") || len(d.Name) <= len("log_"):
		return fmt.Errorf("%w: name %q lacks the log_<component>_<metric> form", ErrInvalidDefinition, d.Name)
	case d.Title == "" || d.Unit == "":
		return fmt.Errorf("%w: %s needs a title and a unit", ErrInvalidDefinition, d.Name)
	case d.Temporal < TemporalSample || d.Temporal > TemporalSetting:
		return fmt.Errorf("%w: %s has temporal %v", ErrInvalidDefinition, d.Name, d.Temporal)
	case d.Component == "" || d.Group == "":
		return fmt.Errorf("%w: %s needs a component and a group", ErrInvalidDefinition, d.Name)
	}
	return nil
}

// referenceLabel is the legend label of d's reference.
func (c *catalogIndex) referenceLabel(d Definition) string {
	if d.ReferenceLabel != "" {
		return d.ReferenceLabel
	}
	return c.byName[d.Reference].def.Title
}
