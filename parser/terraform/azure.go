package terraform

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

func init() {
	register("azurerm_linux_virtual_machine", mapAzureVM)
	register("azurerm_windows_virtual_machine", mapAzureVM)
	register("azurerm_linux_virtual_machine_scale_set", mapAzureScaleSet)
	register("azurerm_windows_virtual_machine_scale_set", mapAzureScaleSet)
	register("azurerm_orchestrated_virtual_machine_scale_set", mapAzureScaleSet)
	register("azurerm_kubernetes_cluster", mapAKSCluster)
	register("azurerm_kubernetes_cluster_node_pool", mapAKSNodePool)
	register("azurerm_machine_learning_compute_cluster", mapAzureMLCluster)
	register("azurerm_machine_learning_compute_instance", mapAzureMLInstance)
	register("azurerm_container_app_environment", mapContainerAppGPUProfiles)
	register("azurerm_batch_pool", mapAzureBatchPool)
	register("azurerm_virtual_machine", mapAzureVM)
	register("azurerm_virtual_machine_scale_set", mapAzureScaleSet)
}

// mapContainerAppGPUProfiles lists the GPU workload profiles of an Azure Container Apps
// environment: dedicated ones (NC24-A100, ...) keep minimum_count instances, serverless ones
// (Consumption-GPU-...) scale to zero. Their prices are not in the catalog, so each is listed
// unpriced with that reason rather than left out as GPU-less.
// https://learn.microsoft.com/azure/container-apps/workload-profiles-overview
func mapContainerAppGPUProfiles(c *mapContext) []*parser.Resource {
	var out []*parser.Resource
	for i, wp := range (&view{obj: c.inst.value}).blocks("workload_profile") {
		typ, _ := wp.str("workload_profile_type")
		if !strings.Contains(strings.ToUpper(typ), "GPU") && !strings.HasPrefix(strings.ToUpper(typ), "NC") {
			continue
		}
		key := fmt.Sprintf("workload_profile[%d]", i)
		if name, ok := wp.str("name"); ok {
			key = indexedAddress("workload_profile", name)
		}
		r, w := c.resource(parser.Azure, c.inst.addr+"."+key)
		azureCommon(r, w)
		if strings.HasPrefix(strings.ToLower(typ), "consumption") {
			r.Quantity = 0
			r.Note("serverless GPU profile %s: billed per second while replicas run, scales to zero", typ)
		} else {
			n, _ := wp.num("minimum_count")
			r.Quantity = n
			unit := "instances"
			if n == 1 {
				unit = "instance"
			}
			r.Note("dedicated GPU profile %s: %d %s always on (minimum_count)", typ, n, unit)
		}
		r.AddUnresolved("price", fmt.Sprintf("Azure Container Apps workload profile %s: its prices are not in gpuguard's catalog", typ))
		out = append(out, r)
	}
	return out
}

// azureCommon reads location (normalized: "East US" is eastus) and tags.
func azureCommon(r *parser.Resource, w *view) {
	if loc, ok := w.str("location"); ok {
		r.Region = parser.NormalizeRegion(loc)
	}
	applyTags(r, w.strMap("tags"))
}

func azurePriority(r *parser.Resource, w *view, path ...any) {
	p, ok := w.str(path...)
	if !ok {
		return
	}
	switch strings.ToLower(p) {
	case "spot":
		r.PurchaseOption = parser.Spot
	case "lowpriority", "low":
		r.PurchaseOption = parser.Spot
		r.Note("low-priority capacity is priced at spot rates")
	}
}

// windowsNote says that a Windows VM's license is not in the price: the Windows resource types,
// the deprecated types that are Windows by their os_profile_windows_config block, and ARM bodies
// (azapi) with an osProfile.windowsConfiguration.
func windowsNote(r *parser.Resource, w *view) {
	if runsWindows(r, w) {
		r.Note("Windows VM: catalog prices are Linux; the Windows license is extra")
	}
}

// runsWindows says whether an Azure VM or scale set runs Windows: a Windows resource type, or a
// Windows OS configuration (the deprecated types' os_profile_windows_config, a Flexible scale
// set's os_profile.windows_configuration, an ARM body's osProfile.windowsConfiguration). A
// dynamic block that makes none is not one.
func runsWindows(r *parser.Resource, w *view) bool {
	q := w.quiet()
	for _, path := range [][]any{
		{"os_profile_windows_config"},
		{"os_profile", "windows_configuration"},
		{"properties", "osProfile", "windowsConfiguration"},
		{"properties", "virtualMachineProfile", "osProfile", "windowsConfiguration"},
	} {
		if len(q.blocks(path...)) > 0 {
			return true
		}
	}
	return strings.Contains(r.Type, "windows")
}

// mapAzureVM reads a VM's size: size, or vm_size on the deprecated azurerm_virtual_machine
// (still common in older configurations).
func mapAzureVM(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Azure, c.inst.addr)
	attr := "size"
	if r.Type == "azurerm_virtual_machine" {
		attr = "vm_size"
	}
	size, found := w.str(attr)
	r.InstanceType = size
	requireInstanceType(r, attr, found)
	azurePriority(r, w, "priority")
	azureCommon(r, w)
	windowsNote(r, w)
	c.azureTaker(r, w)
	c.azureBootNode(r, w, false)
	return []*parser.Resource{r}
}

// azureBootNode reads the Kubernetes node a Linux VM's (or scale set's) custom data boots
// (bootNode): custom_data, or os_profile's on the deprecated types and Flexible scale sets.
// Windows machines do not run cloud-init.
func (c *mapContext) azureBootNode(r *parser.Resource, w *view, group bool) {
	if runsWindows(r, w) {
		return
	}
	attrs := azureCustomData
	if w.has("os_profile") {
		attrs = azureOSCustomData
	}
	b := bootTextsOf(w, c.inst.addr, "custom data", attrs)
	b.add(c.azureScriptExtensions(w, group)...)
	c.bootNode(r, b, group)
}

// mapAzureScaleSet reads a scale set's size and instances: sku (sku_name when orchestrated) and
// instances, or on the deprecated azurerm_virtual_machine_scale_set a sku block's name and
// capacity.
func mapAzureScaleSet(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Azure, c.inst.addr)
	size, count := []any{"sku"}, []any{"instances"}
	switch r.Type {
	case "azurerm_orchestrated_virtual_machine_scale_set":
		size = []any{"sku_name"}
		if !w.has("sku_name") {
			// A Flexible scale set without a SKU creates no VMs of its own: the VMs attached to
			// it (virtual_machine_scale_set_id) are priced as what they are.
			return nil
		}
	case "azurerm_virtual_machine_scale_set":
		size, count = []any{"sku", "name"}, []any{"sku", "capacity"}
	}
	name, found := w.str(size...)
	r.InstanceType = name
	requireInstanceType(r, pathString("", size), found)
	r.Quantity = 0
	if n, ok := w.num(count...); ok {
		r.Quantity = n
	} else if !w.has(count...) {
		r.Note("%s is not set: the scale set starts empty", pathString("", count))
	}
	c.azureAutoscale(r)
	azurePriority(r, w, "priority")
	if mix := w.blocks("priority_mix"); len(mix) > 0 {
		azureSpotMix(r, mix[0], []any{"base_regular_count"}, []any{"regular_percentage_above_base"})
	}
	azureCommon(r, w)
	windowsNote(r, w)
	c.azureTaker(r, w)
	c.azureBootNode(r, w, true)
	return []*parser.Resource{r}
}

// azureSpotMix applies a Flexible scale set's Spot Priority Mix to a Spot scale set: its first
// base VMs run at Regular priority (on-demand), then pct percent of the rest; the others are
// Spot (https://learn.microsoft.com/azure/virtual-machine-scale-sets/spot-priority-mix, read
// 2026-11-23). Both default to 0, as azurerm's priority_mix block and ARM's priorityMixPolicy
// leave them. gpuguard rounds the Regular share up, the costlier side, as it does for AWS's
// mixed instances policy. The scale set's maximum, where it has one, is split the same way. A
// Regular scale set ignores the mix: all its VMs are Regular.
func azureSpotMix(r *parser.Resource, mix *view, basePath, pctPath []any) {
	if r.PurchaseOption != parser.Spot {
		return
	}
	base, _ := mix.num(basePath...)
	pct, _ := mix.num(pctPath...)
	pct = min(pct, 100)
	regular := parser.MixedOnDemand(r.Quantity, base, pct)
	if m := r.ScaleMax; m != nil {
		m.SpotQuantity = m.Quantity - parser.MixedOnDemand(m.Quantity, base, pct)
	}
	if base == 0 && pct == 0 {
		return // every VM is Spot
	}
	r.PurchaseOption, r.SpotQuantity = parser.OnDemand, r.Quantity-regular
	r.Note("Spot Priority Mix: %d Regular (on-demand), %d Spot (base_regular_count %d, then %d%% Regular)", regular, r.SpotQuantity, base, pct)
}

// azureAutoscale applies the autoscale setting that targets the scale set being mapped: an
// azurerm_monitor_autoscale_setting whose target_resource_id names it, else an azapi_resource
// of ARM type Microsoft.Insights/autoscaleSettings whose body's properties.targetResourceUri
// does. The autoscaler keeps it at least at the smallest capacity minimum of its profiles (the
// priced floor, when its instances are fewer) and scales it up to the largest capacity maximum.
// A disabled setting does not scale: azurerm's enabled = false, and an ARM setting that does not
// set enabled to true (ARM's default is false). Recurring profiles are replayed by time
// (azureSchedule).
func (c *mapContext) azureAutoscale(r *parser.Resource) {
	type setting struct {
		addr string
		body *view
		f    *autoscaleFields
	}
	var settings []setting
	for _, inst := range c.referrers("azurerm_monitor_autoscale_setting", "target_resource_id") {
		settings = append(settings, setting{inst.addr, &view{obj: inst.value}, &azurermAutoscale})
	}
	for _, inst := range c.referrers("azapi_resource", "body", "properties", "targetResourceUri") {
		t, _ := (&view{obj: inst.value}).quiet().str("type")
		if typ, _ := armType(t); typ == "microsoft.insights/autoscalesettings" {
			settings = append(settings, setting{inst.addr, &view{obj: azapiBody(inst.value)}, &armAutoscale})
		}
	}
	for _, s := range settings {
		a, f := s.body, s.f
		on, ok := a.boolean(f.enabled...)
		switch {
		case ok && !on:
			r.Note("%s is disabled: the scale set keeps its size", s.addr)
			return
		case !ok && f.disabledUnlessSet && !a.has(f.enabled...):
			r.Note("%s does not set %s: ARM's default is false, and the scale set keeps its size", s.addr, pathString("body.", f.enabled))
			return
		}
		profiles := a.blocks(f.profiles...)
		lo, hi := -1, 0
		for _, p := range profiles {
			if n, ok := p.num("capacity", "minimum"); ok && (lo < 0 || n < lo) {
				lo = n
			}
			if n, ok := p.num("capacity", "maximum"); ok && n > hi {
				hi = n
			}
		}
		if hi > 0 {
			r.SetScaleMax(hi, "capacity maximum of "+s.addr)
		}
		if azureSchedule(r, s.addr, profiles, f) {
			return
		}
		if lo > r.Quantity {
			r.Quantity = lo
			r.Note("autoscaled by %s: priced at its capacity minimum (%d)", s.addr, lo)
		}
		return
	}
}

// aksPoolFields names an AKS pool's fields: azurerm's, or ARM's (an azapi_resource's body).
type aksPoolFields struct {
	size, count, min, max, priority, taints string
	zones                                   []string // the attributes naming the pool's availability zones
	gpuInstance                             string   // the MIG profile the pool's GPUs are split into
	autoscale                               []string
	unsetCount                              string // the note when the count is not set
}

var azurermPool = aksPoolFields{size: "vm_size", count: "node_count", min: "min_count", max: "max_count", priority: "priority", taints: "node_taints", gpuInstance: "gpu_instance",
	zones:     []string{"zones", "availability_zones"}, // availability_zones before provider 3.0
	autoscale: []string{"auto_scaling_enabled", "enable_auto_scaling"}, unsetCount: "node_count is not set: priced at 1 node"}

// armPool is ARM's agent pool (https://learn.microsoft.com/rest/api/aks/agent-pools: count
// defaults to 1).
var armPool = aksPoolFields{size: "vmSize", count: "count", min: "minCount", max: "maxCount", priority: "scaleSetPriority", taints: "nodeTaints", gpuInstance: "gpuInstanceProfile",
	zones:     []string{"availabilityZones"},
	autoscale: []string{"enableAutoScaling"}, unsetCount: "count is not set: ARM's default of 1 node"}

// aksPool reads vm_size and the node count of an AKS pool: node_count, or min_count when the
// pool autoscales without a node_count.
func aksPool(r *parser.Resource, pool *view, f aksPoolFields) {
	size, found := pool.str(f.size)
	r.InstanceType = size
	requireInstanceType(r, pool.path+f.size, found)
	autoscale, maybe := false, false
	for _, a := range f.autoscale {
		if b, ok := pool.boolean(a); ok && b {
			autoscale = true
		} else if !ok && pool.has(a) {
			maybe = true // known only at apply
		}
	}
	if n, ok := pool.quiet().num(f.max); ok && autoscale {
		r.SetScaleMax(n, pool.path+f.max)
	} else if autoscale || maybe && pool.has(f.max) {
		why := pool.maxWhy(f.max)
		switch {
		case why != "":
		case !autoscale:
			why = "whether the pool autoscales is known only after apply"
		default:
			why = "it is not set"
		}
		unreadMax(r, pool.path+f.max, why)
	}
	switch {
	case pool.has(f.count):
		if n, ok := pool.num(f.count); ok {
			r.Quantity = n
		}
	case autoscale && pool.has(f.min):
		if n, ok := pool.num(f.min); ok {
			r.Quantity = n
			r.Note("autoscaled: priced at %s (%d)", f.min, n)
		}
	default:
		r.Note("%s", f.unsetCount)
	}
	azurePriority(r, pool, f.priority)
	// A MIG GPU-instance profile (MIG1g ... MIG7g) splits each GPU into slices of that compute
	// share. https://learn.microsoft.com/azure/aks/gpu-multi-instance
	if gi, ok := pool.quiet().str(f.gpuInstance); ok && gi != "" {
		r.GPUPartition = gi
		r.Note("GPUs are partitioned into MIG slices (%s %s): a workload gets one slice per copy", f.gpuInstance, gi)
	}
}

// aksZones names the zones an AKS pool's nodes run in as AKS labels them (topology.kubernetes.io/zone):
// the pool's region and each availability zone it lists, eastus2-1
// (https://learn.microsoft.com/azure/aks/availability-zones, "Verify node distribution across
// zones"). A pool that lists none is left unnamed: its nodes are not in a zone, and what their
// label then says is not read. Call it once the pool's region is known.
func aksZones(r *parser.Resource, pool *view, f aksPoolFields) {
	if r.NodeLabels == nil || r.Region == "" {
		return
	}
	for _, attr := range f.zones {
		zs, ok := pool.quiet().strList(attr)
		if !ok || len(zs) == 0 {
			continue
		}
		r.NodeLabels.Zones = parser.AKSZoneLabels(r.Region, zs)
		return
	}
}

func mapAKSCluster(c *mapContext) []*parser.Resource {
	w := &view{obj: c.inst.value}
	pools := w.blocks("default_node_pool")
	if len(pools) == 0 {
		return nil
	}
	r, cv := c.resource(parser.Azure, c.inst.addr+".default_node_pool")
	pool := pools[0]
	pool.res, pool.path = r, "default_node_pool."
	aksPool(r, pool, azurermPool)
	r.NodeLabels = nodeLabels(pool, parser.Azure, nameOf(pool, "name", ""), "node_labels")
	aksTaints(r.NodeLabels, pool, azurermPool)
	aksDriver(r, pool)
	azureCommon(r, cv)
	aksZones(r, pool, azurermPool)
	applyTags(r, pool.strMap("tags"))
	return []*parser.Resource{r}
}

func mapAKSNodePool(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Azure, c.inst.addr)
	aksPool(r, w, azurermPool)
	r.NodeLabels = nodeLabels(w, parser.Azure, nameOf(w, "name", ""), "node_labels")
	aksTaints(r.NodeLabels, w, azurermPool)
	aksDriver(r, w)
	// A node pool has no location of its own: it runs where its cluster does.
	parentLocation(r, c.referenced(w, "azurerm_kubernetes_cluster", "kubernetes_cluster_id"), "kubernetes_cluster_id", "cluster")
	aksZones(r, w, azurermPool)
	applyTags(r, w.strMap("tags"))
	c.azureTaker(r, w)
	return []*parser.Resource{r}
}

// azureMLLocation reads location, else the location of the workspace the resource references.
func (c *mapContext) azureMLLocation(r *parser.Resource, w *view) {
	if loc, ok := w.str("location"); ok {
		r.Region = parser.NormalizeRegion(loc)
		return
	}
	if inst := c.referenced(w, "azurerm_machine_learning_workspace", "machine_learning_workspace_id"); inst != nil {
		wv := &view{obj: inst.value, res: r, path: inst.addr + "."}
		if loc, ok := wv.str("location"); ok {
			r.Region = parser.NormalizeRegion(loc)
		}
	}
}

func mapAzureMLCluster(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Azure, c.inst.addr)
	size, found := w.str("vm_size")
	r.InstanceType = size
	requireInstanceType(r, "vm_size", found)
	r.Quantity = 0
	if n, ok := w.num("scale_settings", "min_node_count"); ok {
		r.Quantity = n
	}
	if max, ok := w.quiet().num("scale_settings", "max_node_count"); ok {
		r.Note("scales between %d and %d nodes: priced at the minimum", r.Quantity, max)
		r.SetScaleMax(max, "scale_settings.max_node_count")
	} else if why := w.maxWhy("scale_settings", "max_node_count"); why != "" {
		unreadMax(r, "scale_settings.max_node_count", why)
	}
	azurePriority(r, w, "vm_priority")
	c.azureMLLocation(r, w)
	applyTags(r, w.strMap("tags"))
	return []*parser.Resource{r}
}

func mapAzureMLInstance(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Azure, c.inst.addr)
	size, found := w.str("virtual_machine_size")
	r.InstanceType = size
	requireInstanceType(r, "virtual_machine_size", found)
	c.azureMLLocation(r, w)
	applyTags(r, w.strMap("tags"))
	return []*parser.Resource{r}
}

// mapAzureBatchPool prices an Azure Batch pool's nodes: Batch itself is free, its pools pay for
// their VMs. A fixed-scale pool runs target_dedicated_nodes at the VM's price and
// target_low_priority_nodes as Spot (low-priority nodes run on Spot capacity). An auto-scale
// pool's formula decides its nodes at run time: it is priced at none, with a note.
// https://learn.microsoft.com/azure/batch/batch-spot-vms
// https://registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/batch_pool
func mapAzureBatchPool(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Azure, c.inst.addr)
	size, found := w.str("vm_size")
	r.InstanceType = size
	requireInstanceType(r, "vm_size", found)
	batchScale(r, w, batchFields{fixed: "fixed_scale", auto: "auto_scale", dedicated: "target_dedicated_nodes", low: "target_low_priority_nodes"})
	// A pool runs where its Batch account is: the account it refers to, or the one of its name.
	inst := c.referenced(w, "azurerm_batch_account", "account_name")
	if inst == nil {
		if name, ok := w.str("account_name"); ok {
			inst = c.byAttribute("azurerm_batch_account", "name", name)
		}
	}
	parentLocation(r, inst, "account_name", "Batch account")
	applyTags(r, w.strMap("metadata"))
	return []*parser.Resource{r}
}

// batchFields names a Batch pool's scale fields: azurerm's, or ARM's under
// properties.scaleSettings (an azapi_resource body).
type batchFields struct {
	path                        []any
	fixed, auto, dedicated, low string
}

// batchScale reads a Batch pool's nodes: a fixed scale's dedicated nodes at the VM's price and
// low-priority nodes as Spot; an auto scale's formula decides at run time, so none.
func batchScale(r *parser.Resource, w *view, f batchFields) {
	field := func(names ...any) []any { return append(slices.Clone(f.path), names...) }
	switch {
	case w.has(field(f.fixed)...):
		dedicated, _ := w.num(field(f.fixed, f.dedicated)...)
		low, _ := w.num(field(f.fixed, f.low)...)
		r.Quantity, r.SpotQuantity = dedicated+low, low
		if dedicated == 0 && low > 0 {
			r.PurchaseOption, r.SpotQuantity = parser.Spot, 0
		}
	case w.has(field(f.auto)...):
		r.Quantity = 0
		r.Note("%s: its formula sets the nodes while jobs run; priced at none (set usage in the config for the hours it runs)", f.auto)
	default:
		r.Quantity = 0
		r.Note("no %s or %s: the pool has no nodes", f.fixed, f.auto)
	}
}

// parentLocation sets the region of a resource that has no location of its own and runs where
// another does (an AKS node pool's cluster, a Batch pool's account), or says why it cannot. A
// parent managed elsewhere is common (clusters in their own stack, pools in the teams'), so it
// leaves the region to the default (config or --region) rather than making the pool unresolved.
func parentLocation(r *parser.Resource, parent *instance, attr, what string) {
	if parent == nil {
		r.RegionUnknown = "its " + what + " (" + attr + ") is not in this configuration, so its location is unknown"
		return
	}
	pv := &view{obj: parent.value, res: r, path: parent.addr + "."}
	if loc, ok := pv.str("location"); ok {
		r.Region = parser.NormalizeRegion(loc)
	}
}
