package terraform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/helm"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// A helm_release installs a chart into a cluster. A chart in the repository (chart = a path) is
// rendered with the release's values — the values documents in order, then each set block, as
// `helm install -f ... --set ...` does — and its objects are read with the root module's other
// Kubernetes objects, as kubernetes_manifest's are; the chart is then this release's input and
// is not counted again as a chart of its own. A chart from a repository or registry is not
// downloaded: when the release's values ask for GPUs, a warning says they are not counted. The
// values of NVIDIA's device plugin charts are read for how they share GPUs
// (kubernetes.ChartRelease).
// https://registry.terraform.io/providers/hashicorp/helm/latest/docs/resources/release
func init() {
	register("helm_release", mapHelmRelease)
}

func mapHelmRelease(c *mapContext) []*parser.Resource {
	d := c.inst.decl
	where := func(format string, args ...any) parser.Error {
		return parser.Error{File: d.rng.Filename, Line: d.rng.Start.Line, Message: c.inst.addr + ": " + fmt.Sprintf(format, args...)}
	}
	w := &view{obj: c.inst.value}
	chart, ok := w.str("chart")
	if !ok || chart == "" {
		return nil
	}
	repo, _ := w.str("repository")
	var overrides []map[string]any
	var texts []string // what the values say, to look for GPUs in a chart that is not rendered
	if docs, ok := w.strList("values"); ok {
		for i, doc := range docs {
			texts = append(texts, doc)
			v, err := helm.ParseValues([]byte(doc))
			if err != nil {
				c.ev.l.errs = append(c.ev.l.errs, where("values[%d]: %v", i, err))
				return nil
			}
			overrides = append(overrides, v)
		}
	}
	sets := map[string]any{}
	for _, block := range []string{"set", "set_sensitive"} {
		for _, s := range w.blocks(block) {
			name, ok1 := s.str("name")
			value, ok2 := s.str("value")
			if !ok1 || !ok2 {
				continue
			}
			typ, _ := s.str("type")
			texts = append(texts, name+"="+value)
			if err := helm.SetValue(sets, name, value, typ == "string"); err != nil {
				c.ev.l.errs = append(c.ev.l.errs, where("%s: %v", block, err))
				return nil
			}
		}
	}
	if len(sets) > 0 {
		overrides = append(overrides, sets)
	}
	// A path names a chart in the repository; a repository, a URL (oci://) or "repo/chart" (a
	// repository helm repo add knows, when no such directory exists) names one gpuguard cannot
	// read.
	remote := repo != "" || strings.Contains(chart, "://")
	if !remote && !strings.HasPrefix(chart, ".") && !filepath.IsAbs(chart) {
		if _, err := os.Stat(c.ev.files.path(chart)); err != nil {
			remote = true
		}
	}
	if remote && kubernetes.IsReadChart(chart) {
		// NVIDIA's device plugin, alone or in the GPU Operator: its values ask for no GPU, but
		// may share each GPU as several units; the objects read with this release use them.
		// Kueue's: its values hold Kueue's configuration, which decides what its queues admit.
		name, _ := w.str("name")
		namespace, _ := w.str("namespace")
		c.ev.releases = append(c.ev.releases, kubernetes.ChartRelease{Chart: chart, Name: name, Namespace: namespace,
			Values: helm.MergeValues(overrides...), Source: c.inst.addr, File: d.rng.Filename, Line: d.rng.Start.Line})
		return nil
	}
	if remote {
		if asksForGPUs(texts) {
			from := repo
			if from == "" {
				from = "its repository"
			}
			c.ev.l.warns = append(c.ev.l.warns, where("chart %q comes from %s, which gpuguard does not download: the GPUs its values ask for are not counted (render it with helm template and check the output, or vendor the chart)", chart, from))
		}
		return nil
	}
	dir, err := c.ev.files.dirs.Resolve(c.ev.files.path(chart))
	if err != nil {
		c.ev.l.warns = append(c.ev.l.warns, where("chart %s: %v: its workloads are not counted", chart, err))
		return nil
	}
	if !helm.IsChart(dir) {
		c.ev.l.warns = append(c.ev.l.warns, where("chart %s is not a Helm chart (no Chart.yaml): its workloads are not counted", chart))
		return nil
	}
	name, _ := w.str("name")
	namespace, _ := w.str("namespace")
	rendered, err := helm.RenderRelease(dir, c.ev.files.dirs, helm.Release{Name: name, Namespace: namespace}, overrides...)
	if err != nil {
		c.ev.l.errs = append(c.ev.l.errs, where("rendering chart %s: %v", chart, err))
		return nil
	}
	for _, m := range rendered.Missing {
		c.ev.l.warns = append(c.ev.l.warns, where("chart %s lists dependency %s (%s %s), which is not in its charts/ directory: its workloads are not counted", chart, m.Name, m.Repository, m.Version))
	}
	if c.ev.files.read == nil {
		c.ev.files.read = map[string]bool{}
	}
	c.ev.files.read[dir] = true // the chart is this release's input (scan does not render it again)
	for _, t := range rendered.Rendered {
		key := fmt.Sprintf("\x00manifest-%d", len(c.ev.manifests))
		tmpl := t.Template
		if rel, err := filepath.Rel(dir, t.Template); err == nil {
			tmpl = filepath.ToSlash(filepath.Join(chart, rel)) // as the configuration names the chart
		}
		c.ev.manifests = append(c.ev.manifests, pendingManifest{key: key, ctx: *c, file: kubernetes.Decode(key, t.Data), release: tmpl})
	}
	return nil
}

// asksForGPUs reports whether values name a GPU resource.
func asksForGPUs(texts []string) bool {
	for _, t := range texts {
		for _, r := range []string{"nvidia.com/gpu", `nvidia\.com/gpu`, "amd.com/gpu", "aws.amazon.com/neuron", "nvidia.com/mig-"} {
			if strings.Contains(t, r) {
				return true
			}
		}
	}
	return false
}
