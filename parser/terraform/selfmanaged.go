package terraform

import (
	"errors"
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

// bootAttr is an attribute that holds a text an instance boots with.
type bootAttr struct {
	name   string // for errors and notes: "user_data", "metadata.startup-script"
	path   []any
	script bool // a startup script (userdata.Source.Script)
	opaque bool // names a text elsewhere (a startup-script-url), never read
}

// The texts instances boot with, in the order they run.
var (
	// awsUserData: a launch template's, launch configuration's or instance's user data (the two
	// attributes exclude each other).
	awsUserData = []bootAttr{{name: "user_data", path: []any{"user_data"}}, {name: "user_data_base64", path: []any{"user_data_base64"}}}
	// gceBoot: a Compute Engine instance's (or instance template's) metadata. cloud-init reads
	// user-data on the images that have it (Ubuntu, Container-Optimized OS); the guest agent then
	// runs startup-script (which metadata_startup_script sets) or the script at
	// startup-script-url. https://cloud.google.com/compute/docs/instances/startup-scripts/linux
	// ("Startup script metadata keys"); https://cloudinit.readthedocs.io/en/latest/reference/datasources/gce.html.
	gceBoot = []bootAttr{
		{name: "metadata.user-data", path: []any{"metadata", "user-data"}},
		{name: "metadata.startup-script", path: []any{"metadata", "startup-script"}, script: true},
		{name: "metadata_startup_script", path: []any{"metadata_startup_script"}, script: true},
		{name: "metadata.startup-script-url", path: []any{"metadata", "startup-script-url"}, opaque: true},
	}
	// azureCustomData: a Linux virtual machine's or scale set's custom data, which cloud-init
	// reads (https://learn.microsoft.com/azure/virtual-machines/custom-data). Azure's user_data
	// is only served to the machine by its metadata service: cloud-init does not run it.
	azureCustomData   = []bootAttr{{name: "custom_data", path: []any{"custom_data"}}}
	azureOSCustomData = []bootAttr{{name: "os_profile.custom_data", path: []any{"os_profile", "custom_data"}}}
)

// bootTexts are the texts an instance boots with, as the resources that hold them declare them.
type bootTexts struct {
	addr    string // the resource that holds them (a launch template, an instance template)
	what    string // what they are, for notes: "user data", "metadata", "custom data"
	sources []userdata.Source
	origins []string // the resource each source is declared in: addr, or one add names
	unknown []string // the declared texts that cannot be read (known only at apply, or elsewhere): "name of addr"
	from    []string // the declarations that set some text, for notes: "addr's what"
}

// bootTextsOf reads the boot texts attrs name on v, the resource at addr (nil v: none).
func bootTextsOf(v *view, addr, what string, attrs []bootAttr) bootTexts {
	b := bootTexts{addr: addr, what: what}
	if v == nil {
		return b
	}
	q := v.quiet()
	set := false
	for _, a := range attrs {
		if !q.has(a.path...) {
			continue
		}
		set = true
		text, ok := q.str(a.path...)
		if !ok || a.opaque {
			b.unknown = append(b.unknown, a.name+" of "+addr)
			continue
		}
		b.sources = append(b.sources, userdata.Source{Name: a.name, Text: text, Script: a.script})
		b.origins = append(b.origins, addr)
	}
	if set {
		b.from = []string{addr + "'s " + what}
	}
	return b
}

// add appends texts that run after b's (a VM's script extensions after its custom data).
func (b *bootTexts) add(more ...bootTexts) {
	for _, m := range more {
		b.sources = append(b.sources, m.sources...)
		b.origins = append(b.origins, m.origins...)
		b.unknown = append(b.unknown, m.unknown...)
		b.from = append(b.from, m.from...)
	}
}

// declared says whether some text is declared (read or not).
func (b bootTexts) declared() bool { return len(b.from) > 0 }

// where names the texts for notes: "aws_launch_template.gpu's user data".
func (b bootTexts) where() string {
	if len(b.from) == 0 {
		return b.addr + "'s " + b.what
	}
	return strings.Join(b.from, " and ")
}

// origin is the resource that declares the text an error of userdata.ReadAll is in.
func (b bootTexts) origin(err error) string {
	if se, ok := errors.AsType[*userdata.SourceError](err); ok && se.Index < len(b.origins) {
		return b.origins[se.Index]
	}
	return b.addr
}

// readBootNode reads the Kubernetes node the texts boot, if they bootstrap one gpuguard reads. A
// text that cannot be read (b.unknown) may add labels and taints to those read. A text that
// cannot be parsed is an error at b.addr.
func (c *mapContext) readBootNode(r *parser.Resource, b bootTexts) (userdata.Node, bool) {
	if len(b.sources) == 0 {
		return userdata.Node{}, false
	}
	node, ok, err := userdata.ReadAll(b.sources...)
	if err != nil {
		c.bootTextError(b.origin(err), err)
		r.Note("%s cannot be read (%v): the labels and taints its nodes register with are not known", b.where(), err)
		return userdata.Node{}, false
	}
	if ok && len(b.unknown) > 0 {
		node.LabelsUnknown, node.TaintsUnknown = true, true
		r.Note("%s cannot be read (known only at apply, or fetched at boot): it may register the nodes with more labels and taints", strings.Join(b.unknown, ", "))
	}
	return node, ok
}

// selfManagedNode reads the Kubernetes labels and taints of a self-managed node group: an Auto
// Scaling group whose instances join a cluster by their user data (EKS's bootstrap.sh, nodeadm
// and Bottlerocket, or k3s, RKE2 and kubeadm; package userdata), or that is tagged as a
// cluster's. Its labels are those the user data registers, and those its cluster autoscaler
// node-template tags declare; pods that select them run there. A group tagged as a cluster's
// whose user data is not read (computed at apply, or bootstrapped another way) may carry any
// label. A group with neither is not a node group. src is the launch template or launch
// configuration, nil when there is none.
func (c *mapContext) selfManagedNode(r *parser.Resource, tags []asgTag, src *view) {
	tagged, kops, caLabels, caTaints := clusterTags(r, tags) // propagated or not
	var b bootTexts
	if src != nil {
		b = bootTextsOf(src, strings.TrimSuffix(src.path, "."), "user data", awsUserData)
	}
	node, read := c.readBootNode(r, b)
	switch {
	case read:
		c.setBootNode(r, node, b, "a self-managed node group: its nodes join", caLabels, caTaints)
	case tagged:
		nl := &parser.NodeLabels{Labels: map[string]string{}, Taints: caTaints}
		maps.Copy(nl.Labels, caLabels)
		nl.Partial, nl.TaintsUnknown = !kops, !kops
		switch {
		case kops:
			r.Note("a kops instance group: its nodes carry the labels and taints its cluster autoscaler tags name (kops tags the group with the instance group's nodeLabels and taints, which its nodes register with)")
		case b.declared() && len(b.sources) == 0:
			r.Note("a self-managed node group (tagged as a cluster's): its user data is known only at apply, so the labels and taints its nodes register with are not known")
		case b.declared():
			r.Note("a self-managed node group (tagged as a cluster's): its user data does not bootstrap the node in a way gpuguard reads (bootstrap.sh, nodeadm, Bottlerocket, k3s, RKE2, kubeadm join), so the labels and taints its nodes register with are not known")
		default:
			r.Note("a self-managed node group (tagged as a cluster's) without user data gpuguard reads: the labels and taints its nodes register with are not known")
		}
		r.NodeLabels = nl
	}
}

// bootNode makes a Compute Engine instance group or instance, or an Azure scale set or virtual
// machine, a node group when the texts it boots with join it to a Kubernetes cluster as a k3s,
// RKE2 or kubeadm node: its labels and taints are those the texts register it with. group says
// whether r is a group of instances (else one instance).
func (c *mapContext) bootNode(r *parser.Resource, b bootTexts, group bool) {
	node, read := c.readBootNode(r, b)
	if !read {
		return
	}
	how := "a self-managed Kubernetes node: it joins"
	if group {
		how = "a self-managed node group: its nodes join"
	}
	c.setBootNode(r, node, b, how, nil, nil)
}

// setBootNode sets a node group's labels and taints: those the node its boot texts b register
// (node), over labels and taints another source declares (a cluster autoscaler's tags). how
// opens the note that says so.
func (c *mapContext) setBootNode(r *parser.Resource, node userdata.Node, b bootTexts, how string, labels map[string]string, taints []parser.Taint) {
	nl := &parser.NodeLabels{Labels: map[string]string{}}
	maps.Copy(nl.Labels, labels)
	for k, v := range node.Labels {
		if had, ok := labels[k]; ok && had != v {
			r.Note("its cluster autoscaler tag says the nodes' label %s is %q, but their user data registers %q: the user data's is used", k, had, v)
		}
		nl.Labels[k] = v
	}
	nl.Taints = node.Taints
	for _, t := range taints {
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
	r.Note("%s the cluster%s with the labels and taints %s registers in %s", how, cluster, node.How(), b.where())
	switch {
	case node.LabelsUnknown || node.TaintsUnknown:
		r.Note("some labels or taints in %s are computed at boot: pods may select the group by labels not read here", b.where())
	case len(node.UnknownValues) == 1:
		r.Note("the value of the label %s in %s is computed at boot: a pod that selects any value of it may run on the group", node.UnknownValues[0], b.where())
	case len(node.UnknownValues) > 1:
		r.Note("the values of the labels %s in %s are computed at boot: a pod that selects any value of them may run on the group", strings.Join(node.UnknownValues, ", "), b.where())
	}
	r.NodeLabels = nl
	if node.Settings != nil { // Bottlerocket's, decoded once
		d, set, err := node.Settings.DevicePlugin()
		c.bottlerocketSettings(r, d, set, err, b.addr)
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
	node, ok, err := userdata.ReadAll(userdata.Source{Name: "user_data", Text: text})
	if err != nil {
		c.bootTextError(ltAddr, err)
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
