package scan

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/helm"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
	"github.com/gpuguard/gpuguard/parser/kustomize"
	"github.com/gpuguard/gpuguard/parser/managed"
	"github.com/gpuguard/gpuguard/parser/terraform"
	"github.com/gpuguard/gpuguard/parser/terragrunt"
)

// Stdin is the path that means standard input.
const Stdin = "-"

// stdinName is the path standard input is reported under.
const stdinName = "<stdin>"

// MaxInputSize is the largest single input file or stdin stream read.
const MaxInputSize = 16 << 20

// Options configure a scan.
type Options struct {
	Terraform  terraform.Options
	Kubernetes kubernetes.Options
	// Stdin is read when a path is "-".
	Stdin io.Reader
	// HelmValues are the values files charts are rendered with, in order over their
	// values.yaml: absolute chart directory → absolute files (config kubernetes.helm_values,
	// already confined to the project).
	HelmValues map[string][]string
	// links are the directories inputs may be read from (set by Scan).
	links confine.Dirs
	// Workers bounds concurrency; 0 means GOMAXPROCS.
	Workers int
}

// Format is an input format.
type Format string

// Input formats.
const (
	FormatTerraform  Format = "terraform"
	FormatPlan       Format = "terraform-plan"
	FormatKubernetes Format = "kubernetes"
	FormatTerragrunt Format = "terragrunt" // a unit: Path its directory, Files its terragrunt.hcl
	FormatKustomize  Format = "kustomize"  // a kustomization to build: Path its directory
	FormatHelm       Format = "helm"       // a chart to render: Path its directory
)

// Input is one unit of work: a Terraform root module, a plan file, a manifest file, or stdin.
type Input struct {
	Format Format
	Path   string   // directory for a module, file otherwise
	Files  []string // module files
	Data   []byte   // stdin content
	// Walked is set for a Terraform directory found by walking (not named by the user): it is
	// dropped when another root module calls it as a local module.
	Walked bool
	// VarFiles are the directory's terraform.tfvars and *.auto.tfvars files, when walking
	// already listed them.
	VarFiles []string
}

// skipDirs are never walked into.
var skipDirs = map[string]bool{".terraform": true, ".git": true, "vendor": true, "node_modules": true}

// Discover finds the inputs under paths. Problems (unreadable paths, unknown files named
// explicitly) are returned as errors; the inputs found are still returned. A file that is a
// symbolic link is read when its target is a regular file inside links; a link leading out is
// a warning and is not read.
func Discover(paths []string, stdin io.Reader, links confine.Dirs) ([]Input, parser.Result) {
	var res parser.Result
	var inputs []Input
	walkedModules := map[string][]string{}  // dir -> files, from walking
	varFiles := map[string][]string{}       // dir -> automatic variable files
	patchFiles := map[string]bool{}         // kustomize patches: fragments, not manifests
	var stacks []string                     // terragrunt.stack.hcl files: not generated
	kustomizations := map[string][]string{} // kustomization dir -> the directories it builds on
	var kustomizationOrder []string
	var walkedOrder []string
	for _, p := range paths {
		if p == Stdin {
			in, err := readStdin(stdin)
			if err != nil {
				res.Errors = append(res.Errors, *err)
				continue
			}
			inputs = append(inputs, in)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			res.Errors = append(res.Errors, parser.Error{File: p, Message: fmt.Sprintf("cannot read: %v", cleanErr(err))})
			continue
		}
		if !info.IsDir() {
			in, perr := classifyFile(p, info, true)
			if perr != nil {
				res.Errors = append(res.Errors, *perr)
			} else if in != nil {
				inputs = append(inputs, *in)
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				res.Errors = append(res.Errors, parser.Error{File: path, Message: fmt.Sprintf("cannot read: %v", cleanErr(err))})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if path != p && (skipDirs[name] || strings.HasPrefix(name, ".")) {
					return fs.SkipDir
				}
				if chart := filepath.Dir(path); name == "templates" && helm.IsChart(chart) {
					// The chart is rendered as a whole; its templates are not manifests.
					inputs = append(inputs, Input{Format: FormatHelm, Path: chart, Walked: true})
					return fs.SkipDir
				}
				if name == "charts" && helm.IsChart(filepath.Dir(path)) {
					return fs.SkipDir // subcharts: rendered with their parent, with its values
				}
				return nil
			}
			switch links.Entry(path, d.Type()) {
			case confine.Skip:
				return nil
			case confine.Outside:
				res.Warnings = append(res.Warnings, parser.Error{File: path, Message: "a link out of the checked directories: not read"})
				return nil
			}
			if kustomize.IsKustomization(name) {
				// Patch files and the kustomizations others build on are left out after the
				// walk, so the order files are met in does not matter.
				refs := readKustomization(path)
				for _, f := range refs.patches {
					patchFiles[f] = true
				}
				dir := filepath.Clean(filepath.Dir(path))
				if _, seen := kustomizations[dir]; !seen {
					kustomizationOrder = append(kustomizationOrder, dir)
				}
				kustomizations[dir] = refs.dirs
				return nil
			}
			if name == terragrunt.FileName {
				inputs = append(inputs, Input{Format: FormatTerragrunt, Path: filepath.Dir(path), Files: []string{path}, Walked: true})
				return nil
			}
			if name == "terragrunt.stack.hcl" {
				stacks = append(stacks, path)
				return nil
			}
			if terraform.IsModuleFile(name) {
				dir := filepath.Dir(path)
				if _, ok := walkedModules[dir]; !ok {
					walkedOrder = append(walkedOrder, dir)
				}
				walkedModules[dir] = append(walkedModules[dir], path)
				return nil
			}
			if terraform.IsAutoVarFile(name) {
				dir := filepath.Dir(path)
				varFiles[dir] = append(varFiles[dir], path)
				return nil
			}
			info, err := os.Stat(path) // the link's target, for a link
			if err != nil {
				return nil
			}
			in, perr := classifyFile(path, info, false)
			if perr != nil {
				res.Warnings = append(res.Warnings, *perr)
			} else if in != nil {
				inputs = append(inputs, *in)
			}
			return nil
		})
		if err != nil {
			res.Errors = append(res.Errors, parser.Error{File: p, Message: err.Error()})
		}
	}
	for _, f := range stacks {
		res.Warnings = append(res.Warnings, parser.Error{File: f, Message: "a Terragrunt stack: the units it generates are not read (run terragrunt stack generate and check the .terragrunt-stack directory, or the plan JSON)"})
	}
	// Each kustomization no other one builds on is built: it is what gets deployed (an overlay,
	// or a kustomization on its own); its bases are read through it.
	based := map[string]bool{}
	for _, dirs := range kustomizations {
		for _, d := range dirs {
			based[d] = true
		}
	}
	for _, dir := range kustomizationOrder {
		if !based[dir] {
			inputs = append(inputs, Input{Format: FormatKustomize, Path: dir, Walked: true})
		}
	}
	if len(patchFiles) > 0 {
		kept := inputs[:0]
		for _, in := range inputs {
			if in.Format != FormatKubernetes || !patchFiles[filepath.Clean(in.Path)] {
				kept = append(kept, in)
			}
		}
		inputs = kept
	}
	for _, dir := range walkedOrder {
		files := walkedModules[dir]
		sort.Strings(files)
		files = terraform.PreferTofu(files)
		vf := append([]string{}, varFiles[dir]...)
		terraform.SortAutoVarFiles(vf)
		inputs = append(inputs, Input{Format: FormatTerraform, Path: dir, Files: files, Walked: true, VarFiles: vf})
	}
	return inputs, res
}

func cleanErr(err error) error {
	var pe *fs.PathError
	if e, ok := err.(*fs.PathError); ok {
		pe = e
		return pe.Err
	}
	return err
}

// classifyFile decides a single file's format. explicit is true when the user named the file:
// then an unrecognised file is an error; while walking it is skipped quietly.
func classifyFile(path string, info fs.FileInfo, explicit bool) (*Input, *parser.Error) {
	name := filepath.Base(path)
	lower := strings.ToLower(name)
	switch {
	case terraform.IsModuleFile(name):
		return &Input{Format: FormatTerraform, Path: filepath.Dir(path), Files: []string{path}}, nil
	case explicit && kustomize.IsKustomization(name):
		// Named on the command line: the kustomization is built, the chart rendered, the unit
		// evaluated (while walking, the walk decides).
		return &Input{Format: FormatKustomize, Path: filepath.Dir(path)}, nil
	case explicit && name == "Chart.yaml":
		return &Input{Format: FormatHelm, Path: filepath.Dir(path)}, nil
	case explicit && name == terragrunt.FileName:
		return &Input{Format: FormatTerragrunt, Path: filepath.Dir(path), Files: []string{path}}, nil
	case strings.HasSuffix(lower, ".tfvars") || strings.HasSuffix(lower, ".tfvars.json"):
		if explicit {
			return nil, &parser.Error{File: path, Message: "a variables file is not checked on its own: pass it with --var-file"}
		}
		return nil, nil
	case isConfigOrProfileName(lower):
		return nil, nil
	case strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml"):
		return &Input{Format: FormatKubernetes, Path: path}, nil
	case strings.HasSuffix(lower, ".json"):
		if info.Size() > MaxInputSize {
			return nil, &parser.Error{File: path, Message: fmt.Sprintf("skipped: %d bytes is over the %d-byte limit", info.Size(), MaxInputSize)}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &parser.Error{File: path, Message: fmt.Sprintf("cannot read: %v", cleanErr(err))}
		}
		switch {
		case terraform.IsPlanJSON(data):
			return &Input{Format: FormatPlan, Path: path, Data: data}, nil
		case kubernetes.LooksLikeManifest(data):
			return &Input{Format: FormatKubernetes, Path: path, Data: data}, nil
		}
		if explicit {
			return nil, &parser.Error{File: path, Message: "not a Terraform plan (terraform show -json) or a Kubernetes manifest"}
		}
		return nil, nil
	}
	if explicit {
		return nil, &parser.Error{File: path, Message: "unrecognised file: expected .tf, .tf.json, plan JSON or Kubernetes YAML"}
	}
	return nil, nil
}

// isConfigOrProfileName skips gpuguard's own files while walking.
func isConfigOrProfileName(lower string) bool {
	return lower == ".gpuguard.yaml" || lower == ".gpuguard.yml"
}

func readStdin(r io.Reader) (Input, *parser.Error) {
	if r == nil {
		return Input{}, &parser.Error{File: stdinName, Message: "no standard input"}
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxInputSize+1))
	if err != nil {
		return Input{}, &parser.Error{File: stdinName, Message: fmt.Sprintf("cannot read: %v", err)}
	}
	if len(data) > MaxInputSize {
		return Input{}, &parser.Error{File: stdinName, Message: fmt.Sprintf("input is over the %d-byte limit", MaxInputSize)}
	}
	in := Input{Path: stdinName, Data: data}
	switch {
	case terraform.IsPlanJSON(data):
		in.Format = FormatPlan
	case kubernetes.LooksLikeManifest(data):
		in.Format = FormatKubernetes
	case looksLikeHCL(data):
		in.Format = FormatTerraform
		in.Files = []string{"<stdin>.tf"}
	default:
		return Input{}, &parser.Error{File: stdinName, Message: "unrecognised input: expected Kubernetes YAML, plan JSON or Terraform HCL"}
	}
	return in, nil
}

func looksLikeHCL(data []byte) bool {
	for _, kw := range []string{"resource ", "module ", "variable ", "provider ", "locals "} {
		if bytes.Contains(data, []byte(kw)) {
			return true
		}
	}
	return false
}

// parsed is the outcome of one input: a result, or (for a manifest or a kustomization) decoded
// files that are built together with the others, so that autoscalers and NodePools apply across
// files.
type parsed struct {
	res   parser.Result
	kube  *kubernetes.File
	built []*kubernetes.File // a kustomization's objects, one File per manifest they come from
	read  []string           // the files a kustomization build read, real paths
}

// renderChart renders the Helm chart in dir with its default values into manifests, each
// template's output read as a manifest of its own. A chart that cannot be rendered (a function
// gpuguard lacks, a required value left empty) is a warning with the way out, as before charts
// were rendered.
func renderChart(dir string, opts Options) parsed {
	var overrides []map[string]any
	var names []string
	if abs, err := filepath.Abs(dir); err == nil {
		files, ok := opts.HelmValues[filepath.Clean(abs)]
		if home := opts.Terraform.ModulesHome; !ok && home != nil {
			// A diff's base, extracted from git, names its charts where the working tree has
			// them, as it does for Terraform's downloaded modules.
			if abs, err := filepath.Abs(home(dir)); err == nil {
				files = opts.HelmValues[filepath.Clean(abs)]
			}
		}
		for _, f := range files {
			data, err := readLimited(f, helmValuesLimit)
			var v map[string]any
			if err == nil {
				v, err = helm.ParseValues(data)
			}
			if err != nil {
				return parsed{res: parser.Result{Errors: []parser.Error{{File: f, Message: fmt.Sprintf("values for the Helm chart %s: %v", filepath.ToSlash(dir), cleanErr(err))}}}}
			}
			overrides = append(overrides, v)
			names = append(names, filepath.Base(f))
		}
	}
	rendered, err := helm.RenderChart(dir, opts.links, overrides...)
	out := rendered.Rendered
	if err != nil {
		return parsed{res: parser.Result{Warnings: []parser.Error{{File: dir,
			Message: fmt.Sprintf("a Helm chart gpuguard could not render (%v): what it deploys is not counted here; check `helm template %s | gpuguard check -`", err, filepath.ToSlash(dir))}}}}
	}
	var p parsed
	for _, m := range rendered.Missing {
		from := ""
		if m.Repository != "" {
			from = " from " + m.Repository
		}
		p.res.Warnings = append(p.res.Warnings, parser.Error{File: filepath.Join(m.Chart, "Chart.yaml"),
			Message: fmt.Sprintf("dependency %s %s%s is not in charts/ (run helm dependency build): what it deploys is not counted", m.Name, m.Version, from)})
	}
	note := "rendered from the Helm chart " + filepath.ToSlash(dir) + " with its default values (values.yaml): a release with other values deploys otherwise (set them in the config's kubernetes.helm_values); lines are of the rendered template"
	if len(names) > 0 {
		note = "rendered from the Helm chart " + filepath.ToSlash(dir) + " with values.yaml and " + strings.Join(names, ", ") + " (config kubernetes.helm_values); lines are of the rendered template"
	}
	for _, r := range out {
		f := kubernetes.DecodeRendered(r.Template, filepath.ToSlash(dir), note, r.Data)
		p.built = append(p.built, f)
	}
	return p
}

// readLimited reads a file of at most limit bytes, without reading more to find out.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("over the %d-byte limit", limit)
	}
	return data, err
}

// helmValuesLimit bounds a values file read for a chart.
const helmValuesLimit = 4 << 20

// filesOf groups built or patched objects by the manifest file that declares each, in order,
// under root and with note.
func filesOf(objs []kustomize.Object, root, note string) []*kubernetes.File {
	return filesFrom(objs, root, note, kubernetes.FromNodes)
}

// deployedFilesOf is filesOf for the objects a GitOps source deploys (kubernetes.FromDeployedNodes).
func deployedFilesOf(objs []kustomize.Object, root, note string) []*kubernetes.File {
	return filesFrom(objs, root, note, kubernetes.FromDeployedNodes)
}

func filesFrom(objs []kustomize.Object, root, note string, from func(name, root, note string, nodes []*yaml.Node) *kubernetes.File) []*kubernetes.File {
	byFile := map[string][]*yaml.Node{}
	var order []string
	for _, o := range objs {
		if _, ok := byFile[o.File]; !ok {
			order = append(order, o.File)
		}
		byFile[o.File] = append(byFile[o.File], o.Node)
	}
	var out []*kubernetes.File
	for _, f := range order {
		out = append(out, from(f, root, note, byFile[f]))
	}
	return out
}

// buildKustomization builds the kustomization in dir into its objects, grouped by the manifest
// file that declares each.
func buildKustomization(dir string, opts Options) parsed {
	b := kustomize.Build(dir, opts.links)
	p := parsed{res: parser.Result{Errors: b.Errors, Warnings: b.Warnings}}
	p.built = filesOf(b.Objects, filepath.ToSlash(dir), "")
	for _, f := range b.Files {
		if r := realPath(f); r != "" {
			p.read = append(p.read, r)
		}
	}
	return p
}

// parse reads one input.
func parse(in Input, opts Options) parsed {
	switch in.Format {
	case FormatTerraform:
		o := opts.Terraform
		o.Kubernetes = opts.Kubernetes
		if in.Data != nil {
			return parsed{res: terraform.ParseSource(in.Files[0], in.Data, o)}
		}
		if in.Walked {
			o.AutoVarFiles = in.VarFiles
		}
		return parsed{res: terraform.ParseModule(in.Path, in.Files, o)}
	case FormatPlan:
		return parsed{res: terraform.ParsePlan(in.Path, in.Data)}
	case FormatKustomize:
		return buildKustomization(in.Path, opts)
	case FormatHelm:
		return renderChart(in.Path, opts)
	case FormatTerragrunt:
		o := opts.Terraform
		o.Kubernetes = opts.Kubernetes
		return parsed{res: terragrunt.ParseUnit(in.Files[0], o)}
	case FormatKubernetes:
		data := in.Data
		if data == nil {
			f, err := os.Open(in.Path)
			if err != nil {
				return parsed{res: parser.Result{Errors: []parser.Error{{File: in.Path, Message: fmt.Sprintf("cannot read: %v", cleanErr(err))}}}}
			}
			defer f.Close()
			info, err := f.Stat()
			if err == nil && info.Size() > MaxInputSize {
				return parsed{res: parser.Result{Warnings: []parser.Error{{File: in.Path, Message: fmt.Sprintf("skipped: %d bytes is over the %d-byte limit", info.Size(), MaxInputSize)}}}}
			}
			data, err = io.ReadAll(io.LimitReader(f, MaxInputSize))
			if err != nil {
				return parsed{res: parser.Result{Errors: []parser.Error{{File: in.Path, Message: fmt.Sprintf("cannot read: %v", cleanErr(err))}}}}
			}
		}
		f := kubernetes.Decode(in.Path, data)
		if len(f.Errors) > 0 && bytes.Contains(data, []byte("{{")) && bytes.Contains(data, []byte("}}")) {
			// A template (Jinja, Go templates outside a chart) is not a manifest until
			// rendered: what it could not read is a warning with the way out, not an input error.
			var res parser.Result
			for _, e := range f.Errors {
				e.Message = "a template ({{ … }}), not YAML until rendered: " + e.Message + "; render it and check the output (… | gpuguard check -)"
				res.Warnings = append(res.Warnings, e)
			}
			f.Errors = nil
			return parsed{kube: f, res: res}
		}
		return parsed{kube: f}
	}
	return parsed{res: parser.Result{Errors: []parser.Error{{File: in.Path, Message: "unknown input format"}}}}
}

// Scan discovers and parses everything under paths, concurrently, and returns the merged,
// sorted result.
func Scan(paths []string, opts Options) parser.Result {
	if opts.Kubernetes.Managed == nil {
		// Crossplane managed resources, in manifests and in Terraform's kubernetes_manifest.
		opts.Kubernetes.Managed = managed.Resources
	}
	if opts.Terraform.Cache == nil {
		opts.Terraform.Cache = terraform.NewCache()
	}
	links := opts.Terraform.FileDirs
	if len(links) == 0 {
		links = paths
	}
	opts.links = confine.NewDirs(links...)
	inputs, res := Discover(paths, opts.Stdin, opts.links)
	inputs = dropIncludedConfigs(inputs, opts.Terraform)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	outs := make([]parsed, len(inputs))
	parseAll := func(todo []int) {
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < min(workers, len(todo)); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					outs[i] = parse(inputs[i], opts)
				}
			}()
		}
		for _, i := range todo {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	// Charts are rendered with their default values only once the GitOps tools' first round
	// says which are theirs (renderGitSources): a chart an Application or HelmRelease renders
	// with its own values, or a Terraform helm_release does, is that one's input, and its
	// default rendering would be thrown away.
	var first, charts []int
	for i := range inputs {
		if inputs[i].Format == FormatHelm {
			charts = append(charts, i)
		} else {
			first = append(first, i)
		}
	}
	parseAll(first)
	// A manifest a Terraform configuration reads (kubernetes_manifest with
	// yamldecode(file(...))), or a chart a helm_release renders, is that configuration's input:
	// it is counted there, not again here.
	consumed := map[string]bool{}
	for i, o := range outs {
		if inputs[i].Format == FormatTerraform {
			for _, f := range o.res.Consumed {
				consumed[f] = true
			}
		}
		// A manifest a kustomization builds is counted as the kustomization deploys it.
		for _, f := range o.read {
			consumed[f] = true
		}
	}
	// Argo CD Applications and Flux HelmReleases render charts of the repository with their own
	// values: those charts are their input, not rendered again with their default values.
	var plain []*kubernetes.File
	for i, o := range outs {
		switch {
		case inputs[i].Format == FormatHelm:
			// rendered with its default values by renderGitSources' callback below, unless
			// Terraform or the first GitOps round took it
		case inputs[i].Format == FormatKubernetes && len(consumed) > 0 && inputs[i].Path != stdinName && consumed[realPath(inputs[i].Path)]:
			// Terraform's input (a file it reads): its Applications are not deployed from here.
		default:
			if o.kube != nil {
				plain = append(plain, o.kube)
			}
			plain = append(plain, o.built...)
		}
	}
	gitops := renderGitSources(plain, func(gitConsumed map[string]bool) []chartFiles {
		var todo []int
		for _, i := range charts {
			if p := realPath(inputs[i].Path); !consumed[p] && !gitConsumed[p] {
				todo = append(todo, i)
			}
		}
		parseAll(todo)
		out := make([]chartFiles, 0, len(todo))
		for _, i := range todo {
			out = append(out, chartFiles{dir: inputs[i].Path, files: outs[i].built})
		}
		return out
	}, opts)
	for d := range gitops.consumed {
		consumed[d] = true
	}
	res.Merge(gitops.res)
	results := make([]parser.Result, len(outs))
	var kube []*kubernetes.File
	for i, o := range outs {
		// An Application's kustomization or directory is its input too.
		if (inputs[i].Format == FormatKubernetes || inputs[i].Format == FormatHelm || inputs[i].Format == FormatKustomize) &&
			inputs[i].Path != stdinName && len(consumed) > 0 && consumed[realPath(inputs[i].Path)] {
			continue
		}
		results[i] = o.res
		if o.kube != nil {
			kube = append(kube, o.kube)
		}
		kube = append(kube, o.built...)
	}
	kube = append(kube, gitops.files...)
	// The Applications that the ApplicationSets among them generate are read with them: one
	// that installs NVIDIA's device plugin chart says how the plugin shares GPUs, as a written
	// Application does. What the ApplicationSets get wrong was said when they were rendered.
	if apps, _, _ := kubernetes.ApplicationSetApps(kube, &repoTree{opts: opts, trees: gitops.trees}); len(apps) > 0 {
		kube = append(kube, apps...)
	}
	roots := rootInputs(inputs, results)
	for i, r := range results {
		if !roots[i] {
			continue
		}
		for j := range r.Resources {
			if r.Resources[j].Root == "" {
				r.Resources[j].Root = filepath.ToSlash(inputs[i].Path)
			}
		}
		for j := range r.Moves {
			r.Moves[j].Root = filepath.ToSlash(inputs[i].Path)
		}
		res.Merge(r)
	}
	if len(kube) > 0 {
		// A pod that selects a node group of the Terraform read with it by its labels runs
		// there. One that names no node is not given the Terraform's only node group: nothing
		// says the manifests are applied to that cluster.
		kopts := opts.Kubernetes
		// A Terraform node group whose MIG layout the manifests declare (a mig-parted
		// ConfigMap, a GPU Operator release) has its GPUs split as the layout says: its own
		// configuration could not read the layout.
		if groupsNameLayouts(res.Resources) {
			layouts := kubernetes.MIGLayoutsOf(kube, kopts.ChartReleases)
			for i := range res.Resources {
				layouts.PartitionDeclared(&res.Resources[i])
			}
		}
		kopts.NodeGroups = append(slices.Clip(kopts.NodeGroups), kubernetes.NodeGroupsOf(res.Resources)...)
		kopts.Repository = &repoTree{opts: opts, trees: gitops.trees}
		from := len(res.Resources)
		res.Merge(kubernetes.Build(kube, kopts))
		// A pod that selects a GPU type no node group carries runs on the nodes a cluster of
		// the Terraform auto-provisions for it, when one does.
		res.Warnings = append(res.Warnings, kubernetes.OnAutoProvisionedNodes(res.Resources, from)...)
	}
	// A module shared by several roots reports its problems once.
	res.Errors = dedupe(res.Errors)
	res.Warnings = dedupe(res.Warnings)
	res.Sort()
	return res
}

// groupsNameLayouts says whether a node group among resources names a MIG layout it is not yet
// split by.
func groupsNameLayouts(rs []parser.Resource) bool {
	for i := range rs {
		if r := &rs[i]; r.NodeLabels != nil && r.Pod == nil && r.GPUPartition == "" && r.NodeLabels.Labels[kubernetes.LabelMIGConfig] != "" {
			return true
		}
	}
	return false
}

// realPath is a file's absolute path with links resolved, or "" when it has none.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	return real
}

func dedupe(errs []parser.Error) []parser.Error {
	seen := make(map[parser.Error]bool, len(errs))
	out := errs[:0]
	for _, e := range errs {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// dropIncludedConfigs leaves out the terragrunt.hcl files that units include (a root
// configuration shared by all of them): they configure units and deploy nothing themselves.
func dropIncludedConfigs(inputs []Input, opts terraform.Options) []Input {
	var units []string
	for _, in := range inputs {
		if in.Format == FormatTerragrunt {
			units = append(units, in.Files[0])
		}
	}
	if len(units) < 2 {
		return inputs
	}
	included := terragrunt.Included(units, opts)
	if len(included) == 0 {
		return inputs
	}
	kept := inputs[:0]
	for _, in := range inputs {
		if in.Format == FormatTerragrunt && included[realPath(in.Files[0])] {
			continue
		}
		kept = append(kept, in)
	}
	return kept
}

// rootInputs decides which inputs are reported. Every walked Terraform directory is evaluated
// (concurrently, sharing parsed files), but a directory another root loaded as a local module is
// counted through that root only, never twice. Directories reached only through a module cycle
// keep one root, so the cycle is reported rather than silently skipped.
func rootInputs(inputs []Input, results []parser.Result) []bool {
	index := map[string]int{}
	for i, in := range inputs {
		if in.Format == FormatTerraform && in.Walked {
			index[filepath.Clean(in.Path)] = i
		}
	}
	called := map[string]bool{}
	for i, r := range results {
		if inputs[i].Walked {
			for _, d := range r.Included {
				// A Terragrunt unit deploys the module in its own directory when it names no
				// source: that directory is then counted through the unit.
				if _, ok := index[d]; ok && (d != filepath.Clean(inputs[i].Path) || inputs[i].Format == FormatTerragrunt) {
					called[d] = true
				}
			}
		}
	}
	keep := make([]bool, len(inputs))
	reached := map[string]bool{}
	mark := func(i int) {
		keep[i] = true
		for _, d := range results[i].Included {
			reached[d] = true
		}
	}
	for i, in := range inputs {
		if !in.Walked || !called[filepath.Clean(in.Path)] {
			mark(i)
		}
	}
	for i, in := range inputs {
		if d := filepath.Clean(in.Path); in.Walked && called[d] && !reached[d] {
			reached[d] = true
			mark(i)
		}
	}
	return keep
}
