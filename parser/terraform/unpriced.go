package terraform

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
)

// GPU types in resources gpuguard does not price.
//
// gpuguard evaluates the resource types it knows how to price (registry.go). Others are not
// evaluated, and most have nothing to do with GPUs; but some run GPU machines gpuguard has no
// mapper for (a GameLift fleet, a DevTest Labs VM, a Colab Enterprise runtime template). Leaving those out quietly would price their GPUs at $0 in silence, so each such
// resource whose configuration names a GPU machine type as a literal, under an attribute that
// holds one (instance_type, machine_type, vm_size, ..., or vmSize and the like in the camelCase of an
// azapi_resource's ARM body), is a warning with the attribute's line.
// Values computed from variables are not looked at: that would mean evaluating every resource.

// machineTypeKey matches the attribute names that hold a machine type.
var machineTypeKey = regexp.MustCompile(`(?i)(^|_)(instance_?types?|machine_?types?|vm_?size|size|node_?type|instance_?class)$`)

// templateTypes describe machines other resources launch; those resources are priced and say so.
var templateTypes = map[string]bool{
	"aws_launch_template": true, "aws_launch_configuration": true,
	"google_compute_instance_template": true, "google_compute_region_instance_template": true,
}

// providerOfType is the cloud a resource type belongs to, by its provider prefix.
func providerOfType(typ string) string {
	switch prefix, _, _ := strings.Cut(typ, "_"); prefix {
	case "aws", "awscc":
		return parser.AWS
	case "google":
		return parser.GCP
	case "azurerm", "azapi":
		return parser.Azure
	}
	return ""
}

// unpricedGPUTypes returns a warning for each resource of a module read whose type gpuguard does
// not price and whose configuration names a GPU machine type.
func (ev *evaluation) unpricedGPUTypes() []parser.Error {
	var out []parser.Error
	seen := map[*moduleConfig]bool{}
	for _, mi := range ev.modules {
		cfg := mi.cfg
		if seen[cfg] || isStandIn(cfg.dir) {
			continue
		}
		seen[cfg] = true
		for _, d := range cfg.resources {
			if readsDecl(d) {
				continue
			}
			provider := providerOfType(d.typ)
			if provider == "" {
				continue
			}
			if path, value, rng, ok := gpuTypeIn(d.body, provider, ""); ok {
				what := d.typ
				if t := azapiLiteralType(d.body); t != "" {
					what = "azapi_resource of ARM type " + t
				}
				out = append(out, parser.Error{File: rng.Filename, Line: rng.Start.Line,
					Message: fmt.Sprintf("%s: %s is GPU type %s, but gpuguard does not price %s: its GPUs are not counted", d.addr(), path, value, what)})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// readsDecl reports whether a resource declaration is one gpuguard prices or that launches
// what it prices (a template); an azapi_resource only when its ARM type is one azapi.go reads.
func readsDecl(d *resourceDecl) bool {
	if d.typ == "azapi_resource" {
		return azapiReads(d.body)
	}
	_, priced := mappers[d.typ]
	return priced || templateTypes[d.typ]
}

// gpuTypeIn looks through a body's attributes and nested blocks, in source order, for the first
// machine-type attribute whose literal value is a GPU type of the provider.
func gpuTypeIn(body hcl.Body, provider, prefix string) (string, string, hcl.Range, bool) {
	if sb, ok := body.(*hclsyntax.Body); ok {
		attrs := make([]*hclsyntax.Attribute, 0, len(sb.Attributes))
		for _, a := range sb.Attributes {
			attrs = append(attrs, a)
		}
		sort.Slice(attrs, func(i, j int) bool { return attrs[i].SrcRange.Start.Byte < attrs[j].SrcRange.Start.Byte })
		for _, a := range attrs {
			if path, v, ok := gpuTypeInValue(a.Name, a.Expr, provider, prefix+a.Name); ok {
				return path, v, a.SrcRange, true
			}
		}
		for _, b := range sb.Blocks {
			if b.Type == "dynamic" || b.Type == "lifecycle" {
				continue
			}
			if path, v, rng, ok := gpuTypeIn(b.Body, provider, prefix+b.Type+"."); ok {
				return path, v, rng, true
			}
		}
		return "", "", hcl.Range{}, false
	}
	// JSON bodies: every property is an attribute; nested blocks are objects.
	attrs, diags := body.JustAttributes()
	if diags.HasErrors() && len(attrs) == 0 {
		return "", "", hcl.Range{}, false
	}
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := attrs[n]
		if path, v, ok := gpuTypeInValue(n, a.Expr, provider, prefix+n); ok {
			return path, v, a.Range, true
		}
	}
	return "", "", hcl.Range{}, false
}

// gpuTypeInValue evaluates an expression that refers to nothing and looks for a GPU machine type
// under a machine-type key in it (the attribute itself, or keys of objects inside it).
func gpuTypeInValue(key string, expr hcl.Expression, provider, path string) (string, string, bool) {
	if len(expr.Variables()) > 0 {
		return "", "", false
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return "", "", false
	}
	return gpuTypeInCty(key, v, provider, path)
}

func gpuTypeInCty(key string, v cty.Value, provider, path string) (string, string, bool) {
	if !v.IsKnown() || v.IsNull() {
		return "", "", false
	}
	t := v.Type()
	switch {
	case t == cty.String:
		if machineTypeKey.MatchString(key) && (parser.IsGPUInstanceType(provider, v.AsString()) || appStreamGPU(provider, v.AsString())) {
			return path, v.AsString(), true
		}
		// GCP attaches GPUs to a machine by accelerator type: nvidia-tesla-t4 (Compute Engine),
		// NVIDIA_TESLA_T4 (Vertex AI's enum); Cloud Run names its GPU in a node selector
		// (node_selector.accelerator, run.googleapis.com/accelerator in its v1 API).
		if provider == parser.GCP && (key == "accelerator_type" || key == "accelerator" || key == "run.googleapis.com/accelerator" || strings.HasSuffix(path, "accelerator.type")) &&
			strings.HasPrefix(strings.ToLower(v.AsString()), "nvidia") {
			return path, v.AsString(), true
		}
	case t.IsObjectType() || t.IsMapType():
		keys := make([]string, 0)
		vals := map[string]cty.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			keys = append(keys, k.AsString())
			vals[k.AsString()] = e
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, s, ok := gpuTypeInCty(k, vals[k], provider, path+"."+k); ok {
				return p, s, true
			}
		}
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if p, s, ok := gpuTypeInCty(key, e, provider, path); ok {
				return p, s, true
			}
		}
	}
	return "", "", false
}

// appStreamGPU reports whether an instance type is one of Amazon AppStream 2.0's graphics
// instances (stream.graphics.g4dn.xlarge, stream.graphics.g5.2xlarge, stream.graphics-pro.4xlarge,
// stream.graphics-design.large), which stream from GPU machines.
// https://aws.amazon.com/appstream2/pricing/
func appStreamGPU(provider, typ string) bool {
	return provider == parser.AWS && strings.HasPrefix(strings.ToLower(typ), "stream.graphics")
}

// gpuTypeInCall looks through the arguments of a module call gpuguard does not follow for a GPU
// machine type of any cloud under a machine-type key (instance_type, node_groups.*.
// instance_types, vm_size, ...), evaluated in the calling module, so variables, tfvars and
// locals count as well as literals. It returns the argument's path, the type and the argument's
// line: the warning that the module is not followed then says which GPUs go uncounted.
func (mi *moduleInstance) gpuTypeInCall(call *moduleCall) (path, typ string, line int, ok bool) {
	in := make(map[string]InputValue, len(call.args))
	for name, a := range call.args {
		in[name] = InputValue{Value: mi.expr(a.Expr, nil), Range: a.Range}
	}
	path, typ, at, ok := GPUTypeInInputs(in)
	return path, typ, at.Start.Line, ok
}

// GPUTypeInInputs is gpuTypeInCall for the inputs a wrapper passes a module it cannot read
// (Terragrunt's inputs for a remote source that is not downloaded), in source order; at is the
// input's range.
func GPUTypeInInputs(inputs map[string]InputValue) (path, typ string, at hcl.Range, ok bool) {
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := inputs[names[i]].Range, inputs[names[j]].Range
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Start.Byte != b.Start.Byte {
			return a.Start.Byte < b.Start.Byte
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		in := inputs[name]
		v, _ := in.Value.UnmarkDeep()
		for _, provider := range []string{parser.AWS, parser.GCP, parser.Azure} {
			if path, typ, ok := gpuTypeInCty(name, v, provider, name); ok {
				return path, typ, in.Range, true
			}
		}
	}
	return "", "", hcl.Range{}, false
}
