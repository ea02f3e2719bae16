package lifecycle

import (
	"strconv"

	"github.com/dsight/dsight/internal/model"
)

// Stages is Derive's stages of r in sc's buffers, valid until sc's next
// use, without their descriptions (the same words on every stage): the
// SQL store writes the stages of every request of a run, a million and
// more for a large traced run, and deriving each request's whole
// lifecycle into fresh slices was most of what the store allocated. A
// request without supported activity has none, as Derive's has none.
func (sc *Scratch) Stages(r *model.RequestEvidence) []Stage {
	acts, milestones, _ := sc.derive(r)
	if len(acts) == 0 {
		return nil
	}
	c := &r.Client
	sc.stages = appendStages(sc.stages[:0], clientMilestone(c, c.StartNS, LabelClientStart, "request_start_ns"), milestones, false)
	return sc.stages
}

// progressIDs are the first stages' ids, so most stages take one without
// building it.
var progressIDs = func() (ids [16]string) {
	for i := range ids {
		ids[i] = "progress:" + strconv.Itoa(i)
	}
	return ids
}()

// progressID is the id of a request's i-th stage.
func progressID(i int) string {
	if i < len(progressIDs) {
		return progressIDs[i]
	}
	return "progress:" + strconv.Itoa(i)
}
