package terraform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
)

// IsPlanJSON reports whether data looks like `terraform show -json` output of a plan. It is
// recognised by content: a JSON object with format_version and planned_values or
// resource_changes.
func IsPlanJSON(data []byte) bool {
	head := data
	if len(head) > 1<<16 {
		head = head[:1<<16]
	}
	t := bytes.TrimSpace(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	return bytes.Contains(data, []byte(`"format_version"`)) &&
		(bytes.Contains(data, []byte(`"planned_values"`)) || bytes.Contains(data, []byte(`"resource_changes"`)))
}

// ParsePlan reads a plan in JSON and returns the GPU resources of its planned values. Values the
// plan marks unknown are reported as unresolved on their resource.
func ParsePlan(name string, data []byte) (res parser.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = parser.Result{Errors: []parser.Error{{File: name, Message: fmt.Sprintf("internal error while reading this plan (please report it): %v", p)}}}
		}
	}()
	var plan tfjson.Plan
	if err := json.Unmarshal(data, &plan); err != nil {
		return parser.Result{Errors: []parser.Error{jsonError(name, data, err)}}
	}
	if plan.PlannedValues == nil || plan.PlannedValues.RootModule == nil {
		return parser.Result{Warnings: []parser.Error{{File: name, Message: "plan has no planned_values: nothing to price"}}}
	}
	p := &planReader{name: name, data: data, plan: &plan, configs: map[string]*tfjson.ConfigResource{}, changes: map[string]*tfjson.ResourceChange{}}
	if i := bytes.Index(data, []byte(`"planned_values"`)); i >= 0 {
		p.valuesAt = i
	}
	if plan.Config != nil && plan.Config.RootModule != nil {
		p.indexConfig(plan.Config.RootModule, "")
	}
	for _, rc := range plan.ResourceChanges {
		p.changes[rc.Address] = rc
		if rc.PreviousAddress != "" && rc.PreviousAddress != rc.Address {
			// A moved block (or an implicit move) the plan applied: the object was at the
			// previous address in the state the plan was made from.
			res.Moves = append(res.Moves, parser.Move{From: rc.PreviousAddress, To: rc.Address})
		}
	}
	ev := &evaluation{l: newLoader(nil), instances: map[string]*instance{}}
	mod := newModuleInstance(ev, &moduleConfig{dir: name}, nil, nil, "")
	p.addProviders(mod)
	p.walk(plan.PlannedValues.RootModule, ev, mod)
	res.Resources = append(res.Resources, ev.mapAll()...)
	for _, r := range ev.buildManifests(res.Resources) {
		res.Resources = append(res.Resources, *r)
	}
	ev.devicePluginOnGroups(res.Resources)
	// What the mappers found wrong (a bad GPU quantity in a kubernetes_manifest, a manifest
	// unknown until apply) is reported, as for configuration.
	res.Errors = append(res.Errors, ev.l.errs...)
	res.Warnings = append(res.Warnings, ev.l.warns...)
	return res
}

type planReader struct {
	name     string
	data     []byte
	valuesAt int
	plan     *tfjson.Plan
	configs  map[string]*tfjson.ConfigResource // full address without index
	changes  map[string]*tfjson.ResourceChange
}

func jsonError(name string, data []byte, err error) parser.Error {
	var se *json.SyntaxError
	var ute *json.UnmarshalTypeError
	line := 0
	switch {
	case errors.As(err, &se):
		line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
	case errors.As(err, &ute):
		line = 1 + bytes.Count(data[:min(int(ute.Offset), len(data))], []byte{'\n'})
	}
	return parser.Error{File: name, Line: line, Message: "invalid plan JSON: " + err.Error()}
}

func (p *planReader) indexConfig(m *tfjson.ConfigModule, prefix string) {
	for _, r := range m.Resources {
		p.configs[prefix+r.Address] = r
	}
	names := make([]string, 0, len(m.ModuleCalls))
	for n := range m.ModuleCalls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if c := m.ModuleCalls[n]; c != nil && c.Module != nil {
			p.indexConfig(c.Module, prefix+"module."+n+".")
		}
	}
}

// addProviders evaluates each provider configuration's region from constants or plan variables.
func (p *planReader) addProviders(mod *moduleInstance) {
	if p.plan.Config == nil {
		return
	}
	for key, pc := range p.plan.Config.ProviderConfigs {
		attrs := map[string]cty.Value{}
		for _, attr := range []string{"region", "zone"} {
			if v, ok := p.expressionValue(pc.Expressions[attr]); ok {
				attrs[attr] = v
			}
		}
		if refs := p.clusterReferences(pc.Expressions); len(refs) > 0 {
			// A Kubernetes, kubectl or Helm provider connects to a cluster: its references
			// stand as the unknowns they are, so that the cluster can be found (cluster.go).
			attrs["references"] = cty.TupleVal(refs)
		}
		mod.providers[key] = cty.ObjectVal(attrs)
	}
}

// clusterReferences returns, as unknowns that remember them, the clusters a Kubernetes
// provider configuration's expressions read (host = aws_eks_cluster.x.endpoint), its nested
// blocks' too (helm's kubernetes block), and through module outputs (module.eks.
// cluster_endpoint, as the configuration's module calls declare them), in a stable order.
func (p *planReader) clusterReferences(exprs map[string]*tfjson.Expression) []cty.Value {
	var out []cty.Value
	seen := map[string]bool{}
	var follow func(refs []string, prefix string, mod *tfjson.ConfigModule, depth int)
	follow = func(refs []string, prefix string, mod *tfjson.ConfigModule, depth int) {
		for _, ref := range refs {
			if addr := resourceOfReference(ref); addr != "" {
				if _, ok := clusterTypes[strings.SplitN(addr, ".", 2)[0]]; ok && !seen[prefix+addr] {
					seen[prefix+addr] = true
					out = append(out, cty.DynamicVal.Mark(computedMark{addr: prefix + addr, attr: lastPart(ref)}))
				}
				continue
			}
			// module.name.output, or module.name[key].output: the output's own references,
			// inside that module.
			parts := strings.SplitN(ref, ".", 3)
			if len(parts) != 3 || parts[0] != "module" || mod == nil || depth >= maxModuleDepth {
				continue
			}
			call := mod.ModuleCalls[stripIndex(parts[1])]
			if call == nil || call.Module == nil {
				continue
			}
			if o := call.Module.Outputs[parts[2]]; o != nil && o.Expression.ExpressionData != nil {
				follow(o.Expression.References, prefix+"module."+parts[1]+".", call.Module, depth+1)
			}
		}
	}
	var root *tfjson.ConfigModule
	if p.plan.Config != nil {
		root = p.plan.Config.RootModule
	}
	var visit func(exprs map[string]*tfjson.Expression, depth int)
	visit = func(exprs map[string]*tfjson.Expression, depth int) {
		for _, n := range slices.Sorted(maps.Keys(exprs)) {
			e := exprs[n]
			if e == nil || e.ExpressionData == nil {
				continue
			}
			follow(e.References, "", root, 0)
			if depth < 2 {
				for _, b := range e.NestedBlocks {
					visit(b, depth+1)
				}
			}
		}
	}
	visit(exprs, 0)
	return out
}

// expressionValue reads a configuration expression: a constant, or a single var.x reference
// whose value the plan records.
func (p *planReader) expressionValue(e *tfjson.Expression) (cty.Value, bool) {
	if e == nil || e.ExpressionData == nil {
		return cty.NilVal, false
	}
	if e.ConstantValue != nil && e.ConstantValue != tfjson.UnknownConstantValue {
		return goToCty(e.ConstantValue), true
	}
	for _, ref := range e.References {
		if name, ok := strings.CutPrefix(ref, "var."); ok {
			if v := p.plan.Variables[name]; v != nil {
				return goToCty(v.Value), true
			}
		}
	}
	return cty.NilVal, false
}

func (p *planReader) walk(m *tfjson.StateModule, ev *evaluation, mod *moduleInstance) {
	for _, r := range m.Resources {
		if r.Mode != tfjson.ManagedResourceMode {
			continue
		}
		base := stripIndex(r.Address)
		cfg := p.configs[base]
		decl := &resourceDecl{typ: r.Type, name: r.Name, rng: hcl.Range{Filename: p.name, Start: hcl.Pos{Line: p.lineOf(r.Address)}}}
		if cfg != nil && cfg.ProviderConfigKey != "" {
			decl.provider = cfg.ProviderConfigKey
		} else {
			decl.provider = strings.SplitN(r.Type, "_", 2)[0]
		}
		v := goToCty(map[string]any(r.AttributeValues))
		if rc := p.changes[r.Address]; rc != nil && rc.Change != nil {
			v = markUnknown(v, rc.Change.AfterUnknown, r.Address, p.referencesOf(cfg, modulePrefix(r.Address)))
		}
		key := cty.NilVal
		switch k := r.Index.(type) {
		case float64:
			key = cty.NumberFloatVal(k)
		case json.Number:
			key = cty.StringVal(k.String())
		case string:
			key = cty.StringVal(k)
		}
		inst := &instance{addr: r.Address, decl: decl, mod: mod, key: key, value: v}
		ev.add(inst, base)
	}
	for _, c := range m.ChildModules {
		p.walk(c, ev, mod)
	}
}

// referencesOf maps top-level attribute names (and nested block paths) of a resource's
// configuration to the first resource they reference, so that an unknown id can be followed.
func (p *planReader) referencesOf(cfg *tfjson.ConfigResource, prefix string) map[string]string {
	out := map[string]string{}
	if cfg == nil {
		return out
	}
	var visit func(path string, exprs map[string]*tfjson.Expression)
	visit = func(path string, exprs map[string]*tfjson.Expression) {
		for name, e := range exprs {
			if e == nil || e.ExpressionData == nil {
				continue
			}
			for _, ref := range e.References {
				if addr := resourceOfReference(ref); addr != "" {
					if _, ok := out[path+name]; !ok {
						out[path+name] = prefix + addr
					}
				}
			}
			for _, nb := range e.NestedBlocks {
				visit(path+name+".", nb)
			}
		}
	}
	visit("", cfg.Expressions)
	return out
}

// resourceOfReference returns "type.name" for a reference such as "aws_launch_template.gpu.id".
func resourceOfReference(ref string) string {
	parts := strings.Split(ref, ".")
	if len(parts) < 2 {
		return ""
	}
	switch parts[0] {
	case "var", "local", "module", "data", "count", "each", "path", "terraform", "self":
		return ""
	}
	return parts[0] + "." + stripIndex(parts[1])
}

func stripIndex(addr string) string {
	if i := strings.LastIndex(addr, "["); i > 0 && strings.HasSuffix(addr, "]") && !strings.Contains(addr[i:], ".") {
		return addr[:i]
	}
	return addr
}

func modulePrefix(addr string) string {
	i := strings.LastIndex(addr, "module.")
	if i < 0 {
		return ""
	}
	rest := addr[i:]
	// module.name or module.name[key], followed by "."
	depth := 0
	for j, c := range rest {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 && j > len("module.") {
				return addr[:i+j+1]
			}
		}
	}
	return ""
}

// markUnknown replaces the values after_unknown marks with unknowns that say why (or, when the
// configuration shows the value comes from another resource, that remember which).
func markUnknown(v cty.Value, unknown any, addr string, refs map[string]string) cty.Value {
	var walk func(v cty.Value, u any, path string) cty.Value
	walk = func(v cty.Value, u any, path string) cty.Value {
		switch uu := u.(type) {
		case bool:
			if !uu {
				return v
			}
			attr := strings.TrimSuffix(path, ".")
			if ref, ok := refs[stripIndices(attr)]; ok {
				return cty.DynamicVal.Mark(computedMark{addr: ref, attr: lastPart(attr)})
			}
			return cty.DynamicVal.Mark(unresolvedMark{fmt.Sprintf("%s.%s is known only after apply", addr, attr)})
		case map[string]any:
			m := map[string]cty.Value{}
			if v != cty.NilVal && !v.IsNull() && v.Type().IsObjectType() {
				m = v.AsValueMap()
				if m == nil {
					m = map[string]cty.Value{}
				}
			}
			for k, sub := range uu {
				m[k] = walk(m[k], sub, path+k+".")
			}
			return cty.ObjectVal(m)
		case []any:
			var elems []cty.Value
			if v != cty.NilVal && !v.IsNull() && (v.Type().IsTupleType() || v.Type().IsListType()) {
				elems = v.AsValueSlice()
			}
			for i, sub := range uu {
				for len(elems) <= i {
					elems = append(elems, cty.NullVal(cty.DynamicPseudoType))
				}
				elems[i] = walk(elems[i], sub, fmt.Sprintf("%s%d.", path, i))
			}
			return cty.TupleVal(elems)
		}
		if v == cty.NilVal {
			return cty.NullVal(cty.DynamicPseudoType)
		}
		return v
	}
	return walk(v, unknown, "")
}

func stripIndices(path string) string {
	parts := strings.Split(path, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && (p[0] < '0' || p[0] > '9') {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

func lastPart(path string) string {
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[i+1:]
	}
	return path
}

// lineOf finds the line of a resource's "address" in the planned values.
func (p *planReader) lineOf(addr string) int {
	enc, _ := json.Marshal(addr)
	i := bytes.Index(p.data[p.valuesAt:], enc)
	if i < 0 {
		return 0
	}
	return 1 + bytes.Count(p.data[:p.valuesAt+i], []byte{'\n'})
}

// goToCty converts decoded JSON into a cty value: objects, tuples, strings, numbers, bools.
func goToCty(v any) cty.Value {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType)
	case string:
		return cty.StringVal(x)
	case bool:
		return cty.BoolVal(x)
	case float64:
		return cty.NumberFloatVal(x)
	case json.Number:
		if n, err := cty.ParseNumberVal(x.String()); err == nil {
			return n
		}
		return cty.StringVal(x.String())
	case map[string]any:
		m := make(map[string]cty.Value, len(x))
		for k, e := range x {
			m[k] = goToCty(e)
		}
		return cty.ObjectVal(m)
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal
		}
		elems := make([]cty.Value, len(x))
		for i, e := range x {
			elems[i] = goToCty(e)
		}
		return cty.TupleVal(elems)
	}
	return cty.NullVal(cty.DynamicPseudoType)
}
