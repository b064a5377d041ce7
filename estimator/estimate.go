package estimator

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// DefaultHoursPerMonth is the month gpuguard prices: 730 hours, the AWS and FinOps convention
// (8760 hours a year / 12).
const DefaultHoursPerMonth = 730.0

// GPUInfo describes the GPUs of one instance, or, for a Kubernetes pod, the GPUs it requests.
type GPUInfo struct {
	Model     string  `json:"model"`
	Count     float64 `json:"count"`
	MemoryGiB float64 `json:"memory_gib"`
	// Key is the catalog's GPU key (a100-80gb), for tools that join on it.
	Key string `json:"key,omitempty"`
	// MIGProfile is the MIG slice the workload runs on, when its GPUs are split: the slice a pod
	// requests, or the one a node group's GPUs are partitioned into ("1g.10gb").
	MIGProfile string `json:"mig_profile,omitempty"`
}

// CapacitySplit says how many of a resource's instances run on each purchase option when they
// are mixed (an AWS Auto Scaling group with a mixed instances policy).
type CapacitySplit struct {
	OnDemand int `json:"on_demand"`
	Spot     int `json:"spot"`
}

// ScaleMaxCost is what a resource costs at the most an autoscaler declared with it may run: an
// upper bound of its spend, where its price is the floor the autoscaler keeps.
type ScaleMaxCost struct {
	Quantity       int          `json:"quantity"`
	MonthlyCost    money.Amount `json:"monthly_cost"`
	PriceEstimated bool         `json:"price_estimated"`
	// From names what declares the maximum ("max_size", "maxReplicas of
	// HorizontalPodAutoscaler/ml/chat").
	From string `json:"from"`
}

// PriceSource says where a resource's price comes from.
type PriceSource struct {
	InstanceType   string `json:"instance_type"`
	Region         string `json:"region"`
	PurchaseOption string `json:"purchase_option"`
	Source         string `json:"source"`
	Date           string `json:"date,omitempty"`
	Basis          string `json:"basis,omitempty"`
	Estimated      bool   `json:"estimated"`
}

// Fit is the memory verdict of the attached profile on the resource's GPU.
type Fit struct {
	Verdict            string   `json:"verdict"`
	RequiredGiBPerGPU  *float64 `json:"required_gib_per_gpu"`
	AvailableGiBPerGPU *float64 `json:"available_gib_per_gpu"`
	MemoryUtilization  *float64 `json:"memory_utilization"`
	Source             string   `json:"source,omitempty"` // "estimate" or "measured"
	// InferredFrom, when no profile is attached but one was inferred from the workload's own
	// command line (a vLLM server's arguments), says from what and where.
	InferredFrom string `json:"inferred_from,omitempty"`
	Reason       string `json:"reason,omitempty"`
	MIGSlice     string `json:"mig_slice,omitempty"`
	// MaxContextTokens, on a serving profile inferred from an engine's arguments whose context
	// does not fit the engine's share of the GPU, is the longest context that does (an
	// estimate, rounded down to 256 tokens).
	MaxContextTokens int `json:"max_context_tokens,omitempty"`
	// CheapestFit is, when the workload does not fit, the cheapest catalog instance that holds it
	// (it may cost more than the current one).
	CheapestFit *Recommendation `json:"cheapest_fit,omitempty"`
	// MPSLimitFix is, when the workload does not fit only because its DRA claim's MPS memory
	// limit holds it back and a higher one would hold it (with the pods that share the claim),
	// that limit: a change of configuration, at no cost, in place of CheapestFit.
	MPSLimitFix *MPSLimitFix    `json:"mps_limit_fix,omitempty"`
	Breakdown   []MemoryTerm    `json:"breakdown,omitempty"`
	Measured    *MeasuredSignal `json:"measured,omitempty"`
}

// MPSLimitFix is the MPS memory limit that would hold a workload, and where it is set.
type MPSLimitFix struct {
	// Config is the claim or DeviceClass whose configuration sets the limit
	// (ResourceClaim/ml/shared, DeviceClass gpu-mps).
	Config string `json:"config"`
	// Limit is the quantity for defaultPinnedDeviceMemoryLimit that holds it ("19Gi").
	Limit string `json:"limit"`
}

// MemoryTerm is one component of a memory estimate.
type MemoryTerm struct {
	Name   string  `json:"name"`
	GiB    float64 `json:"gib"`
	Source string  `json:"source,omitempty"`
}

// MeasuredSignal carries what a captured profile measured, for policies.
type MeasuredSignal struct {
	GPUUtilizationMean *float64 `json:"gpu_utilization_mean,omitempty"`
	PeakMemoryGiB      float64  `json:"peak_memory_gib"`
}

// Recommendation is a cheaper way to run the same workload.
type Recommendation struct {
	Kind         string `json:"kind"` // smaller_instance | spot | commitment | mig
	InstanceType string `json:"instance_type"`
	// Accelerators are the GPUs attached to InstanceType when it is a GCP N1 VM (which has no
	// GPUs of its own); empty otherwise.
	Accelerators []parser.Accelerator `json:"accelerators,omitempty"`
	// MIGProfile, on a mig recommendation, is the MIG slice the workload would run on ("1g.10gb").
	MIGProfile     string       `json:"mig_profile,omitempty"`
	PurchaseOption string       `json:"purchase_option"`
	MonthlyCost    money.Amount `json:"monthly_cost"`
	MonthlySaving  money.Amount `json:"monthly_saving"`
	PriceEstimated bool         `json:"price_estimated"`
	Reason         string       `json:"reason"`
}

// Node names what the recommendation runs on: its instance type, with the GPUs attached to it
// when it is an N1 VM ("n1-standard-8 with 1× nvidia-tesla-t4").
func (r Recommendation) Node() string {
	if len(r.Accelerators) == 0 {
		return r.InstanceType
	}
	parts := make([]string, len(r.Accelerators))
	for i, a := range r.Accelerators {
		parts[i] = fmt.Sprintf("%d× %s", a.Count, a.Type)
	}
	return r.InstanceType + " with " + strings.Join(parts, " and ")
}

// WorkloadInfo is what the attached profile says about how the workload may be run.
type WorkloadInfo struct {
	Type             string `json:"type"`
	Interruptible    bool   `json:"interruptible"`
	LatencySensitive bool   `json:"latency_sensitive"`
}

// Estimate is one resource of the check output (DESIGN.md, "JSON output of check"). Field
// names are a contract: add fields, never rename them.
type Estimate struct {
	Address string `json:"address"`
	// Root is the root module directory, plan or manifest file the address is relative to, and
	// ID ("root|address") identifies the resource across a scan of many roots.
	Root           string                `json:"root"`
	ID             string                `json:"id"`
	Source         parser.Location       `json:"source"`
	Kind           parser.Kind           `json:"kind"`
	Type           string                `json:"type"`
	Provider       string                `json:"provider"`
	Region         string                `json:"region"`
	InstanceType   string                `json:"instance_type"`
	Quantity       int                   `json:"quantity"`
	PurchaseOption parser.PurchaseOption `json:"purchase_option"`
	CapacitySplit  *CapacitySplit        `json:"capacity_split,omitempty"`
	// ScaleMax is the resource at its autoscaler's declared maximum, when that costs more than
	// the priced quantity (nil otherwise, and when the resource is unpriced).
	ScaleMax       *ScaleMaxCost `json:"scale_max,omitempty"`
	HoursPerMonth  float64       `json:"hours_per_month"`
	GPU            *GPUInfo      `json:"gpu"`
	HourlyCost     *money.Rate   `json:"hourly_cost"`
	MonthlyCost    *money.Amount `json:"monthly_cost"`
	PriceEstimated bool          `json:"price_estimated"`
	// PriceBound says the price is a bound rather than an estimate of the bill (BoundLower,
	// BoundUpper): the service bills at prices of its own that the catalog lacks, and the
	// catalog's price of the same machine stands in. Empty otherwise.
	PriceBound      string               `json:"price_bound,omitempty"`
	UnpricedReason  *string              `json:"unpriced_reason"`
	PriceSources    []PriceSource        `json:"price_sources,omitempty"`
	Profile         *string              `json:"profile"`
	Fit             *Fit                 `json:"fit"`
	Workload        *WorkloadInfo        `json:"workload,omitempty"`
	Recommendations []Recommendation     `json:"recommendations"`
	Tags            map[string]string    `json:"tags,omitempty"`
	TagsUnsupported bool                 `json:"tags_unsupported,omitempty"`
	Unresolved      []parser.Unresolved  `json:"unresolved,omitempty"`
	Notes           []string             `json:"notes,omitempty"`
	Suppressions    []parser.Suppression `json:"suppressions,omitempty"`
	Pod             *parser.PodGPUs      `json:"pod,omitempty"`
	// NoGPUDriver, on a node group of GPU machines, names the setting that starts its nodes
	// without the GPU driver (parser.Resource.NoGPUDriver).
	NoGPUDriver string `json:"no_gpu_driver,omitempty"`
	// AutoProvision, on GPU capacity an autoscaler creates nodes for when pods wait for them
	// (GKE node auto-provisioning's limit on one GPU type), says which GPU type and its limit.
	// Such capacity runs no workload of its own: the pods that land on it carry the profiles.
	AutoProvision *AutoProvisionInfo `json:"auto_provision,omitempty"`
	// SharedLimit is a maximum the resource shares with others (a NodePool's GPU limit, an EMR
	// cluster's managed scaling): the maximum total counts them within it.
	SharedLimit *parser.SharedLimit `json:"shared_limit,omitempty"`
	// NodeGroup is the id of the node group among the estimates whose nodes the pods run on:
	// its cost holds theirs, and the totals count the two once.
	NodeGroup string `json:"node_group,omitempty"`
	// NodeGroups, when the pods may run on several groups of one kind, are all their ids
	// (NodeGroup is the first).
	NodeGroups []string `json:"node_groups,omitempty"`
	// PodsOnGroup, on a node group whose nodes workloads among the estimates run on (their
	// NodeGroup), names them and says how many nodes their pods need against how many the
	// group can have.
	PodsOnGroup *GroupPods `json:"pods_on_group,omitempty"`

	// nodeShare is the share of its node one pod pays for, once a pod is priced;
	// scaleMaxUnknown says the resource's autoscaler has a maximum known only at apply.
	nodeShare       float64
	scaleMaxUnknown bool
	// attached are the GPUs attached to the N1 VM a pod's node was sized as (recommendations
	// name them).
	attached []parser.Accelerator
}

// AutoProvisionInfo is the GPU type an autoscaler provisions nodes with and the most GPUs of
// it that it may run (null when known only at apply), and what declares that maximum.
type AutoProvisionInfo struct {
	Accelerator string `json:"accelerator"`
	MaxGPUs     *int   `json:"max_gpus"`
	From        string `json:"from"`
}

// GroupPods are the pods that run on a node group's nodes, against the nodes the group has.
// The needs are lower bounds: the pods' shares of a node added up (of the workloads that run to
// completion part of the month only the largest, as the others may run at other times), and no
// fewer than one workload's pods take when a node holds only so many of them. DaemonSets follow
// the nodes and are left out.
type GroupPods struct {
	// Workloads are the addresses of the workloads whose pods run on the group; Profiled says
	// every one of them has a workload profile attached (the group's work is judged on them).
	Workloads []string `json:"workloads"`
	Profiled  bool     `json:"profiled"`
	// Groups, when the pods share several groups of one kind, are their ids: each of them has
	// this same summary, with the needs and maximum of them all.
	Groups []string `json:"groups,omitempty"`
	// NodesNeeded holds every priced workload at its floor, NodesNeededAtMax at its
	// autoscaler's maximum (an unpriced pod's share of a node is unknown); MaxNodes is the
	// group's most nodes (its maximum, else its size), null when its maximum is known only at
	// apply or the group is unpriced.
	NodesNeeded      int  `json:"nodes_needed"`
	NodesNeededAtMax int  `json:"nodes_needed_at_max"`
	MaxNodes         *int `json:"max_nodes"`
}

// Monthly returns the monthly cost, and false when unpriced.
func (e *Estimate) Monthly() (money.Micros, bool) {
	if e.MonthlyCost == nil {
		return 0, false
	}
	return money.Micros(*e.MonthlyCost), true
}

// Totals sums estimates.
type Totals struct {
	MonthlyCost money.Amount `json:"monthly_cost"`
	Resources   int          `json:"resources"`
	Unpriced    int          `json:"unpriced"`
	Estimated   int          `json:"estimated"`
	GPUs        float64      `json:"gpus"`
	// MaxMonthlyCost is the priced resources' total with every autoscaled one at its maximum;
	// absent when no resource declares one.
	MaxMonthlyCost *money.Amount `json:"max_monthly_cost,omitempty"`
	// PriceBound says the totals are a bound, as a resource's PriceBound does: BoundLower when
	// some priced resource is a lower bound and none an upper one (the bill is at least the
	// total), BoundUpper the other way round; absent when no price is a bound, or when prices
	// bound both ways and the total is neither.
	PriceBound string `json:"price_bound,omitempty"`
}

// Sum computes totals over estimates, in integer micro-dollars.
//
// Pods that run on a node group among the estimates (NodeGroup) are part of its cost: the group
// and its pods count once, as the larger of the two, at the floor and at the maximum alike. The
// group's nodes are paid for whether pods fill them or not, and pods that need more than they
// give make the group scale out, up to its maximum when it is known (PodsOnGroup): pods past
// that stay Pending and cost nothing.
func Sum(es []Estimate) Totals {
	var t Totals
	var sum, atMax money.Micros
	scales := false
	var lower, upper bool // some priced resource's price is a lower, an upper bound
	pools := map[string][]*Estimate{}
	type share struct {
		floor, max    money.Micros
		gpus, gpusMax float64
		capped        bool // the groups' maximums bound their pods
		groups        int
	}
	ptrs := make([]*Estimate, len(es))
	for i := range es {
		ptrs[i] = &es[i]
	}
	keyOf := groupPools(ptrs)
	onGroup := map[string]*share{} // by pool of groups: the pods on them
	group := map[string]*share{}   // the groups themselves
	for i := range es {
		if k, ok := keyOf(&es[i]); ok && group[k] == nil {
			onGroup[k], group[k] = &share{}, &share{capped: true}
		}
	}
	for i := range es {
		e := &es[i]
		t.Resources++
		var gpus float64
		if e.GPU != nil {
			gpus = e.GPU.Count * float64(e.Quantity)
		}
		m, priced := e.Monthly()
		if e.PriceEstimated && priced { // an unpriced one has no price to be an estimate
			t.Estimated++
		}
		if !priced {
			t.Unpriced++
		} else {
			lower, upper = lower || e.PriceBound == BoundLower, upper || e.PriceBound == BoundUpper
		}
		// top is the resource at its maximum; a resource sharing a limit is counted at its floor
		// here, and what those sharing it add to reach their maximums is added below, within
		// the limit.
		top := m
		limited := false
		if priced {
			var k string
			if k, limited = limitKey(e); limited && onGroups(e, keyOf) {
				limited = false // counted with the group's pods, at its own maximum
			}
			if limited {
				pools[k] = append(pools[k], e)
			} else if e.ScaleMax != nil {
				top = money.Micros(e.ScaleMax.MonthlyCost)
			}
			scales = scales || e.ScaleMax != nil
		}
		if k, ok := keyOf(e); ok && e.NodeGroup != "" && !limited {
			s := onGroup[k]
			s.floor, s.max, s.gpus = s.floor+m, s.max+top, s.gpus+gpus
			continue
		} else if ok && e.NodeGroup == "" {
			g := group[k]
			g.floor, g.max, g.gpus, g.groups = g.floor+m, g.max+top, g.gpus+gpus, g.groups+1
			p := e.PodsOnGroup
			g.capped = g.capped && p != nil && p.MaxNodes != nil && priced
			if g.capped && e.GPU != nil { // the groups run one kind of node
				g.gpusMax = e.GPU.Count * float64(*p.MaxNodes)
			}
		}
		sum, atMax, t.GPUs = sum+m, atMax+top, t.GPUs+gpus
	}
	for _, id := range slices.Sorted(maps.Keys(onGroup)) { // sorted: GPUs add up the same way each run
		pods, g := onGroup[id], group[id]
		gpus := pods.gpus
		if g.capped && g.groups > 0 { // at their maximums the groups hold whatever of the pods can run
			sum += max(0, min(pods.floor, g.max)-g.floor)
			if g.gpusMax > 0 {
				gpus = min(gpus, g.gpusMax)
			}
		} else {
			sum += max(0, pods.floor-g.floor)
			atMax += max(0, pods.max-g.max)
		}
		t.GPUs += max(0, gpus-g.gpus)
	}
	t.MonthlyCost = money.Amount(sum)
	for _, members := range pools {
		atMax += poolGrowth(members)
	}
	if scales {
		a := money.Amount(atMax)
		t.MaxMonthlyCost = &a
	}
	switch {
	case lower && !upper:
		t.PriceBound = BoundLower
	case upper && !lower:
		t.PriceBound = BoundUpper
	}
	return t
}

// groupPools returns which pool of node groups an estimate's cost is counted in, for the node
// groups pods among the estimates run on and for those pods: the first of the groups the pods
// share (PodsOnGroup.Groups), else the one group; false for every other estimate.
func groupPools(es []*Estimate) func(*Estimate) (string, bool) {
	byID := map[string]*Estimate{}
	isGroup := map[string]bool{}
	for _, e := range es {
		byID[e.ID] = e
		if e.NodeGroup != "" {
			isGroup[e.NodeGroup] = true
			for _, id := range e.NodeGroups {
				isGroup[id] = true
			}
		}
	}
	return func(e *Estimate) (string, bool) {
		id := e.NodeGroup
		if id == "" {
			if !isGroup[e.ID] {
				return "", false
			}
			id = e.ID
		}
		if g := byID[id]; g != nil && g.PodsOnGroup != nil && len(g.PodsOnGroup.Groups) > 0 {
			return g.PodsOnGroup.Groups[0], true
		}
		return id, true
	}
}

// Best is the recommendation that saves the most, and false when there is none.
func (e *Estimate) Best() (Recommendation, bool) {
	var best Recommendation
	found := false
	for _, r := range e.Recommendations {
		if !found || r.MonthlySaving > best.MonthlySaving {
			best, found = r, true
		}
	}
	return best, found
}

// Savings adds up the best recommendation's saving of every resource, and says whether any of
// them is estimated. Node groups and the pods on them (NodeGroup) are counted once, as the
// larger of the groups' savings together and their pods' together, as Sum counts their cost:
// both come out of the groups' nodes, and each assumes the nodes the other would change.
func Savings(es []*Estimate) (money.Micros, bool) {
	keyOf := groupPools(es)
	var total money.Micros
	estimated := false
	onGroup := map[string]money.Micros{} // by pool of groups: its pods' savings
	own := map[string]money.Micros{}     // the groups' own
	for _, e := range es {
		r, ok := e.Best()
		if !ok {
			continue
		}
		estimated = estimated || r.PriceEstimated
		saving := money.Micros(r.MonthlySaving)
		switch k, grouped := keyOf(e); {
		case grouped && e.NodeGroup != "":
			onGroup[k] += saving
		case grouped:
			own[k] += saving
		default:
			total += saving
		}
	}
	for _, k := range slices.Sorted(maps.Keys(own)) {
		total += max(own[k], onGroup[k])
		delete(onGroup, k)
	}
	for _, saving := range onGroup {
		total += saving
	}
	return total, estimated
}

// onGroups reports whether an estimate is counted with node groups and their pods: a group that
// pods among the estimates run on, or pods on one.
func onGroups(e *Estimate, keyOf func(*Estimate) (string, bool)) bool {
	_, ok := keyOf(e)
	return ok
}

// limitKey groups the priced resources that share one limit: the same owner and unit in the
// same root (the same NodePool name in another root is another cluster's); the owner's root
// is the limit's own when it names one.
func limitKey(e *Estimate) (string, bool) {
	if e.MonthlyCost == nil {
		return "", false
	}
	return limitGroup(e)
}

// SharedLimits are the limits Sum counts two or more resources within, in the order first met
// (a limit with one resource caps nothing that resource's own maximum does not).
func SharedLimits(es []Estimate) []*parser.SharedLimit {
	members := map[string]int{}
	for i := range es {
		if k, ok := limitKey(&es[i]); ok {
			members[k]++
		}
	}
	var out []*parser.SharedLimit
	for i := range es {
		if k, ok := limitKey(&es[i]); ok && members[k] > 1 {
			out = append(out, es[i].SharedLimit)
			members[k] = 0 // once
		}
	}
	return out
}

// poolGrowth is what the resources sharing one limit can add to their floors' cost at most:
// their autoscalers' maximums, but no more units (devices, instances, vCPUs) than the limit
// leaves after every floor. The units go to the resources that pay most per unit first, and
// the last one's growth is counted in proportion to the units left for it, so the figure bounds
// any way the scheduler or autoscaler could fill the limit from above (a resource costs in
// proportion to its instances, so the bound is reached when the limit divides evenly).
func poolGrowth(members []*Estimate) money.Micros {
	type growth struct {
		devices float64      // units the resource adds from its floor to its maximum
		cost    money.Micros // what that adds a month
	}
	left := members[0].SharedLimit.Limit
	var gs []growth
	claims := map[string]bool{} // the shared claims whose devices are counted (limitUnits)
	for _, e := range members {
		left -= limitUnits(e, claims)
		if e.ScaleMax == nil {
			continue
		}
		floor, _ := e.Monthly()
		if d := float64(e.ScaleMax.Quantity-e.Quantity) * growthPerPod(e); d > 0 {
			gs = append(gs, growth{d, money.Micros(e.ScaleMax.MonthlyCost) - floor})
		}
	}
	sort.SliceStable(gs, func(i, j int) bool {
		return float64(gs[i].cost)/gs[i].devices > float64(gs[j].cost)/gs[j].devices
	})
	var add money.Micros
	for _, g := range gs {
		if left <= 0 {
			break
		}
		if g.devices <= left {
			add += g.cost
			left -= g.devices
			continue
		}
		add += money.Micros(math.Round(float64(g.cost) * left / g.devices))
		left = 0
	}
	return add
}
