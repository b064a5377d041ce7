package policies

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// DefaultTimeout bounds one evaluation of all policies.
const DefaultTimeout = 10 * time.Second

// Options configure an engine.
type Options struct {
	// Dirs are directories of user policies (--policy, config policies).
	Dirs []string
	// Timeout bounds an evaluation; 0 means DefaultTimeout.
	Timeout time.Duration
	// MemoryLimit bounds how much an evaluation may grow the heap; 0 means DefaultMemoryLimit.
	MemoryLimit uint64
	// Now is the clock policies see (time.now_ns); nil means time.Now.
	Now func() time.Time
}

// Engine holds the compiled policies, prepared once.
type Engine struct {
	sets    []ruleSet
	rules   map[string]*Rule // by package
	timeout time.Duration
	memory  uint64
	now     func() time.Time
}

// CompileError is a policy that does not compile, with its places.
type CompileError struct {
	Errors []Problem
}

// Problem is one policy problem at a place.
type Problem struct {
	File    string
	Line    int
	Message string
}

func (e *CompileError) Error() string {
	var b strings.Builder
	for i, p := range e.Errors {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s:%d: %s", p.File, p.Line, p.Message)
	}
	return b.String()
}

func astProblems(err error) *CompileError {
	var errs ast.Errors
	ce := &CompileError{}
	if errors.As(err, &errs) {
		for _, e := range errs {
			p := Problem{Message: e.Message}
			if e.Location != nil {
				p.File, p.Line = e.Location.File, e.Location.Row
			}
			ce.Errors = append(ce.Errors, p)
		}
		return ce
	}
	ce.Errors = append(ce.Errors, Problem{Message: err.Error()})
	return ce
}

// ruleSet is one conftest-style set of one rule package (data.gpuguard.builtin.gpu004.warn) with
// its query, prepared once.
//
// Why one query per set rather than one for everything: OPA evaluates a query on one goroutine,
// so a single query over all packages leaves every other core idle. The sets are independent;
// evaluating them concurrently over the same converted input gives the same findings in about
// half the time on two cores (docs/performance.md). Each query still evaluates the whole input in
// one call, never a resource at a time.
type ruleSet struct {
	pkg      string // package path without "data."
	ref      string // data.gpuguard.builtin.gpu004.warn
	severity result.Severity
	query    rego.PreparedEvalQuery
}

// findingSets lists the deny, violation, warn and notice sets that the modules define in
// packages under data.gpuguard and data.main, sorted by reference. A set spread over several
// modules of one package is listed once.
func findingSets(modules map[string]*ast.Module) []ruleSet {
	seen := map[string]bool{}
	var out []ruleSet
	for _, m := range modules {
		path := m.Package.Path
		if len(path) < 2 || !(path[1].Equal(gpuguardRoot) || path[1].Equal(mainRoot)) {
			continue
		}
		for _, r := range m.Rules {
			ref := r.Head.Ref()
			if len(ref) != 1 || len(r.Head.Args) > 0 {
				continue // deny.x contains ..., or a function named deny: not a set of messages
			}
			name, _ := ref[0].Value.(ast.Var)
			sev, ok := setSeverity[string(name)]
			full := path.Append(ast.StringTerm(string(name))).String()
			if !ok || seen[full] {
				continue
			}
			seen[full] = true
			out = append(out, ruleSet{pkg: packageOf(m), ref: full, severity: sev})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref < out[j].ref })
	return out
}

var gpuguardRoot, mainRoot = ast.StringTerm("gpuguard"), ast.StringTerm("main")

// parseSources parses every source, collecting all problems with file and line. A user's module
// may not take a package under the built-ins' prefix (it would replace a built-in rule).
func parseSources(sources []source) (map[string]*ast.Module, error) {
	modules := map[string]*ast.Module{}
	ce := &CompileError{}
	for _, s := range sources {
		m, err := parse(s)
		if err != nil {
			ce.Errors = append(ce.Errors, astProblems(err).Errors...)
			continue
		}
		pkg := packageOf(m)
		if !strings.HasPrefix(s.name, "builtin/") && (pkg == BuiltinPackagePrefix || strings.HasPrefix(pkg, BuiltinPackagePrefix+".")) {
			ce.Errors = append(ce.Errors, Problem{File: s.name, Line: m.Package.Location.Row,
				Message: fmt.Sprintf("package %s is reserved for gpuguard's built-in rules", pkg)})
			continue
		}
		modules[s.name] = m
	}
	if len(ce.Errors) > 0 {
		return nil, ce
	}
	return modules, nil
}

// sandboxCompiler is the compiler every policy goes through: sandbox capabilities, no print.
func sandboxCompiler() *ast.Compiler {
	return ast.NewCompiler().WithCapabilities(SandboxCapabilities()).WithEnablePrintStatements(false)
}

// compile parses and compiles sources against the sandbox capabilities and reads each rule
// package's metadata.
func compile(sources []source) (*ast.Compiler, map[string]*Rule, error) {
	modules, err := parseSources(sources)
	if err != nil {
		return nil, nil, err
	}
	rules := map[string]*Rule{}
	for _, s := range sources {
		m := modules[s.name]
		if s.test || m == nil {
			continue
		}
		builtin := strings.HasPrefix(s.name, "builtin/")
		pkg := packageOf(m)
		if _, seen := rules[pkg]; !seen {
			rules[pkg] = ruleOf(m, s.name, builtin)
		} else if r := ruleOf(m, s.name, builtin); r.ID != "" {
			rules[pkg] = r
		}
	}
	c := sandboxCompiler()
	c.Compile(modules)
	if c.Failed() {
		return nil, nil, astProblems(c.Errors)
	}
	return c, rules, nil
}

// New compiles the built-in rules and the user's policies and prepares the query.
func New(ctx context.Context, opts Options) (*Engine, error) {
	user, err := userSources(opts.Dirs, false)
	if err != nil {
		return nil, err
	}
	c, rules, err := compile(append(builtinSources(false), user...))
	if err != nil {
		return nil, err
	}
	sets := findingSets(c.Modules)
	for i := range sets {
		sets[i].query, err = rego.New(
			rego.Compiler(c),
			rego.Query("x := "+sets[i].ref),
			rego.Capabilities(SandboxCapabilities()),
			withDollars(),
			rego.StrictBuiltinErrors(false),
		).PrepareForEval(ctx)
		if err != nil {
			return nil, astProblems(err)
		}
	}
	e := &Engine{sets: sets, rules: rules, timeout: opts.Timeout, memory: opts.MemoryLimit, now: opts.Now}
	if e.timeout == 0 {
		e.timeout = DefaultTimeout
	}
	if e.memory == 0 {
		e.memory = DefaultMemoryLimit
	}
	if e.now == nil {
		e.now = time.Now
	}
	return e, nil
}

// Rules lists the rule packages the engine evaluates.
func (e *Engine) Rules() []*Rule {
	out := make([]*Rule, 0, len(e.rules))
	for _, r := range e.rules {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	return out
}

// Evaluate runs every policy over the input and returns the findings, sorted. The input is
// converted once; the rule sets are evaluated concurrently over it, on as many goroutines as
// there are cores.
func (e *Engine) Evaluate(ctx context.Context, in *Input) ([]result.Finding, error) {
	timed, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	value, err := in.value()
	if err != nil {
		return nil, err
	}
	return e.evaluate(timed, value, in)
}

// evaluate runs the rule sets over the converted input.
func (e *Engine) evaluate(timed context.Context, value ast.Value, in *Input) ([]result.Finding, error) {
	ctx, stop := context.WithCancelCause(timed)
	defer stop(nil)
	watchMemory(ctx, e.memory, stop)
	now := e.now()
	found := make([][]result.Finding, len(e.sets))
	errs := make([]error, len(e.sets))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(e.sets)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(e.sets) {
					return
				}
				if found[i], errs[i] = e.evalSet(ctx, &e.sets[i], value, now, in); errs[i] != nil {
					stop(errs[i]) // the others stop too: the evaluation has failed
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if int(done.Load()) < len(e.sets) {
		switch {
		case errors.Is(context.Cause(ctx), errMemory):
			return nil, fmt.Errorf("evaluation grew memory by more than %d MiB and was stopped", e.memory>>20)
		case errors.Is(timed.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("policies did not finish within %s", e.timeout)
		}
		for i, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("evaluating policies: %s: %w", e.sets[i].ref, err)
			}
		}
		return nil, fmt.Errorf("evaluating policies: %w", context.Cause(ctx))
	}
	n := 0
	for _, f := range found {
		n += len(f)
	}
	out := make([]result.Finding, 0, n)
	for _, f := range found {
		out = append(out, f...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if c := parser.CompareAddresses(a.Address, b.Address); c != 0 {
			return c < 0
		}
		return a.Message < b.Message
	})
	return out, nil
}

// evalSet evaluates one rule set over the converted input and reads its messages.
func (e *Engine) evalSet(ctx context.Context, s *ruleSet, value ast.Value, now time.Time, in *Input) ([]result.Finding, error) {
	// Keep the result as AST terms: walking them directly skips converting every finding to Go
	// maps first.
	raw := func(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }
	rs, err := s.query.Eval(ctx, rego.EvalParsedInput(value), rego.EvalTime(now), rego.EvalGenerateJSON(raw))
	if err != nil || len(rs) == 0 || len(rs[0].Bindings) == 0 {
		return nil, err // an undefined set (a complete rule whose body failed) has no messages
	}
	t, _ := rs[0].Bindings["x"].(*ast.Term)
	set, ok := t.Value.(ast.Set)
	if !ok {
		return nil, nil
	}
	out := make([]result.Finding, 0, set.Len())
	set.Foreach(func(item *ast.Term) {
		if f, ok := e.finding(s.pkg, s.severity, item.Value, in); ok {
			out = append(out, f)
		}
	})
	return out, nil
}

// setSeverity maps the conftest-style rule sets to severities.
var setSeverity = map[string]result.Severity{"deny": result.Deny, "violation": result.Deny, "warn": result.Warn, "notice": result.Notice}

// Keys of a finding object, made once: looking up thousands of findings would otherwise build
// a term per key each time.
var (
	keyMsg, keyRule, keyAddress, keyRemediation = ast.StringTerm("msg"), ast.StringTerm("rule"), ast.StringTerm("address"), ast.StringTerm("remediation")
	keyFile, keyID, keySeverity, keyLine        = ast.StringTerm("file"), ast.StringTerm("id"), ast.StringTerm("severity"), ast.StringTerm("line")
)

func str(o ast.Object, key *ast.Term) string {
	if t := o.Get(key); t != nil {
		if s, ok := t.Value.(ast.String); ok {
			return string(s)
		}
	}
	return ""
}

// finding turns one message of a rule set into a finding. A message is a string or an object
// with msg and optional rule, address, remediation, severity, file and line.
func (e *Engine) finding(pkg string, sev result.Severity, item ast.Value, in *Input) (result.Finding, bool) {
	f := result.Finding{Severity: sev}
	rule := e.rules[pkg]
	if rule != nil {
		f.Rule, f.Title = rule.ID, rule.Title
	}
	switch m := item.(type) {
	case ast.String:
		f.Message = string(m)
	case ast.Object:
		f.Message = str(m, keyMsg)
		if r := str(m, keyRule); r != "" {
			f.Rule = r
		}
		f.Address, f.Remediation, f.File, f.Resource = str(m, keyAddress), str(m, keyRemediation), str(m, keyFile), str(m, keyID)
		if s := str(m, keySeverity); result.Severity(s).Rank() > 0 {
			f.Severity = result.Severity(s)
		}
		if t := m.Get(keyLine); t != nil {
			if n, ok := t.Value.(ast.Number); ok {
				if i, ok := n.Int(); ok {
					f.Line = i
				}
			}
		}
	default:
		return f, false
	}
	if f.Message == "" {
		return f, false
	}
	if f.Rule == "" {
		f.Rule = pkg
	}
	if o, ok := in.severityOverride(f.Rule); ok {
		if o == "off" {
			return f, false
		}
		f.Severity = result.Severity(o)
	}
	if r, ok := in.byID[f.Resource]; ok && f.Resource != "" {
		f.Address = r.Address
		if f.File == "" {
			f.File, f.Line = r.Source.File, r.Source.Line
		}
	} else if f.File == "" && f.Address != "" {
		if src, ok := in.sources[f.Address]; ok {
			f.File, f.Line = src.File, src.Line
		}
		f.Resource = ""
	}
	return f, true
}
