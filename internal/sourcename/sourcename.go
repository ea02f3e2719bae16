package sourcename

import (
	"regexp"
	"strconv"
	"sync"

	"github.com/dsight/dsight/internal/model"
)

// Identity is what a filename records about its capture.
type Identity struct {
	// Worker is "<role>-<index>" for workers and "frontend" for frontends;
	// a frontend is never a worker.
	Worker string
	Host   string
	Role   string // canonical: prefill, decode, agg or frontend
	// Index is the worker (or frontend) index written after "_w" (or
	// "_frontend_").
	Index int
	// Engine is the failover shadow engine k of an "_e<k>" suffix.
	Engine *int
	// Rank is the distributed rank of a "_profile_rank<r>" suffix.
	Rank *int
	// GPUs is the device set of a "_profile_gpu<devices>" suffix, as
	// written ("0-1").
	GPUs *string
	// Window is the digits of a "_window<n>" suffix, as written ("001").
	Window *string
	Ext    string // "out" or "sqlite"
}

// IsFrontend reports whether the name is a frontend capture.
func (id Identity) IsFrontend() bool { return id.Role == model.RoleFrontend }

// The patterns compile on first use: every dsight command links this
// package, and only a build reads names.
var (
	workerName   = lazyRegexp(`^(?P<host>.+)_(?P<role>prefill|decode|agg|aggregated)_w(?P<index>\d+)(?:_e(?P<engine>\d+))?(?:_profile_(?:rank(?P<rank>\d+)|gpu(?P<gpus>[\d-]+)))?(?:_window(?P<window>\d+))?\.(?P<ext>out|sqlite)$`)
	frontendName = lazyRegexp(`^(?P<host>.+)_frontend_(?P<index>\d+)(?:_window(?P<window>\d+))?\.(?P<ext>out|sqlite)$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Parse reads the identity recorded in a base name (no directory). It
// reports false for names outside the grammar, and for numbers too large to
// be an index, engine or rank.
func Parse(base string) (Identity, bool) {
	if m := workerName().FindStringSubmatch(base); m != nil {
		return worker(m)
	}
	if m := frontendName().FindStringSubmatch(base); m != nil {
		return frontend(m)
	}
	return Identity{}, false
}

func worker(m []string) (Identity, bool) {
	group := func(name string) string { return m[workerName().SubexpIndex(name)] }
	index, err := strconv.Atoi(group("index"))
	if err != nil {
		return Identity{}, false
	}
	id := Identity{
		Host:  group("host"),
		Role:  model.CanonicalRole(group("role")),
		Index: index,
		Ext:   group("ext"),
	}
	id.Worker = id.Role + "-" + strconv.Itoa(index)
	var ok bool
	if id.Engine, ok = optionalInt(group("engine")); !ok {
		return Identity{}, false
	}
	if id.Rank, ok = optionalInt(group("rank")); !ok {
		return Identity{}, false
	}
	id.GPUs = optionalString(group("gpus"))
	id.Window = optionalString(group("window"))
	return id, true
}

func frontend(m []string) (Identity, bool) {
	group := func(name string) string { return m[frontendName().SubexpIndex(name)] }
	index, err := strconv.Atoi(group("index"))
	if err != nil {
		return Identity{}, false
	}
	return Identity{
		Worker: model.RoleFrontend,
		Host:   group("host"),
		Role:   model.RoleFrontend,
		Index:  index,
		Window: optionalString(group("window")),
		Ext:    group("ext"),
	}, true
}

func optionalInt(s string) (*int, bool) {
	if s == "" {
		return nil, true
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, false
	}
	return &n, true
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
