package kubernetes

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"go.yaml.in/yaml/v3"
)

// ResourceQuotas: a namespace's quota on a GPU extended resource (hard:
// requests.nvidia.com/gpu) is enforced when pods are created. The API server refuses a pod whose
// request would take the namespace past it, so the controller creates no more pods than the quota
// admits: they are never pending, they do not exist, and no node is started for them. Quotas on
// extended resources take only the requests. prefix
// (https://kubernetes.io/docs/concepts/policy/resource-quotas/#resource-quota-for-extended-resources,
// read 2026-11).
//
// Its limits on CPU and memory requests (requests.cpu or cpu, requests.memory or memory) and
// limits (limits.cpu, limits.memory) bound the GPU workloads the same way, by what their pods
// request or are limited to, and so does its limit on pods (pods, or count/pods): at most, since
// the namespace's other pods, which are not counted here, take their share too. A quota on any of
// them makes every container of the pods it counts set it (a request, else a limit, for
// requests.cpu): the API server refuses a pod with a container that does not ("must specify
// limits.cpu"; the quota evaluator's Constraints), unless a LimitRange's default sets it
// (limitrange.go).
//
// A quota applies to the workloads of its namespace in its own build (a kustomization's; the
// manifests read as they stand share one) whose pods all of its scopes match (quotascope.go).
//
// Pods whose GPUs come through DRA claims are not counted by an extended resource's quota: the
// quota on their device class's devices (<class>.deviceclass.resource.k8s.io/devices) counts
// their claims instead, as claimQuotaUsage says. It is enforced when a claim is created, not a
// pod: a pod whose claim from a template it refuses is created but stays pending without
// devices, and a ResourceClaim past it never exists, so the pods that name it stay pending. The
// namespace's ResourceClaims count whatever pods name them; the pods' template claims share
// what they leave.

// resourceQuota is a ResourceQuota's limits gpuguard applies and its scopes.
type resourceQuota struct {
	address   string
	key       string // root|namespace
	namespace string
	file      string
	line      int
	limits    []quotaLimit
	scopes    []quotaScope // all must match a pod for the quota to count it
	// requires are the quota's keys that every container of a pod it counts must set, as
	// written: cpu, requests.cpu, limits.cpu and memory's.
	requires []string
}

// requiredOfContainers are the quota keys whose every container must set what they count, and
// what that is, as quotaPod.unset names it.
var requiredOfContainers = map[string]string{
	"cpu": "requests.cpu", "requests.cpu": "requests.cpu", "limits.cpu": "limits.cpu",
	"memory": "requests.memory", "requests.memory": "requests.memory", "limits.memory": "limits.memory",
}

// quotaKind is what a quota's limit counts.
type quotaKind int

const (
	// quotaExtended counts pods' requests of an extended resource: requests.nvidia.com/gpu.
	quotaExtended quotaKind = iota
	// quotaClass counts the devices of a device class that DRA claims request:
	// gpu.nvidia.com.deviceclass.resource.k8s.io/devices. Read only in a quota without scopes:
	// the claim evaluator matches no scope, so a scoped quota counts no claim.
	quotaClass
	// quotaCompute counts pods' CPU or memory requests: requests.cpu (or cpu), requests.memory
	// (or memory); or their limits: limits.cpu, limits.memory. The namespace's other pods,
	// which gpuguard does not count, take their share too, so what it leaves the GPU workloads
	// is at most what is said.
	quotaCompute
	// quotaPods counts pods: pods, the pods not yet terminated, or count/pods, every pod object.
	// A workload's pods run until they end, so the two bound it alike. The namespace's other
	// pods take their share too, as of a compute limit.
	quotaPods
)

// besideOthers says whether the namespace's other pods, which gpuguard does not count, take a share of
// the limit too: of CPU, memory and pods, not of GPUs (only GPU workloads request them).
func (k quotaKind) besideOthers() bool { return k == quotaCompute || k == quotaPods }

// quotaLimit is one hard limit of a quota that gpuguard applies.
type quotaLimit struct {
	poolLimit        // resource: the extended resource, the device class, or cpu or memory
	key       string // as the quota writes it: requests.nvidia.com/gpu, cpu
	kind      quotaKind
}

// deviceClassQuotaSuffix ends a quota's name for a device class's devices:
// gpu.nvidia.com.deviceclass.resource.k8s.io/devices.
const deviceClassQuotaSuffix = ".deviceclass.resource.k8s.io/devices"

// decodeResourceQuota reads a v1 ResourceQuota's hard requests.* limits and its scopes; ok is
// false for a quota with no such limit.
func decodeResourceQuota(o *object) (q resourceQuota, ok bool, err error) {
	var spec struct {
		Hard          yaml.Node   `yaml:"hard"`
		Scopes        []yaml.Node `yaml:"scopes"`
		ScopeSelector *struct {
			MatchExpressions []yaml.Node `yaml:"matchExpressions"`
		} `yaml:"scopeSelector"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return q, false, err
	}
	// Each scope is checked where it is written: an error names its line.
	add := func(n *yaml.Node, s quotaScope, err error) error {
		if err == nil {
			err = checkScope(s)
		}
		if err != nil {
			return lineError{line: o.lineOf(n), err: err}
		}
		q.scopes = append(q.scopes, s)
		return nil
	}
	for i := range spec.Scopes {
		n := &spec.Scopes[i]
		s := quotaScope{operator: "Exists"}
		if err := add(n, s, n.Decode(&s.name)); err != nil {
			return q, false, err
		}
	}
	if spec.ScopeSelector != nil {
		for i := range spec.ScopeSelector.MatchExpressions {
			n := &spec.ScopeSelector.MatchExpressions[i]
			var m struct {
				ScopeName string   `yaml:"scopeName"`
				Operator  string   `yaml:"operator"`
				Values    []string `yaml:"values"`
			}
			err := n.Decode(&m)
			if err := add(n, quotaScope{name: m.ScopeName, operator: m.Operator, values: m.Values}, err); err != nil {
				return q, false, err
			}
		}
	}
	limits, err := decodeQuantities(o, &spec.Hard, "hard")
	if err != nil {
		return q, false, err
	}
	// requests.storage, requests.ephemeral-storage, hugepages and object counts other than
	// pods' bound nothing gpuguard prices: not read.
	for _, l := range limits {
		key := l.resource
		if _, ok := requiredOfContainers[key]; ok {
			q.requires = append(q.requires, key)
		}
		name, requests := strings.CutPrefix(key, "requests.")
		limited, isLimits := strings.CutPrefix(key, "limits.")
		class, isClass := strings.CutSuffix(key, deviceClassQuotaSuffix)
		switch {
		case name == "cpu" || name == "memory": // cpu is requests.cpu
			l.resource = name
			q.limits = append(q.limits, quotaLimit{l, key, quotaCompute})
		case isLimits && (limited == "cpu" || limited == "memory"):
			l.resource = limited
			q.limits = append(q.limits, quotaLimit{l, key, quotaCompute})
		case key == "pods" || key == "count/pods":
			l.resource = "pods"
			q.limits = append(q.limits, quotaLimit{l, key, quotaPods})
		case requests && strings.Contains(name, "/"): // an extended resource's name has a domain: nvidia.com/gpu
			l.resource = name
			q.limits = append(q.limits, quotaLimit{l, key, quotaExtended})
		case isClass && class != "" && len(q.scopes) == 0:
			l.resource = class
			q.limits = append(q.limits, quotaLimit{l, key, quotaClass})
		}
	}
	q.address, q.key, q.namespace, q.file, q.line = o.address(), o.root+"|"+o.namespace(), o.namespace(), o.file, o.line
	return q, len(q.limits) > 0, nil
}

// takes is what one pod of r (p: its facts) takes of the quota's limit l: 0 when the limit does
// not count it. An extended resource's limit counts what the pod's containers request by that
// name (the pod evaluator reads the spec: a DRA extended resource's too), not the devices of
// DRA claims (those count against their class's limit); a class's, the devices of the pod's
// claims from templates (a shared ResourceClaim's count once, as a claimObject).
func (q *resourceQuota) takes(r *parser.Resource, p quotaPod, l quotaLimit) float64 {
	g := r.Pod
	if !q.counts(r, p) {
		return 0
	}
	switch l.kind {
	case quotaClass:
		return float64(p.classDevices[l.resource])
	case quotaCompute:
		if strings.HasPrefix(l.key, "limits.") {
			return p.limits[l.resource]
		}
		return podLimitShare(g, l.resource)
	case quotaPods:
		return 1
	}
	return p.extended[l.resource]
}

// counts says whether the quota counts r's pods (p: their facts): they are of its build and
// namespace, and all its scopes match them.
func (q *resourceQuota) counts(r *parser.Resource, p quotaPod) bool {
	if r.Pod == nil || p.key != q.key {
		return false
	}
	for _, s := range q.scopes {
		if !s.matches(r, p) {
			return false
		}
	}
	return true
}

// quotaConstraints warns of the GPU workloads whose pods a quota refuses whatever room it has
// left: it counts CPU or memory, and a container of theirs does not set it (requires). Priced as
// declared, as a floor past a quota is.
func quotaConstraints(rs []parser.Resource, pods map[int]quotaPod, quotas []resourceQuota) []parser.Error {
	var warns []parser.Error
	order := slices.Sorted(maps.Keys(pods))
	for qi := range quotas {
		q := &quotas[qi]
		if len(q.requires) == 0 {
			continue
		}
		for _, i := range order {
			r, p := &rs[i], pods[i]
			if !q.counts(r, p) {
				continue
			}
			var keys, unset []string
			for _, key := range q.requires {
				names := p.unset[requiredOfContainers[key]]
				if len(names) == 0 {
					continue
				}
				keys = append(keys, key)
				kinds, what, _ := strings.Cut(requiredOfContainers[key], ".") // requests.cpu: a cpu request
				kind := strings.TrimSuffix(kinds, "s")
				containers := "container " + names[0] + " sets"
				if len(names) > 1 {
					containers = "containers " + strings.Join(names, ", ") + " set"
				}
				unset = append(unset, fmt.Sprintf("%s no %s %s", containers, what, kind))
			}
			if len(keys) == 0 {
				continue
			}
			warns = append(warns, parser.Error{File: r.Source.File, Line: r.Source.Line,
				Message: fmt.Sprintf("%s: the API server refuses its pods (\"must specify %s\"), so none of them run: %s counts %s, which every container of its pods must then set, and %s (priced as declared)",
					r.Address, strings.Join(keys, ","), q.address, strings.Join(keys, ", "), strings.Join(unset, "; "))})
		}
	}
	return warns
}

// quotaShare is one limit of a quota and the workloads (indices into the resources) it counts,
// with what one pod of each takes of it.
type quotaShare struct {
	q *resourceQuota
	l quotaLimit
	// fixed is what the namespace's ResourceClaims take of a class's limit whatever the pods
	// do, and fixedBy names them.
	fixed   float64
	fixedBy []string
	members []int
	per     []float64
}

// num writes an amount of what the limit counts: memory in GiB ("12Gi"), else as it is.
func (s quotaShare) num(n float64) string {
	if s.l.kind == quotaCompute {
		return amountOf(n, s.l.resource)
	}
	return amountOf(n, "") // a device class's name is not a resource's
}

// count writes n of what the limit counts, for messages: "2 nvidia.com/gpu", "1 gpu.nvidia.com
// device", "20 CPU", "80Gi of memory".
func (s quotaShare) count(n float64) string {
	switch {
	case s.l.kind == quotaClass:
		plural := "s"
		if n == 1 {
			plural = ""
		}
		return fmt.Sprintf("%s %s device%s", s.num(n), s.l.resource, plural)
	case s.l.kind == quotaCompute && s.l.resource == "cpu":
		return s.num(n) + " CPU"
	case s.l.kind == quotaPods:
		return s.num(n) + " pod" + parser.Plural(int64(n))
	case s.l.kind == quotaCompute:
		return s.num(n) + " of memory"
	}
	return s.num(n) + " " + s.l.resource
}

// request is what workloads do with the limit, for messages: they run pods, and request the
// rest.
func (s quotaShare) request() string {
	if s.l.kind == quotaPods {
		return "run"
	}
	return "request"
}

// refused is which of a workload's pods the API server refuses, for quotaShare.refuses.
type refused int

const (
	refusedSome   refused = iota // of several workloads together: some of them
	refusedOthers                // those past the n it admits
	refusedAll                   // all of a workload's pods, none admitted
	refusedOne                   // a workload's only pod
)

// refuses says what the API server refuses and what becomes of those pods: a pod past an
// extended resource's or a compute limit is never created; a pod whose claims a class's limit
// refuses is created and stays pending without devices.
func (s quotaShare) refuses(which refused) string {
	if s.l.kind == quotaClass {
		switch which {
		case refusedOthers:
			return "the API server refuses the others' claims, so those pods stay pending without devices"
		case refusedAll:
			return "the API server refuses their claims, so every one stays pending without devices"
		case refusedOne:
			return "the API server refuses its claims, so it stays pending without devices"
		}
		return "the API server refuses the claims past it, so some of them stay pending without devices"
	}
	switch which {
	case refusedOthers:
		return "the API server refuses the others, so they never run"
	case refusedAll:
		return "the API server refuses every one"
	case refusedOne:
		return "the API server refuses it"
	}
	return "the API server refuses the pods past it, so some of them never run"
}

// what names the limit for messages: "ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 8)",
// with the quota's scopes when it has any: "(requests.nvidia.com/gpu: 8; scope PriorityClass
// In [high])".
func (s quotaShare) what() string {
	scopes := ""
	if len(s.q.scopes) > 0 {
		names := make([]string, len(s.q.scopes))
		for i, sc := range s.q.scopes {
			names[i] = sc.String()
		}
		scopes = fmt.Sprintf("; scope%s %s", parser.Plural(int64(len(names))), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s (%s: %s%s)", s.q.address, s.l.key, s.l.text, scopes)
}

// beside says what the namespace's ResourceClaims take of the limit first ("" when nothing).
func (s quotaShare) beside() string {
	if s.fixed == 0 {
		return ""
	}
	return fmt.Sprintf(" beside the %s of %s", s.num(s.fixed), parser.Names(s.fixedBy))
}

// quotaShares finds, for each limit of each quota, the workloads it counts and what one pod of
// each takes of it, and what the namespace's ResourceClaims take of a class's limit.
func quotaShares(rs []parser.Resource, pods map[int]quotaPod, quotas []resourceQuota, claims []claimObject) []quotaShare {
	var shares []quotaShare
	order := slices.Sorted(maps.Keys(pods))
	for qi := range quotas {
		q := &quotas[qi]
		for _, l := range q.limits {
			s := quotaShare{q: q, l: l}
			if l.kind == quotaClass {
				for _, c := range claims {
					if n := c.quota[l.resource]; c.key == q.key && n > 0 {
						s.fixed, s.fixedBy = s.fixed+float64(n), append(s.fixedBy, c.address)
					}
				}
			}
			for _, i := range order {
				if per := q.takes(&rs[i], pods[i], l); per > 0 {
					s.members, s.per = append(s.members, i), append(s.per, per)
				}
			}
			shares = append(shares, s)
		}
	}
	return shares
}

// capByQuotas applies each quota's limits to the workloads they count (quotaShares): no
// workload is priced past a limit at full scale-out, and a floor the limit does not admit,
// alone or with the others it counts, is a warning (priced as declared, as a NodePool's limit
// is); so are a namespace's ResourceClaims past a class's limit. It returns the warnings and the
// limits with their workloads, for shareQuotas.
func capByQuotas(rs []parser.Resource, pods map[int]quotaPod, quotas []resourceQuota, claims []claimObject) ([]parser.Error, []quotaShare) {
	var warns []parser.Error
	var shares []quotaShare
	for _, s := range quotaShares(rs, pods, quotas, claims) {
		q, l := s.q, s.l
		room := l.amount - s.fixed
		if room < 0 {
			warns = append(warns, parser.Error{File: q.file, Line: q.line,
				Message: fmt.Sprintf("%s request %s together, but %s admits %s in namespace %s: the API server refuses the claims past it, so the pods that name them stay pending without devices (priced as declared)",
					parser.Names(s.fixedBy), s.count(s.fixed), s.what(), l.text, q.namespace)})
			room = 0
		}
		if len(s.members) == 0 {
			continue
		}
		others := ""
		if l.kind.besideOthers() {
			others = ", and fewer beside its other pods"
		}
		alonePast := false
		var floors float64
		for k, i := range s.members {
			r, per := &rs[i], s.per[k]
			n := int(math.Min(math.Floor(room/per+1e-9), maxPods))
			if m := capPods(r, n, s.what()); m != nil {
				r.Note("at most %d pod%s at full scale-out, not the %d of the %s: %s admits no more in namespace %s%s%s",
					n, parser.Plural(int64(n)), m.Quantity, m.From, s.what(), q.namespace, s.beside(), others)
			}
			if r.Quantity > n {
				alonePast = true
				warns = append(warns, s.alonePast(r, per, n, room))
			}
			floors += float64(r.Quantity) * per
		}
		if !alonePast && len(s.members) > 1 && floors > room+1e-9 {
			first := &rs[s.members[0]]
			warns = append(warns, parser.Error{File: first.Source.File, Line: first.Source.Line,
				Message: fmt.Sprintf("%s %s %s at their floors together, but %s admits %s in namespace %s%s: %s (priced as declared)",
					quotaNames(rs, s.members), s.request(), s.count(floors), s.what(), l.text, q.namespace, s.beside(), s.refuses(refusedSome))})
		}
		shares = append(shares, s)
	}
	return warns, shares
}

// alonePast is the warning for a workload whose floor alone passes what the limit leaves it
// (room: n of its pods, per each).
func (s quotaShare) alonePast(r *parser.Resource, per float64, n int, room float64) parser.Error {
	refused := fmt.Sprintf("admits %d%s: %s", n, s.beside(), s.refuses(refusedOthers))
	if n == 0 {
		them := refusedAll
		if r.Quantity == 1 {
			them = refusedOne
		}
		leaves := "its " + s.l.text
		if s.fixed > 0 {
			leaves = fmt.Sprintf("the %s left%s", s.num(room), s.beside())
		}
		sep := ", so " // the API server refuses it
		if s.l.kind == quotaClass {
			sep = ": " // the API server refuses its claims, so ...
		}
		refused = fmt.Sprintf("admits none: a pod's %s pass %s%s%s", s.num(per), leaves, sep, s.refuses(them))
		if s.l.kind == quotaPods {
			refused = "admits none: " + s.refuses(them)
		}
	}
	each := fmt.Sprintf(" of %s each", s.count(per))
	if s.l.kind == quotaPods {
		each = "" // a pod each
	}
	return parser.Error{File: r.Source.File, Line: r.Source.Line,
		Message: fmt.Sprintf("%s runs %d pod%s%s, but %s %s (priced as declared)",
			r.Address, r.Quantity, parser.Plural(int64(r.Quantity)), each, s.what(), refused)}
}

// shareQuotas records, of the workloads a quota's limit counts, that their maximums together pass
// it: the totals count them within it (parser.SharedLimit), unless another limit (a NodePool's)
// already holds them, which a note then says.
func shareQuotas(rs []parser.Resource, shares []quotaShare) {
	for _, s := range shares {
		if len(s.members) < 2 {
			continue
		}
		room := max(s.l.amount-s.fixed, 0)
		var want float64
		for k, i := range s.members {
			r := &rs[i]
			pods := r.Quantity
			if r.ScaleMax != nil {
				pods = max(pods, r.ScaleMax.Quantity)
			}
			want += float64(pods) * s.per[k]
		}
		if want <= room+1e-9 {
			continue
		}
		left := s.l.text
		if s.fixed > 0 {
			left = fmt.Sprintf("the %s left%s", s.num(room), s.beside())
		}
		unit := s.l.key // the quota's name for what it counts
		if s.l.kind == quotaExtended {
			unit = s.l.resource // as a NodePool's limit names it: nvidia.com/gpu
		}
		for k, i := range s.members {
			r := &rs[i]
			r.Note("shares %s with %d other workload%s: together they can %s at most %s, not the %s their maximums add up to",
				s.what(), len(s.members)-1, parser.Plural(int64(len(s.members)-1)), s.request(), left, s.num(want))
			if r.SharedLimit != nil {
				r.Note("the totals count it within %s's %s, not also within the quota", r.SharedLimit.Owner, r.SharedLimit.What)
				continue
			}
			r.SharedLimit = &parser.SharedLimit{Owner: s.q.address, What: "quota of " + s.l.text + " " + s.l.key,
				Limit: room, Unit: unit, PerInstance: s.per[k], Admission: true}
		}
	}
}

// quotaNames names a quota's workloads for a message (parser.Names).
func quotaNames(rs []parser.Resource, members []int) string {
	names := make([]string, len(members))
	for k, i := range members {
		names[k] = rs[i].Address
	}
	return parser.Names(names)
}
