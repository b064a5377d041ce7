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
	for _, e := range append(res.Errors, res.Warnings...) {
		e.File, e.Line = loc.File, loc.Line
		e.Message = c.inst.addr + ": " + e.Message
		c.ev.l.errs = append(c.ev.l.errs, e)
	}
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
