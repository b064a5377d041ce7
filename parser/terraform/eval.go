package terraform

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// Limits that keep a hostile or broken configuration from hanging the run.
const (
	maxInstances   = 10000 // per count or for_each
	maxModuleDepth = 32
)

// unresolvedMark rides on an unknown value and says why it is unknown.
type unresolvedMark struct{ reason string }

// computedMark rides on a resource attribute that Terraform knows only after apply (an id, an
// arn). It names the resource, so that a reference such as launch_template.id can still be
// followed to the launch template it points at.
type computedMark struct {
	addr string // full instance address
	attr string
}

// dataMark rides on a data source's attribute, which the provider reads during plan: it names
// the data block, so that what a value was read from can still be told (the cluster a
// Kubernetes provider's host comes from, cluster.go).
type dataMark struct {
	mod  *moduleInstance
	addr string // "aws_eks_cluster.this", a key of the module's data blocks
}

func unresolved(format string, args ...any) cty.Value {
	return cty.DynamicVal.Mark(unresolvedMark{fmt.Sprintf(format, args...)})
}

// evaluation is one run over one root module and its local children.
type evaluation struct {
	l     *loader
	files *fileAccess // where file() reads, and which links are followed
	// confineModules is set when the caller named the checked directories (Options.FileDirs):
	// local module sources must then lie inside them too.
	confineModules bool
	funcs          map[string]function.Function
	instances      map[string]*instance
	order          []*instance
	// The same instances indexed as the mappers look them up: by module and type, by resource
	// address (all instances of a counted resource). Kept so lookups cost a map access, not a
	// pass over every instance: a module with thousands of node groups was quadratic.
	byType     map[typeInModule][]*instance
	byResource map[string][]*instance
	byAttr     map[lookupKey]map[string][]*instance // withAttribute's indexes
	byRef      map[lookupKey]map[string][]*instance // referrers' indexes
	asgRefs    map[string]map[string][]*instance    // by type, the resources that name an Auto Scaling group, by the group (asgtag.go)
	expanded   map[typeInModule]bool                // types instancesOf has evaluated in full
	rootDir    string
	modules    []*moduleInstance

	kubernetes   kubernetes.Options          // for kubernetes_manifest objects
	manifests    []pendingManifest           // Kubernetes objects declared in Terraform, read together
	releases     []kubernetes.ChartRelease   // helm_releases of the device plugin's charts, read with them
	modulesHome  string                      // the directory whose .terraform/modules serve this root
	modulesRead  bool                        // the downloaded modules' manifest was looked for
	modulesByKey map[string]downloadedModule // by module key path, from ModulesManifest
	followed     []string                    // directories of downloaded modules that were followed
	reservations *reservationBook            // capacity reservations and what takes them, settled after mapping
}

// moduleInstance is one instance of a module: the root, or module.x, module.x[0], module.x["k"].
type moduleInstance struct {
	ev        *evaluation
	cfg       *moduleConfig
	prefix    string // address prefix: "" or `module.x["k"].`
	parent    *moduleInstance
	call      *moduleCall
	dirs      []string // module directories from the root down, for cycle detection
	expansion string   // why this instance's own count/for_each is unknown, if it is
	// downloaded is the outermost call, in the user's own files, of a module terraform init
	// downloaded that this instance sits in (nil outside one): its resources are reported there.
	downloaded *moduleCall
	// standIn is the outermost call, in the user's own files, that gpuguard reads through one of
	// its stand-ins (standin.go); nil outside one. standInWhy says why its download was not
	// read instead.
	standIn    *moduleCall
	standInWhy string
	// eachKey is this instance's for_each key ("" without for_each): callentry.go finds the
	// entry of the caller's map or list that made it.
	eachKey string

	inputs     map[string]cty.Value
	locals     map[string]cty.Value
	localBusy  map[string]bool
	resources  map[string]*resourceState
	children   map[string]*childState
	outputs    map[string]cty.Value
	outputBusy map[string]bool
	providers  map[string]cty.Value // evaluated provider blocks by key
}

type resourceState struct {
	decl      *resourceDecl
	busy      bool
	done      bool
	instances []*instance
	value     cty.Value
}

type childState struct {
	busy bool
	done bool
	// downloaded is set when a non-local source was followed into the directory terraform init
	// downloaded it to; notFollowed says why one was not.
	downloaded  bool
	standIn     bool // read through gpuguard's stand-in for its registry module
	standInWhy  string
	notFollowed string
	// missing is why an output the module does not declare is unknown, when that is not
	// simply a mistake of the caller (a stand-in declares only the outputs it models).
	missing   string
	instances []*moduleInstance
	value     cty.Value
}

// instance is one evaluated resource instance.
type instance struct {
	addr      string
	decl      *resourceDecl
	mod       *moduleInstance
	key       cty.Value // cty.NilVal without count/for_each
	value     cty.Value // object: attributes, and nested blocks as tuples of objects
	expansion string    // why count/for_each is unknown, if it is
	seq       int       // its place in evaluation order
}

// scope holds the names bound inside a block: count.index, each.key/value, dynamic iterators.
type scope struct {
	count cty.Value
	each  cty.Value
	iters map[string]cty.Value
}

func (s *scope) with(name string, v cty.Value) *scope {
	n := &scope{iters: map[string]cty.Value{name: v}}
	if s != nil {
		n.count, n.each = s.count, s.each
		for k, x := range s.iters {
			if k != name {
				n.iters[k] = x
			}
		}
	}
	return n
}

func newModuleInstance(ev *evaluation, cfg *moduleConfig, parent *moduleInstance, call *moduleCall, prefix string) *moduleInstance {
	mi := &moduleInstance{
		ev: ev, cfg: cfg, parent: parent, call: call, prefix: prefix,
		inputs: map[string]cty.Value{}, locals: map[string]cty.Value{}, localBusy: map[string]bool{},
		resources: map[string]*resourceState{}, children: map[string]*childState{},
		outputs: map[string]cty.Value{}, outputBusy: map[string]bool{}, providers: map[string]cty.Value{},
	}
	if parent != nil {
		mi.dirs = append(append([]string{}, parent.dirs...), cfg.dir)
	} else {
		mi.dirs = []string{cfg.dir}
	}
	for _, r := range cfg.resources {
		mi.resources[r.addr()] = &resourceState{decl: r}
	}
	ev.modules = append(ev.modules, mi)
	return mi
}

// expr evaluates an expression in this module. It never fails: an error becomes an unknown that
// carries the diagnostic as its reason. An expression built from parts (an object or tuple
// literal, a for expression, merge(...)) keeps the parts that evaluate: see salvage.
func (mi *moduleInstance) expr(e hcl.Expression, sc *scope) cty.Value {
	return evalOrSalvage(e, mi.context(e, sc), 0)
}

func diagReason(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Subject != nil {
			msg = fmt.Sprintf("%s (%s:%d)", msg, d.Subject.Filename, d.Subject.Start.Line)
		}
		return msg
	}
	return diags.Error()
}

func variablesOf(e hcl.Expression) []hcl.Traversal {
	if se, ok := e.(hclsyntax.Expression); ok {
		return hclsyntax.Variables(se)
	}
	return e.Variables()
}

// context builds the evaluation context an expression needs, resolving only what it refers to.
func (mi *moduleInstance) context(e hcl.Expression, sc *scope) *hcl.EvalContext {
	ctx := &hcl.EvalContext{Functions: mi.ev.funcs}
	trs := variablesOf(e)
	if len(trs) == 0 {
		return ctx
	}
	vars := make(map[string]cty.Value, 4)
	var varObj, localObj, moduleObj map[string]cty.Value
	var resObj, dataObj map[string]map[string]cty.Value
	for _, tr := range trs {
		root := tr.RootName()
		name := ""
		if len(tr) > 1 {
			if a, ok := tr[1].(hcl.TraverseAttr); ok {
				name = a.Name
			}
		}
		if sc != nil {
			if v, ok := sc.iters[root]; ok {
				vars[root] = v
				continue
			}
		}
		switch root {
		case "var":
			if name != "" {
				if varObj == nil {
					varObj = map[string]cty.Value{}
				}
				varObj[name] = mi.variable(name)
			}
		case "local":
			if name != "" {
				if localObj == nil {
					localObj = map[string]cty.Value{}
				}
				localObj[name] = mi.local(name)
			}
		case "count":
			if sc != nil && sc.count != cty.NilVal {
				vars["count"] = sc.count
			}
		case "each":
			if sc != nil && sc.each != cty.NilVal {
				vars["each"] = sc.each
			}
		case "path":
			// As Terraform sets them, running in the root module's directory: path.module is
			// relative to it ("." for the root), path.root is ".", path.cwd is absolute. The file
			// functions resolve relative paths from the same directory.
			rootDir := mi.ev.rootDir
			module := "."
			if rel, err := filepath.Rel(rootDir, mi.cfg.dir); err == nil {
				module = rel
			}
			cwd, err := filepath.Abs(rootDir)
			if err != nil {
				cwd = rootDir
			}
			vars["path"] = cty.ObjectVal(map[string]cty.Value{
				"module": cty.StringVal(filepath.ToSlash(module)),
				"root":   cty.StringVal("."),
				"cwd":    cty.StringVal(filepath.ToSlash(cwd)),
			})
		case "terraform":
			vars["terraform"] = cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal("default")})
		case "module":
			if name != "" {
				if moduleObj == nil {
					moduleObj = map[string]cty.Value{}
				}
				v, missing := mi.childValue(name)
				if prev, ok := moduleObj[name]; ok {
					v = prev
				}
				moduleObj[name] = fill(v, tr[2:], "module."+name, mi.prefix, false, missing)
			}
		case "data":
			if len(tr) > 2 {
				if a, ok := tr[2].(hcl.TraverseAttr); ok && name != "" {
					if dataObj == nil {
						dataObj = map[string]map[string]cty.Value{}
					}
					if dataObj[name] == nil {
						dataObj[name] = map[string]cty.Value{}
					}
					dataObj[name][a.Name] = cty.DynamicVal.WithMarks(cty.NewValueMarks(
						unresolvedMark{fmt.Sprintf("data.%s.%s is read from the provider during plan", name, a.Name)},
						dataMark{mod: mi, addr: name + "." + a.Name}))
				}
			}
		case "self":
			vars["self"] = unresolved("self is known only after apply")
		default:
			if name == "" {
				continue
			}
			if resObj == nil {
				resObj = map[string]map[string]cty.Value{}
			}
			if resObj[root] == nil {
				resObj[root] = map[string]cty.Value{}
			}
			v, ok := resObj[root][name]
			if !ok {
				v = mi.resourceValue(root, name)
			}
			resObj[root][name] = fill(v, tr[2:], root+"."+name, mi.prefix, true, "")
		}
	}
	if len(varObj) > 0 {
		vars["var"] = cty.ObjectVal(varObj)
	}
	if len(localObj) > 0 {
		vars["local"] = cty.ObjectVal(localObj)
	}
	if len(moduleObj) > 0 {
		vars["module"] = cty.ObjectVal(moduleObj)
	}
	if len(dataObj) > 0 {
		d := map[string]cty.Value{}
		for t, m := range dataObj {
			d[t] = cty.ObjectVal(m)
		}
		vars["data"] = cty.ObjectVal(d)
	}
	for t, m := range resObj {
		vars[t] = cty.ObjectVal(m)
	}
	ctx.Variables = vars
	return ctx
}

// fill makes sure the attributes a traversal reads exist: an attribute missing from a resource's
// configuration is one Terraform computes at apply time, so it becomes an unknown that remembers
// the resource; an output missing from a module is an unknown that says so (missing, when set,
// is why the module has no such output).
func fill(v cty.Value, steps hcl.Traversal, what, prefix string, isResource bool, missing string) cty.Value {
	if len(steps) == 0 || v.IsMarked() || !v.IsKnown() || v.IsNull() {
		return v
	}
	ty := v.Type()
	switch s := steps[0].(type) {
	case hcl.TraverseAttr:
		if !ty.IsObjectType() {
			return v
		}
		m := v.AsValueMap()
		if m == nil {
			m = map[string]cty.Value{}
		}
		cur, ok := m[s.Name]
		if !ok {
			if isResource {
				root := strings.Join(strings.SplitN(what, ".", 3)[:2], ".")
				cur = cty.DynamicVal.Mark(computedMark{addr: prefix + root, attr: strings.TrimPrefix(what+"."+s.Name, root+".")})
			} else if missing != "" {
				cur = cty.DynamicVal.Mark(unresolvedMark{missing})
			} else {
				cur = cty.DynamicVal.Mark(unresolvedMark{fmt.Sprintf("%s%s has no output %q", prefix, what, s.Name)})
			}
		}
		m[s.Name] = fill(cur, steps[1:], what+"."+s.Name, prefix, isResource, "")
		return cty.ObjectVal(m)
	case hcl.TraverseIndex:
		switch {
		case ty.IsTupleType() && s.Key.Type() == cty.Number:
			elems := v.AsValueSlice()
			bf := s.Key.AsBigFloat()
			if i, acc := bf.Int64(); acc == big.Exact && i >= 0 && int(i) < len(elems) {
				elems[i] = fill(elems[i], steps[1:], what, prefix, isResource, missing)
				return cty.TupleVal(elems)
			}
		case ty.IsObjectType() && s.Key.Type() == cty.String:
			m := v.AsValueMap()
			if e, ok := m[s.Key.AsString()]; ok {
				m[s.Key.AsString()] = fill(e, steps[1:], what, prefix, isResource, missing)
				return cty.ObjectVal(m)
			}
		}
	}
	return v
}

// variable returns the value of var.name in this module.
func (mi *moduleInstance) variable(name string) cty.Value {
	if v, ok := mi.inputs[name]; ok {
		return v
	}
	return unresolved("var.%s is not declared in %s", name, mi.cfg.dir)
}

// local returns local.name, evaluating it on first use.
func (mi *moduleInstance) local(name string) cty.Value {
	if v, ok := mi.locals[name]; ok {
		return v
	}
	a, ok := mi.cfg.locals[name]
	if !ok {
		return unresolved("local.%s is not defined in %s", name, mi.cfg.dir)
	}
	if mi.localBusy[name] {
		return unresolved("local.%s refers to itself (%s:%d)", name, a.Range.Filename, a.Range.Start.Line)
	}
	mi.localBusy[name] = true
	v := mi.expr(a.Expr, nil)
	mi.localBusy[name] = false
	mi.locals[name] = v
	return v
}

// resourceValue returns the value a reference to type.name sees: one object, a tuple (count) or
// an object of instances (for_each).
func (mi *moduleInstance) resourceValue(typ, name string) cty.Value {
	rs, ok := mi.resources[typ+"."+name]
	if !ok {
		return unresolved("%s%s.%s is not declared in %s", mi.prefix, typ, name, mi.cfg.dir)
	}
	mi.expandResource(rs)
	return rs.value
}

// expandResource evaluates every instance of a resource once.
func (mi *moduleInstance) expandResource(rs *resourceState) {
	if rs.done {
		return
	}
	if rs.busy {
		rs.value = unresolved("%s%s refers to itself through other resources", mi.prefix, rs.decl.addr())
		return
	}
	rs.busy = true
	defer func() { rs.busy, rs.done = false, true }()
	d := rs.decl
	base := mi.prefix + d.addr()
	keys, kind, why, from := mi.expansionKeys(d.count, d.forEach, nil)
	if why != "" {
		from = mi.withResourceRefs(from, cmp.Or(d.count, d.forEach))
		inst := mi.newInstance(base, d, cty.NilVal, unknownScope(kind, why, from))
		inst.expansion = why
		rs.instances = []*instance{inst}
		rs.value = cty.DynamicVal.Mark(unresolvedMark{why})
		return
	}
	switch kind {
	case "":
		inst := mi.newInstance(base, d, cty.NilVal, nil)
		rs.instances = []*instance{inst}
		rs.value = inst.value
	case "count":
		vals := make([]cty.Value, 0, len(keys))
		for _, k := range keys {
			idx, _ := k.key.AsBigFloat().Int64()
			inst := mi.newInstance(fmt.Sprintf("%s[%d]", base, idx), d, k.key, k.scope)
			rs.instances = append(rs.instances, inst)
			vals = append(vals, inst.value)
		}
		rs.value = cty.TupleVal(vals)
	case "for_each":
		obj := map[string]cty.Value{}
		for _, k := range keys {
			inst := mi.newInstance(fmt.Sprintf("%s[%q]", base, k.key.AsString()), d, k.key, k.scope)
			rs.instances = append(rs.instances, inst)
			obj[k.key.AsString()] = inst.value
		}
		rs.value = cty.ObjectVal(obj)
	}
}

func unknownScope(kind, why string, from cty.Value) *scope {
	u := cty.DynamicVal.Mark(unresolvedMark{why})
	for _, c := range marksOf[computedMark](from) {
		u = u.Mark(c) // each.value still refers to what the expansion does (for_each = toset(aws_eks_node_group.x.resources[*]...))
	}
	switch kind {
	case "count":
		return &scope{count: cty.ObjectVal(map[string]cty.Value{"index": u})}
	case "for_each":
		return &scope{each: cty.ObjectVal(map[string]cty.Value{"key": u, "value": u})}
	}
	return nil
}

// withResourceRefs marks v as computed from the resources that e reads, directly or through a
// module's outputs or a local: a for expression over an unknown (for_each = toset([for r in
// aws_eks_node_group.x.resources : ...])) returns an unknown without its collection's marks.
func (mi *moduleInstance) withResourceRefs(v cty.Value, e hcl.Expression) cty.Value {
	for _, tr := range variablesOf(e) {
		switch tr.RootName() {
		case "each", "count", "path", "terraform", "self":
			continue
		}
		ref := mi.expr(&hclsyntax.ScopeTraversalExpr{Traversal: tr, SrcRange: tr.SourceRange()}, nil)
		for _, c := range marksOf[computedMark](ref) {
			v = v.Mark(c)
		}
	}
	return v
}

type expansionKey struct {
	key   cty.Value
	scope *scope
}

// expansionKeys evaluates count or for_each. kind is "", "count" or "for_each"; why is set when
// the expansion cannot be known, and from is then the value it could not expand (an unknown
// that may remember the resources it comes from).
func (mi *moduleInstance) expansionKeys(count, forEach hcl.Expression, sc *scope) (keys []expansionKey, kind, why string, from cty.Value) {
	switch {
	case count != nil:
		kind = "count"
		v := mi.expr(count, sc)
		n, reason := wholeNumber(v)
		if reason != "" {
			return nil, kind, "count: " + reason, v
		}
		if n > maxInstances {
			return nil, kind, fmt.Sprintf("count: %d instances is over the %d gpuguard expands", n, maxInstances), v
		}
		for i := 0; i < n; i++ {
			idx := cty.NumberIntVal(int64(i))
			keys = append(keys, expansionKey{key: idx, scope: &scope{count: cty.ObjectVal(map[string]cty.Value{"index": idx})}})
		}
		return keys, kind, "", cty.NilVal
	case forEach != nil:
		kind = "for_each"
		v := mi.expr(forEach, sc)
		// A map's keys decide the instances, its values may be known only after apply:
		// Terraform expands for_each over another resource's instances (for_each =
		// aws_instance.x), whose ids are unknown. A set's elements are its keys.
		top, _ := v.Unmark()
		mapLike := top.IsKnown() && (top.Type().IsMapType() || top.Type().IsObjectType())
		if reason := unknownReason(v); reason != "" && !mapLike {
			return nil, kind, "for_each: " + reason, v
		}
		v = top
		if v.IsNull() {
			return nil, kind, "for_each: the value is null", v
		}
		ty := v.Type()
		if !(ty.IsMapType() || ty.IsObjectType() || ty.IsSetType()) {
			return nil, kind, fmt.Sprintf("for_each: a map or a set of strings is required, got %s", ty.FriendlyName()), v
		}
		if v.LengthInt() > maxInstances {
			return nil, kind, fmt.Sprintf("for_each: %d instances is over the %d gpuguard expands", v.LengthInt(), maxInstances), v
		}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if ty.IsSetType() {
				if e.Type() != cty.String || e.IsNull() {
					return nil, kind, "for_each: a set must contain strings", v
				}
				k = e
			}
			keys = append(keys, expansionKey{key: k, scope: &scope{each: cty.ObjectVal(map[string]cty.Value{"key": k, "value": e})}})
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].key.AsString() < keys[j].key.AsString() })
		return keys, kind, "", cty.NilVal
	}
	return nil, "", "", cty.NilVal
}

// wholeNumber reads a known, non-negative whole number.
func wholeNumber(v cty.Value) (int, string) {
	if r := unknownReason(v); r != "" {
		return 0, r
	}
	v, _ = v.Unmark()
	if v.IsNull() {
		return 0, "the value is null"
	}
	nv, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, fmt.Sprintf("a number is required: %v", err)
	}
	bf := nv.AsBigFloat()
	i, acc := bf.Int64()
	if acc != big.Exact || i < 0 {
		return 0, fmt.Sprintf("a whole non-negative number is required, got %s", bf.Text('g', 10))
	}
	if i > 1<<31 {
		return 0, fmt.Sprintf("%d is too large", i)
	}
	return int(i), ""
}

// unknownReason returns why v (or part of it) is unknown, or "" when it is wholly known.
func unknownReason(v cty.Value) string {
	if v.IsWhollyKnown() {
		return ""
	}
	reasons := markReasons(v, true)
	if len(reasons) == 0 {
		return "the value is known only after apply"
	}
	return strings.Join(reasons, "; ")
}

// markReasons lists, sorted and once each, the reasons v's marks give for its unknown parts:
// unresolved values always, references to resources' computed attributes when computed is set.
func markReasons(v cty.Value, computed bool) []string {
	_, pvm := v.UnmarkDeepWithPaths()
	var reasons []string
	seen := map[string]bool{}
	for _, pm := range pvm {
		for m := range pm.Marks {
			var r string
			switch mk := m.(type) {
			case unresolvedMark:
				r = mk.reason
			case computedMark:
				if computed {
					r = fmt.Sprintf("%s.%s is known only after apply", mk.addr, mk.attr)
				}
			}
			if r != "" && !seen[r] {
				seen[r] = true
				reasons = append(reasons, r)
			}
		}
	}
	sort.Strings(reasons)
	return reasons
}

// marksOf returns the marks of type T on a value and its parts, once each, in the order found.
func marksOf[T comparable](v cty.Value) []T {
	_, pvm := v.UnmarkDeepWithPaths()
	var out []T
	seen := map[T]bool{}
	for _, pm := range pvm {
		for m := range pm.Marks {
			if x, ok := m.(T); ok && !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// computedRefs returns the resources an unknown value points at through their computed
// attributes (aws_launch_template.x.id), in a stable order.
func computedRefs(v cty.Value) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range marksOf[computedMark](v) {
		if !seen[c.addr] {
			seen[c.addr] = true
			out = append(out, c.addr)
		}
	}
	sort.Strings(out)
	return out
}

// computedAttributes are the attributes every resource has after apply. They are added as
// unknowns that remember the resource, so references through them can be followed.
var computedAttributes = []string{"id", "arn", "self_link"}

func (mi *moduleInstance) newInstance(addr string, d *resourceDecl, key cty.Value, sc *scope) *instance {
	inst := &instance{addr: addr, decl: d, mod: mi, key: key}
	m := mi.evalBodyMap(d.body, sc, true)
	for _, a := range computedAttributes {
		if _, ok := m[a]; !ok {
			m[a] = cty.UnknownVal(cty.String).Mark(computedMark{addr: addr, attr: a})
		}
	}
	inst.value = cty.ObjectVal(m)
	mi.ev.add(inst, mi.prefix+d.addr())
	return inst
}

// typeInModule keys the instances of one resource type in one module instance.
type typeInModule struct {
	mod *moduleInstance
	typ string
}

// add records an instance of the resource at address base (its address without the index).
func (ev *evaluation) add(inst *instance, base string) {
	if ev.byType == nil {
		ev.byType, ev.byResource = map[typeInModule][]*instance{}, map[string][]*instance{}
	}
	ev.instances[inst.addr] = inst
	inst.seq = len(ev.order)
	ev.order = append(ev.order, inst)
	k := typeInModule{inst.mod, inst.decl.typ}
	ev.byType[k] = append(ev.byType[k], inst)
	ev.byResource[base] = append(ev.byResource[base], inst)
}

// Meta-arguments and blocks of a resource that are not part of its value.
var resourceMeta = map[string]bool{"count": true, "for_each": true, "provider": true, "depends_on": true, "lifecycle": true, "provisioner": true, "connection": true}

// evalBody evaluates a block body without a schema: attributes become object attributes, nested
// blocks become tuples of objects under their type name, and dynamic blocks are expanded.
func (mi *moduleInstance) evalBody(body hcl.Body, sc *scope, top bool) cty.Value {
	return cty.ObjectVal(mi.evalBodyMap(body, sc, top))
}

// evalBodyMap is evalBody before the attributes become an object.
func (mi *moduleInstance) evalBodyMap(body hcl.Body, sc *scope, top bool) map[string]cty.Value {
	out := map[string]cty.Value{}
	switch b := body.(type) {
	case *hclsyntax.Body:
		for name, a := range b.Attributes {
			if top && resourceMeta[name] {
				continue
			}
			out[name] = mi.expr(a.Expr, sc)
		}
		blocks := map[string][]cty.Value{}
		var order []string
		add := func(typ string, v ...cty.Value) {
			if _, ok := blocks[typ]; !ok {
				order = append(order, typ)
			}
			blocks[typ] = append(blocks[typ], v...)
		}
		for _, blk := range b.Blocks {
			if top && resourceMeta[blk.Type] {
				continue
			}
			if blk.Type == "dynamic" && len(blk.Labels) == 1 {
				vals, why := mi.expandDynamic(blk, sc)
				if why != "" {
					out[blk.Labels[0]] = cty.DynamicVal.Mark(unresolvedMark{why})
					continue
				}
				add(blk.Labels[0], vals...)
				continue
			}
			add(blk.Type, mi.evalBody(blk.Body, sc, false))
		}
		for _, typ := range order {
			if _, clash := out[typ]; clash {
				continue
			}
			out[typ] = cty.TupleVal(blocks[typ])
		}
	default:
		attrs, diags := body.JustAttributes()
		if diags.HasErrors() && len(attrs) == 0 {
			return out
		}
		for name, a := range attrs {
			if top && resourceMeta[name] {
				continue
			}
			if name == "dynamic" {
				out[name] = unresolved("dynamic blocks in .tf.json files are not expanded by gpuguard (%s:%d)", a.Range.Filename, a.Range.Start.Line)
				continue
			}
			out[name] = mi.expr(a.Expr, sc)
		}
	}
	return out
}

// expandDynamic evaluates a dynamic block into the objects its content produces.
func (mi *moduleInstance) expandDynamic(blk *hclsyntax.Block, sc *scope) ([]cty.Value, string) {
	label := blk.Labels[0]
	iter := label
	if a, ok := blk.Body.Attributes["iterator"]; ok {
		if tr, d := hcl.AbsTraversalForExpr(a.Expr); !d.HasErrors() && len(tr) == 1 {
			iter = tr.RootName()
		}
	}
	fe, ok := blk.Body.Attributes["for_each"]
	if !ok {
		return nil, fmt.Sprintf("dynamic %q block has no for_each (%s:%d)", label, blk.DefRange().Filename, blk.DefRange().Start.Line)
	}
	var content *hclsyntax.Block
	for _, c := range blk.Body.Blocks {
		if c.Type == "content" {
			content = c
		}
	}
	if content == nil {
		return nil, fmt.Sprintf("dynamic %q block has no content block (%s:%d)", label, blk.DefRange().Filename, blk.DefRange().Start.Line)
	}
	v := mi.expr(fe.Expr, sc)
	if r := unknownReason(v); r != "" {
		return nil, fmt.Sprintf("dynamic %q for_each: %s", label, r)
	}
	v, _ = v.Unmark()
	if v.IsNull() {
		return nil, ""
	}
	if !v.CanIterateElements() {
		return nil, fmt.Sprintf("dynamic %q for_each must be a collection, got %s", label, v.Type().FriendlyName())
	}
	if v.LengthInt() > maxInstances {
		return nil, fmt.Sprintf("dynamic %q for_each has more than %d elements", label, maxInstances)
	}
	var out []cty.Value
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if v.Type().IsSetType() {
			k = e
		}
		inner := sc.with(iter, cty.ObjectVal(map[string]cty.Value{"key": k, "value": e}))
		out = append(out, mi.evalBody(content.Body, inner, false))
	}
	return out, ""
}

// childValue returns module.name's value: an object of its outputs (or a tuple/object of them
// under count/for_each).
func (mi *moduleInstance) childValue(name string) (cty.Value, string) {
	cs := mi.child(name)
	if cs == nil {
		return unresolved("module.%s is not declared in %s", name, mi.cfg.dir), ""
	}
	return cs.value, cs.missing
}

// child instantiates module.name once.
func (mi *moduleInstance) child(name string) *childState {
	call, ok := mi.cfg.callsByName[name]
	if !ok {
		return nil
	}
	if cs, ok := mi.children[name]; ok {
		if cs.busy {
			return &childState{value: unresolved("module.%s refers to itself", name)}
		}
		return cs
	}
	cs := &childState{busy: true}
	mi.children[name] = cs
	defer func() { cs.busy, cs.done = false, true }()
	addr := mi.prefix + "module." + name
	var dir string
	switch {
	case isStandIn(mi.cfg.dir) && isLocalSource(call.source):
		dir = standInChildDir(mi.cfg.dir, call.source) // a stand-in calling its own submodule
	case isLocalSource(call.source):
		dir = childDir(mi.cfg.dir, call.source)
		// A local module is read only inside the checked directories, like any file the
		// configuration names (a pull request's source = "/home/runner/..." reads nothing).
		if mi.ev.confineModules {
			var outside *confine.OutsideError
			if _, err := mi.ev.files.dirs.Resolve(dir); errors.As(err, &outside) {
				msg := fmt.Sprintf("module %q: %v", name, err)
				mi.ev.l.errs = append(mi.ev.l.errs, parser.Error{File: call.rng.Filename, Line: call.rng.Start.Line, Message: msg})
				cs.value = unresolved("%s: %s", addr, msg)
				return cs
			}
		}
	default:
		d, why := mi.downloadedDir(name, call.source, call.version)
		if d != "" {
			dir, cs.downloaded = d, true
			mi.ev.followed = append(mi.ev.followed, d)
			break
		}
		sets := func(input string) bool { _, ok := call.args[input]; return ok }
		if sd, ok := standInFor(call.source, sets); ok {
			dir, cs.standIn, cs.standInWhy = sd, true, why
			break
		}
		cs.notFollowed = why
		cs.value = unresolved("%s: source %q is not followed (%s)", addr, call.source, why)
		return cs
	}
	for _, d := range mi.dirs {
		if d == dir {
			chain := strings.Join(append(append([]string{}, mi.dirs...), dir), " -> ")
			mi.ev.l.errs = append(mi.ev.l.errs, parser.Error{File: call.rng.Filename, Line: call.rng.Start.Line,
				Message: fmt.Sprintf("module cycle: %s", chain)})
			cs.value = unresolved("%s: module cycle (%s)", addr, chain)
			return cs
		}
	}
	if len(mi.dirs) >= maxModuleDepth {
		mi.ev.l.errs = append(mi.ev.l.errs, parser.Error{File: call.rng.Filename, Line: call.rng.Start.Line,
			Message: fmt.Sprintf("modules nested more than %d deep", maxModuleDepth)})
		cs.value = unresolved("%s: modules nested too deep", addr)
		return cs
	}
	var cfg *moduleConfig
	if isStandIn(dir) {
		cfg = mi.ev.l.loadModule(dir, standInFiles(dir), nil, true) // from the binary (standin.go)
	} else {
		files, outside, err := mi.ev.l.cache.moduleFiles(dir, mi.ev.files.dirs)
		for _, f := range outside {
			mi.ev.l.warns = append(mi.ev.l.warns, parser.Error{File: f, Message: "a link out of the checked directories: not read"})
		}
		if err != nil || len(files) == 0 {
			msg := fmt.Sprintf("module %q: no Terraform files in %s", name, dir)
			if err != nil {
				msg = fmt.Sprintf("module %q: cannot read %s: %v", name, dir, err)
			}
			mi.ev.l.errs = append(mi.ev.l.errs, parser.Error{File: call.rng.Filename, Line: call.rng.Start.Line, Message: msg})
			cs.value = unresolved("%s: %s", addr, msg)
			return cs
		}
		cfg = mi.ev.l.loadModule(dir, files, nil, true)
	}
	if cs.standIn {
		// Only the machines are modelled: an output the caller reads from the module is
		// unknown, with the reason, unless the stand-in declares it (an instance template's
		// self_link, which a managed instance group elsewhere names).
		defer func() {
			why := fmt.Sprintf("%s: source %q is read through gpuguard's stand-in, which models its GPU machines only (run terraform init to read the module itself)", addr, call.source)
			if len(cfg.outputs) == 0 {
				cs.value = unresolved("%s", why)
			} else {
				cs.missing = why
			}
		}()
	}
	keys, kind, why, from := mi.expansionKeys(call.count, call.forEach, nil)
	mk := func(prefix string, sc *scope, expansion string) *moduleInstance {
		c := newModuleInstance(mi.ev, cfg, mi, call, prefix)
		c.expansion = expansion
		if expansion == "" && mi.expansion != "" {
			c.expansion = mi.expansion
		}
		c.downloaded, c.standIn, c.standInWhy = mi.downloaded, mi.standIn, mi.standInWhy
		if c.downloaded == nil && cs.downloaded {
			c.downloaded = call
		}
		if c.standIn == nil && cs.standIn {
			c.standIn, c.standInWhy = call, cs.standInWhy
		}
		c.setInputsFromCall(call, sc)
		if _, declared := cfg.variables[ModuleMajorInput]; declared && cs.standIn {
			c.inputs[ModuleMajorInput] = ModuleMajor(call.source, call.version) // moduleversion.go
		}
		cs.instances = append(cs.instances, c)
		return c
	}
	if why != "" {
		c := mk(addr+".", unknownScope(kind, why, from), addr+" "+why)
		_ = c
		cs.value = cty.DynamicVal.Mark(unresolvedMark{addr + " " + why})
		return cs
	}
	switch kind {
	case "":
		c := mk(addr+".", nil, "")
		cs.value = c.outputValue()
	case "count":
		var vals []cty.Value
		for _, k := range keys {
			i, _ := k.key.AsBigFloat().Int64()
			c := mk(fmt.Sprintf("%s[%d].", addr, i), k.scope, "")
			vals = append(vals, c.outputValue())
		}
		cs.value = cty.TupleVal(vals)
	case "for_each":
		obj := map[string]cty.Value{}
		for _, k := range keys {
			c := mk(fmt.Sprintf("%s[%q].", addr, k.key.AsString()), k.scope, "")
			c.eachKey = k.key.AsString()
			obj[k.key.AsString()] = c.outputValue()
		}
		cs.value = cty.ObjectVal(obj)
	}
	return cs
}

// setInputsFromCall evaluates the module call's arguments in the parent and converts them to the
// child's variable types.
func (mi *moduleInstance) setInputsFromCall(call *moduleCall, sc *scope) {
	for name, decl := range mi.cfg.variables {
		if a, ok := call.args[name]; ok {
			v := mi.parent.expr(a.Expr, sc)
			mi.inputs[name] = mi.finalizeVariable(decl, v, a.Range)
			continue
		}
		mi.inputs[name] = mi.defaultValue(decl, fmt.Sprintf("module %q does not set input %q and it has no default", call.name, name))
	}
}

// defaultValue is a variable's default, or an unknown saying it has no value.
func (mi *moduleInstance) defaultValue(decl *variableDecl, missing string) cty.Value {
	if decl.dflt == nil {
		return unresolved("var.%s has no value: %s", decl.name, missing)
	}
	v, diags := decl.dflt.Value(&hcl.EvalContext{Functions: mi.ev.funcs})
	if diags.HasErrors() {
		mi.ev.l.addDiags(diags)
		return unresolved("var.%s: invalid default", decl.name)
	}
	return mi.finalizeVariable(decl, v, decl.rng)
}

// finalizeVariable applies optional-attribute defaults and converts to the declared type, the
// way Terraform prepares an input variable. A value of the wrong type is an error at its source.
func (mi *moduleInstance) finalizeVariable(decl *variableDecl, v cty.Value, at hcl.Range) cty.Value {
	if v.IsNull() && !decl.nullable && decl.dflt != nil {
		return mi.defaultValue(decl, "")
	}
	if decl.defaults != nil {
		v = decl.defaults.Apply(v)
	}
	out, err := convert.Convert(v, decl.typ)
	if err != nil {
		mi.ev.l.errs = append(mi.ev.l.errs, parser.Error{File: at.Filename, Line: at.Start.Line,
			Message: fmt.Sprintf("invalid value for variable %q: %v", decl.name, err)})
		return unresolved("var.%s: invalid value (%v)", decl.name, err)
	}
	return out
}

// outputValue evaluates every output of the module into one object.
func (mi *moduleInstance) outputValue() cty.Value {
	m := map[string]cty.Value{}
	names := make([]string, 0, len(mi.cfg.outputs))
	for n := range mi.cfg.outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m[n] = mi.output(n)
	}
	return cty.ObjectVal(m)
}

func (mi *moduleInstance) output(name string) cty.Value {
	if v, ok := mi.outputs[name]; ok {
		return v
	}
	if mi.outputBusy[name] {
		return unresolved("output %q refers to itself", name)
	}
	mi.outputBusy[name] = true
	v := mi.expr(mi.cfg.outputs[name].Expr, nil)
	mi.outputBusy[name] = false
	mi.outputs[name] = v
	return v
}

// provider returns the evaluated configuration of the provider a resource uses: its own
// provider meta-argument, else the default configuration of its type, looked up through the
// module tree (a module call's providers map, then the parent).
func (mi *moduleInstance) provider(key string) (cty.Value, bool) {
	if v, ok := mi.providers[key]; ok {
		return v, v != cty.NilVal
	}
	for _, p := range mi.cfg.providers {
		if p.key() == key {
			v := mi.evalBody(p.body, nil, false)
			mi.providers[key] = v
			return v, true
		}
	}
	var v cty.Value
	found := false
	if mi.parent != nil {
		parentKey := key
		if mapped, ok := mi.call.providers[key]; ok {
			parentKey = mapped
		}
		v, found = mi.parent.provider(parentKey)
	}
	if !found {
		v = cty.NilVal
	}
	mi.providers[key] = v
	return v, found
}

// walk evaluates every resource of this module and of its children.
func (mi *moduleInstance) walk(wanted func(string) bool) {
	for _, r := range mi.cfg.resources {
		if wanted(r.typ) {
			mi.expandResource(mi.resources[r.addr()])
		}
	}
	for _, c := range mi.cfg.calls {
		if cs := mi.child(c.name); cs != nil {
			for _, ci := range cs.instances {
				ci.walk(wanted)
			}
		}
	}
}
