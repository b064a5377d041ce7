package terraform

import (
	"fmt"

	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

func init() {
	register("kubernetes_manifest", mapKubernetesManifest)
}

// mapKubernetesManifest reads the object of a kubernetes_manifest (Terraform's Kubernetes
// provider) the way a manifest file is read: a Deployment, Job or InferenceService declared
// through Terraform is priced like the same object in YAML. Values known only after apply are
// read as absent. The resources take the Terraform address and block; the Kubernetes identity
// goes in a note. An HPA or a Karpenter NodePool in another kubernetes_manifest is not applied:
// each manifest is read on its own.
func mapKubernetesManifest(c *mapContext) []*parser.Resource {
	v := c.inst.value
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute("manifest") {
		return nil
	}
	m, _ := v.GetAttr("manifest").UnmarkDeep()
	if m.IsNull() || !m.IsKnown() {
		return nil
	}
	m = cty.UnknownAsNull(m)
	d := c.inst.decl
	loc := parser.Location{File: d.rng.Filename, Line: d.rng.Start.Line}
	data, err := ctyjson.Marshal(m, m.Type())
	if err != nil {
		c.ev.l.errs = append(c.ev.l.errs, parser.Error{File: loc.File, Line: loc.Line, Message: fmt.Sprintf("%s: manifest: %v", c.inst.addr, err)})
		return nil
	}
	res := kubernetes.Parse(loc.File, data, c.ev.kubernetes)
	at := func(es []parser.Error) []parser.Error {
		out := make([]parser.Error, len(es))
		for i, e := range es {
			out[i] = parser.Error{File: loc.File, Line: loc.Line, Message: c.inst.addr + ": " + e.Message}
		}
		return out
	}
	c.ev.l.errs = append(c.ev.l.errs, at(res.Errors)...)
	c.ev.l.warns = append(c.ev.l.warns, at(res.Warnings)...)
	out := make([]*parser.Resource, 0, len(res.Resources))
	for i := range res.Resources {
		r := res.Resources[i]
		r.Note("the Kubernetes %s declared by this kubernetes_manifest", r.Address)
		r.Address, r.Source = c.inst.addr, loc
		for j := range r.Suppressions {
			r.Suppressions[j].Source = loc // gpuguard.dev/ignore annotations: the block is their place
		}
		r.Suppressions = append(append([]parser.Suppression(nil), d.suppressions...), r.Suppressions...)
		if c.inst.mod.expansion != "" {
			r.AddUnresolved("module", c.inst.mod.expansion)
		}
		out = append(out, &r)
	}
	return out
}

// typedWorkloads are the Kubernetes provider's typed workload resources. gpuguard does not map
// their schema (blocks in snake_case) to pods yet; one that requests GPUs is a warning, so that it
// is not missed in silence.
var typedWorkloads = []string{
	"kubernetes_pod", "kubernetes_pod_v1",
	"kubernetes_deployment", "kubernetes_deployment_v1",
	"kubernetes_stateful_set", "kubernetes_stateful_set_v1",
	"kubernetes_daemonset", "kubernetes_daemon_set_v1",
	"kubernetes_job", "kubernetes_job_v1",
	"kubernetes_cron_job", "kubernetes_cron_job_v1",
	"kubernetes_replication_controller", "kubernetes_replication_controller_v1",
}

func init() {
	for _, t := range typedWorkloads {
		register(t, warnTypedWorkload)
	}
}

func warnTypedWorkload(c *mapContext) []*parser.Resource {
	if name, ok := gpuRequest(c.inst.value, 0); ok {
		d := c.inst.decl
		c.ev.l.warns = appendOnce(c.ev.l.warns, parser.Error{File: d.rng.Filename, Line: d.rng.Start.Line,
			Message: fmt.Sprintf("%s requests %s, but gpuguard does not read %s yet: it is not counted (declare the object with kubernetes_manifest, or check the rendered YAML)", c.inst.addr, name, d.typ)})
	}
	return nil
}

// gpuRequest finds an extended-resource key gpuguard counts (nvidia.com/gpu, amd.com/gpu, ...)
// anywhere in a value: limits and requests are maps keyed by resource name.
func gpuRequest(v cty.Value, depth int) (string, bool) {
	v, _ = v.UnmarkDeep()
	if depth > 32 || v.IsNull() || !v.IsKnown() {
		return "", false
	}
	t := v.Type()
	if !t.IsObjectType() && !t.IsMapType() && !t.IsTupleType() && !t.IsListType() && !t.IsSetType() {
		return "", false
	}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if k.Type() == cty.String && k.IsKnown() && !k.IsNull() && kubernetes.IsGPUResource(k.AsString()) {
			return k.AsString(), true
		}
		if name, ok := gpuRequest(e, depth+1); ok {
			return name, true
		}
	}
	return "", false
}
