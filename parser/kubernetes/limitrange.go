package kubernetes

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// LimitRanges (v1): the LimitRanger admission plugin gives a namespace's containers the
// defaults of its LimitRanges for the requests and limits they leave out, then refuses a pod
// whose containers, or whose sum, pass a LimitRange's minimum or maximum
// (https://kubernetes.io/docs/concepts/policy/limit-range/, read 2026-11).
//
// The API fills in a Container item's defaults when the LimitRange is stored
// (SetDefaults_LimitRangeItem, k8s.io/kubernetes pkg/apis/core/v1/defaults.go): a default limit
// it does not set is its max, and a default request it does not set is its default limit, else
// its min. So a LimitRange that allows at most 1 nvidia.com/gpu per container, and sets no
// default, gives 1 GPU to every container that names none: a pod's sidecars too, and the pods of
// workloads that ask for no GPU at all.
//
// A container's request is what it requests, else its limit (the API defaults a missing request
// to the limit before admission), else the LimitRange's default request; that is what nodes,
// quotas and NodePool limits count. gpuguard reads the items on CPU, memory and GPU extended
// resources, with their maxLimitRequestRatio; those on storage and hugepages, and
// PersistentVolumeClaim items, are not read. A LimitRange applies to the workloads of its namespace in its own build (a
// kustomization's; the manifests read as they stand share one), as a ResourceQuota does; where a
// namespace has several, the first read sets a default, as the plugin applies them in turn.

// limitRange is the items of a LimitRange gpuguard reads.
type limitRange struct {
	address string
	key     string // root|namespace
	items   []limitItem
}

// limitItem is one item of a LimitRange's limits: of type Pod, else Container.
type limitItem struct {
	pod bool
	// max and min bound each container's (a Pod item's: the pod's) limit and request; limit and
	// request are a Container item's default limit and default request, after the API's
	// defaulting.
	max, min, limit, request map[string]poolLimit
	// ratio is the most a container's (a pod's) limit may be, in times its request
	// (maxLimitRequestRatio).
	ratio map[string]poolLimit
	// fromMax are the default limits the API took from max, the item setting none.
	fromMax map[string]bool
}

// limitRangeResource says whether gpuguard reads a LimitRange's item on the resource: CPU,
// memory and the GPU extended resources.
func limitRangeResource(name string) bool {
	return name == "cpu" || name == "memory" || IsGPUResource(name)
}

// decodeLimitRange reads a v1 LimitRange's items on CPU, memory and GPUs; ok is false for one
// with none. A LimitRange the API server would refuse is an error at its line.
func decodeLimitRange(o *object) (lr limitRange, ok bool, err error) {
	var spec struct {
		Limits yaml.Node `yaml:"limits"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return lr, false, err
	}
	if l := &spec.Limits; l.Kind != 0 && l.Tag != "!!null" && l.Kind != yaml.SequenceNode {
		return lr, false, lineError{line: o.lineOf(l), err: fmt.Errorf("spec.limits must be a list of items")}
	}
	lr.address, lr.key = o.address(), o.root+"|"+o.namespace()
	for i, n := range spec.Limits.Content {
		var raw struct {
			Type           string    `yaml:"type"`
			Max            yaml.Node `yaml:"max"`
			Min            yaml.Node `yaml:"min"`
			Default        yaml.Node `yaml:"default"`
			DefaultRequest yaml.Node `yaml:"defaultRequest"`
			Ratio          yaml.Node `yaml:"maxLimitRequestRatio"`
		}
		if err := n.Decode(&raw); err != nil {
			return lr, false, lineError{line: o.lineOf(n), err: err}
		}
		at := func(err error) error { return lineError{line: o.lineOf(n), err: err} }
		switch raw.Type {
		case "Container", "Pod":
		case "PersistentVolumeClaim":
			continue
		default:
			return lr, false, at(fmt.Errorf("limits[%d]: type %q is not Container, Pod or PersistentVolumeClaim: the API server refuses the LimitRange", i, raw.Type))
		}
		it := limitItem{pod: raw.Type == "Pod"}
		for _, f := range []struct {
			node  *yaml.Node
			field string
			into  *map[string]poolLimit
		}{{&raw.Max, "max", &it.max}, {&raw.Min, "min", &it.min}, {&raw.Default, "default", &it.limit}, {&raw.DefaultRequest, "defaultRequest", &it.request}, {&raw.Ratio, "maxLimitRequestRatio", &it.ratio}} {
			qs, err := decodeQuantities(o, f.node, fmt.Sprintf("limits[%d].%s", i, f.field))
			if err != nil {
				return lr, false, err
			}
			for _, q := range qs {
				if !limitRangeResource(q.resource) {
					continue
				}
				if IsGPUResource(q.resource) && q.amount != math.Trunc(q.amount) {
					return lr, false, lineError{line: o.lineOf(f.node), err: fmt.Errorf("limits[%d].%s: %s: %s is not a whole number of devices", i, f.field, q.resource, q.text)}
				}
				if *f.into == nil {
					*f.into = map[string]poolLimit{}
				}
				(*f.into)[q.resource] = q
			}
		}
		if it.pod && (len(it.limit) > 0 || len(it.request) > 0) {
			return lr, false, at(fmt.Errorf("limits[%d]: default and defaultRequest apply only to type Container: the API server refuses the LimitRange", i))
		}
		if err := it.setDefaults(); err != nil {
			return lr, false, at(fmt.Errorf("limits[%d]: %w: the API server refuses the LimitRange", i, err))
		}
		for _, k := range slices.Sorted(maps.Keys(it.ratio)) {
			if it.ratio[k].amount < 1 {
				return lr, false, at(fmt.Errorf("limits[%d].maxLimitRequestRatio: %s: %s is under 1: the API server refuses the LimitRange", i, k, it.ratio[k].text))
			}
		}
		if len(it.max)+len(it.min)+len(it.limit)+len(it.request)+len(it.ratio) > 0 {
			lr.items = append(lr.items, it)
		}
	}
	return lr, len(lr.items) > 0, nil
}

// setDefaults fills in a Container item's defaults as the API does (SetDefaults_LimitRangeItem),
// then checks them as its validation does (ValidateLimitRange): min ≤ default request ≤
// default limit ≤ max, and a GPU's default request equal to its default limit (an extended
// resource's request is its limit).
func (it *limitItem) setDefaults() error {
	if !it.pod {
		fill := func(into *map[string]poolLimit, from map[string]poolLimit) {
			for k, v := range from {
				if _, ok := (*into)[k]; !ok {
					if *into == nil {
						*into = map[string]poolLimit{}
					}
					(*into)[k] = v
				}
			}
		}
		for k := range it.max {
			if _, ok := it.limit[k]; !ok {
				if it.fromMax == nil {
					it.fromMax = map[string]bool{}
				}
				it.fromMax[k] = true
			}
		}
		fill(&it.limit, it.max)
		fill(&it.request, it.limit)
		fill(&it.request, it.min)
	}
	order := func(lo, hi map[string]poolLimit, loName, hiName string) error {
		for _, k := range slices.Sorted(maps.Keys(lo)) {
			if h, ok := hi[k]; ok && lo[k].amount > h.amount+1e-12 {
				return fmt.Errorf("%s: %s %s is more than %s %s", k, loName, lo[k].text, hiName, h.text)
			}
		}
		return nil
	}
	for _, c := range []struct {
		lo, hi         map[string]poolLimit
		loName, hiName string
	}{
		{it.min, it.max, "min", "max"},
		{it.min, it.request, "min", "defaultRequest"},
		{it.request, it.limit, "defaultRequest", "default"},
		{it.limit, it.max, "default", "max"},
	} {
		if err := order(c.lo, c.hi, c.loName, c.hiName); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(it.request)) {
		if l, ok := it.limit[k]; ok && IsGPUResource(k) && l.amount != it.request[k].amount {
			return fmt.Errorf("%s: defaultRequest %s is not default %s, as an extended resource's must be", k, it.request[k].text, l.text)
		}
	}
	return nil
}

// limitRanges is the LimitRanges read, by build and namespace (root|namespace), in the order
// read.
type limitRanges map[string][]limitRange

// limitRangeOutcome is what a namespace's LimitRanges do to one pod template: the spec with
// their defaults, what they filled in and gave GPUs to, and why they refuse its pods.
type limitRangeOutcome struct {
	spec podSpec
	// filled says what each LimitRange filled in, for a note: "LimitRange/ml/lr fills in what
	// its containers leave out: ...".
	filled []string
	// gave says which containers each LimitRange gave GPUs they do not ask for.
	gave []gpusGiven
	// refused says, for each LimitRange that refuses the pods, why.
	refused []string
}

// gpusGiven is the GPUs a LimitRange gave containers that do not ask for them.
type gpusGiven struct {
	by         string   // the LimitRange's address
	containers []string // `container "logs" 1 nvidia.com/gpu`
	fromMax    bool     // the default limit was its max
}

// apply gives spec's containers the defaults of the LimitRanges of key (root|namespace), and
// checks the pods against their minimums and maximums. spec itself is not changed: the
// outcome's spec is a copy.
func (l limitRanges) apply(key string, spec podSpec) limitRangeOutcome {
	out := limitRangeOutcome{spec: spec}
	ranges := l[key]
	if len(ranges) == 0 {
		return out
	}
	// The containers are copied, and each default sets a copy of their requests or limits:
	// the template's own stay as written, which says what a container set itself.
	own := spec
	spec.Containers, spec.InitContainers = slices.Clone(spec.Containers), slices.Clone(spec.InitContainers)
	all := func(f func(c, own *container)) { withOwn(spec, own, f) }
	for _, lr := range ranges {
		var requests, limits []string // "cpu: 2 (main, sidecar)"
		gave := gpusGiven{by: lr.address}
		// Only a Container item has defaults. Where several set one, the last wins: the
		// LimitRanger gathers a LimitRange's defaults into one list, item by item.
		for _, it := range slices.Backward(lr.items) {
			for _, k := range slices.Sorted(maps.Keys(it.limit)) {
				var names []string
				all(func(c, own *container) {
					if _, ok := c.Resources.Limits[k]; ok {
						return
					}
					c.Resources.Limits = withQuantity(c.Resources.Limits, k, it.limit[k].text)
					names = append(names, c.Name)
					if IsGPUResource(k) && it.limit[k].amount > 0 {
						if _, asked := own.Resources.Requests[k]; !asked {
							gave.containers = append(gave.containers, fmt.Sprintf("container %q %s %s", c.Name, it.limit[k].text, k))
							gave.fromMax = gave.fromMax || it.fromMax[k]
						}
					}
				})
				if len(names) > 0 {
					limits = append(limits, fmt.Sprintf("%s: %s (%s)", k, it.limit[k].text, strings.Join(names, ", ")))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(it.request)) {
				var names []string
				all(func(c, own *container) {
					if _, ok := c.Resources.Requests[k]; ok {
						return
					}
					if _, ok := own.Resources.Limits[k]; ok {
						return // the API defaulted the request to the container's own limit
					}
					c.Resources.Requests = withQuantity(c.Resources.Requests, k, it.request[k].text)
					names = append(names, c.Name)
				})
				if len(names) > 0 {
					requests = append(requests, fmt.Sprintf("%s: %s (%s)", k, it.request[k].text, strings.Join(names, ", ")))
				}
			}
		}
		parts := labelled(labelled(nil, "requests ", requests, "; "), "limits ", limits, "; ")
		if len(parts) > 0 {
			out.filled = append(out.filled, fmt.Sprintf("%s fills in what its containers leave out: %s", lr.address, strings.Join(parts, "; ")))
		}
		if len(gave.containers) > 0 {
			out.gave = append(out.gave, gave)
		}
	}
	for _, lr := range ranges {
		if why := lr.refuses(spec, own); why != "" {
			out.refused = append(out.refused, fmt.Sprintf("%s refuses them: %s", lr.address, why))
		}
	}
	out.spec = spec
	return out
}

// labelled appends to parts prefix and items joined by sep, where there are items.
func labelled(parts []string, prefix string, items []string, sep string) []string {
	if len(items) == 0 {
		return parts
	}
	return append(parts, prefix+strings.Join(items, sep))
}

// withOwn calls f with each container of spec, app containers then init containers, and the
// same container of own: the template as written, of which spec is a copy with defaults.
func withOwn(spec, own podSpec, f func(c, own *container)) {
	for l, cs := range [][]container{spec.Containers, spec.InitContainers} {
		owns := [][]container{own.Containers, own.InitContainers}[l]
		for i := range cs {
			f(&cs[i], &owns[i])
		}
	}
}

// withQuantity is m (copied) with name set to the quantity text, as a node without a line: a
// value the LimitRange gave, not one written in the container.
func withQuantity(m map[string]yaml.Node, name, text string) map[string]yaml.Node {
	out := make(map[string]yaml.Node, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[name] = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text}
	return out
}

// refuses says why the LimitRanger refuses pods of spec (its defaults given; own, as written):
// a container's limit past a Container item's max, its request under its min, or its limit past
// its maxLimitRequestRatio; a pod's past a Pod item's; or a container whose default limit is
// under its own request. "" when it admits them.
func (lr limitRange) refuses(spec, own podSpec) string {
	var why []string
	read := func(m map[string]yaml.Node, k string) (float64, bool) {
		n, ok := m[k]
		if !ok {
			return 0, false
		}
		q, err := computeQuantity(n.Value)
		return q, err == nil
	}
	request := func(c *container, k string) (float64, bool) {
		if q, ok := read(c.Resources.Requests, k); ok {
			return q, true
		}
		return read(c.Resources.Limits, k)
	}
	for _, it := range lr.items {
		if it.pod {
			for _, k := range slices.Sorted(maps.Keys(it.max)) {
				limited := false
				lim := effectiveRequest(spec, func(c *container) float64 {
					q, ok := read(c.Resources.Limits, k)
					limited = limited || ok
					return q
				})
				lim, limited = spec.podLimit(k, lim, limited)
				switch {
				case !limited:
					why = append(why, fmt.Sprintf("its pods set no %s limit, which a pod must under a max of %s", k, it.max[k].text))
				case lim > it.max[k].amount+1e-9:
					why = append(why, fmt.Sprintf("a pod's %s limit of %s passes the max of %s a pod", k, amountOf(lim, k), it.max[k].text))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(it.min)) {
				requested := false
				req := effectiveRequest(spec, func(c *container) float64 {
					q, ok := request(c, k)
					requested = requested || ok
					return q
				})
				req, requested = spec.podRequest(k, req, requested)
				switch {
				case !requested:
					why = append(why, fmt.Sprintf("its pods request no %s, which a pod must under a min of %s", k, it.min[k].text))
				case req < it.min[k].amount-1e-9:
					why = append(why, fmt.Sprintf("a pod's %s request of %s is under the min of %s a pod", k, amountOf(req, k), it.min[k].text))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(it.ratio)) {
				req := effectiveRequest(spec, func(c *container) float64 { q, _ := request(c, k); return q })
				lim := effectiveRequest(spec, func(c *container) float64 { q, _ := read(c.Resources.Limits, k); return q })
				req, _ = spec.podRequest(k, req, true)
				lim, _ = spec.podLimit(k, lim, true)
				if why1 := ratioPast(k, req, lim, it.ratio[k], "a pod's"); why1 != "" {
					why = append(why, why1)
				}
			}
			continue
		}
		withOwn(spec, own, func(c, owned *container) {
			for _, k := range slices.Sorted(maps.Keys(it.max)) {
				if lim, ok := read(c.Resources.Limits, k); ok && lim > it.max[k].amount+1e-9 {
					why = append(why, fmt.Sprintf("container %q's %s limit of %s passes the max of %s a container", c.Name, k, amountOf(lim, k), it.max[k].text))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(it.min)) {
				if req, ok := request(c, k); ok && req < it.min[k].amount-1e-9 {
					why = append(why, fmt.Sprintf("container %q's %s request of %s is under the min of %s a container", c.Name, k, amountOf(req, k), it.min[k].text))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(it.ratio)) {
				req, _ := request(c, k)
				lim, _ := read(c.Resources.Limits, k)
				if why1 := ratioPast(k, req, lim, it.ratio[k], fmt.Sprintf("container %q's", c.Name)); why1 != "" {
					why = append(why, why1)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(it.limit)) {
				req, rok := read(owned.Resources.Requests, k)
				_, set := owned.Resources.Limits[k]
				if lim, _ := read(c.Resources.Limits, k); rok && !set && req > lim+1e-9 {
					why = append(why, fmt.Sprintf("container %q requests %s %s, more than the default limit of %s it is given", c.Name, amountOf(req, k), k, it.limit[k].text))
				}
			}
		})
	}
	return strings.Join(slices.Compact(why), "; ")
}

// ratioPast says why a limit (lim) and request (req) of k, of whose ("container \"main\"'s", "a
// pod's"), pass a maxLimitRequestRatio, as the LimitRanger's limitRequestRatioConstraint
// checks it: both must be set and not 0, and the limit at most ratio times the request. ""
// when they do not.
func ratioPast(k string, req, lim float64, ratio poolLimit, whose string) string {
	switch {
	case req == 0:
		return fmt.Sprintf("%s %s request is not set (or 0), which a max limit-to-request ratio of %s needs", whose, k, ratio.text)
	case lim == 0:
		return fmt.Sprintf("%s %s limit is not set (or 0), which a max limit-to-request ratio of %s needs", whose, k, ratio.text)
	case lim/req > ratio.amount+1e-9:
		return fmt.Sprintf("%s %s limit is %s times its request, past the max ratio of %s", whose, k, amountOf(lim/req, ""), ratio.text)
	}
	return ""
}

// report says on r what the LimitRanges did to its pods: notes for the defaults, warnings
// for GPUs given to containers that ask for none and for pods refused (priced as declared).
func (out limitRangeOutcome) report(r *parser.Resource, warns *[]parser.Error) {
	for _, f := range out.filled {
		r.Note("%s", f)
	}
	for _, g := range out.gave {
		they, limit := "it does", "its default limit"
		if len(g.containers) > 1 {
			they = "they do"
		}
		if g.fromMax {
			limit = "its max, the default limit when it sets none"
		}
		*warns = append(*warns, parser.Error{File: r.Source.File, Line: r.Source.Line,
			Message: fmt.Sprintf("%s: %s gives %s that %s not ask for (%s): each pod requests %d %s, and is priced so",
				r.Address, g.by, strings.Join(g.containers, ", "), they, limit, r.Pod.Requested, r.Pod.Resource)})
	}
	for _, why := range out.refused {
		*warns = append(*warns, parser.Error{File: r.Source.File, Line: r.Source.Line,
			Message: fmt.Sprintf("%s: the API server refuses its pods, so none of them run: %s (priced as declared)", r.Address, why)})
	}
}
