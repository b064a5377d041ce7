package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/check"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/costdiff"
	"github.com/gpuguard/gpuguard/internal/gitref"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/terraform"
	"github.com/gpuguard/gpuguard/policies"
)

type diffOptions struct {
	commonOptions
	base, head string
}

func newDiffCommand(e *env) *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff --base B [--head H] [PATH...]",
		Short: "Cost diff between two trees (directories or git refs)",
		Long: `diff checks the same paths in a base and a head tree and compares them: each GPU resource
(matched by root module and address) is added, removed, changed or unchanged, with the monthly
totals before and after. B and H are directories or git refs (a ref is extracted with git archive
into a temporary directory and removed afterwards); the head defaults to the working tree. A
PATH only one tree has is one the change adds or deletes: the other tree has nothing there.
Findings are the head's, with GPU001 judging the increase against budgets.monthly_increase.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runDiff(e, &o, args) },
	}
	o.bind(cmd)
	cmd.Flags().StringVar(&o.base, "base", "", "base tree: a directory or a git ref (required)")
	cmd.Flags().StringVar(&o.head, "head", ".", "head tree: a directory or a git ref")
	return cmd
}

// side is one tree of a diff.
type side struct {
	dir string // the directory the paths are relative to
	// refRoot is, for a git ref, the extracted repository's top: the project root there when
	// no config file says otherwise (as the git root is for a working tree).
	refRoot string
	cleanup func()
}

// tree resolves a diff side: an existing directory, or a git ref extracted to a temporary one.
func tree(e *env, arg string) (side, error) {
	if info, err := os.Stat(arg); err == nil && info.IsDir() {
		return side{dir: arg, cleanup: func() {}}, nil
	}
	t, err := gitref.Materialize(e.ctx, ".", arg)
	if err != nil {
		return side{}, err
	}
	return side{dir: t.Dir, refRoot: t.Root, cleanup: func() { _ = t.Remove() }}, nil
}

// modulesHome maps a root module of a tree extracted from a git ref to the same directory of the
// working tree, where terraform init leaves .terraform/modules (git archive never has it): both
// sides of a diff then follow the same downloaded modules. A directory side uses its own.
func (s side) modulesHome() func(string) string {
	if s.refRoot == "" {
		return nil
	}
	return func(root string) string {
		if rel, ok := inside(s.dir, root); ok {
			return rel
		}
		return root
	}
}

// file resolves a file named on the command line (--var-file, --config) for the side. A
// relative path that names a file of the side's tree is read from that tree, as the paths
// checked are: the base reads its own version of envs/prod.tfvars or .gpuguard.yaml, so a pull
// request that changes only that file shows its effect. A path that leads out of the tree, or
// that a directory side lacks, is read as given, the same file on both sides. A file of the
// repository that a git ref lacks (the pull request adds it) is absent on that side: ok false.
func (s side) file(p string) (string, bool) {
	if s.dir == "" || s.dir == "." || p == "" || filepath.IsAbs(p) {
		return p, true
	}
	in := filepath.Join(s.dir, p)
	if info, err := os.Stat(in); err == nil && !info.IsDir() {
		return in, true
	}
	if _, ok := inside(s.refRoot, in); ok && s.refRoot != "" {
		return "", false
	}
	return p, true
}

// varFiles resolves the --var-file paths for the side (file), with a warning for each file the
// side's ref lacks: that side is read without it.
func (s side) varFiles(files []string, ref string) ([]string, []parser.Error) {
	var out []string
	var missing []parser.Error
	for _, f := range files {
		p, ok := s.file(f)
		if !ok {
			missing = append(missing, parser.Error{File: filepath.ToSlash(f),
				Message: fmt.Sprintf("--var-file %s does not exist at %s: the variables it sets take their other values there", f, ref)})
			continue
		}
		out = append(out, p)
	}
	return out, missing
}

// inside is path relative to dir, and whether path lies in dir (or is dir).
func inside(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	return rel, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sideConfig loads a side's config; without --config each side uses its own .gpuguard.yaml.
func sideConfig(flag string, s side, paths []string) (*config.Config, error) {
	cfg, err := loadConfig(flag, paths)
	if err != nil {
		return nil, err
	}
	if cfg.Path == "" && s.refRoot != "" {
		cfg.Root = s.refRoot
	}
	return cfg, nil
}

// onEitherSide returns the paths each side reads: a path only one side has is one the change
// adds (the base lacks it) or deletes (the head lacks it), so the other side has no resources
// there rather than an input error. A path neither side has is read by both, and reported.
func onEitherSide(base, head []string) (baseRead, headRead []string) {
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	for i := range base {
		inBase, inHead := exists(base[i]), exists(head[i])
		if inBase || !inHead {
			baseRead = append(baseRead, base[i])
		}
		if inHead || !inBase {
			headRead = append(headRead, head[i])
		}
	}
	return baseRead, headRead
}

func joinAll(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if filepath.IsAbs(p) {
			out[i] = p
		} else {
			out[i] = filepath.Join(dir, p)
		}
	}
	return out
}

// relocate makes a document's roots relative to its tree, so that base and head resources
// match by root and address whatever directory each tree sits in. With files set (a tree
// extracted from a git ref into a temporary directory), file paths are made relative to the
// tree too, which puts them where they are in the working directory; a tree given as a
// directory keeps its paths as the user gave them, so that annotations point at real files.
func relocate(doc *result.Check, dir string, files bool) {
	if dir == "" || dir == "." {
		return
	}
	rel := func(p string) string {
		if p == "" {
			return p
		}
		if r, ok := inside(dir, p); ok {
			return filepath.ToSlash(r)
		}
		return filepath.ToSlash(p)
	}
	file := func(p string) string {
		if files {
			return rel(p)
		}
		return p
	}
	// Ids name resources in other resources too (the node group a pod runs on, the groups
	// pods share): each is renamed with the resource it names.
	ids := map[string]string{}
	for i := range doc.Resources {
		r := &doc.Resources[i]
		old := r.ID
		r.Root, r.Source.File = rel(r.Root), file(r.Source.File)
		r.ID = estimator.ResourceID(r.Root, r.Address)
		ids[old] = r.ID
		for j := range r.Suppressions {
			r.Suppressions[j].Source.File = file(r.Suppressions[j].Source.File)
		}
	}
	renamed := func(id string) string { return cmp.Or(ids[id], id) }
	all := func(list []string) []string {
		if list == nil {
			return nil
		}
		out := make([]string, len(list))
		for j, id := range list {
			out[j] = renamed(id)
		}
		return out
	}
	seen := map[*estimator.GroupPods]bool{} // the groups pods share hold one summary
	for i := range doc.Resources {
		r := &doc.Resources[i]
		r.NodeGroup, r.NodeGroups = renamed(r.NodeGroup), all(r.NodeGroups)
		if p := r.PodsOnGroup; p != nil && !seen[p] {
			seen[p], p.Groups = true, all(p.Groups)
		}
	}
	for i := range doc.Moves {
		doc.Moves[i].Root = rel(doc.Moves[i].Root)
	}
	for i := range doc.Errors {
		doc.Errors[i].File = file(doc.Errors[i].File)
	}
	for i := range doc.Warnings {
		doc.Warnings[i].File = file(doc.Warnings[i].File)
	}
	for i := range doc.Findings {
		doc.Findings[i].File = file(doc.Findings[i].File)
	}
}

// diffRun is everything diff and comment need: the document and the engine that judged it.
type diffRun struct {
	doc    *result.Diff
	engine *policies.Engine
}

func computeDiff(e *env, o *diffOptions, paths []string) (*diffRun, error) {
	if o.base == "" {
		return nil, fmt.Errorf("--base is required (a directory or a git ref such as origin/main)")
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		if p == "-" {
			return nil, fmt.Errorf("diff reads trees, not standard input")
		}
	}
	go catalog.Default()
	baseSide, err := tree(e, o.base)
	if err != nil {
		return nil, fmt.Errorf("--base: %w", err)
	}
	defer baseSide.cleanup()
	headSide, err := tree(e, o.head)
	if err != nil {
		return nil, fmt.Errorf("--head: %w", err)
	}
	defer headSide.cleanup()
	headPaths, basePaths := joinAll(headSide.dir, paths), joinAll(baseSide.dir, paths)
	// Profile paths resolve from each side's project root, as check does: the config's
	// directory, else the repository's top (the extracted tree's for a git ref).
	// Each side reads its own config: its version of the --config file, or the .gpuguard.yaml
	// found upward from its paths (also where a ref lacks the --config file: the pull request
	// adds it). The head's judges the findings.
	headConfig, _ := headSide.file(o.config)
	cfg, err := sideConfig(headConfig, headSide, headPaths)
	if err != nil {
		return nil, err
	}
	baseConfig, _ := baseSide.file(o.config)
	baseCfg, err := sideConfig(baseConfig, baseSide, basePaths)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	cat, overlay, err := loadCatalog(o.catalog, o.fallback, cfg)
	if err != nil {
		return nil, err
	}
	engine, err := loadPolicies(e, o.policies, cfg)
	if err != nil {
		return nil, err
	}
	baseVarFiles, baseMissing := baseSide.varFiles(o.varFiles, o.base)
	headVarFiles, headMissing := headSide.varFiles(o.varFiles, o.head)
	baseTF := terraform.Options{VarFiles: baseVarFiles, Vars: o.vars, ModulesHome: baseSide.modulesHome()}
	tf := terraform.Options{VarFiles: headVarFiles, Vars: o.vars, ModulesHome: headSide.modulesHome()}
	// The two sides are independent until they are compared: read them at the same time.
	baseRead, headRead := onEitherSide(basePaths, headPaths)
	var base *result.Check
	done := make(chan struct{})
	go func() {
		defer close(done)
		base = check.Run(baseRead, check.Options{Config: baseCfg, Catalog: cat, Overlay: overlay, Region: o.region, Terraform: baseTF, Now: e.now()})
		relocate(base, baseSide.dir, baseSide.refRoot != "")
		base.Warnings = append(base.Warnings, baseMissing...)
	}()
	head := check.Run(headRead, check.Options{Config: cfg, Catalog: cat, Overlay: overlay, Region: o.region, Terraform: tf, Now: e.now()})
	relocate(head, headSide.dir, headSide.refRoot != "")
	head.Warnings = append(head.Warnings, headMissing...)
	<-done
	d := costdiff.Compute(base, head)
	check.Guardrails(e.ctx, head, costdiff.PolicyDiff(d), cfg, engine, e.now())
	d.Findings, d.Errors = head.Findings, costdiff.Errors(base, head) // with any policy error
	if d.Findings == nil {
		d.Findings = []result.Finding{}
	}
	d.Base.Ref, d.Head.Ref = o.base, o.head
	return &diffRun{doc: d, engine: engine}, nil
}

func runDiff(e *env, o *diffOptions, paths []string) error {
	format, threshold, err := o.judging(e)
	if err != nil {
		return err
	}
	run, err := computeDiff(e, o, paths)
	if err != nil {
		return withCode(exitError, err)
	}
	return emit(e, &o.commonOptions, format, threshold, nil, run.doc, run.engine)
}
