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
// A quota applies to the workloads of its namespace in its own build (a kustomization's; the
// manifests read as they stand share one). A quota whose scopes gpuguard cannot tell of a pod
// (Terminating, PriorityClass, ...) is not applied; NotBestEffort is (a pod that requests CPU or
// memory). Pods whose GPUs come through DRA claims are counted by the claims' quota, not by the
// extended resource's: they are left out.

// resourceQuota is a ResourceQuota's limits on extended resources, by the resource (nvidia.com/gpu).
type resourceQuota struct {
	address   string
	key       string // root|namespace
	namespace string
	file      string
	line      int
	hard      []poolLimit // resource without the requests. prefix; text as written
	notBestEf bool        // scoped to NotBestEffort pods
}

// decodeResourceQuota reads a v1 ResourceQuota's hard requests.* limits; ok is false for a quota
// with none, or with a scope gpuguard cannot evaluate.
func decodeResourceQuota(o *object) (q resourceQuota, ok bool, err error) {
	var spec struct {
		Hard          yaml.Node `yaml:"hard"`
		Scopes        []string  `yaml:"scopes"`
		ScopeSelector *struct {
			MatchExpressions []struct {
				ScopeName string `yaml:"scopeName"`
				Operator  string `yaml:"operator"`
			} `yaml:"matchExpressions"`
		} `yaml:"scopeSelector"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return q, false, err
	}
	scopes := spec.Scopes
	if spec.ScopeSelector != nil {
		for _, m := range spec.ScopeSelector.MatchExpressions {
			if m.Operator != "Exists" {
				return q, false, nil // a PriorityClass's values, or a scope's absence: not read
			}
			scopes = append(scopes, m.ScopeName)
		}
	}
	for _, s := range scopes {
		if s != "NotBestEffort" {
			return q, false, nil
		}
		q.notBestEf = true
	}
	limits, err := decodeQuantities(o, &spec.Hard, "hard")
	if err != nil {
		return q, false, err
	}
	for _, l := range limits {
		if name, found := strings.CutPrefix(l.resource, "requests."); found {
			l.resource = name
			q.hard = append(q.hard, l)
		}
	}
	q.address, q.key, q.namespace, q.file, q.line = o.address(), o.root+"|"+o.namespace(), o.namespace(), o.file, o.line
	return q, len(q.hard) > 0, nil
}

// counts reports whether the quota's limit on resource counts the pods of r.
func (q *resourceQuota) counts(r *parser.Resource, resource string) bool {
	p := r.Pod
	return p != nil && p.Resource == resource && p.Requested > 0 && !p.ClaimedOnly && len(p.SharedClaims) == 0 &&
		(!q.notBestEf || p.CPU > 0 || p.MemoryGiB > 0)
}

// quotaShare is one limit of a quota and the workloads (indices into the resources) it counts.
type quotaShare struct {
	q       *resourceQuota
	l       poolLimit
	members []int
}

// what names the limit for messages: "ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 8)".
func (s quotaShare) what() string {
	return fmt.Sprintf("%s (requests.%s: %s)", s.q.address, s.l.resource, s.l.text)
}

// capByQuotas applies each quota to the workloads of its namespace (keys: each resource's
// root|namespace, by index): no workload is priced past it at full scale-out, and a floor the
// quota does not admit, alone or with the others it counts, is a warning (priced as declared, as
// a NodePool's limit is). It returns the warnings and the quotas' limits with their workloads,
// for shareQuotas.
func capByQuotas(rs []parser.Resource, keys map[int]string, quotas []resourceQuota) ([]parser.Error, []quotaShare) {
	var warns []parser.Error
	var shares []quotaShare
	order := slices.Sorted(maps.Keys(keys))
	for qi := range quotas {
		q := &quotas[qi]
		for _, l := range q.hard {
			s := quotaShare{q: q, l: l}
			for _, i := range order {
				if keys[i] == q.key && q.counts(&rs[i], l.resource) {
					s.members = append(s.members, i)
				}
			}
			if len(s.members) == 0 {
				continue
			}
			alonePast := false
			var floors int64
			for _, i := range s.members {
				r := &rs[i]
				per := r.Pod.Requested
				n := int(math.Min(math.Floor(l.amount/float64(per)+1e-9), maxPods))
				if m := capPods(r, n, s.what()); m != nil {
					r.Note("at most %d pod%s at full scale-out, not the %d of the %s: %s admits no more in namespace %s", n, parser.Plural(int64(n)), m.Quantity, m.From, s.what(), q.namespace)
				}
				if r.Quantity > n {
					alonePast = true
					warns = append(warns, parser.Error{File: r.Source.File, Line: r.Source.Line,
						Message: fmt.Sprintf("%s runs %d pod%s of %d %s each, but %s admits %d: the API server refuses the others, so they never run (priced as declared)",
							r.Address, r.Quantity, parser.Plural(int64(r.Quantity)), per, l.resource, s.what(), n)})
				}
				floors += int64(r.Quantity) * per
			}
			if !alonePast && len(s.members) > 1 && float64(floors) > l.amount {
				first := &rs[s.members[0]]
				warns = append(warns, parser.Error{File: first.Source.File, Line: first.Source.Line,
					Message: fmt.Sprintf("%s request %d %s at their floors together, but %s admits %s in namespace %s: the API server refuses the pods past it, so some of them never run (priced as declared)",
						quotaNames(rs, s.members), floors, l.resource, s.what(), l.text, q.namespace)})
			}
			shares = append(shares, s)
		}
	}
	return warns, shares
}

// shareQuotas records, of the workloads a quota's limit counts, that their maximums together pass
// it: the totals count them within it (parser.SharedLimit), unless another limit (a NodePool's)
// already holds them, which a note then says.
func shareQuotas(rs []parser.Resource, shares []quotaShare) {
	for _, s := range shares {
		if len(s.members) < 2 {
			continue
		}
		var want int64
		for _, i := range s.members {
			r := &rs[i]
			pods := r.Quantity
			if r.ScaleMax != nil {
				pods = max(pods, r.ScaleMax.Quantity)
			}
			want += int64(pods) * r.Pod.Requested
		}
		if float64(want) <= s.l.amount {
			continue
		}
		for _, i := range s.members {
			r := &rs[i]
			r.Note("shares %s with %d other workload%s: together they can request at most %s, not the %d their maximums add up to",
				s.what(), len(s.members)-1, parser.Plural(int64(len(s.members)-1)), s.l.text, want)
			if r.SharedLimit != nil {
				r.Note("the totals count it within %s's %s, not also within the quota", r.SharedLimit.Owner, r.SharedLimit.What)
				continue
			}
			r.SharedLimit = &parser.SharedLimit{Owner: s.q.address, What: "quota of " + s.l.text + " requests." + s.l.resource,
				Limit: s.l.amount, Unit: s.l.resource, PerInstance: float64(r.Pod.Requested), Admission: true}
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
