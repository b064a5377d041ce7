package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// Pod-level resources (spec.resources; KEP-2837, beta and on by default from Kubernetes 1.34:
// https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#pod-level-resource-specification)
// give a pod's CPU, memory and hugepages as one budget for all its containers. Where a pod
// sets one, the scheduler, ResourceQuota, the LimitRanger's Pod items and Kueue count it
// instead of what the containers add up to (component-helpers' PodRequests and PodLimits); the
// pod's overhead is added to it all the same.
//
// The API defaults a pod-level request the pod leaves out, where it sets a pod-level limit of
// that resource, to what its containers request as written (effectiveRequest), or to the limit
// when none of them requests it. It refuses a pod whose pod-level resources name another
// resource, whose pod-level request passes its pod-level limit, whose containers together
// request more than its pod-level request, or one of whose containers has a limit past the
// pod-level limit.

// podLevelResource reports whether k may be set at the pod level.
func podLevelResource(k string) bool {
	return k == "cpu" || k == "memory" || strings.HasPrefix(k, "hugepages-")
}

// hasPodLevel reports whether the pod sets a pod-level request or limit of a resource that may
// be set for the pod (component-helpers' IsPodLevelResourcesSet).
func (s *podSpec) hasPodLevel() bool {
	for _, m := range []map[string]yaml.Node{s.Resources.Requests, s.Resources.Limits} {
		for k := range m {
			if podLevelResource(k) {
				return true
			}
		}
	}
	return false
}

// podLevelRequest is the pod's pod-level request of k, when it sets one.
func (s *podSpec) podLevelRequest(k string) (float64, bool) {
	return podLevelQuantity(s.Resources.Requests, k)
}

// podLevelLimit is the pod's pod-level limit of k, when it sets one.
func (s *podSpec) podLevelLimit(k string) (float64, bool) {
	return podLevelQuantity(s.Resources.Limits, k)
}

func podLevelQuantity(m map[string]yaml.Node, k string) (float64, bool) {
	n, ok := m[k]
	if !ok || !podLevelResource(k) {
		return 0, false
	}
	q, err := computeQuantity(n.Value)
	return q, err == nil
}

// podRequest is what the pod requests of k, given what its containers request together
// (containers; set: whether any of them names k): its pod-level request where it sets one, and
// its overhead on top, as component-helpers' PodRequests counts it. ok says whether the
// containers, the pod-level resources or the overhead name k.
func (s *podSpec) podRequest(k string, containers float64, set bool) (q float64, ok bool) {
	if v, ok := s.podLevelRequest(k); ok {
		containers, set = v, true
	}
	if _, ok := s.Overhead[k]; ok {
		containers, set = containers+s.overheadOf(k), true
	}
	return containers, set
}

// podLimit is the pod's limit of k, given its containers' (containers; set: whether any of
// them sets one): its pod-level limit where it sets one, and its overhead on top of a limit
// that is set, as component-helpers' PodLimits counts it.
func (s *podSpec) podLimit(k string, containers float64, set bool) (q float64, ok bool) {
	if v, ok := s.podLevelLimit(k); ok {
		containers, set = v, true
	}
	if containers > 0 {
		containers += s.overheadOf(k)
	}
	return containers, set
}

// containersRequest is what the pod's containers request of k together (effectiveRequest; a
// limit is a request where none is set), and whether any of them sets it.
func (s *podSpec) containersRequest(k string) (float64, bool) {
	set := false
	q := effectiveRequest(*s, func(c *container) float64 {
		n, ok := c.Resources.Requests[k]
		if !ok {
			n, ok = c.Resources.Limits[k]
		}
		if !ok {
			return 0
		}
		set = true
		v, _ := computeQuantity(n.Value)
		return v
	})
	return q, set
}

// defaultPodLevel gives spec the pod-level requests the API defaults (see above). spec itself
// is not changed: the result holds a copy of its pod-level requests.
func defaultPodLevel(spec podSpec) podSpec {
	if len(spec.Resources.Limits) == 0 {
		return spec
	}
	requests := spec.Resources.Requests
	for _, k := range slices.Sorted(maps.Keys(spec.Resources.Limits)) {
		if _, ok := requests[k]; ok {
			continue
		}
		if _, ok := spec.podLevelLimit(k); !ok {
			continue // not a resource the pod may set, or not a quantity: podCompute says so
		}
		text := spec.Resources.Limits[k].Value
		if q, set := spec.containersRequest(k); set {
			text = strconv.FormatFloat(q, 'f', -1, 64)
		}
		requests = withQuantity(requests, k, text)
	}
	spec.Resources.Requests = requests
	return spec
}

// podLevelOutcome says what the pod-level resources of spec (its LimitRanges' defaults given)
// decide, for a note, and why the API server refuses its pods ("" when it does not).
func podLevelOutcome(spec podSpec) (note, refused string) {
	if len(spec.Resources.Requests) == 0 && len(spec.Resources.Limits) == 0 {
		return "", ""
	}
	var why, set []string
	for _, m := range []map[string]yaml.Node{spec.Resources.Requests, spec.Resources.Limits} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !podLevelResource(k) {
				why = append(why, fmt.Sprintf("its pod-level resources name %s, but only cpu, memory and hugepages may be set for the pod", k))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Resources.Requests)) {
		req, ok := spec.podLevelRequest(k)
		if !ok {
			continue
		}
		set = append(set, fmt.Sprintf("%s %s", k, amountOf(req, k)))
		if lim, ok := spec.podLevelLimit(k); ok && req > lim+1e-9 {
			why = append(why, fmt.Sprintf("its pod-level %s request of %s passes its pod-level limit of %s", k, amountOf(req, k), amountOf(lim, k)))
		}
		if sum, ok := spec.containersRequest(k); ok && sum > req+1e-9 {
			why = append(why, fmt.Sprintf("its containers request %s %s together, more than its pod-level request of %s", amountOf(sum, k), k, amountOf(req, k)))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Resources.Limits)) {
		lim, ok := spec.podLevelLimit(k)
		if !ok {
			continue
		}
		for _, cs := range [][]container{spec.Containers, spec.InitContainers} {
			for i := range cs {
				if n, ok := cs[i].Resources.Limits[k]; ok {
					if q, err := computeQuantity(n.Value); err == nil && q > lim+1e-9 {
						why = append(why, fmt.Sprintf("container %q's %s limit of %s passes its pod-level limit of %s", cs[i].Name, k, amountOf(q, k), amountOf(lim, k)))
					}
				}
			}
		}
	}
	if len(set) > 0 {
		note = fmt.Sprintf("pod-level resources (spec.resources, Kubernetes 1.34 and later) set each pod's request to %s: counted instead of what its containers request", strings.Join(set, ", "))
	}
	return note, strings.Join(why, "; ")
}

// reportPodLevel says on r what its pods' pod-level resources decide, and warns when the API
// server refuses them.
func reportPodLevel(spec podSpec, r *parser.Resource, warns *[]parser.Error) {
	note, refused := podLevelOutcome(spec)
	if note != "" {
		r.Note("%s", note)
	}
	if refused != "" {
		*warns = append(*warns, parser.Error{File: r.Source.File, Line: r.Source.Line,
			Message: fmt.Sprintf("%s: the API server refuses its pods, so none of them run: %s (priced as declared)", r.Address, refused)})
	}
}
