package terraform

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
)

// Databricks clusters run on the cloud account's VMs: a cluster is a driver and workers of the
// node types it names, on the cloud of its workspace. gpuguard prices the VMs; Databricks' own
// DBU charges come on top and are not in its catalog (a note says so).
// https://registry.terraform.io/providers/databricks/databricks/latest/docs/resources/cluster
func init() {
	register("databricks_cluster", mapDatabricksCluster)
	register("databricks_instance_pool", mapDatabricksInstancePool)
	register("databricks_job", mapDatabricksJob)
}

const dbuNote = "Databricks DBUs are billed on top of the VMs and are not included"

func mapDatabricksCluster(c *mapContext) []*parser.Resource {
	_, w := c.resource(parser.Unknown, c.inst.addr)
	rs := c.databricksCluster(w, c.inst.addr)
	for _, r := range rs {
		if m, ok := w.known("autotermination_minutes"); ok && m.Type() == cty.Number && m.AsBigFloat().Sign() > 0 {
			r.Note("it terminates after %s idle minutes, so it runs only while used: priced at the full month (set usage in the config for its hours)", m.AsBigFloat().Text('f', 0))
		}
	}
	return rs
}

// mapDatabricksJob prices the clusters a job creates for its runs: job_cluster and task
// new_cluster blocks (and the older top-level new_cluster).
func mapDatabricksJob(c *mapContext) []*parser.Resource {
	_, w := c.resource(parser.Unknown, c.inst.addr)
	var out []*parser.Resource
	jobTags := w.strMap("tags") // Databricks tags a job's clusters with the job's tags
	add := func(spec *view, address string) {
		for _, r := range c.databricksCluster(spec, address) {
			own := r.Tags
			r.Tags = nil
			applyTags(r, jobTags)
			applyTags(r, own) // the cluster's own custom_tags win
			r.RunsToCompletion = true
			r.Note("a job cluster exists only while the job runs: priced at the full month (set usage in the config for its hours)")
			out = append(out, r)
		}
	}
	for _, kind := range []struct{ block, key string }{{"job_cluster", "job_cluster_key"}, {"task", "task_key"}} {
		for i, b := range w.blocks(kind.block) {
			key, ok := b.str(kind.key)
			if !ok {
				key = fmt.Sprint(i)
			}
			for _, nc := range b.blocks("new_cluster") {
				add(nc, indexedAddress(c.inst.addr+"."+kind.block, key))
			}
		}
	}
	for _, nc := range w.blocks("new_cluster") {
		add(nc, c.inst.addr+".new_cluster")
	}
	return out
}

// mapDatabricksInstancePool prices the idle instances a pool keeps warm (min_idle_instances): they
// run all month whether or not a cluster uses them. Instances clusters take from the pool are
// priced with those clusters.
func mapDatabricksInstancePool(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Unknown, c.inst.addr)
	t, ok := w.str("node_type_id")
	if !ok {
		return nil
	}
	r.InstanceType, r.Provider = t, parser.ProviderOfInstanceType(t)
	r.Quantity, _ = w.num("min_idle_instances")
	r.Note("the pool's min_idle_instances (%d), kept running for clusters to start on; %s", r.Quantity, dbuNote)
	if spot, how := databricksAvailability(w); spot {
		r.PurchaseOption = parser.Spot
		r.Note("%s", how)
	}
	c.databricksRegion(r, w)
	applyTags(r, w.strMap("custom_tags"))
	return []*parser.Resource{r}
}

// databricksCluster prices one cluster spec: the driver and the workers, one resource when they
// share a node type, .driver and .workers otherwise. A spec whose node type is unknown is a GPU
// resource to report only when something says it has GPUs (a GPU runtime, a node type data
// source asking for GPUs); otherwise it is left out like any CPU cluster.
func (c *mapContext) databricksCluster(spec *view, address string) []*parser.Resource {
	probe := &parser.Resource{}
	s := &view{obj: spec.obj, res: probe, path: spec.path}
	workers, maxWorkers, maxUnread, workersNote := databricksWorkers(s)
	workerType, wok := c.databricksNodeType(s, "node_type_id", "instance_pool_id")
	driverType, dok := c.databricksNodeType(s, "driver_node_type_id", "driver_instance_pool_id")
	if !dok && !s.has("driver_node_type_id") && !s.has("driver_instance_pool_id") {
		driverType, dok = workerType, wok
	}
	if !wok && !dok {
		if why := c.databricksGPUSignal(s); why != "" {
			r, _ := c.resource(parser.Unknown, address)
			r.Unresolved = probe.Unresolved
			r.Note("%s, but its node type is not known before plan: set node_type_id, or run gpuguard on the plan JSON", why)
			return []*parser.Resource{r}
		}
		return nil
	}
	spot, how := databricksAvailability(s)
	first, firstSet := s.num(databricksAttrs(s), "first_on_demand")
	// onDemandOf is how many of the driver and w workers run on demand: the driver first, then
	// workers, up to first_on_demand.
	onDemandOf := func(w int) int {
		if !spot {
			return 1 + w
		}
		return min(first, 1+w)
	}
	onDemand := onDemandOf(workers)
	maxSpotNodes := 1 + maxWorkers - onDemandOf(maxWorkers)
	mk := func(addr, typ string, quantity, spotCount, maxQuantity, maxSpot int) *parser.Resource {
		r, _ := c.resource(parser.ProviderOfInstanceType(typ), addr)
		r.InstanceType, r.Quantity = typ, quantity
		r.Unresolved = append(r.Unresolved, probe.Unresolved...)
		switch {
		case spotCount >= quantity && quantity > 0:
			r.PurchaseOption = parser.Spot
		case spotCount > 0:
			r.SpotQuantity = spotCount
		}
		if maxQuantity > quantity {
			r.ScaleMax = &parser.ScaleMax{Quantity: maxQuantity, SpotQuantity: maxSpot, From: "autoscale.max_workers"}
		}
		if spot {
			r.Note("%s", how)
			if !firstSet {
				r.Note("first_on_demand is not set: every node is priced on that capacity")
			}
		}
		if workersNote != "" {
			r.Note("%s", workersNote)
		}
		r.Note("%s", dbuNote)
		c.databricksRegion(r, s)
		applyTags(r, s.strMap("custom_tags"))
		return r
	}
	// grows is the resource that holds the workers: its maximum is the one that cannot be read.
	grows := func(r *parser.Resource) *parser.Resource {
		if maxUnread != "" {
			unreadMax(r, "autoscale.max_workers", maxUnread)
		}
		return r
	}
	spotNodes := 1 + workers - onDemand
	if driverType == workerType {
		return []*parser.Resource{grows(mk(address, workerType, 1+workers, spotNodes, 1+maxWorkers, maxSpotNodes))}
	}
	var out []*parser.Resource
	driverSpot := 0
	if onDemand == 0 {
		driverSpot = 1
	}
	if dok {
		out = append(out, mk(address+".driver", driverType, 1, driverSpot, 1, driverSpot))
	}
	if wok && (maxWorkers > 0 || maxUnread != "") {
		out = append(out, grows(mk(address+".workers", workerType, workers, spotNodes-driverSpot, maxWorkers, maxSpotNodes-driverSpot)))
	}
	return out
}

// databricksWorkers is the cluster's worker count: num_workers, or autoscale's min_workers (a
// note gives the range); 0 for a single-node cluster. most is the workers it may grow to
// (autoscale's max_workers when above the count, else the count), and maxUnread says why
// max_workers cannot be read when it is declared but unreadable.
func databricksWorkers(s *view) (workers, most int, maxUnread, note string) {
	if s.has("autoscale") {
		lo, _ := s.num("autoscale", "min_workers")
		hi, hiOK := s.quiet().num("autoscale", "max_workers")
		if hiOK {
			return lo, max(lo, hi), "", fmt.Sprintf("autoscale: priced at min_workers (%d); it grows to %d workers while busy", lo, hi)
		}
		return lo, lo, s.maxWhy("autoscale", "max_workers"), fmt.Sprintf("autoscale: priced at min_workers (%d)", lo)
	}
	n, _ := s.num("num_workers")
	return n, n, "", ""
}

// databricksNodeType reads a node type, or the node type of the instance pool the cluster takes
// its nodes from.
func (c *mapContext) databricksNodeType(s *view, attr, poolAttr string) (string, bool) {
	if t, ok := s.str(attr); ok && t != "" {
		return t, true
	}
	if pool := c.referenced(s, "databricks_instance_pool", poolAttr); pool != nil {
		pv := &view{obj: pool.value, res: s.res, path: pool.addr + "."}
		return pv.str("node_type_id")
	}
	return "", false
}

// databricksAttrs names the cloud block a cluster spec uses for availability.
func databricksAttrs(s *view) string {
	for _, b := range []string{"aws_attributes", "azure_attributes", "gcp_attributes"} {
		if s.has(b) {
			return b
		}
	}
	return "aws_attributes"
}

// databricksAvailability reads whether nodes past first_on_demand run on spot capacity, and a
// note saying how it was read. Without an availability the nodes are priced on demand.
func databricksAvailability(s *view) (bool, string) {
	block := databricksAttrs(s)
	a, _ := s.str(block, "availability")
	if a == "" {
		a, _ = s.str(block, "gcp_availability") // instance pools' GCP attribute
	}
	switch strings.ToUpper(a) {
	case "SPOT", "SPOT_AZURE", "PREEMPTIBLE_GCP":
		return true, fmt.Sprintf("%s.availability %s: nodes past first_on_demand on spot capacity", block, a)
	case "SPOT_WITH_FALLBACK", "SPOT_WITH_FALLBACK_AZURE", "PREEMPTIBLE_WITH_FALLBACK_GCP":
		return true, fmt.Sprintf("%s.availability %s: nodes past first_on_demand on spot capacity, on demand when spot runs short (the spot price is the floor)", block, a)
	}
	if p, ok := s.boolean("gcp_attributes", "use_preemptible_executors"); ok && p {
		return true, "gcp_attributes.use_preemptible_executors: workers on preemptible capacity"
	}
	return false, ""
}

// databricksRegion places a cluster: the zone it names, else its workspace's region — the
// workspace its provider's host points at (azurerm_databricks_workspace's location,
// databricks_mws_workspaces' aws_region or location) — else the config's or --region.
func (c *mapContext) databricksRegion(r *parser.Resource, s *view) {
	for _, b := range []string{"aws_attributes", "gcp_attributes"} {
		z, ok := s.str(b, "zone_id")
		if !ok || strings.EqualFold(z, "auto") {
			continue
		}
		if reg := awsRegionOfAZ(z); reg != "" {
			r.Region = reg
			return
		} else if m := gcpZoneName.FindStringSubmatch(z); m != nil {
			r.Region = m[1]
			return
		}
	}
	pv := c.providerConfig("databricks")
	if pv == nil {
		return
	}
	for _, attr := range []string{"host", "azure_workspace_resource_id"} {
		for _, typ := range []string{"azurerm_databricks_workspace", "databricks_mws_workspaces"} {
			ws := c.referenced(pv, typ, attr)
			if ws == nil {
				continue
			}
			wv := &view{obj: ws.value, res: r, path: ws.addr + "."}
			for _, loc := range []string{"location", "aws_region"} {
				if reg, ok := wv.str(loc); ok {
					r.Region = parser.NormalizeRegion(reg)
					r.Note("region of the workspace %s, where its provider's %s points", ws.addr, attr)
					return
				}
			}
		}
	}
}

var (
	gcpZoneName   = regexp.MustCompile(`^([a-z]+-[a-z]+\d+)-[a-z]$`)
	dataReference = regexp.MustCompile(`data\.(databricks_node_type|databricks_spark_version)\.([A-Za-z0-9_-]+)`)
)

// databricksGPUSignal says why a cluster whose node type is unknown runs on GPUs: a GPU runtime
// (spark_version "...-gpu-ml-..."), or a node type or runtime data source that asks for one
// (min_gpus, gpu = true). "" when nothing says so.
func (c *mapContext) databricksGPUSignal(s *view) string {
	if v, ok := at(s.obj, "spark_version"); ok && v.IsWhollyKnown() && !v.IsNull() && v.Type() == cty.String {
		if sv, _ := v.Unmark(); strings.Contains(strings.ToLower(sv.AsString()), "gpu") {
			return fmt.Sprintf("its runtime %s is a GPU runtime", sv.AsString())
		}
	}
	for _, attr := range []string{"node_type_id", "spark_version"} {
		v, ok := at(s.obj, attr)
		if !ok || v.IsWhollyKnown() {
			continue
		}
		m := dataReference.FindStringSubmatch(unknownReason(v))
		if m == nil {
			continue
		}
		d := c.inst.mod.cfg.data[m[1]+"."+m[2]]
		if d == nil {
			continue
		}
		attrs, _ := d.body.JustAttributes()
		for _, arg := range []string{"min_gpus", "gpu"} {
			a, ok := attrs[arg]
			if !ok {
				continue
			}
			val, diags := a.Expr.Value(nil)
			if diags.HasErrors() || !val.IsKnown() || val.IsNull() {
				continue
			}
			if val.Type() == cty.Bool && val.True() || val.Type() == cty.Number && val.AsBigFloat().Sign() > 0 {
				return fmt.Sprintf("data.%s.%s asks for %s = %s", m[1], m[2], arg, valueText(val))
			}
		}
	}
	return ""
}

func valueText(v cty.Value) string {
	if v.Type() == cty.Bool {
		return fmt.Sprint(v.True())
	}
	return v.AsBigFloat().Text('f', -1)
}
