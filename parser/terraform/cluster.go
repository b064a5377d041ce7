package terraform

import (
	"cmp"
	"fmt"
	"maps"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// The region of the cluster that Kubernetes objects declared through Terraform run in.
//
// A Deployment's manifest seldom names its region: the cluster does. When the Kubernetes
// objects come from Terraform (kubernetes_manifest, kubectl_manifest, the typed workloads,
// helm_release), the configuration usually says which cluster that is: the kubernetes, kubectl
// or helm provider's host and credentials are read from an aws_eks_cluster,
// google_container_cluster or azurerm_kubernetes_cluster (or their data sources, or an
// azapi_resource of an AKS cluster), and that
// cluster has a region. A workload whose manifests name no region takes it, in this order:
//  1. the cluster its provider configuration reads from;
//  2. else the only cluster the configuration declares (or several, all in one region);
//  3. else, for a workload whose node names its cloud (a Karpenter NodePool, a GKE accelerator
//     label), that cloud's provider region in the module that declares it.
//
// A cluster on another cloud than the workload's node is not its cluster's region: step 3
// decides then. Each region taken says where it came from in a note.

// clusterTypes are the managed Kubernetes clusters whose region a workload takes, by resource
// (and data source) type.
var clusterTypes = map[string]string{
	"aws_eks_cluster":            parser.AWS,
	"aws_eks_cluster_auth":       parser.AWS, // data source only: the token of an EKS cluster
	"google_container_cluster":   parser.GCP,
	"azurerm_kubernetes_cluster": parser.Azure,
}

// clusterCloud answers whether a resource (or data source) is a managed Kubernetes cluster, and
// its cloud: one of clusterTypes, or an azapi_resource whose ARM type, written as a literal, is
// an AKS managed cluster (as Azure Verified Modules' AKS module declares it).
func clusterCloud(d *resourceDecl) (string, bool) {
	if d.typ == "azapi_resource" {
		if t, _ := armType(azapiLiteralType(d.body)); t == "microsoft.containerservice/managedclusters" {
			return parser.Azure, true
		}
		return "", false
	}
	cloud, ok := clusterTypes[d.typ]
	return cloud, ok
}

// clusterPlace is a cluster's cloud and region, and what they were read from; inst is the
// cluster when the place is one cluster's.
type clusterPlace struct {
	cloud, region, from string
	inst                *instance
}

// clusterOf returns the place of the cluster this instance's Kubernetes provider configuration
// reads its host or credentials from: a resource's computed attributes, through locals and
// module outputs, or a data source's.
func (c *mapContext) clusterOf() (clusterPlace, bool) {
	local, key := c.kubernetesProvider()
	pv := c.providerConfig(local)
	if pv == nil {
		return clusterPlace{}, false
	}
	for _, addr := range computedRefs(pv.obj) {
		inst, ok := c.ev.instances[addr]
		if !ok && len(c.ev.byResource[addr]) > 0 {
			inst, ok = c.ev.byResource[addr][0], true // aws_eks_cluster.x[0] read as aws_eks_cluster.x
		}
		if ok {
			if p, ok := c.ev.placeOfCluster(inst); ok {
				p.from = fmt.Sprintf("%s, the cluster that provider %q connects to", addr, key)
				return p, true
			}
		}
	}
	for _, d := range dataRefs(pv.obj) {
		decl := d.mod.cfg.data[d.addr]
		if decl == nil {
			continue
		}
		inst := &instance{addr: d.mod.prefix + "data." + d.addr, decl: decl, mod: d.mod, value: d.mod.evalBody(decl.body, nil, false)}
		if p, ok := c.ev.placeOfCluster(inst); ok {
			p.from = fmt.Sprintf("%s, the cluster that provider %q connects to", inst.addr, key)
			return p, true
		}
	}
	return clusterPlace{}, false
}

// kubernetesProvider names the provider that applies this instance's Kubernetes objects: its
// local name (kubernetes, kubectl, helm: the type's prefix) and the configuration's key
// (helm.gke when the resource names an alias).
func (c *mapContext) kubernetesProvider() (local, key string) {
	local, _, _ = strings.Cut(c.inst.decl.typ, "_")
	return local, cmp.Or(c.inst.decl.provider, local)
}

// dataRefs returns the data sources an unknown value was read from, once each.
func dataRefs(v cty.Value) []dataMark { return marksOf[dataMark](v) }

// placeOfCluster returns the cloud and region of a cluster instance (or data source), when it
// is one and its region is known.
func (ev *evaluation) placeOfCluster(inst *instance) (clusterPlace, bool) {
	cloud, ok := clusterCloud(inst.decl)
	if !ok {
		return clusterPlace{}, false
	}
	c := &mapContext{inst: inst, ev: ev}
	w := &view{obj: inst.value}
	var region string
	switch cloud {
	case parser.AWS:
		if pv := c.providerConfig("aws"); pv != nil {
			region, _ = pv.str("region")
		}
	case parser.GCP:
		switch loc, ok := w.str("location"); {
		case ok:
			region, _ = gcpRegionOf(loc)
		case w.has("location"):
			return clusterPlace{}, false // set, but known only at apply: not the provider's
		default:
			region = c.gcpProviderLocation(nil)
		}
	case parser.Azure:
		region, _ = w.str("location")
	}
	if region == "" {
		return clusterPlace{}, false
	}
	return clusterPlace{cloud: cloud, region: parser.NormalizeRegion(region), inst: inst}, true
}

// onlyCluster returns the place of the clusters the configuration declares, when there are
// some and they all share one.
func (ev *evaluation) onlyCluster() (clusterPlace, bool) {
	// Clusters are not mapped: evaluate those nothing referred to yet (a plan holds them all).
	for _, mi := range ev.modules {
		for _, d := range mi.cfg.resources {
			if _, ok := clusterCloud(d); ok {
				(&mapContext{inst: &instance{decl: d, mod: mi}, ev: ev}).instancesOf(d.typ)
			}
		}
	}
	var found clusterPlace
	var addrs []string
	for _, inst := range ev.order {
		if _, ok := clusterCloud(inst.decl); !ok {
			continue
		}
		p, ok := ev.placeOfCluster(inst)
		if !ok || found.region != "" && (p.cloud != found.cloud || p.region != found.region) {
			return clusterPlace{}, false // a cluster whose region is unknown, or two regions
		}
		found = p
		addrs = append(addrs, inst.addr)
	}
	if found.region == "" {
		return clusterPlace{}, false
	}
	if len(addrs) == 1 {
		found.from = addrs[0] + ", the only cluster in the configuration"
	} else {
		found.inst = nil
		found.from = fmt.Sprintf("the configuration's %d clusters (%s), all in %s", len(addrs), strings.Join(addrs, ", "), found.region)
	}
	return found, true
}

// cloudRegion returns the region of the cloud's provider configuration in this instance's
// module, for a workload whose node names its cloud.
func (c *mapContext) cloudRegion(cloud string) (clusterPlace, bool) {
	var region, from string
	switch cloud {
	case parser.AWS:
		if pv := c.providerConfig("aws"); pv != nil {
			region, _ = pv.str("region")
			from = `provider "aws"`
		}
	case parser.GCP:
		region, from = c.gcpProviderLocation(nil), `provider "google"`
	}
	if region == "" {
		return clusterPlace{}, false
	}
	return clusterPlace{cloud: cloud, region: parser.NormalizeRegion(region), from: from}, true
}

// manifestPlaces finds, once per module and provider configuration, where the Kubernetes
// objects declared through Terraform run.
type manifestPlaces struct {
	ev      *evaluation
	only    *clusterPlace // onlyCluster's answer once asked; a found place has a region
	cluster map[providerUse]clusterPlace
}

type providerUse struct {
	mod *moduleInstance
	key string // the provider block's key: kubernetes, helm.gke
}

// connected is the place of the cluster this instance's provider configuration connects to
// (clusterOf), once per module and provider.
func (m *manifestPlaces) connected(c *mapContext) clusterPlace {
	_, key := c.kubernetesProvider()
	use := providerUse{c.inst.mod, key}
	if m.cluster == nil {
		m.cluster = map[providerUse]clusterPlace{}
	}
	connected, done := m.cluster[use]
	if !done {
		connected, _ = c.clusterOf()
		m.cluster[use] = connected
	}
	return connected
}

// onlyOne is onlyCluster's answer, asked once.
func (m *manifestPlaces) onlyOne() clusterPlace {
	if m.only == nil {
		p, _ := m.ev.onlyCluster()
		m.only = &p
	}
	return *m.only
}

// clusterFor returns the cluster this instance's Kubernetes objects are applied to: the one its
// provider configuration connects to, else the configuration's only cluster; nil when neither
// is known.
func (m *manifestPlaces) clusterFor(c *mapContext) *instance {
	if p := m.connected(c); p.inst != nil {
		return p.inst
	}
	return m.onlyOne().inst
}

// place returns the region for a resource whose manifests name none, and where it came from.
func (m *manifestPlaces) place(c *mapContext, r *parser.Resource) (clusterPlace, bool) {
	connected := m.connected(c)
	cloud := r.Provider
	if cloud == parser.Unknown {
		cloud = ""
	}
	fits := func(p clusterPlace) bool { return p.region != "" && (cloud == "" || cloud == p.cloud) }
	if fits(connected) {
		return connected, true
	}
	if connected.region == "" {
		if only := m.onlyOne(); fits(only) {
			return only, true
		}
	}
	if cloud != "" {
		return c.cloudRegion(cloud)
	}
	return clusterPlace{}, false
}

// groupName is a node group's name: known, or generated at apply, from a prefix when one is set.
type groupName struct {
	name, prefix string
	known        bool
}

// nameOf reads a node group's name from its name attribute, else its name-prefix attribute.
func nameOf(w *view, attr, prefixAttr string) groupName {
	q := w.quiet()
	if name, ok := q.str(attr); ok {
		return groupName{name: name, known: true}
	}
	// A name known only at apply may still be known to start with a prefix: a template such as
	// "${var.name}${substr(md5(uuid()), 0, 4)}" (Azure/aks's create-before-destroy pools).
	if v, ok := at(q.obj, attr); ok && !v.IsKnown() {
		v, _ = v.Unmark()
		if v.Type() == cty.String {
			if prefix := v.Range().StringPrefix(); prefix != "" {
				return groupName{prefix: prefix}
			}
		}
	}
	if prefixAttr != "" {
		if prefix, ok := q.str(prefixAttr); ok {
			return groupName{prefix: prefix}
		}
	}
	return groupName{}
}

// nodeLabels reads the Kubernetes labels on a node group's nodes: its name under the labels the
// cloud names groups by, and the labels it declares at labelsPath. Nothing read here makes the
// group unresolved: its labels only join it to the pods that select it.
func nodeLabels(w *view, provider string, name groupName, labelsPath ...any) *parser.NodeLabels {
	nl := &parser.NodeLabels{Labels: map[string]string{}}
	for _, k := range kubernetes.GroupNameLabels(provider) {
		switch {
		case name.known:
			nl.Labels[k] = name.name
		case name.prefix != "":
			if nl.Prefixes == nil {
				nl.Prefixes = map[string]string{}
			}
			nl.Prefixes[k] = name.prefix
		default:
			nl.Unknown = append(nl.Unknown, k)
		}
	}
	labels, unknown, partial := w.quiet().strMapUnknown(labelsPath...)
	maps.Copy(nl.Labels, labels)
	nl.Unknown, nl.Partial = append(nl.Unknown, unknown...), partial
	return nl
}

// taintEffects are Kubernetes' names for the effects the EKS and GKE providers write in
// capitals (aws_eks_node_group taint.effect, google_container_node_pool node_config.taint.effect).
var taintEffects = map[string]string{"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}

// taintBlocks reads a node group's taint blocks (key, value, effect: an EKS node group's taint,
// a GKE pool's node_config.taint). A block or a field known only at apply leaves the group's
// taints partly unknown. Like the labels, nothing here makes the group unresolved.
func taintBlocks(nl *parser.NodeLabels, w *view, path ...any) {
	q := w.quiet()
	if v, ok := at(q.obj, path...); !ok {
		return
	} else if !v.IsKnown() {
		nl.TaintsUnknown = true
		return
	}
	for _, b := range q.blocks(path...) {
		key, kok := b.str("key")
		effect, eok := b.str("effect")
		value, vok := b.str("value")
		if !kok || !eok || !vok && b.has("value") {
			nl.TaintsUnknown = true
			continue
		}
		nl.Taints = append(nl.Taints, parser.Taint{Key: key, Value: value, Effect: cmp.Or(taintEffects[strings.ToUpper(effect)], effect)})
	}
}

// aksTaints reads an AKS pool's taints, and its spot label (kubernetes.SetCapacity): node_taints
// ("key=value:Effect"), and those AKS adds itself:
//   - kubernetes.azure.com/scalesetpriority=spot:NoSchedule on a spot pool,
//     https://learn.microsoft.com/azure/aks/spot-node-pool;
//   - CriticalAddonsOnly=true:NoSchedule on a default pool with only_critical_addons_enabled
//     (the azurerm provider's azurerm_kubernetes_cluster documentation).
func aksTaints(nl *parser.NodeLabels, pool *view, f aksPoolFields) {
	q := pool.quiet()
	if list, ok := q.strList(f.taints); ok {
		for _, s := range list {
			spec, effect, ok := strings.Cut(s, ":")
			if !ok {
				continue // the API refuses it: terraform apply fails before any node starts
			}
			key, value, _ := strings.Cut(spec, "=")
			nl.Taints = append(nl.Taints, parser.Taint{Key: strings.TrimSpace(key), Value: strings.TrimSpace(value), Effect: strings.TrimSpace(effect)})
		}
	} else if q.has(f.taints) {
		nl.TaintsUnknown = true
	}
	if p, ok := q.str(f.priority); ok && strings.EqualFold(p, "Spot") {
		nl.Taints = append(nl.Taints, kubernetes.AKSSpotTaint)
		kubernetes.SetCapacity(nl, parser.Azure, kubernetes.CapacitySpot, true)
	} else if !ok && q.has(f.priority) {
		nl.TaintsUnknown = true
		kubernetes.SetCapacity(nl, parser.Azure, "", false)
	} else {
		kubernetes.SetCapacity(nl, parser.Azure, kubernetes.CapacityOnDemand, true)
	}
	if b, ok := q.boolean("only_critical_addons_enabled"); ok && b {
		nl.Taints = append(nl.Taints, parser.Taint{Key: "CriticalAddonsOnly", Value: "true", Effect: "NoSchedule"})
	} else if !ok && q.has("only_critical_addons_enabled") {
		nl.TaintsUnknown = true
	}
}

// migLayouts are the MIG layouts the configuration's own objects and GPU Operator releases
// declare, when one of its node groups names a layout (nil otherwise: the default layouts).
func (ev *evaluation) migLayouts(rs []*parser.Resource) kubernetes.MIGLayouts {
	named := false
	for _, r := range rs {
		if r.NodeLabels != nil && r.NodeLabels.Labels[kubernetes.LabelMIGConfig] != "" {
			named = true
			break
		}
	}
	if !named || len(ev.releases) == 0 && len(ev.manifests) == 0 {
		return nil
	}
	return kubernetes.MIGLayoutsOf(ev.manifestFiles(), ev.releases)
}
