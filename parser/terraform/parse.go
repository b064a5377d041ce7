package terraform

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// Options configure the evaluation of root modules.
type Options struct {
	// VarFiles are --var-file paths, applied after the automatic tfvars files.
	VarFiles []string
	// Vars are --var name=value pairs, applied last.
	Vars []string
	// Cache shares parsed files between the modules of one run; nil parses every time.
	Cache *Cache
	// AutoVarFiles, when not nil, are the terraform.tfvars and *.auto.tfvars files of the root
	// module's directory, already listed by discovery; nil lists the directory.
	AutoVarFiles []string
	// ModulesHome, when set, names the directory whose .terraform/modules serve a root module:
	// a tree extracted from a git ref has none, and borrows the working tree's so that both
	// sides of a diff see the same downloaded modules. Nil: the root module's own directory.
	ModulesHome func(rootDir string) string
	// Kubernetes are the options Kubernetes objects declared with kubernetes_manifest are read with.
	Kubernetes kubernetes.Options
	// FileDirs are the directories file(), fileexists() and templatefile() may read under (the
	// checked paths and the project); empty: the working directory. Paths resolve from the root
	// module's directory, as Terraform resolves them.
	FileDirs []string
	// Inputs are root variable values a wrapper sets (Terragrunt's inputs, which it passes as
	// TF_VAR_ environment variables): the tfvars files and --var override them, as in Terraform.
	// Values for variables the module does not declare are ignored, as Terraform ignores them.
	Inputs map[string]InputValue
	// ExtraFiles are configuration files from another directory that join the root module (a
	// Terragrunt unit's own .tf files, which Terragrunt copies over the module it deploys); a
	// file of the same name replaces the module's.
	ExtraFiles []string
	// Generated are configuration files that join the root module from memory (what a
	// Terragrunt generate block writes): a file of the same name replaces the module's, or is
	// skipped when Skip is set and the module has one.
	Generated []GeneratedFile
}

// GeneratedFile is one file of Options.Generated. Name is what its problems are reported under.
type GeneratedFile struct {
	Name string
	Src  []byte
	Skip bool // keep the module's own file of this name, if it has one
}

// InputValue is one value of Options.Inputs, with the place that set it.
type InputValue struct {
	Value cty.Value
	Range hcl.Range
	// Expr is the value's expression as written, when one was (an item of Terragrunt's inputs
	// object): InputEntry finds a node group's entry in it.
	Expr hcl.Expression
}

// Unresolved is a value that cannot be known here, carrying the reason a resource built from it
// reports (as a variable without a value does).
func Unresolved(reason string) cty.Value {
	return unresolved("%s", reason)
}

// UnresolvedReason is the reason an unresolved value carries (see Unresolved), if any.
func UnresolvedReason(v cty.Value) (string, bool) {
	for m := range v.Marks() {
		if u, ok := m.(unresolvedMark); ok {
			return u.reason, true
		}
	}
	return "", false
}

// Functions are the functions Terraform configurations are evaluated with, as a wrapper's own
// configuration (terragrunt.hcl) uses them: file() and its kin read relative to base and only
// inside opts.FileDirs.
func Functions(base string, opts Options) map[string]function.Function {
	fileDirs := opts.FileDirs
	if len(fileDirs) == 0 {
		fileDirs = []string{"."}
	}
	return evaluationFunctions(&fileAccess{base: base, dirs: opts.Cache.readableDirs(fileDirs)})
}

// ReadableDirs are the directories a run may read files in (opts.FileDirs; empty: the working
// directory).
func ReadableDirs(opts Options) confine.Dirs {
	fileDirs := opts.FileDirs
	if len(fileDirs) == 0 {
		fileDirs = []string{"."}
	}
	return opts.Cache.readableDirs(fileDirs)
}

// ModuleFiles lists the configuration files of the module in dir, as ParseModuleDir reads
// them (links out of the readable directories left out).
func ModuleFiles(dir string, opts Options) []string {
	files, _, _ := opts.Cache.moduleFiles(dir, ReadableDirs(opts))
	return files
}

// ParseModuleDir evaluates the module in dir (its .tf and .tf.json files, and opts.ExtraFiles)
// as a root module. A file link out of the readable directories is a warning and is not read.
func ParseModuleDir(dir string, opts Options) parser.Result {
	var files, outside []string
	var err error
	if isStandIn(dir) {
		files = standInFiles(dir)
	} else {
		files, outside, err = opts.Cache.moduleFiles(dir, ReadableDirs(opts))
	}
	if err != nil {
		return parser.Result{Errors: []parser.Error{{File: dir, Message: fmt.Sprintf("cannot read the module: %v", err)}}}
	}
	var warns []parser.Error
	for _, f := range outside {
		warns = append(warns, parser.Error{File: f, Message: "a link out of the checked directories: not read"})
	}
	if len(opts.ExtraFiles) > 0 {
		replaced := map[string]bool{}
		for _, f := range opts.ExtraFiles {
			replaced[filepath.Base(f)] = true
		}
		kept := []string{}
		for _, f := range files {
			if !replaced[filepath.Base(f)] {
				kept = append(kept, f)
			}
		}
		files = append(kept, opts.ExtraFiles...)
	}
	if len(files) == 0 && len(opts.Generated) == 0 {
		return parser.Result{Warnings: append(warns, parser.Error{File: dir, Message: "no Terraform configuration (.tf files) in the module"})}
	}
	res := ParseModule(dir, files, opts)
	res.Warnings = append(warns, res.Warnings...)
	return res
}

// ParseModule evaluates the root module made of files (all in dir) and returns its GPU
// resources. Problems are returned in the result, never as a panic.
func ParseModule(dir string, files []string, opts Options) parser.Result {
	l := newLoader(opts.Cache)
	if len(opts.Generated) > 0 {
		l.generated = map[string][]byte{}
		have := map[string]bool{}
		for _, f := range files {
			have[filepath.Base(f)] = true
		}
		for _, g := range opts.Generated {
			base := filepath.Base(g.Name)
			if g.Skip && have[base] {
				continue
			}
			kept := files[:0:0]
			for _, f := range files {
				if filepath.Base(f) != base {
					kept = append(kept, f)
				}
			}
			files = append(kept, g.Name)
			l.generated[g.Name] = g.Src
		}
	}
	return l.evaluate(dir, files, nil, opts)
}

// ParseSource evaluates HCL read from stdin as a one-file root module named name.
func ParseSource(name string, src []byte, opts Options) parser.Result {
	l := newLoader(nil)
	return l.evaluate(".", []string{name}, src, opts)
}

func (l *loader) evaluate(dir string, files []string, stdin []byte, opts Options) (res parser.Result) {
	defer func() {
		// The evaluator is written not to panic; this is the last line of defence so that one
		// pathological module cannot take the whole run down.
		if p := recover(); p != nil {
			l.errs = append(l.errs, parser.Error{File: dir, Message: fmt.Sprintf("internal error while evaluating this module (please report it): %v", p)})
			res = parser.Result{Errors: l.errs, Warnings: l.warns}
		}
	}()
	cfg := l.loadModule(dir, files, stdin, false)
	modulesHome := dir
	if opts.ModulesHome != nil {
		modulesHome = opts.ModulesHome(dir)
	}
	fileDirs := opts.FileDirs
	if len(fileDirs) == 0 {
		fileDirs = []string{"."}
	}
	// Downloaded modules may read their own files, wherever their home is (a tree extracted
	// from a git ref borrows the working tree's).
	readable := opts.Cache.readableDirs(fileDirs).With(filepath.Join(modulesHome, ".terraform", "modules"))
	access := &fileAccess{base: dir, dirs: readable}
	ev := &evaluation{l: l, files: access, confineModules: len(opts.FileDirs) > 0, funcs: evaluationFunctions(access), instances: map[string]*instance{}, rootDir: dir, modulesHome: modulesHome}
	ev.kubernetes = opts.Kubernetes
	root := newModuleInstance(ev, cfg, nil, nil, "")
	vals := l.rootValues(dir, opts, access.dirs)
	for name, decl := range cfg.variables {
		rv, ok := vals[name]
		if !ok {
			root.inputs[name] = root.defaultValue(decl, "set it with --var, --var-file or a terraform.tfvars file")
			continue
		}
		v := rv.value
		if rv.raw != nil {
			var ok bool
			if v, ok = l.typedRaw(decl, rv); !ok {
				root.inputs[name] = unresolved("var.%s: invalid --var value", name)
				continue
			}
		}
		root.inputs[name] = root.finalizeVariable(decl, v, rv.rng)
	}
	root.walk(func(t string) bool { _, ok := mappers[t]; return ok || lookedUpEverywhere[t] })
	res.Resources = append(res.Resources, ev.mapAll()...)
	// Kubernetes objects yield only workloads that request GPUs; keep does not apply to them (a
	// pod that a NodePool may place on several types has no single instance type).
	for _, r := range ev.buildManifests(res.Resources) {
		res.Resources = append(res.Resources, *r)
	}
	ev.devicePluginOnGroups(res.Resources)
	for _, mi := range ev.modules {
		for _, call := range mi.cfg.calls {
			if cs := mi.children[call.name]; cs != nil && cs.notFollowed != "" {
				msg := fmt.Sprintf("module %q: source %q is not followed (%s); resources inside it are not counted", call.name, call.source, cs.notFollowed)
				path, typ, line, gpu := mi.gpuTypeInCall(call)
				if gpu {
					msg += fmt.Sprintf(", and its input %s (line %d) names GPU type %s: those GPUs are missing from the total", path, line, typ)
				} else if DeclaresNoMachines(call.source) {
					continue // a network, an identity, a bucket: nothing in it is priced (machinefree.go)
				}
				l.warns = appendOnce(l.warns, parser.Error{File: call.rng.Filename, Line: call.rng.Start.Line, Message: msg})
			}
		}
	}
	l.warns = append(l.warns, ev.unpricedGPUTypes()...)
	l.errs, l.warns = ev.downloadedProblems(l.errs, l.warns)
	res.Errors, res.Warnings = l.errs, l.warns
	res.Consumed = access.consumed()
	seen := map[string]bool{filepath.Clean(dir): true}
	for _, mi := range ev.modules {
		if isStandIn(mi.cfg.dir) {
			continue
		}
		if d := filepath.Clean(mi.cfg.dir); !seen[d] {
			seen[d] = true
			res.Included = append(res.Included, d)
		}
		if mi.expansion == "" { // an instance whose key is unknown has no address to move from or to
			for _, m := range mi.cfg.moves {
				res.Moves = append(res.Moves, parser.Move{From: mi.prefix + m.from, To: mi.prefix + m.to})
			}
		}
	}
	return res
}

func appendOnce(errs []parser.Error, e parser.Error) []parser.Error {
	for _, x := range errs {
		if x == e {
			return errs
		}
	}
	return append(errs, e)
}

// IsModuleFile reports whether a file name is Terraform configuration: .tf and .tf.json, and
// OpenTofu's .tofu and .tofu.json.
func IsModuleFile(name string) bool {
	base := filepath.Base(name)
	for _, ext := range []string{".tf", ".tf.json", ".tofu", ".tofu.json"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}

// PreferTofu drops the .tf (.tf.json) files that a .tofu (.tofu.json) file of the same name in
// the same directory replaces, as OpenTofu loads only the .tofu one; other files stay in order.
// Terraform itself ignores .tofu files, so a module carrying both is meant for OpenTofu.
func PreferTofu(files []string) []string {
	tofu := map[string]bool{}
	for _, f := range files {
		if stem, ok := strings.CutSuffix(f, ".tofu"); ok {
			tofu[stem+".tf"] = true
		} else if stem, ok := strings.CutSuffix(f, ".tofu.json"); ok {
			tofu[stem+".tf.json"] = true
		}
	}
	if len(tofu) == 0 {
		return files
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		if !tofu[f] {
			out = append(out, f)
		}
	}
	return out
}
