package terraform

import (
	"maps"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/userdata"
)

// Tags an Auto Scaling group of Kubernetes nodes carries.
const (
	// clusterAutoscalerLabel and clusterAutoscalerTaint prefix the tags that tell the cluster
	// autoscaler the labels and taints ("value:Effect") of a group's nodes, so that it can scale
	// the group up from zero (https://docs.aws.amazon.com/eks/latest/eksctl/autoscaling.html,
	// "Scaling up from 0"; cluster-autoscaler's AWS README).
	clusterAutoscalerLabel = "k8s.io/cluster-autoscaler/node-template/label/"
	clusterAutoscalerTaint = "k8s.io/cluster-autoscaler/node-template/taint/"
)

// kopsInstanceGroup is the label (and tag) kops gives an instance group's nodes (and Auto Scaling
// group). kops writes every label and taint of the instance group's nodes into the group's
// cluster autoscaler node-template tags (kops's Terraform output; its docs,
// "Cluster autoscaler" and "Instance groups: nodeLabels, taints"), and its nodeup registers the
// nodes with the same.
const kopsInstanceGroup = "kops.k8s.io/instancegroup"

// clusterTag says whether a tag marks an Auto Scaling group's instances as a Kubernetes
// cluster's nodes: kubernetes.io/cluster/<name> (which the AWS cloud provider and EKS's
// self-managed node templates set), the cluster autoscaler's discovery and node-template tags,
// and eks:cluster-name.
func clusterTag(key string) bool {
	return strings.HasPrefix(key, "kubernetes.io/cluster/") || strings.HasPrefix(key, "k8s.io/cluster-autoscaler/") || key == "eks:cluster-name"
}

// selfManagedNode reads the Kubernetes labels and taints of a self-managed node group: an Auto
// Scaling group whose instances join a cluster by their user data (EKS's bootstrap.sh, nodeadm
// and Bottlerocket, or k3s, RKE2 and kubeadm; package userdata), or that is tagged as a
// cluster's. Its labels are those the
// user data registers, and those its cluster autoscaler node-template tags declare; pods that
// select them run there. A group tagged as a cluster's whose user data is not read (computed at
// apply, or bootstrapped another way) may carry any label. A group with neither is not a node
// group. src is the launch template or launch configuration, nil when there is none.
func (c *mapContext) selfManagedNode(r *parser.Resource, tags []asgTag, src *view) {
	tagged, kops, caLabels, caTaints := clusterTags(r, tags) // propagated or not
	var text, srcAddr string
	known, set := false, false
	if src != nil {
		srcAddr = strings.TrimSuffix(src.path, ".")
		q := src.quiet()
		for _, attr := range []string{"user_data", "user_data_base64"} {
			if q.has(attr) {
				set = true
				text, known = q.str(attr)
				break
			}
		}
	}
	var node userdata.Node
	read := false
	if known {
		n, ok, err := userdata.Read(text)
		switch {
		case err != nil:
			c.userDataError(srcAddr, err)
			r.Note("the user data of %s cannot be read (%v): the labels and taints its nodes register with are not known", srcAddr, err)
		case ok:
			node, read = n, true
		}
	}
	if !read && !tagged {
		return
	}
	nl := &parser.NodeLabels{Labels: map[string]string{}}
	maps.Copy(nl.Labels, caLabels)
	if read {
		for k, v := range node.Labels {
			if caV, ok := caLabels[k]; ok && caV != v {
				r.Note("its cluster autoscaler tag says the nodes' label %s is %q, but their user data registers %q: the user data's is used", k, caV, v)
			}
			nl.Labels[k] = v
		}
		nl.Taints = node.Taints
		for _, t := range caTaints {
			if !slices.Contains(nl.Taints, t) {
				nl.Taints = append(nl.Taints, t)
			}
		}
		nl.Partial, nl.TaintsUnknown = node.LabelsUnknown, node.TaintsUnknown
		nl.Unknown = node.UnknownValues
		for _, k := range node.UnknownValues {
			delete(nl.Labels, k) // the node's value, not the autoscaler tag's
		}
		cluster := ""
		if node.Cluster != "" {
			cluster = " " + node.Cluster
		}
		r.Note("a self-managed node group: its nodes join the cluster%s with the labels and taints %s registers in %s's user data", cluster, node.How(), srcAddr)
		switch {
		case node.LabelsUnknown || node.TaintsUnknown:
			r.Note("some labels or taints in %s's user data are computed at boot: pods may select the group by labels not read here", srcAddr)
		case len(node.UnknownValues) == 1:
			r.Note("the value of the label %s in %s's user data is computed at boot: a pod that selects any value of it may run on the group", node.UnknownValues[0], srcAddr)
		case len(node.UnknownValues) > 1:
			r.Note("the values of the labels %s in %s's user data are computed at boot: a pod that selects any value of them may run on the group", strings.Join(node.UnknownValues, ", "), srcAddr)
		}
	} else {
		nl.Taints = caTaints
		nl.Partial, nl.TaintsUnknown = !kops, !kops
		switch {
		case kops:
			r.Note("a kops instance group: its nodes carry the labels and taints its cluster autoscaler tags name (kops tags the group with the instance group's nodeLabels and taints, which its nodes register with)")
		case set && !known:
			r.Note("a self-managed node group (tagged as a cluster's): its user data is known only at apply, so the labels and taints its nodes register with are not known")
		case set:
			r.Note("a self-managed node group (tagged as a cluster's): its user data does not bootstrap the node in a way gpuguard reads (bootstrap.sh, nodeadm, Bottlerocket, k3s, RKE2, kubeadm join), so the labels and taints its nodes register with are not known")
		default:
			r.Note("a self-managed node group (tagged as a cluster's) without user data gpuguard reads: the labels and taints its nodes register with are not known")
		}
	}
	r.NodeLabels = nl
	if read && node.Settings != nil { // Bottlerocket's, decoded once
		d, set, err := node.Settings.DevicePlugin()
		c.bottlerocketSettings(r, d, set, err, srcAddr)
	}
}

// managedNodeUserData adds to an EKS managed node group's labels and taints those its launch
// template's user data registers its nodes with: EKS merges a NodeConfig (AL2023) or
// Bottlerocket settings into its own, and a group that boots its own image (a custom AMI) runs
// the user data's bootstrap.sh itself. With EKS's own AL2 image, EKS runs bootstrap.sh after the
// user data, and labels in a bootstrap.sh call there are not the nodes'.
// https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html (user data, custom AMI).
func (c *mapContext) managedNodeUserData(r *parser.Resource, w, lt *view) {
	if lt == nil || r.NodeLabels == nil {
		return
	}
	text, ok := lt.quiet().str("user_data")
	if !ok {
		return
	}
	ltAddr := strings.TrimSuffix(lt.path, ".")
	node, ok, err := userdata.Read(text)
	if err != nil {
		c.userDataError(ltAddr, err)
		r.Note("the user data of %s cannot be read (%v): the labels and taints it registers the nodes with are not known", ltAddr, err)
		return
	}
	ami, _ := w.quiet().str("ami_type")
	ownImage := strings.EqualFold(ami, "CUSTOM") || ami == "" && lt.quiet().has("image_id")
	if !ok || !node.EKS() || node.Bootstrap == userdata.BootstrapScript && !ownImage {
		return // k3s, RKE2 or kubeadm in an EKS group's user data do not make its nodes join EKS
	}
	if len(node.Labels) == 0 && len(node.Taints) == 0 && len(node.UnknownValues) == 0 && !node.LabelsUnknown && !node.TaintsUnknown {
		return
	}
	nl := *r.NodeLabels // a copy: instances may share the labels they were read with
	nl.Labels = maps.Clone(nl.Labels)
	if nl.Labels == nil {
		nl.Labels = map[string]string{}
	}
	maps.Copy(nl.Labels, node.Labels)
	nl.Taints = append(slices.Clip(nl.Taints), node.Taints...)
	nl.Partial = nl.Partial || node.LabelsUnknown
	for _, k := range node.UnknownValues {
		delete(nl.Labels, k)
		if !slices.Contains(nl.Unknown, k) {
			nl.Unknown = append(slices.Clip(nl.Unknown), k)
		}
	}
	nl.TaintsUnknown = nl.TaintsUnknown || node.TaintsUnknown
	r.NodeLabels = &nl
	r.Note("its nodes also register with the labels and taints in %s's user data (%s)", ltAddr, node.How())
}
