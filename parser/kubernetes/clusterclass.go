package kubernetes

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/tree"

	"github.com/gpuguard/gpuguard/parser"
)

// A Cluster with a managed topology (spec.topology) names a ClusterClass, and Cluster API
// creates the cluster's workers from it: each of the topology's machineDeployments (and
// machinePools) is a MachineDeployment of the class's infrastructure template, customized by
// the class's patches with the Cluster's variables. gpuguard expands it the same way, offline:
// the template, patched for that worker, becomes the worker's machines, and the class's
// infrastructure cluster template (patched too) gives the region. Types are
// api/core/v1beta2/clusterclass_types.go and cluster_types.go of kubernetes-sigs/cluster-api,
// with v1beta1's field names (`ref`, `template`, `class`) read as well; read 2026-11-23.

// labelTopologyOwned marks the objects Cluster API creates for a managed topology: they are
// counted through their Cluster, not again on their own.
const labelTopologyOwned = "topology.cluster.x-k8s.io/owned"

// ccRef is a ClusterClass's reference to a template: v1beta1's `ref` or v1beta2's
// `templateRef` (which has no namespace: the class's own).
type ccRef struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Name       string `yaml:"name"`
	Namespace  string `yaml:"namespace"`
}

type ccTemplate struct {
	Ref         ccRef `yaml:"ref"`
	TemplateRef ccRef `yaml:"templateRef"`
}

func (t ccTemplate) ref() ccRef {
	if t.TemplateRef.Kind != "" {
		return t.TemplateRef
	}
	return t.Ref
}

type ccMeta struct {
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// ccWorkerClass is a MachineDeploymentClass or MachinePoolClass: v1beta1 keeps its metadata and
// templates under `template`, v1beta2 beside `class`.
type ccWorkerClass struct {
	Class    string `yaml:"class"`
	Template struct {
		Metadata       ccMeta     `yaml:"metadata"`
		Bootstrap      ccTemplate `yaml:"bootstrap"`
		Infrastructure ccTemplate `yaml:"infrastructure"`
	} `yaml:"template"`
	Metadata       ccMeta     `yaml:"metadata"`
	Bootstrap      ccTemplate `yaml:"bootstrap"`
	Infrastructure ccTemplate `yaml:"infrastructure"`
	// FailureDomain is where a MachineDeploymentClass's machines are created, unless the
	// topology's worker names its own.
	FailureDomain string `yaml:"failureDomain"`
}

func (w ccWorkerClass) infrastructure() ccRef {
	if r := w.Infrastructure.ref(); r.Kind != "" {
		return r
	}
	return w.Template.Infrastructure.ref()
}

func (w ccWorkerClass) bootstrap() ccRef {
	if r := w.Bootstrap.ref(); r.Kind != "" {
		return r
	}
	return w.Template.Bootstrap.ref()
}

type ccNames struct {
	Names []string `yaml:"names"`
}

type ccPatchDefinition struct {
	Selector struct {
		APIVersion     string `yaml:"apiVersion"`
		Kind           string `yaml:"kind"`
		MatchResources struct {
			ControlPlane           bool     `yaml:"controlPlane"`
			InfrastructureCluster  bool     `yaml:"infrastructureCluster"`
			MachineDeploymentClass *ccNames `yaml:"machineDeploymentClass"`
			MachinePoolClass       *ccNames `yaml:"machinePoolClass"`
		} `yaml:"matchResources"`
	} `yaml:"selector"`
	JSONPatches []struct {
		Op        string       `yaml:"op"`
		Path      string       `yaml:"path"`
		Value     yaml.Node    `yaml:"value"`
		ValueFrom *ccValueFrom `yaml:"valueFrom"`
	} `yaml:"jsonPatches"`
}

type ccValueFrom struct {
	Variable string `yaml:"variable"`
	Template string `yaml:"template"`
}

type ccPatch struct {
	Name        string              `yaml:"name"`
	EnabledIf   string              `yaml:"enabledIf"`
	Definitions []ccPatchDefinition `yaml:"definitions"`
	External    *struct {
		GeneratePatchesExtension string `yaml:"generatePatchesExtension"`
	} `yaml:"external"`
}

type clusterClassSpec struct {
	Infrastructure ccTemplate `yaml:"infrastructure"`
	ControlPlane   ccTemplate `yaml:"controlPlane"`
	Workers        struct {
		MachineDeployments []ccWorkerClass `yaml:"machineDeployments"`
		MachinePools       []ccWorkerClass `yaml:"machinePools"`
	} `yaml:"workers"`
	Variables []struct {
		Name   string `yaml:"name"`
		Schema struct {
			OpenAPIV3Schema yaml.Node `yaml:"openAPIV3Schema"`
		} `yaml:"schema"`
	} `yaml:"variables"`
	Patches []ccPatch `yaml:"patches"`
}

type ccValue struct {
	Name  string    `yaml:"name"`
	Value yaml.Node `yaml:"value"`
}

type clusterTopology struct {
	Class          string `yaml:"class"`          // v1beta1
	ClassNamespace string `yaml:"classNamespace"` // v1beta1
	ClassRef       struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"classRef"` // v1beta2
	Version   string    `yaml:"version"`
	Variables []ccValue `yaml:"variables"`
	Workers   struct {
		MachineDeployments []yaml.Node `yaml:"machineDeployments"`
		MachinePools       []yaml.Node `yaml:"machinePools"`
	} `yaml:"workers"`
}

type topologyWorker struct {
	Class    string    `yaml:"class"`
	Name     string    `yaml:"name"`
	Replicas yaml.Node `yaml:"replicas"`
	Metadata ccMeta    `yaml:"metadata"`
	// FailureDomain is where the worker's machines are created (a MachineDeployment's), over
	// its class's.
	FailureDomain string `yaml:"failureDomain"`
	Variables     struct {
		Overrides []ccValue `yaml:"overrides"`
	} `yaml:"variables"`
}

// patchTarget is a template a ClusterClass's patches may select, and where the class uses it.
type patchTarget struct {
	obj                        *object
	apiVersion                 string // as the class references it: selectors match it exactly
	infraCluster, controlPlane bool
	mdClass, mpClass           string
}

func (d *ccPatchDefinition) selects(t patchTarget) bool {
	s := d.Selector
	if s.Kind != t.obj.Kind || s.APIVersion != t.apiVersion {
		return false
	}
	m := s.MatchResources
	if (m.InfrastructureCluster && t.infraCluster) || (m.ControlPlane && t.controlPlane) {
		return true
	}
	if m.MachineDeploymentClass != nil && t.mdClass != "" && classMatches(m.MachineDeploymentClass.Names, t.mdClass) {
		return true
	}
	return m.MachinePoolClass != nil && t.mpClass != "" && classMatches(m.MachinePoolClass.Names, t.mpClass)
}

// classMatches reports whether a selector's class names take class; a name may hold `*`.
func classMatches(names []string, class string) bool {
	for _, n := range names {
		if ok, _ := path.Match(n, class); ok {
			return true
		}
	}
	return false
}

// patchFailure is a patch operation gpuguard could not evaluate.
type patchFailure struct {
	patch, path string
	err         error
}

func (f patchFailure) String() string {
	return fmt.Sprintf("patch %s (%s): %v", f.patch, f.path, f.err)
}

// patchedTemplate is a template's spec after the class's patches, with what they did.
type patchedTemplate struct {
	spec    any
	applied []string // "patch (path)" of each operation applied
	failed  []patchFailure
}

// applyPatches applies a ClusterClass's inline patches, in order, to a copy of one template's
// spec. A patch that cannot be evaluated is left out and reported; external patches (runtime
// extensions) are not run.
func applyPatches(patches []ccPatch, t patchTarget, vars map[string]any, cache templates) (patchedTemplate, error) {
	spec, err := nodeValue(&t.obj.Spec)
	if err != nil {
		return patchedTemplate{}, err
	}
	out := patchedTemplate{}
	for _, p := range patches {
		var defs []*ccPatchDefinition
		for i := range p.Definitions {
			if p.Definitions[i].selects(t) {
				defs = append(defs, &p.Definitions[i])
			}
		}
		if len(defs) == 0 {
			continue
		}
		enabled, enabledErr := patchEnabled(p.EnabledIf, vars, cache)
		for _, d := range defs {
			for _, jp := range d.JSONPatches {
				if enabledErr != nil {
					out.failed = append(out.failed, patchFailure{p.Name, jp.Path, fmt.Errorf("enabledIf: %w", enabledErr)})
					continue
				}
				if !enabled {
					continue
				}
				var value any
				var perr error
				if jp.Op != "remove" {
					value, perr = patchValue(jp.Value, jp.ValueFrom, vars, cache)
				}
				if perr == nil {
					spec, perr = applyJSONPatch(spec, jp.Op, jp.Path, value)
				}
				if perr != nil {
					out.failed = append(out.failed, patchFailure{p.Name, jp.Path, perr})
					continue
				}
				out.applied = append(out.applied, fmt.Sprintf("%s (%s %s)", p.Name, jp.Op, jp.Path))
			}
		}
	}
	out.spec = spec
	return out, nil
}

// patchEnabled evaluates a patch's enabledIf: enabled when unset or when it renders "true".
func patchEnabled(enabledIf string, vars map[string]any, cache templates) (bool, error) {
	if strings.TrimSpace(enabledIf) == "" {
		return true, nil
	}
	s, err := renderPatchTemplate(enabledIf, vars, cache)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(s) == "true", nil
}

// renderPatchTemplate renders a template and refuses output that read a variable with no value
// (Go's templates print "<no value>" for it, which no field should be set to).
func renderPatchTemplate(text string, vars map[string]any, cache templates) (string, error) {
	s, err := renderTemplate(text, vars, cache)
	if err != nil {
		return "", err
	}
	if strings.Contains(s, "<no value>") {
		return "", fmt.Errorf("template %q reads a variable that is not set", strings.TrimSpace(text))
	}
	return s, nil
}

// patchValue is the value a JSON patch sets: literal, a variable's, or a template's output read
// as YAML.
func patchValue(literal yaml.Node, from *ccValueFrom, vars map[string]any, cache templates) (any, error) {
	switch {
	case from != nil && from.Variable != "":
		v, err := lookupVariable(vars, from.Variable)
		return tree.Copy(v), err
	case from != nil && from.Template != "":
		s, err := renderPatchTemplate(from.Template, vars, cache)
		if err != nil {
			return nil, err
		}
		var v any
		if err := yaml.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("template output %q is not YAML: %v", s, err)
		}
		return v, nil
	case literal.Kind != 0:
		return nodeValue(&literal)
	}
	return nil, fmt.Errorf("no value or valueFrom")
}

// clusterClass is a ClusterClass decoded once for all the Clusters built from it.
type clusterClass struct {
	spec      clusterClassSpec
	schemas   map[string]any // each variable's openAPIV3Schema, as plain values
	templates templates
}

// loadClusterClass decodes a ClusterClass, once: later calls get the same result. The error is
// returned only the first time, so that it is reported once.
func loadClusterClass(o *object, cache map[*object]*clusterClass) (*clusterClass, error) {
	if cc, ok := cache[o]; ok {
		if cc == nil {
			return nil, errReported
		}
		return cc, nil
	}
	cache[o] = nil
	cc := &clusterClass{schemas: map[string]any{}, templates: templates{}}
	if err := decodeSpec(o, &cc.spec); err != nil {
		return nil, err
	}
	for _, v := range cc.spec.Variables {
		s, err := nodeValue(&v.Schema.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("variable %s: schema: %v", v.Name, err)
		}
		cc.schemas[v.Name] = s
	}
	cache[o] = cc
	return cc, nil
}

// errReported stands for an error already reported for the same object.
var errReported = errors.New("reported already")

// variables are the variables a worker's patches see: each declared variable's schema default
// (when base is nil), or a copy of base (the Cluster's), under the values given, defaults filled
// in below the top as the API server would.
func (cc *clusterClass) variables(base map[string]any, values []ccValue) (map[string]any, error) {
	var vars map[string]any
	if base == nil {
		vars = map[string]any{}
		for name, s := range cc.schemas {
			if d := defaulted(s, nil); d != nil {
				vars[name] = d
			}
		}
	} else {
		vars = tree.CopyMap(base)
	}
	for _, v := range values {
		x, err := nodeValue(&v.Value)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %v", v.Name, err)
		}
		vars[v.Name] = defaulted(cc.schemas[v.Name], x)
	}
	return vars, nil
}

// defaulted fills a value's unset parts from an OpenAPI schema's defaults (structural defaulting:
// properties, additionalProperties and items).
func defaulted(schema, v any) any {
	s, _ := schema.(map[string]any)
	if v == nil {
		d, ok := s["default"]
		if !ok {
			return nil
		}
		v = tree.Copy(d)
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for k, ps := range props {
			if c := defaulted(ps, x[k]); c != nil {
				x[k] = c
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for k, c := range x {
				if _, isProp := props[k]; !isProp {
					x[k] = defaulted(ap, c)
				}
			}
		}
	case []any:
		for i, c := range x {
			if d := defaulted(s["items"], c); d != nil {
				x[i] = d
			}
		}
	}
	return v
}

// typeFields are the fields of machine templates that decide what gpuguard prices: a patch to
// one of them (or to an object holding them) that cannot be evaluated leaves the machines unknown.
var typeFields = map[string]bool{
	"spec": true, "template": true, "instanceType": true, "vmSize": true, "machineType": true, "sku": true,
	"spotMarketOptions": true, "spotVMOptions": true, "provisioningModel": true, "preemptible": true,
	"marketType": true, "capacityType": true, "scaleSetPriority": true, "awsLaunchTemplate": true,
	"mixedInstancesPolicy": true, "scaling": true, "minSize": true, "maxSize": true,
	"spot": true, "minCount": true, "maxCount": true, "nodeLocations": true,
	"resources": true, "enableAutoScaling": true, // CAPZ's ASO pools: spec.resources[].spec
}

var regionFields = map[string]bool{"spec": true, "template": true, "region": true, "location": true, "resources": true}

// touching returns the first failure whose path ends at one of fields.
func touching(failed []patchFailure, fields map[string]bool) *patchFailure {
	for i, f := range failed {
		if fields[f.path[strings.LastIndexByte(f.path, '/')+1:]] {
			return &failed[i]
		}
	}
	return nil
}

// innerSpec is spec.template.spec of a template's spec (the object the template stamps out).
func innerSpec(spec any) any {
	m, _ := spec.(map[string]any)
	t, _ := m["template"].(map[string]any)
	return t["spec"]
}

// topologyExpansion expands one Cluster's managed topology.
type topologyExpansion struct {
	cluster, class *object
	spec           *clusterClassSpec
	cc             *clusterClass
	vars           map[string]any // the Cluster's variables
	topology       *clusterTopology
	ix             capiIndex
	// installed are the stand-ins for the objects Cluster API would create for the cluster
	// (the Cluster's infrastructure and control plane, from the class's templates): machineSet
	// and place read them as they read a Cluster written out in full.
	installed     map[string]*object
	regionProblem string
	notes         []string
}

// buildTopology makes the resources of a Cluster's topology workers; it reports whether the
// Cluster has a topology that names workers.
func buildTopology(c *object, ix capiIndex, classes map[*object]*clusterClass, res *parser.Result) bool {
	var spec struct {
		Topology *clusterTopology `yaml:"topology"`
	}
	if err := decodeSpec(c, &spec); err != nil || spec.Topology == nil {
		return false
	}
	t := spec.Topology
	if len(t.Workers.MachineDeployments)+len(t.Workers.MachinePools) == 0 {
		return false
	}
	className := cmp.Or(t.ClassRef.Name, t.Class)
	classKey := capiKey("ClusterClass", cmp.Or(t.ClassRef.Namespace, t.ClassNamespace, c.namespace()), className)
	class, ok := ix[classKey]
	if !ok {
		res.Warnings = append(res.Warnings, parser.Error{File: c.file, Line: c.line, Message: t.withoutClass(c, classKey)})
		return true
	}
	cc, err := loadClusterClass(class, classes)
	if err != nil {
		if err != errReported {
			res.Errors = append(res.Errors, specError(class, err))
		}
		return true
	}
	ex := &topologyExpansion{cluster: c, class: class, cc: cc, spec: &cc.spec, topology: t, ix: ix, installed: map[string]*object{}}
	for _, p := range ex.spec.Patches {
		if p.External != nil {
			ex.notes = append(ex.notes, fmt.Sprintf("%s's patch %s is computed by a runtime extension (%s), which gpuguard does not run: if it sets the machine type, the price is the template's own type's",
				class.address(), p.Name, cmp.Or(p.External.GeneratePatchesExtension, "external")))
		}
	}
	if ex.vars, err = cc.variables(nil, t.Variables); err != nil {
		res.Errors = append(res.Errors, parser.Error{File: c.file, Line: c.line, Message: fmt.Sprintf("%s: topology: %v", c.address(), err)})
		return true
	}
	ex.placeCluster(ex.vars)
	for i := range t.Workers.MachineDeployments {
		ex.worker("MachineDeployment", &t.Workers.MachineDeployments[i], res)
	}
	for i := range t.Workers.MachinePools {
		ex.worker("MachinePool", &t.Workers.MachinePools[i], res)
	}
	return true
}

// builtins are Cluster API's builtin variables for the cluster.
func (ex *topologyExpansion) builtins() map[string]any {
	t := ex.topology
	return map[string]any{"cluster": map[string]any{
		"name": ex.cluster.Metadata.Name, "namespace": ex.cluster.namespace(),
		"topology": map[string]any{"version": t.Version, "class": cmp.Or(t.ClassRef.Name, t.Class), "classNamespace": ex.class.namespace()},
	}}
}

// template finds a template the class references (in the class's namespace unless it says).
func (ex *topologyExpansion) template(r ccRef) (*object, string) {
	key := capiKey(r.Kind, cmp.Or(r.Namespace, ex.class.namespace()), r.Name)
	return ex.ix[key], key
}

// placeCluster stands in the Cluster's infrastructure and control plane, patched, so that the
// region is read from them as from a Cluster written out in full.
func (ex *topologyExpansion) placeCluster(vars map[string]any) {
	data := maps.Clone(vars)
	data["builtin"] = ex.builtins()
	refs := map[string]any{}
	for _, which := range []struct {
		field string
		ref   ccRef
	}{{"infrastructureRef", ex.spec.Infrastructure.ref()}, {"controlPlaneRef", ex.spec.ControlPlane.ref()}} {
		tmpl, _ := ex.template(which.ref)
		if tmpl == nil {
			continue
		}
		target := patchTarget{obj: tmpl, apiVersion: cmp.Or(which.ref.APIVersion, tmpl.APIVersion), infraCluster: which.field == "infrastructureRef", controlPlane: which.field == "controlPlaneRef"}
		p, err := applyPatches(ex.spec.Patches, target, data, ex.cc.templates)
		if err != nil {
			continue
		}
		inner, _ := innerSpec(p.spec).(map[string]any)
		if f := touching(p.failed, regionFields); f != nil {
			delete(inner, "region")
			delete(inner, "location")
			if ex.regionProblem == "" {
				ex.regionProblem = fmt.Sprintf("the region is set on %s by %s, which gpuguard could not evaluate", tmpl.address(), f)
			}
		}
		n, err := valueNode(inner)
		if err != nil || inner == nil {
			continue
		}
		stand := &object{APIVersion: tmpl.APIVersion, Kind: tmpl.Kind, Metadata: tmpl.Metadata, Spec: n, file: tmpl.file, line: tmpl.line}
		ex.installed[capiKey(tmpl.Kind, tmpl.namespace(), tmpl.Metadata.Name)] = stand
		refs[which.field] = map[string]any{"kind": tmpl.Kind, "name": tmpl.Metadata.Name, "namespace": tmpl.namespace()}
	}
	n, err := valueNode(refs)
	if err != nil {
		return
	}
	c := ex.cluster
	ex.installed[capiKey("Cluster", c.namespace(), c.Metadata.Name)] = &object{APIVersion: c.APIVersion, Kind: "Cluster", Metadata: c.Metadata, Spec: n, file: c.file, line: c.line}
}

// worker makes the resource of one topology worker (a MachineDeployment or MachinePool).
func (ex *topologyExpansion) worker(kind string, node *yaml.Node, res *parser.Result) {
	c := ex.cluster
	line := c.lineOf(node)
	var w topologyWorker
	if err := node.Decode(&w); err != nil {
		res.Errors = append(res.Errors, specError(c, lineError{line: line, err: err}))
		return
	}
	classes := ex.spec.Workers.MachineDeployments
	if kind == "MachinePool" {
		classes = ex.spec.Workers.MachinePools
	}
	where := fmt.Sprintf("%s's topology runs %s %s of class %s", c.address(), kind, w.Name, w.Class)
	i := slices.IndexFunc(classes, func(wc ccWorkerClass) bool { return wc.Class == w.Class })
	if i < 0 {
		res.Warnings = append(res.Warnings, parser.Error{File: c.file, Line: line, Message: fmt.Sprintf("%s, which %s does not define: if they are GPU machines, they are not counted", where, ex.class.address())})
		return
	}
	wc := classes[i]
	ref := wc.infrastructure()
	if ref.Kind == "" {
		return
	}
	tmpl, key := ex.template(ref)
	if tmpl == nil {
		if readsMachinesOf(ref.Kind) || readsMachinesOf(strings.TrimSuffix(ref.Kind, "Template")) {
			res.Warnings = append(res.Warnings, parser.Error{File: c.file, Line: line, Message: fmt.Sprintf("%s, whose machines' type is in %s, which is not among the files read: if they are GPU machines, they are not counted", where, key)})
		}
		return
	}
	vars, err := ex.cc.variables(ex.vars, w.Variables.Overrides)
	if err != nil {
		res.Errors = append(res.Errors, parser.Error{File: c.file, Line: line, Message: fmt.Sprintf("%s: %v", where, err)})
		return
	}
	name := c.Metadata.Name + "-" + w.Name
	builtin := ex.builtins()
	wb := map[string]any{"class": w.Class, "name": name, "topologyName": w.Name, "version": ex.topology.Version}
	if n, err := strconv.Atoi(w.Replicas.Value); err == nil && w.Replicas.Kind == yaml.ScalarNode {
		wb["replicas"] = n
	}
	target := patchTarget{obj: tmpl, apiVersion: cmp.Or(ref.APIVersion, tmpl.APIVersion)}
	if kind == "MachinePool" {
		builtin["machinePool"], target.mpClass = wb, w.Class
	} else {
		builtin["machineDeployment"], target.mdClass = wb, w.Class
	}
	vars["builtin"] = builtin
	p, err := applyPatches(ex.spec.Patches, target, vars, ex.cc.templates)
	if err != nil {
		res.Errors = append(res.Errors, specError(tmpl, err))
		return
	}
	if f := touching(p.failed, typeFields); f != nil {
		res.Warnings = append(res.Warnings, parser.Error{File: c.file, Line: line, Message: fmt.Sprintf("%s: its machines are set on %s by %s, which gpuguard could not evaluate: if they are GPU machines, they are not counted", where, tmpl.address(), f)})
		return
	}
	// The machines' object: the patched machine template for a MachineDeployment; for a
	// MachinePool, the pool object Cluster API stamps out of the pool template.
	infra := &object{APIVersion: tmpl.APIVersion, Kind: tmpl.Kind, Metadata: tmpl.Metadata, file: tmpl.file, line: tmpl.line}
	spec := p.spec
	if kind == "MachinePool" {
		// Cluster API names the pool object <cluster>-<worker>- and a random suffix
		// (InfrastructureMachinePoolNamePrefix, internal/topology/names).
		infra.Kind, infra.Metadata = strings.TrimSuffix(tmpl.Kind, "Template"), objectMeta{Name: name, GenerateName: name + "-", Namespace: c.Metadata.Namespace}
		spec = innerSpec(spec)
	}
	if infra.Spec, err = valueNode(spec); err != nil {
		res.Errors = append(res.Errors, specError(tmpl, err))
		return
	}
	installed := maps.Clone(ex.installed)
	installed[capiKey(infra.Kind, infra.namespace(), infra.Metadata.Name)] = infra
	target.obj = nil
	bootstrap, unread := ex.bootstrapStandIn(wc, target, vars, installed)
	md := ex.machineSetObject(kind, name, w, wc, infra, bootstrap, line)
	restore := ex.install(installed)
	r, warn, err := machineSet(md, ex.ix, &res.Errors)
	restore()
	if err != nil {
		res.Errors = append(res.Errors, specError(md, err))
		return
	}
	if warn != "" {
		res.Warnings = append(res.Warnings, parser.Error{File: c.file, Line: line, Message: warn})
	}
	if r == nil {
		return
	}
	r.Note("%s %s of class %s in %s, from %s", kind, w.Name, w.Class, ex.class.address(), tmpl.address())
	if len(p.applied) > 0 {
		r.Note("patched by %s: %s", ex.class.address(), strings.Join(p.applied, ", "))
	}
	for _, f := range p.failed {
		r.Note("not applied to %s: %s", tmpl.address(), f)
	}
	for _, n := range ex.notes {
		r.Note("%s", n)
	}
	if r.Region == "" && ex.regionProblem != "" {
		r.RegionUnknown = ex.regionProblem
	}
	if unread != "" {
		r.NodeLabels.Partial, r.NodeLabels.TaintsUnknown = true, true
		r.Note("%s: its nodes may carry any label", unread)
	}
	res.Resources = append(res.Resources, *r)
}

// machineSetObject is the MachineDeployment or MachinePool Cluster API creates for a worker:
// its replicas as the topology writes them (a clusterctl variable is read as elsewhere), the
// class's metadata under the topology's, and gpuguard's annotations from the Cluster unless the
// worker sets its own.
//
// Its machines carry the class's labels under the topology's, as Cluster API writes them, and
// its bootstrap is the configuration bootstrap references (nil: none).
func (ex *topologyExpansion) machineSetObject(kind, name string, w topologyWorker, wc ccWorkerClass, infra *object, bootstrap *capiRef, line int) *object {
	c := ex.cluster
	annotations := map[string]string{}
	for k, v := range c.Metadata.Annotations {
		if strings.HasPrefix(k, "gpuguard.dev/") {
			annotations[k] = v
		}
	}
	maps.Copy(annotations, wc.Template.Metadata.Annotations)
	maps.Copy(annotations, wc.Metadata.Annotations)
	maps.Copy(annotations, w.Metadata.Annotations)
	spec := &yaml.Node{Kind: yaml.MappingNode}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	refNode := func(kind, name, namespace string) *yaml.Node {
		return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("kind"), str(kind), str("name"), str(name), str("namespace"), str(namespace)}}
	}
	machineSpec := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("infrastructureRef"), refNode(infra.Kind, infra.Metadata.Name, infra.namespace())}}
	if bootstrap != nil {
		configRef := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("configRef"), refNode(bootstrap.Kind, bootstrap.Name, bootstrap.Namespace)}}
		machineSpec.Content = append(machineSpec.Content, str("bootstrap"), configRef)
	}
	if fd := cmp.Or(w.FailureDomain, wc.FailureDomain); fd != "" && kind == "MachineDeployment" {
		machineSpec.Content = append(machineSpec.Content, str("failureDomain"), str(fd))
	}
	labels := &yaml.Node{Kind: yaml.MappingNode}
	merged := map[string]string{} // the class's labels (v1beta1's place, then v1beta2's), the topology's over them
	maps.Copy(merged, wc.Template.Metadata.Labels)
	maps.Copy(merged, wc.Metadata.Labels)
	maps.Copy(merged, w.Metadata.Labels)
	for _, k := range slices.Sorted(maps.Keys(merged)) {
		labels.Content = append(labels.Content, str(k), str(merged[k]))
	}
	template := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("metadata"), {Kind: yaml.MappingNode, Content: []*yaml.Node{str("labels"), labels}},
		str("spec"), machineSpec}}
	spec.Content = append(spec.Content, str("clusterName"), str(c.Metadata.Name), str("template"), template)
	if w.Replicas.Kind != 0 {
		spec.Content = append(spec.Content, str("replicas"), &w.Replicas)
	}
	return &object{APIVersion: c.APIVersion, Kind: kind,
		Metadata: objectMeta{Name: name, Namespace: c.Metadata.Namespace, Labels: map[string]string{labelCAPICluster: c.Metadata.Name}, Annotations: annotations},
		Spec:     *spec, file: c.file, root: c.root, note: c.note, line: line, offset: c.offset}
}

// bootstrapStandIn patches the worker class's bootstrap template for the worker, as its
// infrastructure template is (target, without its object), and puts the patched template in
// installed under the template's own key. It returns the reference the machine set's bootstrap
// takes (nil when the class names none; a template not among the files stays referenced, and
// the machine set may then carry any label), and, when a patch to the template could not be
// evaluated, what says so: the labels and taints it registers are then unknown.
func (ex *topologyExpansion) bootstrapStandIn(wc ccWorkerClass, target patchTarget, vars map[string]any, installed map[string]*object) (*capiRef, string) {
	ref := wc.bootstrap()
	if ref.Kind == "" {
		return nil, ""
	}
	tmpl, _ := ex.template(ref)
	if tmpl == nil {
		return &capiRef{Kind: ref.Kind, Name: ref.Name, Namespace: cmp.Or(ref.Namespace, ex.class.namespace())}, ""
	}
	out := &capiRef{Kind: tmpl.Kind, Name: tmpl.Metadata.Name, Namespace: tmpl.namespace()}
	target.obj, target.apiVersion = tmpl, cmp.Or(ref.APIVersion, tmpl.APIVersion)
	p, err := applyPatches(ex.spec.Patches, target, vars, ex.cc.templates)
	if err == nil && len(p.failed) > 0 {
		err = errors.New(p.failed[0].String())
	}
	var n yaml.Node
	if err == nil {
		n, err = valueNode(p.spec)
	}
	if err != nil {
		return out, fmt.Sprintf("%s could not be patched for it (%v)", tmpl.address(), err)
	}
	installed[capiKey(tmpl.Kind, tmpl.namespace(), tmpl.Metadata.Name)] = &object{APIVersion: tmpl.APIVersion, Kind: tmpl.Kind, Metadata: tmpl.Metadata, Spec: n, file: tmpl.file, line: tmpl.line}
	return out, ""
}

// install puts stand-ins in the index and returns what puts the index back.
func (ex *topologyExpansion) install(objs map[string]*object) func() {
	saved := map[string]*object{}
	for k, o := range objs {
		if old, ok := ex.ix[k]; ok {
			saved[k] = old
		}
		ex.ix[k] = o
	}
	return func() {
		for k := range objs {
			if old, ok := saved[k]; ok {
				ex.ix[k] = old
			} else {
				delete(ex.ix, k)
			}
		}
	}
}

// withoutClass says what a Cluster's topology runs that gpuguard cannot count because its
// ClusterClass (classKey) is not among the files read: the class's templates, variables and
// patches decide the workers' machine type. It reads the topology buildTopology decoded.
func (t *clusterTopology) withoutClass(c *object, classKey string) string {
	var workers []string
	add := func(kind string, nodes []yaml.Node) {
		for i := range nodes {
			var w topologyWorker
			if nodes[i].Decode(&w) != nil {
				continue
			}
			n := "replicas unset"
			if r := w.Replicas; r.Kind == yaml.ScalarNode {
				if k, err := strconv.Atoi(r.Value); err == nil {
					n = fmt.Sprintf("%d replica%s", k, parser.Plural(int64(k)))
				} else {
					n = "replicas " + r.Value
				}
			}
			workers = append(workers, fmt.Sprintf("%s %s of class %s (%s)", kind, w.Name, w.Class, n))
		}
	}
	add("MachineDeployment", t.Workers.MachineDeployments)
	add("MachinePool", t.Workers.MachinePools)
	return fmt.Sprintf("%s runs %s from ClusterClass %s, whose templates, variables and patches decide their machine type; %s is not among the files read: if they are GPU machines, they are not counted",
		c.address(), strings.Join(workers, ", "), cmp.Or(t.ClassRef.Name, t.Class), classKey)
}
