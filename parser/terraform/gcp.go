package terraform

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

func init() {
	register("google_compute_instance", mapGCPInstance)
	register("google_compute_instance_from_template", mapGCPInstanceFromTemplate)
	register("google_compute_instance_group_manager", mapGCPInstanceGroupManager)
	register("google_compute_region_instance_group_manager", mapGCPInstanceGroupManager)
	register("google_container_node_pool", mapGKENodePool)
	register("google_container_cluster", mapGKECluster)
	register("google_workbench_instance", mapWorkbench)
	register("google_notebooks_instance", mapWorkbench)
}

// mapWorkbench reads a Vertex AI Workbench instance (google_workbench_instance: gce_setup with
// machine_type and accelerator_configs) or a legacy user-managed notebook
// (google_notebooks_instance: machine_type and accelerator_config): a VM that runs until someone
// stops it, the classic GPU left on over the weekend.
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/workbench_instance
func mapWorkbench(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	setup := w
	if gs := w.blocks("gce_setup"); len(gs) > 0 {
		setup = gs[0]
	}
	mt, found := setup.str("machine_type")
	r.InstanceType = lastSegment(mt)
	requireInstanceType(r, "machine_type", found)
	accels := append(setup.blocks("accelerator_configs"), setup.blocks("accelerator_config")...)
	gcpAccelerators(r, accels, "type", "core_count", "accelerator config", acceleratorFromEnum)
	if idle, ok := setup.str("metadata", "idle-timeout-seconds"); ok && idle != "" {
		r.Note("shuts down after %s idle seconds: priced for the full month, an upper bound", idle)
	}
	c.gcpPlace(r, w, "location")
	return []*parser.Resource{r}
}

// gkeRegionalZones is how many zones a regional GKE cluster spreads a node pool over when
// node_locations does not say: GKE's default for regional clusters is three zones.
// https://cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters
const gkeRegionalZones = 3

// lastSegment returns the last path segment of a GCP resource URL ("zones/x/machineTypes/a2-highgpu-1g").
func lastSegment(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// machineIncludesGPUs reports whether a GCP machine type comes with its GPUs (A2, A3, A4, G2,
// G4): a guest_accelerator block on it must not be priced again.
func machineIncludesGPUs(machineType string) bool {
	return parser.IsGPUInstanceType(parser.GCP, machineType)
}

// acceleratorFromEnum turns the accelerator enum of the Notebooks and Vertex AI APIs
// (NVIDIA_TESLA_T4, NVIDIA_L4) into Compute Engine's name (nvidia-tesla-t4, nvidia-l4).
func acceleratorFromEnum(t string) string {
	return strings.ReplaceAll(strings.ToLower(t), "_", "-")
}

// gcpAccelerators adds the GPUs of accelerator blocks (a type attribute, and a count attribute
// defaulting to 1) to r, named by name; a machine type that includes its GPUs (A2, G2, ...) keeps none, said
// in a note naming what (the block) was not priced again.
func gcpAccelerators(r *parser.Resource, blocks []*view, typeAttr, countAttr, what string, name func(string) string) {
	for _, b := range blocks {
		t, ok := b.str(typeAttr)
		n, okn := b.num(countAttr)
		if !okn && !b.has(countAttr) {
			n, okn = 1, true
		}
		if ok && okn && n > 0 {
			r.Accelerators = append(r.Accelerators, parser.Accelerator{Type: name(t), Count: n})
		}
	}
	if len(r.Accelerators) > 0 && machineIncludesGPUs(r.InstanceType) {
		r.Note("%s includes its GPUs: the %s is not priced again", r.InstanceType, what)
		r.Accelerators = nil
	}
}

// gcpMachine reads machine_type, guest_accelerator and scheduling from a view (an instance, a
// template or a node_config block).
func (c *mapContext) gcpMachine(r *parser.Resource, w *view) {
	mt, found := w.str("machine_type")
	r.InstanceType = lastSegment(mt)
	requireInstanceType(r, "machine_type", found)
	gcpAccelerators(r, w.blocks("guest_accelerator"), "type", "count", "guest_accelerator block", lastSegment)
	for _, ga := range w.blocks("guest_accelerator") {
		if p, ok := ga.str("gpu_partition_size"); ok && p != "" {
			r.GPUPartition = p
			r.Note("GPUs are partitioned into MIG slices of %s (gpu_partition_size): a workload gets one slice per copy", p)
		}
		for _, sc := range ga.blocks("gpu_sharing_config") {
			if n, ok := sc.num("max_shared_clients_per_gpu"); ok && n > 1 {
				r.GPUSharedClients = n
				r.GPUSharingStrategy, _ = sc.quiet().str("gpu_sharing_strategy")
			}
		}
	}
	gcpScheduling(r, w)
	if f, ok := w.quiet().boolean("flex_start"); ok && f { // node_config of a GKE pool
		r.OwnPrice = parser.FlexStart()
		r.Note("flex-start nodes: GKE provisions them once capacity is available, for at most seven days each")
	}
	// node_config uses spot / preemptible booleans.
	if s, ok := w.boolean("spot"); ok && s {
		r.PurchaseOption = parser.Spot
	}
	if p, ok := w.boolean("preemptible"); ok && p {
		r.PurchaseOption = parser.Spot
		r.Note("preemptible VMs are priced at spot rates")
	}
}

// gcpHostMaintenance warns when a Compute Engine VM with GPUs would live-migrate for host
// maintenance, which Compute Engine refuses for GPU VMs ("Instances with guest accelerators do
// not support live migration"), so terraform apply would fail:
//   - scheduling.on_host_maintenance = "MIGRATE";
//   - or none set, where Compute Engine defaults a VM that is not spot or preemptible to MIGRATE,
//     for machine types with GPUs built in (a2, g2) as for attached ones
//     (GoogleCloudPlatform/cluster-toolkit#460 measured both failing).
//
// https://cloud.google.com/compute/docs/instances/setting-vm-host-options (Limitations). views
// are where the setting may be, first wins: an instance made from a template overrides it.
func (c *mapContext) gcpHostMaintenance(r *parser.Resource, views ...*view) {
	if len(r.Accelerators) == 0 && !parser.IsGPUInstanceType(parser.GCP, r.InstanceType) {
		return
	}
	// The first view that sets it decides, or that may set it (known only at apply).
	set, migrate := false, false
	for _, w := range views {
		if w != nil && w.has("scheduling", "on_host_maintenance") {
			m, known := w.quiet().str("scheduling", "on_host_maintenance")
			set, migrate = true, known && strings.EqualFold(m, "MIGRATE")
			break
		}
	}
	var why string
	switch {
	case migrate:
		why = "scheduling.on_host_maintenance = \"MIGRATE\" on a VM with GPUs: Compute Engine cannot live-migrate GPU VMs and refuses it (terraform apply would fail); set it to \"TERMINATE\""
	case !set && r.PurchaseOption != parser.Spot: // spot and preemptible VMs stop for maintenance whatever is set
		why = "a VM with GPUs that does not set scheduling.on_host_maintenance: Compute Engine then defaults it to MIGRATE, which it refuses for GPU VMs (terraform apply would fail with \"Instances with guest accelerators do not support live migration\"); set it to \"TERMINATE\""
	}
	if why != "" {
		d := c.inst.decl
		c.ev.l.warns = append(c.ev.l.warns, parser.Error{File: d.rng.Filename, Line: d.rng.Start.Line, Message: c.inst.addr + ": " + why})
	}
}

// gcpScheduling reads a VM's scheduling block: the SPOT or FLEX_START provisioning model, or
// preemptible.
func gcpScheduling(r *parser.Resource, w *view) {
	pm, _ := w.str("scheduling", "provisioning_model")
	switch {
	case strings.EqualFold(pm, "SPOT"):
		r.PurchaseOption = parser.Spot
	case strings.EqualFold(pm, "FLEX_START"):
		r.OwnPrice = parser.FlexStart()
		r.Note("a flex-start VM runs once capacity is available, for at most its max_run_duration (up to seven days)")
	}
	if p, ok := w.boolean("scheduling", "preemptible"); ok && p {
		r.PurchaseOption = parser.Spot
		r.Note("preemptible VMs are priced at spot rates")
	}
}

// gcpProviderLocation returns the provider's region (or the region of its zone).
func (c *mapContext) gcpProviderLocation(r *parser.Resource) string {
	name := "google"
	if strings.HasPrefix(c.inst.decl.provider, "google-beta") {
		name = "google-beta"
	}
	pv := c.providerConfig(name)
	if pv == nil {
		return ""
	}
	pv.res, pv.path = r, "provider."+name+"."
	if region, ok := pv.str("region"); ok {
		return region
	}
	if zone, ok := pv.str("zone"); ok {
		region, _ := gcpRegionOf(zone)
		return region
	}
	return ""
}

// gcpPlace sets a single-location resource's region from its zone or location attribute, else
// the provider's, and its labels as tags.
func (c *mapContext) gcpPlace(r *parser.Resource, w *view, attr string) {
	if loc, ok := w.str(attr); ok {
		r.Region, _ = gcpRegionOf(loc)
	} else {
		r.Region = c.gcpProviderLocation(r)
	}
	applyTags(r, w.strMap("labels"))
}

func mapGCPInstance(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	c.gcpMachine(r, w)
	c.gcpHostMaintenance(r, w)
	c.gcpPlace(r, w, "zone")
	c.gcpTaker(r, w)
	c.bootNode(r, c.gceBootTexts(w, c.inst.addr), false)
	return []*parser.Resource{r}
}

func mapGCPInstanceGroupManager(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	n, sized := w.num("target_size")
	if sized {
		r.Quantity = n
	}
	if !c.gcpAutoscaler(r, sized) && !w.has("target_size") {
		r.Note("target_size is not set (an autoscaler manages the group): priced at 1 instance")
	}
	var tmpl *view
	for _, v := range w.blocks("version") {
		for _, typ := range []string{"google_compute_instance_template", "google_compute_region_instance_template"} {
			if inst := c.referenced(v, typ, "instance_template"); inst != nil {
				tmpl = &view{obj: inst.value, res: r, path: inst.addr + "."}
				break
			}
		}
		if tmpl != nil {
			break
		}
	}
	if len(w.blocks("version")) > 1 {
		r.Note("several versions: priced at the first version's template")
	}
	if tmpl == nil {
		why := "the instance template is not in this configuration"
		if vs := w.blocks("version"); len(vs) > 0 {
			why = vs[0].notFound("the instance template", "instance_template")
		}
		r.AddUnresolved("version.instance_template", why)
	} else {
		c.gcpMachine(r, tmpl)
		c.gcpHostMaintenance(r, tmpl)
		applyTags(r, tmpl.strMap("labels"))
		c.bootNode(r, c.gceBootTexts(tmpl, strings.TrimSuffix(tmpl.path, ".")), true)
	}
	if zone, ok := w.str("zone"); ok {
		r.Region, _ = gcpRegionOf(zone)
	} else if region, ok := w.str("region"); ok {
		r.Region = region
	} else if tmpl != nil {
		if region, ok := tmpl.str("region"); ok {
			r.Region = region
		}
	}
	if r.Region == "" {
		r.Region = c.gcpProviderLocation(r)
	}
	return []*parser.Resource{r}
}

// gcpAutoscaler applies the google_compute_autoscaler (or region autoscaler) whose target is
// the instance group being mapped: its min_replicas is the floor (the group's size when
// target_size is unset or below it), its max_replicas the most it may run. An autoscaler in
// mode OFF does not scale. Its scaling schedules are replayed by time (gcpScalingSchedules). It
// reports whether one applied.
func (c *mapContext) gcpAutoscaler(r *parser.Resource, sized bool) bool {
	for _, typ := range []string{"google_compute_autoscaler", "google_compute_region_autoscaler"} {
		for _, inst := range c.referrers(typ, "target") {
			a := &view{obj: inst.value}
			if mode, _ := a.str("autoscaling_policy", "mode"); strings.EqualFold(mode, "OFF") {
				r.Note("%s is in mode OFF: the group keeps its size", inst.addr)
				return true
			}
			if n, ok := a.num("autoscaling_policy", "min_replicas"); ok && (!sized || r.Quantity < n) {
				r.Quantity = n
				r.Note("autoscaled by %s: priced at its min_replicas (%d)", inst.addr, n)
			}
			limit, ok := a.num("autoscaling_policy", "max_replicas")
			if ok {
				r.SetScaleMax(limit, "max_replicas of "+inst.addr)
			} else {
				limit = math.MaxInt32 // unbounded for the schedules
			}
			gcpScalingSchedules(r, inst.addr, a, r.Quantity, limit)
			return true
		}
	}
	return false
}

// gkePool prices one node pool: a google_container_node_pool, or a node_pool block of a
// cluster. cluster is the cluster's view when known.
//
// defaultPool is set for the pool a google_container_cluster creates with it (pool is then the
// cluster's own view, cluster nil). It returns the zones the pool's nodes run in, when named.
func (c *mapContext) gkePool(r *parser.Resource, pool *view, cluster *view, defaultPool bool) []string {
	nc := pool.blocks("node_config")
	if len(nc) > 0 {
		c.gcpMachine(r, nc[0])
		gkeDriver(r, nc[0])
		applyTags(r, nc[0].strMap("resource_labels"))
		if len(nc[0].strMap("labels")) > 0 && len(nc[0].strMap("resource_labels")) == 0 {
			r.Note("node_config.labels are Kubernetes node labels: GCP bills by resource_labels, which cost allocation (GPU005) reads")
		}
		defer c.gcpAffinity(r, nc[0], "reservation_affinity", "consume_reservation_type", []any{"reservation_affinity", "values"})
	} else {
		r.InstanceType = "e2-medium" // GKE's default machine type
	}
	if q, ok := pool.quiet().boolean("queued_provisioning", "enabled"); ok && q {
		r.OwnPrice = parser.FlexStart()
		r.Note("queued provisioning: GKE provisions the nodes a workload asks for together, once capacity is available, for at most seven days")
	}
	// Location: the pool's own, else its cluster's, else the provider's.
	location, _ := pool.str("location")
	if location == "" && cluster != nil {
		location, _ = cluster.str("location")
	}
	region, isZone := c.gkeRegion(r, location)
	r.Region = region
	zones, names, regional := gkeLocations(pool, cluster, location, isZone, defaultPool)
	if regional {
		r.Note("regional node pool without node_locations: node count per zone × %d zones (GKE's default)", gkeRegionalZones)
	}
	auto := pool.quiet()
	if n, ok := auto.num("autoscaling", "total_max_node_count"); ok {
		r.SetScaleMax(n, "autoscaling.total_max_node_count")
	} else if n, ok := auto.num("autoscaling", "max_node_count"); ok {
		r.SetScaleMax(n*zones, fmt.Sprintf("autoscaling.max_node_count (%d per zone)", n))
	} else if why := pool.maxWhy("autoscaling", "total_max_node_count"); why != "" {
		unreadMax(r, pool.path+"autoscaling.total_max_node_count", why)
	} else if why := pool.maxWhy("autoscaling", "max_node_count"); why != "" {
		unreadMax(r, pool.path+"autoscaling.max_node_count", why)
	}
	switch {
	case pool.has("node_count"):
		if n, ok := pool.num("node_count"); ok {
			r.Quantity = n * zones
		}
	case pool.has("autoscaling", "total_min_node_count"):
		if n, ok := pool.num("autoscaling", "total_min_node_count"); ok {
			r.Quantity = n
			r.Note("autoscaled: priced at total_min_node_count (%d)", n)
		}
	case pool.has("autoscaling", "min_node_count"):
		if n, ok := pool.num("autoscaling", "min_node_count"); ok {
			r.Quantity = n * zones
			r.Note("autoscaled: priced at min_node_count (%d per zone)", n)
		}
	case pool.has("initial_node_count"):
		if n, ok := pool.num("initial_node_count"); ok {
			r.Quantity = n * zones
		}
	default:
		r.Quantity = zones
		r.Note("no node_count: priced at 1 node per zone")
	}
	return names
}

// gkeLocations is how many zones a GKE pool's nodes run in, and their names when known: the
// pool's own node_locations; else its cluster's, which for a zonal cluster are the zones
// besides the cluster's own; else a zonal cluster's zone. regional is set when none of them
// says and the cluster is regional: GKE then picks gkeRegionalZones zones of the region, whose
// names are not known. For the pool a cluster creates with it (defaultPool), pool is the
// cluster and its node_locations are the cluster's.
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_cluster#node_locations
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool#node_locations
func gkeLocations(pool, cluster *view, location string, isZone, defaultPool bool) (n int, names []string, regional bool) {
	withOwn := func(locs []string) []string { // a zonal cluster's node_locations and its zone
		if isZone {
			locs = append(locs, location)
		}
		return sortedSet(locs)
	}
	if locs, ok := pool.strList("node_locations"); ok && len(locs) > 0 {
		names = sortedSet(locs)
		if defaultPool {
			names = withOwn(locs)
		}
		return len(names), names, false
	}
	if cluster != nil {
		if locs, ok := cluster.strList("node_locations"); ok && len(locs) > 0 {
			names = withOwn(locs)
			return len(names), names, false
		}
	}
	switch {
	case isZone:
		return 1, []string{location}, false
	case location != "":
		return gkeRegionalZones, nil, true
	}
	return 1, nil, false // the provider's location, a region or a zone: counted as one
}

// gkeRegion is the region of a GKE location (a region, or a zone: isZone), else, with none
// set, the provider's.
func (c *mapContext) gkeRegion(r *parser.Resource, location string) (region string, isZone bool) {
	if location == "" {
		return c.gcpProviderLocation(r), false
	}
	return gcpRegionOf(location)
}

// gkeCluster finds the cluster a node pool belongs to, and its address.
func (c *mapContext) gkeCluster(w *view) (*view, string) {
	if inst := c.referenced(w, "google_container_cluster", "cluster"); inst != nil {
		return &view{obj: inst.value}, inst.addr
	}
	if name, ok := (&view{obj: w.obj}).str("cluster"); ok {
		if inst := c.byAttribute("google_container_cluster", "name", lastSegment(name)); inst != nil {
			return &view{obj: inst.value}, inst.addr
		}
	}
	return nil, ""
}

func mapGKENodePool(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	cluster, clusterAddr := c.gkeCluster(w)
	if cluster != nil {
		applyTags(r, cluster.strMap("resource_labels"))
	}
	zones := c.gkePool(r, w, cluster, false)
	gkePoolLimit(r, clusterAddr, cluster)
	r.NodeLabels = nodeLabels(w, parser.GCP, nameOf(w, "name", "name_prefix"), "node_config", "labels")
	taintBlocks(r.NodeLabels, w, "node_config", "taint")
	gkeNodeLabels(r, w)
	r.NodeLabels.Zones = zones
	return []*parser.Resource{r}
}

// gkeNodeLabels adds the labels GKE puts on the nodes of a pool for what it runs on. Its
// capacity: Spot, preemptible or flex-start VMs (node_config.spot, preemptible, flex_start;
// kubernetes.SetCapacity). Its GPU type (kubernetes.SetGKEAccelerator). The MIG slice, on a pool whose GPUs are split into slices: pods
// select it, and each GPU they request there is one slice.
// https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi
//
// A pool whose GPUs are shared (gpu_sharing_config: time-sharing or MPS) is labelled with how
// many containers share each GPU: a pod's nvidia.com/gpu there is that share of one.
// https://cloud.google.com/kubernetes-engine/docs/how-to/timesharing-gpus
func gkeNodeLabels(r *parser.Resource, pool *view) {
	if r.NodeLabels == nil {
		return
	}
	capacity, known := kubernetes.CapacityOnDemand, true
	q := pool.quiet()
	for _, f := range []struct {
		attr string
		c    kubernetes.Capacity
	}{{"spot", kubernetes.CapacitySpot}, {"preemptible", kubernetes.CapacityPreemptible}, {"flex_start", kubernetes.CapacityFlexStart}} {
		if b, ok := q.boolean("node_config", f.attr); ok && b {
			capacity = f.c
			break
		} else if !ok && q.has("node_config", f.attr) {
			known = false
		}
	}
	kubernetes.SetCapacity(r.NodeLabels, parser.GCP, capacity, known)
	accelerator := parser.GCPBuiltInAccelerator(r.InstanceType)
	if len(r.Accelerators) > 0 {
		accelerator = r.Accelerators[0].Type
	}
	// An unset machine type is GKE's default, e2-medium, which takes no GPUs.
	machineKnown := r.InstanceType != "" || !pool.quiet().has("node_config", "machine_type")
	kubernetes.SetGKEAccelerator(r.NodeLabels, accelerator, machineKnown)
	sandboxed, known := gkeSandboxed(pool)
	kubernetes.SetGKESandbox(r.NodeLabels, sandboxed, known)
	if r.GPUPartition != "" {
		r.NodeLabels.Labels[kubernetes.LabelGKEGPUPartition] = r.GPUPartition
	}
	if r.GPUSharedClients > 1 {
		r.NodeLabels.Labels[kubernetes.LabelGKESharedClients] = strconv.Itoa(r.GPUSharedClients)
		switch r.GPUSharingStrategy {
		case "TIME_SHARING":
			r.NodeLabels.Labels[kubernetes.LabelGKESharingStrategy] = "time-sharing"
		case "MPS":
			r.NodeLabels.Labels[kubernetes.LabelGKESharingStrategy] = "mps"
		}
	}
}

// gkeSandboxed reports whether a GKE pool runs GKE Sandbox (node_config.sandbox_config:
// sandbox_type "gvisor", or type "GVISOR" in later providers), whose label and taint keep
// pods that do not run under gVisor off its nodes (kubernetes.SetGKESandbox); known is false
// when the sandbox is known only at apply.
func gkeSandboxed(pool *view) (sandboxed, known bool) {
	q := pool.quiet()
	if v, ok := at(q.obj, "node_config", "sandbox_config"); !ok {
		return false, true
	} else if !v.IsKnown() {
		return false, false
	}
	for _, b := range q.blocks("node_config", "sandbox_config") {
		for _, attr := range []string{"sandbox_type", "type"} {
			if t, ok := b.str(attr); ok && strings.EqualFold(t, "gvisor") {
				return true, true
			} else if !ok && b.has(attr) {
				return false, false
			}
		}
	}
	return false, true
}

func mapGKECluster(c *mapContext) []*parser.Resource {
	w := &view{obj: c.inst.value}
	var out []*parser.Resource
	for i, np := range w.blocks("node_pool") {
		key := fmt.Sprintf("node_pool[%d]", i)
		if name, ok := np.str("name"); ok {
			key = indexedAddress("node_pool", name)
		}
		r, cv := c.resource(parser.GCP, c.inst.addr+"."+key)
		np.res, np.path = r, key+"."
		applyTags(r, cv.strMap("resource_labels"))
		zones := c.gkePool(r, np, cv, false)
		gkePoolLimit(r, c.inst.addr, w)
		r.NodeLabels = nodeLabels(np, parser.GCP, nameOf(np, "name", "name_prefix"), "node_config", "labels")
		taintBlocks(r.NodeLabels, np, "node_config", "taint")
		gkeNodeLabels(r, np)
		r.NodeLabels.Zones = zones
		out = append(out, r)
	}
	// The default node pool, unless the cluster removes it.
	if rm, ok := w.boolean("remove_default_node_pool"); !(ok && rm) && w.has("node_config") {
		r, cv := c.resource(parser.GCP, c.inst.addr+".default_node_pool")
		applyTags(r, cv.strMap("resource_labels"))
		pool := &view{obj: c.inst.value, res: r}
		zones := c.gkePool(r, pool, nil, true)
		gkePoolLimit(r, c.inst.addr, w)
		// GKE names the pool a cluster creates with it "default-pool".
		// https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools
		r.NodeLabels = nodeLabels(pool, parser.GCP, groupName{name: "default-pool", known: true}, "node_config", "labels")
		taintBlocks(r.NodeLabels, pool, "node_config", "taint")
		gkeNodeLabels(r, pool)
		r.NodeLabels.Zones = zones
		out = append(out, r)
	}
	return append(out, c.gkeAutoProvisioned(w)...)
}

// mapGCPInstanceFromTemplate reads google_compute_instance_from_template: the machine of the
// instance template it is made from (source_instance_template), with what it sets itself
// overriding the template's, as the provider does.
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/compute_instance_from_template
func mapGCPInstanceFromTemplate(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	var tmpl *view
	for _, typ := range []string{"google_compute_instance_template", "google_compute_region_instance_template"} {
		if inst := c.referenced(w, typ, "source_instance_template"); inst != nil {
			tmpl = &view{obj: inst.value, res: r, path: inst.addr + "."}
			break
		}
	}
	switch {
	case tmpl != nil:
		c.gcpMachine(r, tmpl)
		applyTags(r, tmpl.strMap("labels"))
	case !w.has("machine_type"):
		r.AddUnresolved("source_instance_template", w.notFound("the instance template", "source_instance_template"))
	}
	if w.has("machine_type") {
		mt, _ := w.str("machine_type")
		r.InstanceType = lastSegment(mt)
	}
	if blocks := w.blocks("guest_accelerator"); len(blocks) > 0 {
		r.Accelerators = nil
		gcpAccelerators(r, blocks, "type", "count", "guest_accelerator block", lastSegment)
	}
	if w.has("scheduling") {
		r.PurchaseOption = parser.OnDemand // the instance's own scheduling replaces the template's
		gcpScheduling(r, w)
	}
	c.gcpHostMaintenance(r, w, tmpl)
	c.gcpPlace(r, w, "zone")
	// Metadata set on the instance replaces the template's.
	switch {
	case w.has("metadata") || w.has("metadata_startup_script"):
		c.bootNode(r, c.gceBootTexts(w, c.inst.addr), false)
	case tmpl != nil:
		c.bootNode(r, c.gceBootTexts(tmpl, strings.TrimSuffix(tmpl.path, ".")), false)
	default:
		c.bootNode(r, c.gceBootTexts(w, c.inst.addr), false)
	}
	return []*parser.Resource{r}
}
