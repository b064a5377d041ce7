package terraform

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
)

// GPU node groups whose nodes start without the GPU driver. Each cloud's managed node groups
// install the NVIDIA driver on GPU machines unless a setting says otherwise; then the nodes
// offer no nvidia.com/gpu to pods, which stay Pending while the GPU nodes are billed, unless
// something else on the cluster installs the driver (the NVIDIA GPU Operator). The readers
// below record such a setting on the resource (parser.Resource.NoGPUDriver), only where the
// configuration states it: a setting known only at apply, or left to the cloud's default, is
// not held against the group. Rule GPU012 reports it.

// eksDriver reads an EKS managed node group's ami_type. The EKS API asks for a GPU AMI type
// with GPU instance types (CreateNodegroup, instanceTypes): parser.EKSAMITypeWithoutDriver
// judges it. An unset ami_type is left to EKS, which gpuguard does not second-guess.
func eksDriver(r *parser.Resource, w *view) {
	if !parser.NVIDIAEC2(r.InstanceType) {
		return
	}
	ami, ok := w.quiet().str("ami_type")
	if !ok {
		return // EKS picks the AMI, or it is known only at apply
	}
	if !parser.EKSAMITypeWithoutDriver(ami) {
		return
	}
	if why, ok := chosenBy(w, "ami_type"); ok {
		r.NoGPUDriver = fmt.Sprintf("ami_type is not set, and %s, %q, is an EKS AMI type without the NVIDIA driver", why, ami)
		return
	}
	r.NoGPUDriver = fmt.Sprintf("ami_type = %q, an EKS AMI type without the NVIDIA driver", ami)
}

// aksDriver reads an AKS pool's gpu_driver: "None" skips the driver AKS otherwise installs on
// GPU sizes (the API's gpuProfile.driver, default Install:
// https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update, GPUProfile), as does
// the older node pool tag SkipGPUDriverInstall=true
// (https://learn.microsoft.com/azure/aks/use-nvidia-gpu, "Skip GPU driver installation").
func aksDriver(r *parser.Resource, pool *view) {
	if !parser.IsGPUInstanceType(parser.Azure, r.InstanceType) {
		return
	}
	if d, ok := pool.quiet().str("gpu_driver"); ok && strings.EqualFold(d, "None") {
		r.NoGPUDriver = `gpu_driver = "None", which skips the NVIDIA driver AKS installs on GPU nodes`
		return
	}
	r.NoGPUDriver = parser.AKSSkipDriverTag(pool.quiet().strMap("tags"))
}

// gkeDriver reads a GKE pool's guest_accelerator.gpu_driver_installation_config:
// INSTALLATION_DISABLED turns off the driver GKE installs on GPU nodes (by default since
// 1.30.1-gke.1156000 when no version is given:
// https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#create-gpu-pool-auto-drivers).
func gkeDriver(r *parser.Resource, nodeConfig *view) {
	for _, ga := range nodeConfig.blocks("guest_accelerator") {
		for _, cfg := range ga.blocks("gpu_driver_installation_config") {
			if v, ok := cfg.quiet().str("gpu_driver_version"); ok && strings.EqualFold(v, "INSTALLATION_DISABLED") {
				r.NoGPUDriver = `guest_accelerator.gpu_driver_installation_config.gpu_driver_version = "INSTALLATION_DISABLED", which turns off the NVIDIA driver GKE installs on GPU nodes`
				return
			}
		}
	}
}

// imageDriver reads the image a launch template (image_id) or an instance (ami) boots, when it
// is read from a data source that names an EKS-optimized AMI: an SSM parameter
// (data.aws_ssm_parameter, name "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/
// standard/recommended/image_id") or an AMI name filter (data.aws_ami, values
// ["amazon-eks-node-al2023-x86_64-standard-1.31-v*"]). That is how self-managed node groups,
// and managed ones with a launch template's own image, pick their AMI. Only an image that is
// certainly one without the NVIDIA driver is held against the group: a literal AMI ID, another
// source, or a name whose unknown part could name the NVIDIA variant is not judged.
//
// what names the attribute in the message ("the launch template's image_id").
func (c *mapContext) imageDriver(r *parser.Resource, w *view, attr, what string) {
	if r.NoGPUDriver != "" || w == nil || !parser.NVIDIAEC2(r.InstanceType) {
		return
	}
	v, ok := at(w.obj, attr)
	if !ok || v.IsKnown() {
		return
	}
	refs := dataRefs(v)
	if len(refs) == 0 {
		return
	}
	var named []string
	for _, d := range refs {
		decl := d.mod.cfg.data[d.addr]
		if decl == nil {
			return
		}
		texts := dataImageNames(d.mod, decl)
		if len(texts) == 0 {
			return
		}
		for _, text := range texts {
			what := parser.EKSImageWithoutDriver(text)
			if what == "" {
				return // the NVIDIA variant, another image, or one that cannot be told
			}
			named = append(named, fmt.Sprintf("%sdata.%s (%q), %s", d.mod.prefix, d.addr, text, what))
		}
	}
	r.NoGPUDriver = fmt.Sprintf("%s is %s, without the NVIDIA driver", what, strings.Join(named, ", or "))
	if why, ok := chosenBy(w, attr); ok {
		r.NoGPUDriver += ": " + why
	}
}

// chosenBy reads what a stand-in says chose an attribute's value: its resources carry
// gpuguard_chosen_by, a map from attribute to the module setting or default that set it
// ("the module's default since v21"), so that a message does not claim the user wrote a value
// the module supplied. Resources the user wrote have no such attribute.
func chosenBy(w *view, attr string) (string, bool) {
	why, ok := w.quiet().strMap("gpuguard_chosen_by")[attr]
	return why, ok
}

// dataImageNames returns what a data source names its image by: an SSM parameter's name, or
// the values of an AMI lookup's "name" filter. A part known only at apply (the cluster's
// Kubernetes version) reads as "*".
func dataImageNames(mi *moduleInstance, decl *resourceDecl) []string {
	switch decl.typ {
	case "aws_ssm_parameter":
		content, _, _ := decl.body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "name"}}})
		if a, ok := content.Attributes["name"]; ok {
			if text, ok := imageNameText(mi, a.Expr); ok {
				return []string{text}
			}
		}
	case "aws_ami":
		content, _, _ := decl.body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "filter"}}})
		var out []string
		for _, b := range content.Blocks {
			fc, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "values"}}})
			name, ok1 := fc.Attributes["name"]
			values, ok2 := fc.Attributes["values"]
			if !ok1 || !ok2 {
				continue
			}
			if n, ok := imageNameText(mi, name.Expr); !ok || n != "name" {
				continue
			}
			items := []hcl.Expression{values.Expr}
			if tuple, ok := values.Expr.(*hclsyntax.TupleConsExpr); ok {
				items = items[:0]
				for _, e := range tuple.Exprs {
					items = append(items, e)
				}
			}
			for _, item := range items {
				text, ok := imageNameText(mi, item)
				if !ok {
					return nil
				}
				out = append(out, text)
			}
		}
		return out
	}
	return nil
}

// imageNameText evaluates a string in the data source's module; a template whose parts are
// known only at apply keeps its literal parts, with "*" for the others.
func imageNameText(mi *moduleInstance, expr hcl.Expression) (string, bool) {
	if s, ok := stringValue(mi.expr(expr, nil)); ok {
		return s, true
	}
	tmpl, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, part := range tmpl.Parts {
		if s, ok := stringValue(mi.expr(part, nil)); ok {
			b.WriteString(s)
		} else {
			b.WriteString("*")
		}
	}
	return b.String(), true
}

func stringValue(v cty.Value) (string, bool) {
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}
