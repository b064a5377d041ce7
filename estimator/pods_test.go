package estimator

import (
	"slices"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser"
)

// Offers says whether the catalog holds a type a pod may run on, in any region: one the pod's
// labels allow with room for its GPUs, CPU and memory, or on GCP an N1 VM that takes the GPUs
// its labels name. A NodePool with none takes no pod (parser/kubernetes).
func TestOffers(t *testing.T) {
	c := GPUCatalog{Catalog: catalog.MustDefault()}
	pod := func(n int64, f func(*parser.PodGPUs)) *parser.PodGPUs {
		p := &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: n}
		if f != nil {
			f(p)
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		provider string
		pod      *parser.PodGPUs
		want     bool
	}{
		{"g5 has A10G", parser.AWS, pod(1, func(p *parser.PodGPUs) { p.Families, p.GPUNames = []string{"g5"}, []string{"a10g"} }), true},
		{"g6e has no A10G", parser.AWS, pod(1, func(p *parser.PodGPUs) { p.Families, p.GPUNames = []string{"g6e"}, []string{"a10g"} }), false},
		{"eight A100s", parser.AWS, pod(8, func(p *parser.PodGPUs) { p.GPUNames = []string{"a100"} }), true},
		{"sixteen A100s", parser.AWS, pod(16, func(p *parser.PodGPUs) { p.GPUNames = []string{"a100"} }), false},
		{"8 GPUs on 1-GPU nodes", parser.AWS, pod(8, func(p *parser.PodGPUs) { p.NodeGPUs = &parser.CountRange{In: []int{1}} }), false},
		{"8 GPUs shared by 8", parser.AWS, pod(8, func(p *parser.PodGPUs) { p.NodeGPUs, p.SharedReplicas = &parser.CountRange{In: []int{1}}, 8 }), true},
		{"a MIG slice of an A100", parser.AWS, pod(1, func(p *parser.PodGPUs) { p.GPUNames, p.MIGProfile = []string{"a100"}, "1g.5gb" }), true},
		{"CPUs no node has", parser.AWS, pod(1, func(p *parser.PodGPUs) { p.CPU = 1000 }), false},
		{"A100 ruled out", parser.AWS, pod(8, func(p *parser.PodGPUs) {
			p.GPUNames, p.Excluded = []string{"a100"}, &parser.NodeExclusions{GPUNames: []string{"a100"}}
		}), false},
		{"a GPU the catalog does not know", parser.AWS, pod(1, func(p *parser.PodGPUs) { p.GPUNames = []string{"no-such-gpu"} }), false},
		// GCP's T4 comes only attached to N1 VMs, at most 4 a VM.
		{"T4 on N1", parser.GCP, pod(1, func(p *parser.PodGPUs) { p.GPUNames = []string{"nvidia-tesla-t4"} }), true},
		{"four T4s", parser.GCP, pod(4, func(p *parser.PodGPUs) { p.GPUNames = []string{"nvidia-tesla-t4"} }), true},
		{"eight T4s", parser.GCP, pod(8, func(p *parser.PodGPUs) { p.GPUNames = []string{"nvidia-tesla-t4"} }), false},
		{"eight T4s shared by 4", parser.GCP, pod(8, func(p *parser.PodGPUs) { p.GPUNames, p.SharedReplicas = []string{"nvidia-tesla-t4"}, 4 }), true},
		// GKE attaches GPUs to N1 nodes only where the labels name them.
		{"N1 with no GPU named", parser.GCP, pod(1, func(p *parser.PodGPUs) { p.Families = []string{"n1"} }), false},
		{"T4 on G2", parser.GCP, pod(1, func(p *parser.PodGPUs) { p.Families, p.GPUNames = []string{"g2"}, []string{"nvidia-tesla-t4"} }), false},
		{"T4 with more CPUs than an N1 takes", parser.GCP, pod(1, func(p *parser.PodGPUs) { p.GPUNames, p.CPU = []string{"nvidia-tesla-t4"}, 200 }), false},
		{"L4 on G2", parser.GCP, pod(1, func(p *parser.PodGPUs) { p.Families, p.GPUNames = []string{"g2"}, []string{"nvidia-l4"} }), true},
		// Karpenter's GCP provider reads category and generation off the series (a3: a, 3; n1: n, 1).
		{"the A series after the second generation", parser.GCP, pod(8, func(p *parser.PodGPUs) { p.Categories, p.Generations = []string{"a"}, &parser.CountRange{Min: ptr(3)} }), true},
		{"an A100 after the second generation", parser.GCP, pod(1, func(p *parser.PodGPUs) {
			p.Categories, p.Generations, p.GPUNames = []string{"a"}, &parser.CountRange{Min: ptr(3)}, []string{"nvidia-tesla-a100"}
		}), false},
		{"L4 with the G category ruled out", parser.GCP, pod(1, func(p *parser.PodGPUs) {
			p.GPUNames, p.Excluded = []string{"nvidia-l4"}, &parser.NodeExclusions{Categories: []string{"g"}}
		}), false},
		{"T4 on the N category", parser.GCP, pod(1, func(p *parser.PodGPUs) { p.Categories, p.GPUNames = []string{"n"}, []string{"nvidia-tesla-t4"} }), true},
		{"T4 on the G category", parser.GCP, pod(1, func(p *parser.PodGPUs) { p.Categories, p.GPUNames = []string{"g"}, []string{"nvidia-tesla-t4"} }), false},
		{"T4 after the first generation", parser.GCP, pod(1, func(p *parser.PodGPUs) {
			p.Generations, p.GPUNames = &parser.CountRange{Min: ptr(2)}, []string{"nvidia-tesla-t4"}
		}), false},
		{"T4 with generation 1 ruled out", parser.GCP, pod(1, func(p *parser.PodGPUs) {
			p.GPUNames, p.Excluded = []string{"nvidia-tesla-t4"}, &parser.NodeExclusions{Generations: []int{1}}
		}), false},
		{"unknown cloud", "", pod(64, nil), true},
	} {
		if got := c.Offers(tc.provider, tc.pod); got != tc.want {
			t.Errorf("%s: Offers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Narrow reads the names a node's labels and a DRA claim's selectors give GPUs as the catalog
// does, and keeps what both name, the narrower name of each pair.
func TestNarrowGPUNames(t *testing.T) {
	c := GPUCatalog{Catalog: catalog.MustDefault()}
	for _, tc := range []struct {
		name          string
		names, others []string
		want          []string
	}{
		{"a pool's names and a claim's product", []string{"l4", "a10g", "h100"}, []string{"NVIDIA H100 80GB HBM3"}, []string{"h100"}},
		{"the claim's name is narrower", []string{"a100"}, []string{"NVIDIA A100-SXM4-80GB"}, []string{"NVIDIA A100-SXM4-80GB"}},
		{"the label's name is narrower", []string{"nvidia-a100-80gb"}, []string{"A100"}, []string{"nvidia-a100-80gb"}},
		{"both sizes of the claim", []string{"a100"}, []string{"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"}, []string{"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"}},
		{"nothing in common", []string{"NVIDIA-L4"}, []string{"NVIDIA A100-SXM4-80GB"}, nil},
		{"a label the catalog does not read stays", []string{"acme-board", "l4"}, []string{"H100"}, []string{"acme-board"}},
		{"a claim the catalog does not read narrows nothing", []string{"l4", "a10g"}, []string{"acme-board"}, []string{"l4", "a10g"}},
	} {
		if got := c.Narrow(tc.names, tc.others); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Narrow(%q, %q) = %q, want %q", tc.name, tc.names, tc.others, got, tc.want)
		}
	}
}
