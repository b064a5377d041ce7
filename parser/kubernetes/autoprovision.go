package kubernetes

import (
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// OnAutoProvisionedNodes records, of the GPU pods among rs[from:] (manifests read beside
// Terraform) that select a GKE accelerator no node group carries, that they run on the nodes a
// cluster's node auto-provisioning creates for that GPU type, when the Terraform read with them
// (rs[:from]) declares such capacity (parser.AutoProvision) and its limit: the pod takes the
// cluster's region when it has none, and shares the cluster's limit with its pools and the
// capacity. The cluster is the one declared nearest the pod's file (nearestBy); when the nearest
// are several clusters', a note names them and nothing is taken. It returns a warning for each
// pod whose floor the limit cannot hold: GKE creates nodes for no more of them.
//
// Terraform's own kubernetes_manifest pods are linked to their cluster's capacity when the
// configuration is read (their provider names the cluster); this does the same for pods whose
// manifests say nothing of their cluster.
func OnAutoProvisionedNodes(rs []parser.Resource, from int) []parser.Error {
	var capacity []*parser.Resource
	for i := range rs[:from] {
		if r := &rs[i]; r.AutoProvision != nil && !r.AutoProvision.MaxUnknown && r.SharedLimit != nil {
			capacity = append(capacity, r)
		}
	}
	if len(capacity) == 0 {
		return nil
	}
	var warns []parser.Error
	for i := from; i < len(rs); i++ {
		r := &rs[i]
		pod := r.Pod
		if pod == nil || len(pod.NodeGroups) > 0 || r.Provider != parser.GCP || pod.Resource != ResourceNvidiaGPU || pod.Requested <= 0 ||
			pod.SharedReplicas > 0 || pod.MIGProfile != "" || len(pod.GPUNames) != 1 || r.SharedLimit != nil {
			continue
		}
		accelerator := strings.ToLower(pod.GPUNames[0])
		var on []*parser.Resource
		for _, c := range capacity {
			if c.AutoProvision.Accelerator == accelerator {
				on = append(on, c)
			}
		}
		on, _ = nearestBy(on, func(c *parser.Resource) string { return c.Root }, r.Root)
		if len(on) == 0 {
			continue
		}
		if len(on) > 1 {
			var names []string
			for _, c := range on {
				names = append(names, clusterName(c))
			}
			r.Note("the node auto-provisioning of several clusters read with it creates %s nodes (%s): which one runs the pod is not known, so it shares none of their limits", accelerator, strings.Join(names, ", "))
			continue
		}
		c := on[0]
		if r.Region == "" && c.Region != "" {
			r.Region, r.RegionUnknown = c.Region, ""
			r.Note("region %s from %s, whose node auto-provisioning creates the pod's nodes", c.Region, clusterName(c))
		}
		l := *c.SharedLimit
		l.PerInstance, l.PerGPU, l.Root = float64(pod.Requested), false, c.Root
		r.SharedLimit = &l
		if w, ok := r.OnAutoProvisioned(clusterName(c), c.AutoProvision.MaxGPUs, accelerator); ok {
			warns = append(warns, w)
		}
	}
	return warns
}

// clusterName names the cluster that declares auto-provisioned capacity: its address, and the
// Terraform root it is declared in.
func clusterName(c *parser.Resource) string {
	if c.Root == "" || c.Root == "." {
		return c.SharedLimit.Owner
	}
	return c.SharedLimit.Owner + " in " + c.Root
}
