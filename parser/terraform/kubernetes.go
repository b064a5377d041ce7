package terraform

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

func init() {
	register("kubernetes_manifest", mapKubernetesManifest)
	register("kubectl_manifest", mapKubectlManifest)
}

// mapKubernetesManifest reads the object of a kubernetes_manifest (Terraform's Kubernetes
// provider) the way a manifest file is read: a Deployment, Job or InferenceService declared
// through Terraform is priced like the same object in YAML. Values known only after apply are
// read as absent. The resources take the Terraform address and block; the Kubernetes identity
// goes in a note. The root module's objects are read together (buildManifests), so an HPA or a
// Karpenter NodePool in another kubernetes_manifest applies.
func mapKubernetesManifest(c *mapContext) []*parser.Resource {
	v := c.inst.value
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute("manifest") {
		return nil
	}
	raw := v.GetAttr("manifest")
	m, unknown := gpuUnknowns(raw)
	if m.IsNull() {
		return nil
	}
	if !m.IsKnown() {
		c.unreadable("the manifest", raw)
		return nil
	}
	m = cty.UnknownAsNull(m)
	data, err := ctyjson.Marshal(m, m.Type())
	if err != nil {
		d := c.inst.decl
		c.ev.l.errs = append(c.ev.l.errs, parser.Error{File: d.rng.Filename, Line: d.rng.Start.Line, Message: fmt.Sprintf("%s: manifest: %v", c.inst.addr, err)})
		return nil
	}
	return c.manifestResources(json.RawMessage(data), unknown)
}

// mapKubectlManifest reads the object of a kubectl_manifest (the gavinbunney/kubectl and
// alekc/kubectl providers) like kubernetes_manifest's: its yaml_body is the object's YAML, often
// a heredoc or a templatefile(); override_namespace, when set, is the object's namespace. A body
// known only at apply (a data source's documents) is a warning, since whatever it runs cannot be
// counted.
// https://registry.terraform.io/providers/alekc/kubectl/latest/docs/resources/kubectl_manifest
func mapKubectlManifest(c *mapContext) []*parser.Resource {
	v := c.inst.value
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute("yaml_body") {
		return nil
	}
	raw := v.GetAttr("yaml_body")
	body, _ := raw.UnmarkDeep()
	switch {
	case !body.IsKnown():
		c.unreadable("yaml_body", raw)
		return nil
	case body.IsNull() || body.Type() != cty.String:
		return nil
	}
	key := fmt.Sprintf("\x00manifest-%d", len(c.ev.manifests))
	file := kubernetes.Decode(key, []byte(body.AsString()))
	// override_namespace applies the object in that namespace, whatever its YAML declares.
	if v.Type().HasAttribute("override_namespace") {
		if ns, _ := v.GetAttr("override_namespace").UnmarkDeep(); ns.IsKnown() && !ns.IsNull() && ns.Type() == cty.String && ns.AsString() != "" {
			file.OverrideNamespace(ns.AsString())
		}
	}
	c.ev.manifests = append(c.ev.manifests, pendingManifest{key: key, ctx: *c, file: file})
	return nil
}

// unreadable warns that a Kubernetes object declared through Terraform is known only at apply:
// nothing can be read, not even its kind, so it is said rather than skipped in silence.
func (c *mapContext) unreadable(what string, raw cty.Value) {
	d := c.inst.decl
	why := unknownReason(raw)
	if why == "" {
		why = "it is known only when Terraform applies"
	}
	c.ev.l.warns = append(c.ev.l.warns, parser.Error{File: d.rng.Filename, Line: d.rng.Start.Line,
		Message: fmt.Sprintf("%s: %s cannot be read before apply (%s): whatever it runs is not counted", c.inst.addr, what, why)})
}

// unknownGPUs is a GPU request whose count is known only at apply.
type unknownGPUs struct{ resource, reason string }

// gpuUnknowns unmarks a Kubernetes object's value and stands in 1 for every GPU request whose
// count is unknown (a variable without a value, another resource's attribute), remembering why:
// the workload is then listed, unpriced with that reason, instead of dropped or failing as
// "quantity null".
func gpuUnknowns(raw cty.Value) (cty.Value, []unknownGPUs) {
	v, marks := raw.UnmarkDeepWithPaths()
	var out []unknownGPUs
	v, _ = cty.Transform(v, func(path cty.Path, x cty.Value) (cty.Value, error) {
		if x.IsKnown() || len(path) == 0 {
			return x, nil
		}
		var key string
		switch step := path[len(path)-1].(type) {
		case cty.GetAttrStep:
			key = step.Name
		case cty.IndexStep:
			if step.Key.Type() == cty.String && step.Key.IsKnown() {
				key = step.Key.AsString()
			}
		}
		if !kubernetes.IsGPUResource(key) {
			return x, nil
		}
		why := ""
		for _, pm := range marks {
			if pm.Path.Equals(path) {
				why = unknownReason(cty.DynamicVal.WithMarks(pm.Marks))
			}
		}
		if why == "" {
			why = "it is known only when Terraform applies"
		}
		out = append(out, unknownGPUs{resource: key, reason: why})
		return cty.NumberIntVal(1), nil
	})
	return v, out
}

// manifestResources decodes one Kubernetes object (any value encoding/json writes) and keeps
// it for buildManifests, which reads every object of the root module together: an HPA or a
// Karpenter NodePool declared by one kubernetes_manifest applies to the workloads of others,
// as in a manifest stream. It returns no resources itself.
func (c *mapContext) manifestResources(obj any, unknown []unknownGPUs) []*parser.Resource {
	d := c.inst.decl
	data, err := json.Marshal(obj)
	if err != nil {
		c.ev.l.errs = append(c.ev.l.errs, parser.Error{File: d.rng.Filename, Line: d.rng.Start.Line, Message: fmt.Sprintf("%s: %v", c.inst.addr, err)})
		return nil
	}
	// The decoded object is named after its place in the list, so that what Build says of it
	// (resources, errors) finds its way back to this instance.
	key := fmt.Sprintf("\x00manifest-%d", len(c.ev.manifests))
	c.ev.manifests = append(c.ev.manifests, pendingManifest{key: key, ctx: *c, unknown: unknown, file: kubernetes.Decode(key, data)})
	return nil
}

// pendingManifest is a Kubernetes object declared through Terraform, waiting for the others of
// its root module.
type pendingManifest struct {
	key     string
	ctx     mapContext
	unknown []unknownGPUs
	file    *kubernetes.File
	// release is the chart template a helm_release rendered it from; such a release declares
	// many objects, each reported at helm_release.x["Kind/namespace/name"].
	release string
}

// buildManifests reads the root module's Kubernetes objects together and gives each resulting
// GPU resource its instance's address and block (the Kubernetes identity goes in a note), its
// gpuguard:ignore comments, and the unresolved values it depends on.
//
// found are the GPU resources the mappers found: a GPU pod runs on the configuration's GPU node
// group it selects by its labels, and one that names no node on the configuration's GPU node
// groups when they all run one kind of node.
func (ev *evaluation) buildManifests(found []parser.Resource) []*parser.Resource {
	if len(ev.manifests) == 0 {
		return nil // the device plugin's releases share the GPUs of pods; there are none
	}
	files := make([]*kubernetes.File, len(ev.manifests))
	byKey := make(map[string]*pendingManifest, len(ev.manifests))
	for i := range ev.manifests {
		files[i] = ev.manifests[i].file
		byKey[ev.manifests[i].key] = &ev.manifests[i]
	}
	opts := ev.kubernetes
	opts.NodeGroups, opts.AnyNodeGroup = kubernetes.NodeGroupsOf(found), true
	opts.ChartReleases = ev.releases
	res := kubernetes.Build(files, opts)
	at := func(es []parser.Error) []parser.Error {
		out := make([]parser.Error, 0, len(es))
		for _, e := range es {
			if !strings.HasPrefix(e.File, "\x00") {
				out = append(out, e) // a release's values: at its block already
			} else if p := byKey[e.File]; p != nil {
				d := p.ctx.inst.decl
				out = append(out, parser.Error{File: d.rng.Filename, Line: d.rng.Start.Line, Message: p.ctx.inst.addr + ": " + e.Message})
			}
		}
		return out
	}
	ev.l.errs = append(ev.l.errs, at(res.Errors)...)
	ev.l.warns = append(ev.l.warns, at(res.Warnings)...)
	var out []*parser.Resource
	places := manifestPlaces{ev: ev}
	for i := range res.Resources {
		r := res.Resources[i]
		p := byKey[r.Source.File]
		if p == nil {
			continue
		}
		d := p.ctx.inst.decl
		loc := parser.Location{File: d.rng.Filename, Line: d.rng.Start.Line}
		if p.release != "" {
			r.Note("the Kubernetes %s rendered from %s by this helm_release", r.Address, p.release)
			r.Address = indexedAddress(p.ctx.inst.addr, r.Address)
		} else {
			r.Note("the Kubernetes %s declared by this %s", r.Address, d.typ)
			r.Address = p.ctx.inst.addr
		}
		if r.Region == "" {
			if place, ok := places.place(&p.ctx, &r); ok {
				r.Region, r.RegionUnknown = place.region, ""
				r.Note("region %s from %s", place.region, place.from)
			}
		}
		r.Source, r.Root = loc, ""
		if cl := places.clusterFor(&p.ctx); cl != nil {
			if w, ok := gkeAutoProvisionedPods(&r, cl.addr, &view{obj: cl.value}); ok {
				ev.l.warns = append(ev.l.warns, w)
			}
		}
		for j := range r.Suppressions {
			r.Suppressions[j].Source = loc // gpuguard.dev/ignore annotations: the block is their place
		}
		r.Suppressions = append(append([]parser.Suppression(nil), d.suppressions...), r.Suppressions...)
		if p.ctx.inst.mod.expansion != "" {
			r.AddUnresolved("module", p.ctx.inst.mod.expansion)
		}
		for _, u := range p.unknown {
			r.AddUnresolved(u.resource, u.reason)
		}
		out = append(out, &r)
	}
	return out
}

// devicePluginOnGroups records on each node group of the configuration the NVIDIA device plugin
// config its nodes take, as the configuration's own objects and chart releases deploy the
// plugin: pods in manifests read with the configuration that run on the group share its GPUs so.
func (ev *evaluation) devicePluginOnGroups(rs []parser.Resource) {
	if len(ev.releases) == 0 && len(ev.manifests) == 0 {
		return
	}
	byGroup := kubernetes.DevicePluginOnGroups(ev.manifestFiles(), ev.releases, kubernetes.NodeGroupsOf(rs))
	for i := range rs {
		r := &rs[i]
		// A group whose nodes configure the plugin themselves (Bottlerocket's settings) keeps
		// their config.
		if c := byGroup[r.Address]; c != nil && r.NodeLabels != nil && r.Pod == nil && r.NodeLabels.DevicePlugin == nil {
			labels := *r.NodeLabels // a copy: instances may share the labels they were read with
			labels.DevicePlugin = c
			r.NodeLabels = &labels
		}
	}
}

// manifestFiles are the decoded files of the configuration's own Kubernetes objects.
func (ev *evaluation) manifestFiles() []*kubernetes.File {
	files := make([]*kubernetes.File, len(ev.manifests))
	for i := range ev.manifests {
		files[i] = ev.manifests[i].file
	}
	return files
}

// typedWorkloads are the Kubernetes provider's typed workload resources and the object each
// declares.
var typedWorkloads = map[string]struct{ apiVersion, kind string }{
	"kubernetes_pod": {"v1", "Pod"}, "kubernetes_pod_v1": {"v1", "Pod"},
	"kubernetes_deployment": {"apps/v1", "Deployment"}, "kubernetes_deployment_v1": {"apps/v1", "Deployment"},
	"kubernetes_stateful_set": {"apps/v1", "StatefulSet"}, "kubernetes_stateful_set_v1": {"apps/v1", "StatefulSet"},
	"kubernetes_daemonset": {"apps/v1", "DaemonSet"}, "kubernetes_daemon_set_v1": {"apps/v1", "DaemonSet"},
	"kubernetes_job": {"batch/v1", "Job"}, "kubernetes_job_v1": {"batch/v1", "Job"},
	"kubernetes_cron_job": {"batch/v1", "CronJob"}, "kubernetes_cron_job_v1": {"batch/v1", "CronJob"},
	"kubernetes_replication_controller": {"v1", "ReplicationController"}, "kubernetes_replication_controller_v1": {"v1", "ReplicationController"},
	// ConfigMaps: they declare no GPU, but may hold the device plugin's sharing configs.
	"kubernetes_config_map": {"v1", "ConfigMap"}, "kubernetes_config_map_v1": {"v1", "ConfigMap"},
	// Quotas: they declare no GPU, but bound the GPUs their namespace's pods request; a quota
	// scoped to priority classes counts the pods of the global default class that name none.
	"kubernetes_resource_quota": {"v1", "ResourceQuota"}, "kubernetes_resource_quota_v1": {"v1", "ResourceQuota"},
	"kubernetes_priority_class": {"scheduling.k8s.io/v1", "PriorityClass"}, "kubernetes_priority_class_v1": {"scheduling.k8s.io/v1", "PriorityClass"},
	// LimitRanges: they declare no GPU, but fill in what their namespace's containers leave
	// out (GPUs too, where their max allows them) and refuse pods past their bounds.
	"kubernetes_limit_range": {"v1", "LimitRange"}, "kubernetes_limit_range_v1": {"v1", "LimitRange"},
	// RuntimeClasses: the pods that name one are refused without it (the provider writes only
	// its handler: no overhead or scheduling).
	"kubernetes_runtime_class_v1": {"node.k8s.io/v1", "RuntimeClass"},
	// Autoscalers: they declare no GPU, but set the replicas of the workload they scale.
	"kubernetes_horizontal_pod_autoscaler": {"autoscaling/v1", "HorizontalPodAutoscaler"}, "kubernetes_horizontal_pod_autoscaler_v1": {"autoscaling/v1", "HorizontalPodAutoscaler"},
	"kubernetes_horizontal_pod_autoscaler_v2": {"autoscaling/v2", "HorizontalPodAutoscaler"}, "kubernetes_horizontal_pod_autoscaler_v2beta2": {"autoscaling/v2beta2", "HorizontalPodAutoscaler"},
}

func init() {
	for t := range typedWorkloads {
		register(t, mapTypedWorkload)
	}
}

// mapTypedWorkload turns a typed workload (kubernetes_deployment_v1, ...) into the object it
// declares and reads it as a manifest. The provider writes Kubernetes' fields in snake_case and
// nested objects as blocks: block names become camelCase fields (repeated blocks become lists
// under the Kubernetes plural), attribute maps (labels, limits, node_selector) keep their keys.
func mapTypedWorkload(c *mapContext) []*parser.Resource {
	v, unknown := gpuUnknowns(c.inst.value)
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
		return nil
	}
	w := typedWorkloads[c.inst.decl.typ]
	obj := map[string]any{"apiVersion": w.apiVersion, "kind": w.kind}
	for _, name := range []string{"metadata", "spec"} {
		if v.Type().HasAttribute(name) {
			if b := convertBlock(v.GetAttr(name), false); b != nil {
				obj[name] = b
			}
		}
	}
	if w.kind == "ConfigMap" && v.Type().HasAttribute("data") {
		obj["data"] = plain(v.GetAttr("data")) // a map: its keys are the ConfigMap's, as written
	}
	if w.kind == "RuntimeClass" && v.Type().HasAttribute("handler") {
		obj["handler"] = plain(v.GetAttr("handler")) // beside metadata, not under spec
	}
	if w.kind == "PriorityClass" && v.Type().HasAttribute("global_default") {
		obj["globalDefault"] = plain(v.GetAttr("global_default")) // beside metadata, not under spec
	}
	return c.manifestResources(obj, unknown)
}

// repeatedBlocks are the provider's blocks that stand for Kubernetes lists, by the list's name.
var repeatedBlocks = map[string]string{
	"container": "containers", "init_container": "initContainers", "toleration": "tolerations",
	"volume": "volumes", "volume_mount": "volumeMounts", "port": "ports", "env": "env", "env_from": "envFrom",
	"image_pull_secrets": "imagePullSecrets", "host_aliases": "hostAliases",
	"topology_spread_constraint": "topologySpreadConstraints", "node_selector_term": "nodeSelectorTerms",
	"match_expressions": "matchExpressions", "match_fields": "matchFields",
	"match_expression": "matchExpressions", // a ResourceQuota's scope_selector
	"limit":            "limits",           // a LimitRange's items
	"preferred_during_scheduling_ignored_during_execution": "preferredDuringSchedulingIgnoredDuringExecution",
}

// integerFields are written as strings by the provider (replicas = "2") and read as numbers.
var integerFields = map[string]bool{"replicas": true, "parallelism": true, "completions": true}

// convertBlock converts a block value (a tuple or list of objects): one object for a single
// block, all of them for a repeated one.
func convertBlock(v cty.Value, repeated bool) any {
	if v.IsNull() || !v.IsKnown() || !v.CanIterateElements() {
		return nil
	}
	var items []any
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if o := convertObject(e); o != nil {
			items = append(items, o)
		}
	}
	if repeated {
		return items
	}
	if len(items) == 0 {
		return nil
	}
	return items[0]
}

// convertObject converts a block's object: attributes by their camelCase names, nested blocks
// recursively.
func convertObject(v cty.Value) map[string]any {
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
		return nil
	}
	out := map[string]any{}
	for name := range v.Type().AttributeTypes() {
		a := v.GetAttr(name)
		t := a.Type()
		switch {
		case (t.IsTupleType() || t.IsListType()) && blockLike(a):
			if list, ok := repeatedBlocks[name]; ok {
				out[list] = convertBlock(a, true)
			} else if b := convertBlock(a, false); b != nil {
				out[camel(name)] = b
			}
		default:
			if x := plain(a); x != nil {
				if s, ok := x.(string); ok && integerFields[name] {
					if n, err := strconv.Atoi(s); err == nil {
						x = n
					}
				}
				out[camel(name)] = x
			}
		}
	}
	return out
}

// blockLike reports whether a sequence holds objects (a block) rather than plain values.
func blockLike(v cty.Value) bool {
	if !v.IsKnown() || v.IsNull() || v.LengthInt() == 0 {
		return v.Type().IsTupleType() || v.Type().IsListType() && v.Type().ElementType().IsObjectType()
	}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		return e.Type().IsObjectType()
	}
	return false
}

// plain converts an attribute value as it is: maps keep their keys (labels, limits).
func plain(v cty.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return v.AsString()
	case t == cty.Bool:
		return v.True()
	case t == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return f
	case t.IsObjectType() || t.IsMapType():
		m := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if x := plain(e); x != nil {
				m[k.AsString()] = x
			}
		}
		return m
	case t.IsTupleType() || t.IsListType() || t.IsSetType():
		var l []any
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if x := plain(e); x != nil {
				l = append(l, x)
			}
		}
		return l
	}
	return nil
}

// camel turns a provider field name into Kubernetes' ("node_selector" -> "nodeSelector").
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
