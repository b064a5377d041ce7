package estimator

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// FloorsPastLimits warns of each shared limit (parser.SharedLimit) that the floors of the
// resources within it pass together, when some of them are pods that wait for the nodes an
// autoscaler creates within the limit (a Karpenter NodePool's, a GKE cluster's node
// auto-provisioning): the autoscaler creates no node past the limit, so some of those pods stay
// pending, though each alone would fit. Node groups and pools within the limit (a GKE cluster's
// own pools) keep their nodes, so their floors come off what the pods may use first.
//
// A pod whose floor alone passes the limit is warned of where it is read (the parser), and the
// limit is left to that warning; so is a limit enforced when pods are created (a ResourceQuota:
// parser.SharedLimit.Admission), which the parser checks whole. The warning is at the first pod's line; the cost stays as
// declared, as there.
func FloorsPastLimits(es []Estimate) []parser.Error {
	type limit struct {
		l           *parser.SharedLimit
		pods, fixed []*Estimate
		units       []float64 // each pod's
		podUnits    float64
		fixedUnits  float64
		alonePast   bool
		claims      map[string]bool // the shared claims counted
	}
	byKey := map[string]*limit{}
	var order []string
	for i := range es {
		e := &es[i]
		k, ok := limitGroup(e)
		if !ok || e.NodeGroup != "" || e.Quantity <= 0 || e.SharedLimit.Admission {
			continue // a pod on a node group takes its group's nodes, counted with the group
		}
		g := byKey[k]
		if g == nil {
			g = &limit{l: e.SharedLimit, claims: map[string]bool{}}
			byKey[k] = g
			order = append(order, k)
		}
		units := limitUnits(e, g.claims)
		if e.Pod != nil {
			g.pods, g.units, g.podUnits = append(g.pods, e), append(g.units, units), g.podUnits+units
			g.alonePast = g.alonePast || units > g.l.Limit
		} else {
			g.fixed, g.fixedUnits = append(g.fixed, e), g.fixedUnits+units
		}
	}
	var warns []parser.Error
	for _, k := range order {
		g := byKey[k]
		if len(g.pods) == 0 || g.alonePast || g.podUnits+g.fixedUnits <= g.l.Limit {
			continue
		}
		need, them := "need %s at their floors together%s", "them"
		if len(g.pods) == 1 {
			need, them = "needs %s at its floor%s", "it"
		}
		room := fmt.Sprintf("%s's %s holds %s", g.l.Owner, g.l.What, trimNum(g.l.Limit))
		if len(g.fixed) > 0 {
			room = fmt.Sprintf("%s's %s leaves %s %s after the floor%s of %s (%s)", g.l.Owner, g.l.What, them,
				trimNum(max(0, g.l.Limit-g.fixedUnits)), plural(len(g.fixed)), floorList(g.fixed), trimNum(g.fixedUnits))
		}
		first := g.pods[0]
		warns = append(warns, parser.Error{File: first.Source.File, Line: first.Source.Line,
			Message: fmt.Sprintf("%s "+need+", but %s: no node is created past the limit, so some of the pods stay pending (priced as declared)",
				floorList(g.pods), trimNum(g.podUnits), unitsList(g.units), room)})
	}
	return warns
}

// limitUnits is what the floor of a resource within a shared limit takes of it: its instances'
// share, but a shared DRA claim's devices once for all the pods that name it, when the limit
// counts the pods' devices (counted holds the claims already counted, parser.PodGPUs.LimitGPUs).
func limitUnits(e *Estimate, counted map[string]bool) float64 {
	if !countsClaims(e) {
		return float64(e.Quantity) * e.SharedLimit.PerInstance
	}
	return float64(e.Pod.LimitGPUs(e.Quantity, counted, func(claim string) string { return e.Root + "|" + claim }))
}

// growthPerPod is what each pod an autoscaler adds to a resource takes of its shared limit: its
// share, but only its own devices when the limit counts the pods' devices and some come from
// shared claims, which the added pods share and do not add to.
func growthPerPod(e *Estimate) float64 {
	if !countsClaims(e) {
		return e.SharedLimit.PerInstance
	}
	return float64(max(e.Pod.Requested-e.Pod.SharedClaimGPUs(), 0))
}

// countsClaims reports whether the resource's pods name shared claims and its limit counts
// their devices (a NodePool's limit on them: each pod's share is its request), so that a
// claim's devices take the limit once, not once a pod.
func countsClaims(e *Estimate) bool {
	return e.Pod != nil && len(e.Pod.SharedClaims) > 0 && e.SharedLimit.PerInstance == float64(e.Pod.Requested)
}

// limitGroup is limitKey for every resource within a limit, priced or not: an unpriced one
// takes its share of the limit all the same.
func limitGroup(e *Estimate) (string, bool) {
	l := e.SharedLimit
	if l == nil || l.PerInstance <= 0 {
		return "", false
	}
	root := e.Root
	if l.Root != "" {
		root = l.Root
	}
	return root + "|" + l.Owner + "|" + l.Unit, true
}

// floorList names the resources for a message (parser.Names).
func floorList(es []*Estimate) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Address
	}
	return parser.Names(names)
}

// unitsList is what each named resource's floor takes of the limit, in order (" (3 + 3)"), and
// nothing when there are more than floorList names.
func unitsList(units []float64) string {
	if len(units) < 2 || len(units) > parser.NamesShown {
		return ""
	}
	parts := make([]string, 0, len(units))
	for _, u := range units {
		parts = append(parts, trimNum(u))
	}
	return " (" + strings.Join(parts, " + ") + ")"
}
