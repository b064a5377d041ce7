package terraform

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// GKE node auto-provisioning and a cluster's GPU limits.
//
// A google_container_cluster whose cluster_autoscaling is enabled lets the cluster autoscaler
// create node pools for pods that wait, within the limits of its resource_limits blocks: one
// per resource type, cpu, memory, and each GPU type by its Compute Engine name (nvidia-l4). GKE
// counts those limits over all the cluster's node pools, not only the ones it creates, and
// creates no node that would pass one
// (https://cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning, "Resource
// limits", read 2026-11). So a GPU type's maximum is:
//   - GPU capacity the configuration declares without naming a machine: one resource at the
//     cluster's address keyed by the type (google_container_cluster.ml.cluster_autoscaling["nvidia-l4"]),
//     with no nodes until pods wait for them and at most the maximum's GPUs (parser.AutoProvision);
//   - a maximum the cluster's own node pools of that GPU share with it (parser.SharedLimit): at
//     their maximums, they and the nodes auto-provisioning adds count no more GPUs than it.
//
// A limit's minimum makes the autoscaler remove no node below it; it creates none to reach it.
// TPU types, cpu and memory are not GPUs: they are not read.

// gkeGPULimit is a cluster's limit on one GPU type.
type gkeGPULimit struct {
	accelerator string
	min, max    int
	// maxWhy says why the maximum is not a number of GPUs ("" when it is): known only at apply,
	// or not a whole number.
	maxWhy string
}

// gkeGPULimits returns the GPU limits of a cluster whose node auto-provisioning is enabled (or
// known only at apply, which unknown says), in the order declared.
func gkeGPULimits(cluster *view) (limits []gkeGPULimit, unknown bool) {
	q := cluster.quiet()
	on, known := q.boolean("cluster_autoscaling", "enabled")
	if known && !on {
		return nil, false
	}
	for _, b := range q.blocks("cluster_autoscaling", "resource_limits") {
		t, ok := b.str("resource_type")
		if !ok || !strings.HasPrefix(t, "nvidia-") {
			continue
		}
		v, set := at(b.obj, "maximum")
		if uv, _ := v.Unmark(); !set || uv.IsKnown() && uv.IsNull() {
			continue // GKE adds no GPU of a type without a maximum
		}
		l := gkeGPULimit{accelerator: t}
		l.min, _ = b.num("minimum")
		if l.max, l.maxWhy = wholeNumber(v); l.maxWhy == "" && l.max == 0 {
			continue // a maximum of none: the autoscaler adds no such GPU
		}
		limits = append(limits, l)
	}
	return limits, !known && len(limits) > 0
}

// shared is the limit as the resources it bounds share it; each instance's share is its GPUs.
// addr is the cluster's address.
func (l gkeGPULimit) shared(addr string) *parser.SharedLimit {
	return &parser.SharedLimit{Owner: addr, What: fmt.Sprintf("limit of %d %s GPUs", l.max, l.accelerator),
		Limit: float64(l.max), Unit: l.accelerator, PerGPU: true}
}

// limitOn returns the limit on one GPU type.
func limitOn(limits []gkeGPULimit, accelerator string) (gkeGPULimit, bool) {
	for _, l := range limits {
		if l.accelerator == accelerator {
			return l, true
		}
	}
	return gkeGPULimit{}, false
}

// gkeAutoProvisioned returns the GPU capacity a cluster's node auto-provisioning may create:
// one resource for each GPU type it limits. w is the cluster.
func (c *mapContext) gkeAutoProvisioned(w *view) []*parser.Resource {
	limits, unknown := gkeGPULimits(w)
	var out []*parser.Resource
	for _, l := range limits {
		r, cv := c.resource(parser.GCP, c.inst.addr+"."+indexedAddress("cluster_autoscaling", l.accelerator))
		applyTags(r, cv.strMap("resource_labels"))
		location, _ := cv.quiet().str("location")
		r.Region, _ = c.gkeRegion(r, location)
		r.Quantity = 0
		from := fmt.Sprintf("cluster_autoscaling.resource_limits %s maximum", l.accelerator)
		r.AutoProvision = &parser.AutoProvision{Accelerator: l.accelerator, MaxGPUs: l.max, MaxUnknown: l.maxWhy != "", From: from}
		if l.maxWhy == "" {
			r.SharedLimit = l.shared(c.inst.addr)
			r.Note("node auto-provisioning: GKE creates nodes with %s GPUs for pods that wait for them, up to %d GPUs in the cluster with those of its own node pools (cluster_autoscaling.resource_limits); none run until pods ask", l.accelerator, l.max)
		} else {
			r.Note("node auto-provisioning: GKE creates nodes with %s GPUs for pods that wait for them; the limit's maximum is not a number of GPUs here (%s), so their most is not priced", l.accelerator, l.maxWhy)
		}
		if l.min > 0 {
			r.Note("resource_limits minimum %d: the cluster autoscaler removes no %s node below it, but creates none to reach it", l.min, l.accelerator)
		}
		if unknown {
			r.Note("cluster_autoscaling.enabled is known only at apply: read as enabled, since GKE takes resource_limits only then")
		}
		out = append(out, r)
	}
	return out
}

// gkePoolLimit records that a cluster's node pool shares the cluster's limit on its GPU type,
// when the cluster has one. cluster is the cluster (addr its address).
func gkePoolLimit(r *parser.Resource, addr string, cluster *view) {
	if cluster == nil {
		return
	}
	accelerator, per := parser.GCPBuiltInAccelerator(r.InstanceType), 0
	if len(r.Accelerators) > 0 {
		accelerator, per = r.Accelerators[0].Type, r.Accelerators[0].Count
	}
	if accelerator == "" {
		return
	}
	limits, _ := gkeGPULimits(cluster)
	l, ok := limitOn(limits, accelerator)
	if !ok || l.maxWhy != "" {
		return
	}
	r.SharedLimit = l.shared(addr)
	r.SharedLimit.PerInstance, r.SharedLimit.PerGPU = float64(per), per == 0
	r.Note("%s's cluster_autoscaling limits its %s GPUs to %d over all its node pools: the cluster autoscaler adds no node past it", addr, accelerator, l.max)
}

// gkeAutoProvisionedPods records, of a GPU pod of the configuration that runs in a GKE cluster
// (cluster, at addr) on none of its node pools, that it runs on nodes the cluster's node
// auto-provisioning creates when the cluster limits the pod's GPU type: the pods share the limit
// with the cluster's pools and its auto-provisioned capacity, and GKE creates nodes for no more
// of them than it holds. It returns a warning when even the pods' floor does not fit.
func gkeAutoProvisionedPods(r *parser.Resource, addr string, cluster *view) (parser.Error, bool) {
	pod := r.Pod
	if pod == nil || len(pod.NodeGroups) > 0 || r.Provider != parser.GCP || pod.Resource != "nvidia.com/gpu" || pod.Requested <= 0 ||
		pod.SharedReplicas > 0 || pod.MIGProfile != "" || len(pod.GPUNames) != 1 {
		return parser.Error{}, false
	}
	limits, _ := gkeGPULimits(cluster)
	l, ok := limitOn(limits, strings.ToLower(pod.GPUNames[0]))
	if !ok {
		return gkeNoLimitPending(r, addr, cluster, strings.ToLower(pod.GPUNames[0]))
	}
	if l.maxWhy != "" {
		return parser.Error{}, false
	}
	r.SharedLimit = l.shared(addr)
	r.SharedLimit.PerInstance, r.SharedLimit.PerGPU = float64(pod.Requested), false
	return r.OnAutoProvisioned(addr, l.max, l.accelerator)
}

// gkeNoLimitPending warns of a GPU pod that runs on none of its GKE cluster's node pools when
// the cluster's node auto-provisioning is enabled but sets no limit (or a maximum of none) on
// the pod's GPU type: GKE creates no node with a GPU type its resource_limits do not allow, so
// the pods stay pending unless a pool declared elsewhere carries them. An Autopilot cluster
// provisions any GPU without limits, and a limit whose type is known only at apply may be the
// pod's: neither warns.
func gkeNoLimitPending(r *parser.Resource, addr string, cluster *view, accelerator string) (parser.Error, bool) {
	q := cluster.quiet()
	if on, known := q.boolean("cluster_autoscaling", "enabled"); !known || !on {
		return parser.Error{}, false
	}
	if autopilot, known := q.boolean("enable_autopilot"); !known && q.has("enable_autopilot") || autopilot {
		return parser.Error{}, false
	}
	for _, b := range q.blocks("cluster_autoscaling", "resource_limits") {
		if _, ok := b.str("resource_type"); !ok {
			return parser.Error{}, false
		}
	}
	if r.Quantity == 0 && r.ScaleMax == nil {
		return parser.Error{}, false // no pod asks yet
	}
	r.Note("%s's node auto-provisioning sets no limit on %s GPUs and none of its node pools here carries them: GKE creates no node for the pod", addr, accelerator)
	return parser.Error{File: r.Source.File, Line: r.Source.Line,
		Message: fmt.Sprintf("%s asks for %s GPUs, but none of %s's node pools here carries them and its cluster_autoscaling sets no limit on them: node auto-provisioning creates no such node, so the pods stay pending unless a pool declared elsewhere carries them (priced as declared; add a resource_limits block for %s)",
			r.Address, accelerator, addr, accelerator)}, true
}
