package terragrunt

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

// FileName is the name of a unit's configuration.
const FileName = "terragrunt.hcl"

// maxConfigSize bounds a configuration file read.
const maxConfigSize = 4 << 20

// maxReadDepth bounds read_terragrunt_config inside read_terragrunt_config (a file that reads
// itself would not end).
const maxReadDepth = 8

// ParseUnit evaluates the unit configured by file (a terragrunt.hcl) and the Terraform module it
// deploys, with the unit's inputs. opts are how the module is read; opts.FileDirs confine every
// file the unit names. Result.Included lists the module's directory and the unit's, so that
// neither is also counted as a root module of its own.
func ParseUnit(file string, opts terraform.Options) (res parser.Result) {
	res, _ = parseUnit(file, opts)
	return res
}

// parseUnit is ParseUnit, also returning the number of configuration files it parsed.
func parseUnit(file string, opts terraform.Options) (res parser.Result, parsed int) {
	u := &unit{file: file, dir: filepath.Dir(file), opts: opts, dirs: terraform.ReadableDirs(opts)}
	defer func() { parsed = u.parsed }()
	defer func() {
		if p := recover(); p != nil {
			res = parser.Result{Errors: append(u.errs, parser.Error{File: file, Message: fmt.Sprintf("internal error while evaluating this Terragrunt unit (please report it): %v", p)}), Warnings: u.warns}
		}
	}()
	abs, err := filepath.Abs(u.dir)
	if err != nil {
		return parser.Result{Errors: []parser.Error{{File: file, Message: err.Error()}}}, 0
	}
	u.absDir = abs
	cfg := u.evalFile(file, nil, 0)
	if cfg == nil {
		return parser.Result{Errors: u.errs, Warnings: u.warns}, 0
	}
	res = u.deploy(cfg)
	res.Errors = append(u.errs, res.Errors...)
	res.Warnings = append(u.warns, res.Warnings...)
	return res, 0 // parsed is set on the way out
}

// Included lists the configuration files the units include (a root terragrunt.hcl shared by
// every unit): they configure units, they are not units themselves. Unreadable or invalid files
// are skipped here; ParseUnit reports them.
func Included(units []string, opts terraform.Options) map[string]bool {
	out := map[string]bool{}
	for _, f := range units {
		u := &unit{file: f, dir: filepath.Dir(f), opts: opts, dirs: terraform.ReadableDirs(opts)}
		abs, err := filepath.Abs(u.dir)
		if err != nil {
			continue
		}
		u.absDir = abs
		body := u.parse(f)
		if body == nil {
			continue
		}
		for _, b := range body.Blocks {
			if b.Type != "include" {
				continue
			}
			if path, ok := u.includePath(b); ok {
				if real, err := u.dirs.Resolve(path); err == nil {
					out[real] = true
				}
			}
		}
	}
	return out
}

// unit is the evaluation of one unit.
type unit struct {
	file   string // the unit's terragrunt.hcl, as named
	dir    string // its directory, as named
	absDir string // its directory, absolute (what get_terragrunt_dir returns)
	opts   terraform.Options
	dirs   confine.Dirs
	errs   []parser.Error
	warns  []parser.Error
	// read holds the configurations read_terragrunt_config has read, by path; reading holds
	// those being read, to tell a cycle.
	read    map[string]cty.Value
	reading map[string]bool
	parsed  int // configuration files parsed, a bound tests check
	// lines holds the lines of each configuration file parsed, by its displayed name, for the
	// gpuguard:ignore comments in it.
	lines map[string][]string
	// tfFuncs are Terraform's functions for this unit, made once: every file and include block
	// evaluated adds Terragrunt's to a copy of them.
	tfFuncs map[string]functionT
}

// config is one evaluated configuration file.
type config struct {
	file     string
	locals   map[string]cty.Value
	source   *attrValue
	inputs   map[string]terraform.InputValue
	deps     map[string]cty.Value // dependency name -> {outputs = ...}
	includes []*include
	others   map[string]cty.Value // other top-level attributes, for read_terragrunt_config
	// generate are the files generate blocks write, by block name; varArgs the variable files
	// and values extra_arguments pass to plan, by block name.
	generate map[string]generated
	varArgs  map[string]varArgs
}

// generated is one generate block: a file Terragrunt writes into the module before it runs.
type generated struct {
	path     string
	contents string
	skip     bool // if_exists = "skip": the module's own file of that name wins
	rng      hcl.Range
}

// varArgs are the variable files and --var values an extra_arguments block passes to plan.
type varArgs struct {
	required []string // required_var_files and -var-file arguments
	optional []string // optional_var_files: used when they exist
	vars     []string // -var name=value arguments
	rng      hcl.Range
}

type attrValue struct {
	value string
	rng   hcl.Range
	block hcl.Range // the block that holds it (the terraform block of a source)
}

// include is one include block, with the configuration it includes.
type include struct {
	name   string // "" for an unlabelled block
	path   string // absolute
	expose bool
	merge  string // shallow, deep or no_merge
	cfg    *config
}

// scope is what the functions of one file see: the unit, and the included file when the file
// being evaluated is one (Terragrunt evaluates an included file in the context of the unit that
// includes it).
type scope struct {
	includes map[string]string // include name ("" unlabelled) -> absolute path of the included file
	current  string            // the included file being evaluated, "" in the unit's own file
}

// parse reads and parses a configuration file inside the checked directories.
// A file many units read (the root configuration they include, an env.hcl) is read and parsed
// once per run (terraform.Cache.Memo); its syntax tree is only read afterwards.
func (u *unit) parse(path string) *hclsyntax.Body {
	u.parsed++
	key := path
	if abs, err := filepath.Abs(path); err == nil {
		key = abs
	}
	p := u.opts.Cache.Memo("terragrunt\x00"+key, func() any {
		src, err := u.dirs.ReadFile(path, maxConfigSize)
		if err != nil {
			return parsedFile{err: err}
		}
		f, diags := hclsyntax.ParseConfig(src, display(path), hcl.InitialPos)
		pf := parsedFile{diags: diags, lines: strings.Split(string(src), "\n")}
		if f != nil {
			pf.body, _ = f.Body.(*hclsyntax.Body)
		}
		return pf
	}).(parsedFile)
	if p.err != nil {
		u.errs = append(u.errs, parser.Error{File: display(path), Message: fmt.Sprintf("cannot read: %v", p.err)})
		return nil
	}
	u.addDiags(p.diags)
	if u.lines == nil {
		u.lines = map[string][]string{}
	}
	u.lines[display(path)] = p.lines
	return p.body
}

// parsedFile is a configuration file as parse read it.
type parsedFile struct {
	lines []string // split once, as parsed: a file many units include is read for comments by each
	body  *hclsyntax.Body
	diags hcl.Diagnostics
	err   error
}

// display names a file for messages: relative to the working directory when it lies under it
// (as the checked paths are named), else as given.
func display(path string) string {
	if !filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return path
}

func (u *unit) addDiags(diags hcl.Diagnostics) {
	for _, d := range diags {
		e := parser.Error{Message: d.Summary}
		if d.Detail != "" {
			e.Message += ": " + d.Detail
		}
		if d.Subject != nil {
			e.File, e.Line = d.Subject.Filename, d.Subject.Start.Line
		}
		if d.Severity == hcl.DiagError {
			u.errs = append(u.errs, e)
		} else {
			u.warns = append(u.warns, e)
		}
	}
}

// includePath evaluates an include block's path (functions only: Terragrunt reads includes
// before locals), absolute.
func (u *unit) includePath(b *hclsyntax.Block) (string, bool) {
	a, ok := b.Body.Attributes["path"]
	if !ok {
		u.errs = append(u.errs, parser.Error{File: b.DefRange().Filename, Line: b.DefRange().Start.Line, Message: "include block without a path"})
		return "", false
	}
	ctx := &hcl.EvalContext{Functions: u.functions(scope{}, 0)}
	v, diags := a.Expr.Value(ctx)
	u.addDiags(diags)
	if diags.HasErrors() {
		return "", false
	}
	s, ok := stringOf(v)
	if !ok {
		u.errs = append(u.errs, parser.Error{File: a.SrcRange.Filename, Line: a.SrcRange.Start.Line, Message: "include path is not a known string"})
		return "", false
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(u.absDir, s)
	}
	return s, true
}

// reasonOf is " (REASON)" for an unresolved value, "" otherwise.
func reasonOf(v cty.Value) string {
	if r, ok := terraform.UnresolvedReason(v); ok {
		return " (" + r + ")"
	}
	return ""
}

func stringOf(v cty.Value) (string, bool) {
	v, _ = v.Unmark()
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// evalFile evaluates one configuration file: the unit's (sc nil), an included one, or one read
// with read_terragrunt_config (depth > 0).
func (u *unit) evalFile(path string, sc *scope, depth int) *config {
	body := u.parse(path)
	if body == nil {
		return nil
	}
	cfg := &config{file: path, locals: map[string]cty.Value{}, inputs: map[string]terraform.InputValue{}, deps: map[string]cty.Value{}, others: map[string]cty.Value{},
		generate: map[string]generated{}, varArgs: map[string]varArgs{}}
	var localsBlocks, depBlocks, generateBlocks []*hclsyntax.Block
	var tfBlock *hclsyntax.Block
	own := scope{includes: map[string]string{}}
	if sc != nil {
		own = *sc
	}
	for _, b := range body.Blocks {
		switch b.Type {
		case "locals":
			localsBlocks = append(localsBlocks, b)
		case "dependency":
			depBlocks = append(depBlocks, b)
		case "terraform":
			tfBlock = b
		case "generate":
			generateBlocks = append(generateBlocks, b)
		case "include":
			if sc != nil || depth > 0 {
				u.warns = append(u.warns, parser.Error{File: b.DefRange().Filename, Line: b.DefRange().Start.Line,
					Message: "an include inside an included or read configuration is not followed (Terragrunt allows one level)"})
				continue
			}
			path, ok := u.includePath(b)
			if !ok {
				continue
			}
			inc := &include{path: path, merge: "shallow"}
			if len(b.Labels) > 0 {
				inc.name = b.Labels[0]
			}
			if _, dup := own.includes[inc.name]; dup {
				u.errs = append(u.errs, parser.Error{File: b.DefRange().Filename, Line: b.DefRange().Start.Line, Message: fmt.Sprintf("include %q is declared twice", inc.name)})
				continue
			}
			own.includes[inc.name] = path
			cfg.includes = append(cfg.includes, inc)
			u.includeOptions(b, inc)
		}
	}
	// Included files next: the unit's locals and inputs may read what they expose.
	for _, inc := range cfg.includes {
		incScope := own
		incScope.current = inc.path
		inc.cfg = u.evalFile(inc.path, &incScope, depth)
	}
	vars := map[string]cty.Value{}
	if inc := exposed(cfg.includes); inc != cty.NilVal {
		vars["include"] = inc
	}
	funcs := u.functions(own, depth)
	cfg.locals = u.evalLocals(localsBlocks, vars, funcs)
	vars["local"] = cty.ObjectVal(cfg.locals)
	for _, inc := range cfg.includes {
		if inc.cfg != nil && inc.merge != "no_merge" {
			for name, v := range inc.cfg.deps {
				cfg.deps[name] = v
			}
		}
	}
	for _, b := range depBlocks {
		name := ""
		if len(b.Labels) > 0 {
			name = b.Labels[0]
		}
		cfg.deps[name] = u.dependency(b, name, &hcl.EvalContext{Variables: vars, Functions: funcs})
	}
	if len(cfg.deps) > 0 {
		vars["dependency"] = cty.ObjectVal(cfg.deps)
	}
	ctx := &hcl.EvalContext{Variables: vars, Functions: funcs}
	if tfBlock != nil {
		if a, ok := tfBlock.Body.Attributes["source"]; ok {
			v, diags := a.Expr.Value(ctx)
			u.addDiags(diags)
			if s, ok := stringOf(v); ok {
				cfg.source = &attrValue{value: s, rng: a.SrcRange, block: tfBlock.DefRange()}
			} else if !diags.HasErrors() {
				// Known only where Terragrunt runs (get_env without a default, run_cmd): the
				// unit's module cannot be found here, which is a limit, not bad input.
				u.warns = append(u.warns, parser.Error{File: a.SrcRange.Filename, Line: a.SrcRange.Start.Line,
					Message: "terraform source is not known here" + reasonOf(v) + ": the module this unit deploys is not read"})
			}
		}
	}
	for _, b := range generateBlocks {
		u.generateBlock(b, ctx, cfg)
	}
	if tfBlock != nil {
		for _, b := range tfBlock.Body.Blocks {
			if b.Type == "extra_arguments" {
				u.extraArguments(b, ctx, cfg)
			}
		}
	}
	for name, a := range body.Attributes {
		if name == "inputs" {
			u.evalInputs(a, ctx, cfg.inputs)
			continue
		}
		if depth > 0 {
			v, diags := a.Expr.Value(ctx)
			if !diags.HasErrors() {
				cfg.others[name] = v
			}
		}
	}
	return cfg
}

// includeOptions reads an include block's expose and merge_strategy.
func (u *unit) includeOptions(b *hclsyntax.Block, inc *include) {
	ctx := &hcl.EvalContext{Functions: u.functions(scope{}, 0)}
	if a, ok := b.Body.Attributes["expose"]; ok {
		v, diags := a.Expr.Value(ctx)
		u.addDiags(diags)
		if v, _ = v.Unmark(); !diags.HasErrors() && v.Type() == cty.Bool && v.IsKnown() && !v.IsNull() {
			inc.expose = v.True()
		}
	}
	if a, ok := b.Body.Attributes["merge_strategy"]; ok {
		v, diags := a.Expr.Value(ctx)
		u.addDiags(diags)
		s, _ := stringOf(v)
		switch s {
		case "shallow", "deep", "no_merge":
			inc.merge = s
		default:
			if !diags.HasErrors() {
				u.errs = append(u.errs, parser.Error{File: a.SrcRange.Filename, Line: a.SrcRange.Start.Line, Message: fmt.Sprintf("merge_strategy %q: expected shallow, deep or no_merge", s)})
			}
		}
	}
}

// generateBlock reads a generate block: the configuration file it writes (other files, such as
// a .terraform-version, change nothing gpuguard reads).
func (u *unit) generateBlock(b *hclsyntax.Block, ctx *hcl.EvalContext, cfg *config) {
	name := ""
	if len(b.Labels) > 0 {
		name = b.Labels[0]
	}
	str := func(attr string) (string, bool) {
		a, ok := b.Body.Attributes[attr]
		if !ok {
			return "", false
		}
		v, diags := a.Expr.Value(ctx)
		u.addDiags(diags)
		s, ok := stringOf(v)
		if !ok && !diags.HasErrors() {
			u.warns = append(u.warns, parser.Error{File: a.SrcRange.Filename, Line: a.SrcRange.Start.Line,
				Message: fmt.Sprintf("generate %q: %s is not known here%s: the file is not generated", name, attr, reasonOf(v))})
		}
		return s, ok
	}
	if a, ok := b.Body.Attributes["disable"]; ok {
		if v, diags := a.Expr.Value(ctx); !diags.HasErrors() && v.Type() == cty.Bool && v.IsKnown() && !v.IsNull() && v.True() {
			return
		}
	}
	path, ok := str("path")
	if !ok || !terraform.IsModuleFile(path) {
		return
	}
	contents, ok := str("contents")
	if !ok {
		return
	}
	ifExists, _ := str("if_exists")
	cfg.generate[name] = generated{path: path, contents: contents, skip: ifExists == "skip", rng: b.DefRange()}
}

// extraArguments reads an extra_arguments block that applies to plan: its variable files and
// -var, -var-file arguments. Terragrunt passes them on terraform's command line.
func (u *unit) extraArguments(b *hclsyntax.Block, ctx *hcl.EvalContext, cfg *config) {
	name := ""
	if len(b.Labels) > 0 {
		name = b.Labels[0]
	}
	list := func(attr string) []string {
		a, ok := b.Body.Attributes[attr]
		if !ok {
			return nil
		}
		v, diags := a.Expr.Value(ctx)
		u.addDiags(diags)
		v, _ = v.Unmark()
		if diags.HasErrors() || v.IsNull() || !v.IsKnown() || !v.CanIterateElements() {
			return nil
		}
		var out []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if s, ok := stringOf(e); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if cmds := list("commands"); !slices.Contains(cmds, "plan") {
		return
	}
	va := varArgs{required: list("required_var_files"), optional: list("optional_var_files"), rng: b.DefRange()}
	args := list("arguments")
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "-var-file="):
			va.required = append(va.required, strings.TrimPrefix(a, "-var-file="))
		case a == "-var-file" && i+1 < len(args):
			i++
			va.required = append(va.required, args[i])
		case strings.HasPrefix(a, "-var="):
			va.vars = append(va.vars, strings.TrimPrefix(a, "-var="))
		case a == "-var" && i+1 < len(args):
			i++
			va.vars = append(va.vars, args[i])
		}
	}
	cfg.varArgs[name] = va
}

// exposed is the include variable: include.NAME (or include, for an unlabelled block) with the
// locals and inputs of each exposed included file.
func exposed(incs []*include) cty.Value {
	named := map[string]cty.Value{}
	var unlabelled cty.Value
	for _, inc := range incs {
		if !inc.expose || inc.cfg == nil {
			continue
		}
		inputs := map[string]cty.Value{}
		for k, v := range inc.cfg.inputs {
			inputs[k] = v.Value
		}
		v := cty.ObjectVal(map[string]cty.Value{"locals": cty.ObjectVal(inc.cfg.locals), "inputs": cty.ObjectVal(inputs)})
		if inc.name == "" {
			unlabelled = v
		} else {
			named[inc.name] = v
		}
	}
	switch {
	case unlabelled != cty.NilVal:
		return unlabelled
	case len(named) > 0:
		return cty.ObjectVal(named)
	}
	return cty.NilVal
}

// evalLocals evaluates the locals blocks; a local may use others, in any order.
func (u *unit) evalLocals(blocks []*hclsyntax.Block, vars map[string]cty.Value, funcs map[string]functionT) map[string]cty.Value {
	attrs := map[string]*hclsyntax.Attribute{}
	for _, b := range blocks {
		for name, a := range b.Body.Attributes {
			attrs[name] = a
		}
	}
	out := map[string]cty.Value{}
	state := map[string]int{} // 1 evaluating, 2 done
	var eval func(name string) cty.Value
	eval = func(name string) cty.Value {
		a := attrs[name]
		switch state[name] {
		case 2:
			return out[name]
		case 1:
			u.errs = append(u.errs, parser.Error{File: a.SrcRange.Filename, Line: a.SrcRange.Start.Line, Message: fmt.Sprintf("local.%s refers to itself", name)})
			return terraform.Unresolved(fmt.Sprintf("local.%s refers to itself", name))
		}
		state[name] = 1
		for _, t := range a.Expr.Variables() {
			if t.RootName() != "local" || len(t) < 2 {
				continue
			}
			if step, ok := t[1].(hcl.TraverseAttr); ok {
				if _, declared := attrs[step.Name]; declared {
					eval(step.Name)
				}
			}
		}
		local := map[string]cty.Value{}
		for k, v := range out {
			local[k] = v
		}
		ctxVars := map[string]cty.Value{"local": cty.ObjectVal(local)}
		for k, v := range vars {
			ctxVars[k] = v
		}
		v, diags := a.Expr.Value(&hcl.EvalContext{Variables: ctxVars, Functions: funcs})
		u.addDiags(diags)
		if diags.HasErrors() {
			v = terraform.Unresolved(fmt.Sprintf("local.%s could not be evaluated", name))
		}
		out[name], state[name] = v, 2
		return v
	}
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		eval(name)
	}
	return out
}

// dependency is a dependency block's value: its mock_outputs as outputs, or outputs unknown.
func (u *unit) dependency(b *hclsyntax.Block, name string, ctx *hcl.EvalContext) cty.Value {
	if a, ok := b.Body.Attributes["mock_outputs"]; ok {
		v, diags := a.Expr.Value(ctx)
		u.addDiags(diags)
		if !diags.HasErrors() {
			return cty.ObjectVal(map[string]cty.Value{"outputs": v})
		}
	}
	return cty.ObjectVal(map[string]cty.Value{"outputs": terraform.Unresolved(fmt.Sprintf("dependency.%s: its outputs are known once it is applied (set mock_outputs to check with them)", name))})
}

// evalInputs evaluates the inputs attribute item by item, so one bad input does not lose the
// others.
func (u *unit) evalInputs(a *hclsyntax.Attribute, ctx *hcl.EvalContext, into map[string]terraform.InputValue) {
	if obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range obj.Items {
			k, diags := item.KeyExpr.Value(ctx)
			u.addDiags(diags)
			key, ok := stringOf(k)
			if !ok {
				if !diags.HasErrors() {
					u.errs = append(u.errs, parser.Error{File: item.KeyExpr.Range().Filename, Line: item.KeyExpr.Range().Start.Line, Message: "an input name must be a known string"})
				}
				continue
			}
			v, diags := item.ValueExpr.Value(ctx)
			u.addDiags(diags)
			if diags.HasErrors() {
				v = terraform.Unresolved(fmt.Sprintf("input %s could not be evaluated", key))
			}
			into[key] = terraform.InputValue{Value: v, Range: item.KeyExpr.Range(), Expr: item.ValueExpr}
		}
		return
	}
	v, diags := a.Expr.Value(ctx)
	u.addDiags(diags)
	if diags.HasErrors() {
		return
	}
	v, marks := v.Unmark()
	if v.IsNull() || !v.IsKnown() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		u.errs = append(u.errs, parser.Error{File: a.SrcRange.Filename, Line: a.SrcRange.Start.Line, Message: "inputs must be a known object"})
		return
	}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		into[k.AsString()] = terraform.InputValue{Value: ev.WithMarks(marks), Range: a.SrcRange}
	}
}

// merged applies the unit's includes to its configuration, as Terragrunt merges them: the
// unit's own values win over the included ones (a later include over an earlier one); an input
// both set merges recursively when an include asks for a deep merge.
func merged(cfg *config) (*attrValue, map[string]terraform.InputValue) {
	var source *attrValue
	inputs := map[string]terraform.InputValue{}
	deep := false
	for _, inc := range cfg.includes {
		if inc.cfg == nil || inc.merge == "no_merge" {
			continue
		}
		if inc.cfg.source != nil {
			source = inc.cfg.source
		}
		for k, v := range inc.cfg.inputs {
			inputs[k] = v
		}
		// Blocks merge by name, the unit's own winning.
		for k, v := range inc.cfg.generate {
			if _, own := cfg.generate[k]; !own {
				cfg.generate[k] = v
			}
		}
		for k, v := range inc.cfg.varArgs {
			if _, own := cfg.varArgs[k]; !own {
				cfg.varArgs[k] = v
			}
		}
		deep = deep || inc.merge == "deep"
	}
	if cfg.source != nil {
		source = cfg.source
	}
	for k, v := range cfg.inputs {
		if old, ok := inputs[k]; ok && deep {
			v.Value = deepMerge(old.Value, v.Value)
		}
		inputs[k] = v
	}
	return source, inputs
}

// deepMerge merges b into a as Terragrunt's deep merge does: objects and maps key by key,
// lists and tuples concatenated, anything else b.
func deepMerge(a, b cty.Value) cty.Value {
	ua, ma := a.Unmark()
	ub, mb := b.Unmark()
	if ua.IsNull() || ub.IsNull() || !ua.IsKnown() || !ub.IsKnown() {
		return b
	}
	ta, tb := ua.Type(), ub.Type()
	switch {
	case (ta.IsObjectType() || ta.IsMapType()) && (tb.IsObjectType() || tb.IsMapType()):
		out := map[string]cty.Value{}
		for it := ua.ElementIterator(); it.Next(); {
			k, v := it.Element()
			out[k.AsString()] = v
		}
		for it := ub.ElementIterator(); it.Next(); {
			k, v := it.Element()
			if old, ok := out[k.AsString()]; ok {
				v = deepMerge(old, v)
			}
			out[k.AsString()] = v
		}
		return cty.ObjectVal(out).WithMarks(ma, mb)
	case (ta.IsListType() || ta.IsTupleType()) && (tb.IsListType() || tb.IsTupleType()):
		out := append(ua.AsValueSlice(), ub.AsValueSlice()...)
		if len(out) == 0 {
			return b
		}
		return cty.TupleVal(out).WithMarks(ma, mb)
	}
	return b
}

// deploy evaluates the module the unit deploys.
func (u *unit) deploy(cfg *config) parser.Result {
	source, inputs := merged(cfg)
	moduleDir := u.dir
	opts := u.opts
	opts.Inputs = inputs
	opts.AutoVarFiles = nil
	var cacheNote string
	standIn := false
	if source != nil {
		dir, why := localSource(source.value, u.absDir)
		if why != "" {
			cached, note := u.cachedSource(source.value)
			if cached == "" {
				sd, ok := terraform.StandInDir(source.value, func(input string) bool { _, ok := inputs[input]; return ok })
				if !ok {
					gpus := ""
					if path, typ, at, ok := terraform.GPUTypeInInputs(inputs); ok {
						gpus = fmt.Sprintf(". Its input %s (%s:%d) names GPU type %s: those GPUs are missing from the total", path, filepath.Base(at.Filename), at.Start.Line, typ)
					} else if terraform.DeclaresNoMachines(source.value) {
						return parser.Result{} // a network, an identity, a bucket: nothing in it is priced
					}
					return parser.Result{Warnings: []parser.Error{{File: source.rng.Filename, Line: source.rng.Start.Line,
						Message: fmt.Sprintf("terraform source %q %s%s; resources inside it are not counted (run terragrunt init first, or check the plan JSON: terragrunt plan -out plan.out && terragrunt show -json plan.out > plan.json)%s", source.value, why, note, gpus)}}}
				}
				// A registry module gpuguard has a stand-in for (terraform/standin.go): its node
				// groups are read from the stand-in, reported at the source line.
				dir, standIn = sd, true
				// The stand-in follows the defaults of the module version the source pins
				// (?version=21.0.0); a unit's own input of that name cannot be meant for it.
				in := make(map[string]terraform.InputValue, len(opts.Inputs)+1)
				maps.Copy(in, opts.Inputs)
				in[terraform.ModuleMajorInput] = terraform.InputValue{Value: terraform.ModuleMajor(source.value, ""), Range: source.rng}
				opts.Inputs = in
			} else {
				dir, cacheNote = cached, note
			}
		}
		if !standIn {
			if _, err := u.dirs.Resolve(dir); err != nil {
				return parser.Result{Errors: []parser.Error{{File: source.rng.Filename, Line: source.rng.Start.Line, Message: fmt.Sprintf("terraform source %q: %v", source.value, err)}}}
			}
			dir = display(dir)
		}
		moduleDir = dir
		// Terragrunt copies the unit's own files over the module it deploys.
		opts.ExtraFiles = terraform.ModuleFiles(u.dir, u.opts)
		opts.AutoVarFiles = overlay(terraform.AutoVarFiles(moduleDir, u.dirs), terraform.AutoVarFiles(u.dir, u.dirs))
	}
	if source == nil && len(terraform.ModuleFiles(u.dir, u.opts)) == 0 {
		return parser.Result{Warnings: []parser.Error{{File: u.file, Line: 1,
			Message: "this Terragrunt configuration deploys nothing: it names no terraform source and its directory has no .tf files"}}}
	}
	names := make([]string, 0, len(cfg.generate))
	for name := range cfg.generate {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g := cfg.generate[name]
		// Reported under the unit's directory, where Terragrunt's working copy has it.
		opts.Generated = append(opts.Generated, terraform.GeneratedFile{Name: filepath.Join(u.dir, filepath.Base(g.path)), Src: []byte(g.contents), Skip: g.skip})
	}
	opts.VarFiles, opts.Vars = append([]string{}, opts.VarFiles...), append([]string{}, opts.Vars...)
	names = names[:0]
	for name := range cfg.varArgs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		va := cfg.varArgs[name]
		for _, f := range va.required {
			p := u.varFile(f, moduleDir)
			if _, err := u.dirs.Resolve(p); err != nil {
				u.errs = append(u.errs, parser.Error{File: va.rng.Filename, Line: va.rng.Start.Line, Message: fmt.Sprintf("extra_arguments %q: variable file %s", name, err)})
				continue
			}
			opts.VarFiles = append(opts.VarFiles, p)
		}
		for _, f := range va.optional {
			p := u.varFile(f, moduleDir)
			if _, err := u.dirs.Resolve(p); err == nil {
				opts.VarFiles = append(opts.VarFiles, p)
			}
		}
		opts.Vars = append(opts.Vars, va.vars...)
	}
	res := terraform.ParseModuleDir(moduleDir, opts)
	if !standIn {
		res.Included = append(res.Included, filepath.Clean(moduleDir))
	}
	res.Included = append(res.Included, filepath.Clean(u.dir))
	exprs := map[string]hcl.Expression{}
	for k, v := range inputs {
		if v.Expr != nil {
			exprs[k] = v.Expr
		}
	}
	for i := range res.Resources {
		r := &res.Resources[i]
		standInRes := terraform.IsStandIn(r.Source.File)
		if !standInRes && cacheNote == "" {
			continue
		}
		// The module's files are gpuguard's stand-in or terragrunt init's copy, not the
		// user's: the resource is reported at the unit's source, or at the node group's entry
		// in its inputs (eks_managed_node_groups = { gpu = {...} }). A gpuguard:ignore comment
		// above the terraform block waives rules on every resource of the unit, one above
		// the entry on that resource alone.
		if !standInRes {
			r.Note("declared at %s:%d, in the module terragrunt init downloaded", r.Source.File, r.Source.Line)
		}
		r.Source = parser.Location{File: source.rng.Filename, Line: source.rng.Start.Line}
		r.Suppressions = append(r.Suppressions, u.suppressionsAbove(source.block)...)
		if at, ok := terraform.InputEntry(r.Address, exprs); ok {
			r.Source = parser.Location{File: at.Filename, Line: at.Start.Line}
			r.Suppressions = append(r.Suppressions, u.suppressionsAbove(at)...)
		}
		if standInRes {
			r.Note("read through gpuguard's stand-in for %s, which terragrunt init has not downloaded: run it to read the module itself", source.value)
		}
	}
	if cacheNote != "" {
		for i := range res.Resources {
			res.Resources[i].Note("%s", cacheNote)
		}
	}
	return res
}

// cachedSource finds a remote source where `terragrunt init` downloaded it: the unit's
// .terragrunt-cache/<hash>/<hash>/ holds a copy of the source, the module in its //subdirectory.
// In a diff, the base (extracted from git, without the cache) reads the working tree's copy
// (Options.ModulesHome), as it does for Terraform's downloaded modules. With several downloads
// (the source changed since), the newest is read and the note says so. It returns "" when
// there is none, with a note for the warning.
func (u *unit) cachedSource(src string) (string, string) {
	home := u.dir
	if u.opts.ModulesHome != nil {
		home = u.opts.ModulesHome(u.dir)
	}
	sub := ""
	if i := strings.Index(src, "//"); i >= 0 {
		rest := src[i+2:]
		if j := strings.Index(src, "://"); j >= 0 && j+1 == i {
			// the scheme's //, not a subdirectory: look for one after the host
			if k := strings.Index(rest, "//"); k >= 0 {
				sub = rest[k+2:]
			}
		} else {
			sub = rest
		}
	}
	sub, _, _ = strings.Cut(sub, "?")
	matches, _ := filepath.Glob(filepath.Join(home, ".terragrunt-cache", "*", "*", filepath.FromSlash(sub)))
	var best string
	var bestTime int64
	found := 0
	for _, m := range matches {
		info, err := os.Stat(m)
		if err != nil || !info.IsDir() {
			continue
		}
		if _, err := u.dirs.Resolve(m); err != nil {
			continue
		}
		found++
		if t := info.ModTime().UnixNano(); best == "" || t > bestTime {
			best, bestTime = m, t
		}
	}
	if best == "" {
		return "", ""
	}
	note := fmt.Sprintf("module read from %s, where terragrunt init downloaded %s", display(best), src)
	if found > 1 {
		note += fmt.Sprintf(" (the newest of %d downloads)", found)
	}
	return best, note
}

// varFile names a variable file an extra_arguments block passes: terraform reads it from its
// working directory, the module's copy.
func (u *unit) varFile(f, moduleDir string) string {
	if filepath.IsAbs(f) {
		return display(f)
	}
	return filepath.Join(moduleDir, f)
}

// overlay is base with the files of over replacing those of the same name, in Terraform's
// loading order.
func overlay(base, over []string) []string {
	names := map[string]bool{}
	for _, f := range over {
		names[filepath.Base(f)] = true
	}
	out := append([]string{}, over...)
	for _, f := range base {
		if !names[filepath.Base(f)] {
			out = append(out, f)
		}
	}
	terraform.SortAutoVarFiles(out)
	return out
}

// localSource resolves a terraform source to a local directory (absolute), or says why it is
// not followed. "../modules//gpu" is the gpu directory of ../modules: Terragrunt copies the part
// before // and runs in the part after.
func localSource(src, unitDir string) (string, string) {
	s := strings.TrimSpace(src)
	lower := strings.ToLower(s)
	for _, remote := range []string{"::", "git@", "tfr:", "http://", "https://", "s3.amazonaws.com/", "github.com/", "bitbucket.org/", "gitlab.com/"} {
		if strings.Contains(lower, remote) {
			return "", "is remote and is not downloaded"
		}
	}
	if strings.Contains(s, "?") {
		return "", "is not a local path"
	}
	if base, sub, ok := strings.Cut(s, "//"); ok && base != "" {
		s = filepath.Join(base, sub)
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(unitDir, s)
	}
	return filepath.Clean(s), ""
}

// suppressionsAbove reads the gpuguard:ignore comments directly above the start of rng, in a
// configuration file the unit parsed.
func (u *unit) suppressionsAbove(rng hcl.Range) []parser.Suppression {
	lines, ok := u.lines[rng.Filename]
	if !ok {
		return nil
	}
	return parser.SuppressionsAbove(func(n int) (string, bool) {
		if n < 1 || n > len(lines) {
			return "", false
		}
		return strings.TrimRight(lines[n-1], "\r"), true
	}, rng.Filename, rng.Start.Line)
}
