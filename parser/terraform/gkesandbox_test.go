package terraform

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// gkeL4Pool is a GKE pool of one g2-standard machine (4 or 8 vCPUs, one L4) whose node_config
// ends with extra.
func gkeL4Pool(name, machine, extra string) string {
	return `resource "google_container_node_pool" "` + name + `" {
  name       = "` + name + `"
  cluster    = "ml"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "` + machine + `"
` + extra + `
  }
}
`
}

const gvisorSandbox = "    sandbox_config {\n      sandbox_type = \"gvisor\"\n    }"

// A GKE pool that runs GKE Sandbox (sandbox_config, either attribute the providers have) carries
// its label and taint; one that does not is known to lack the label; one whose sandbox is known
// only at apply may carry either.
func TestGKESandboxPool(t *testing.T) {
	for _, c := range []struct {
		name, extra string
		want        string // the sandbox label's value, "without", or "unknown"
	}{
		{"sandbox_type", gvisorSandbox, "gvisor"},
		{"type, as later providers write it", "    sandbox_config {\n      type = \"GVISOR\"\n    }", "gvisor"},
		{"no sandbox", "", "without"},
		{"a sandbox known at apply", "    sandbox_config {\n      sandbox_type = var.sandbox\n    }", "unknown"},
	} {
		src := "variable \"sandbox\" { type = string }\n" + gkeL4Pool("p", "g2-standard-8", c.extra)
		res := ParseSource("main.tf", []byte(src), Options{})
		if len(res.Errors) != 0 || len(res.Resources) != 1 || res.Resources[0].NodeLabels == nil {
			t.Fatalf("%s: errors %+v, resources %+v", c.name, res.Errors, res.Resources)
		}
		nl := res.Resources[0].NodeLabels
		sandboxTaint := parser.Taint{Key: kubernetes.LabelGKESandbox, Value: "gvisor", Effect: "NoSchedule"}
		got := nl.Labels[kubernetes.LabelGKESandbox]
		switch {
		case slices.Contains(nl.Without, kubernetes.LabelGKESandbox):
			got = "without"
		case slices.Contains(nl.Unknown, kubernetes.LabelGKESandbox) && nl.TaintsUnknown:
			got = "unknown"
		}
		if got != c.want || slices.Contains(nl.Taints, sandboxTaint) != (c.want == "gvisor") {
			t.Errorf("%s: sandbox label %q, taints %v, want %q", c.name, got, nl.Taints, c.want)
		}
	}
}

// A pod under GKE's own RuntimeClass gvisor, which no file declares, runs on the configuration's
// sandboxed pool: the class selects its label and tolerates its taint. A pod of no class stays
// off that pool; a RuntimeClass gvisor among the files is the one the pod takes.
func TestGKESandboxPlacesGVisorPods(t *testing.T) {
	pod := func(name, class string) string {
		return `resource "kubernetes_manifest" "` + name + `" {
  manifest = {
    apiVersion = "v1"
    kind       = "Pod"
    metadata   = { name = "` + name + `", namespace = "ml" }
    spec = {
      runtimeClassName = ` + class + `
      nodeSelector     = { "cloud.google.com/gke-accelerator" = "nvidia-l4" }
      containers       = [{ name = "c", image = "x", resources = { limits = { "nvidia.com/gpu" = 1 } } }]
    }
  }
}
`
	}
	pools := gkeL4Pool("sandboxed", "g2-standard-8", gvisorSandbox) + gkeL4Pool("plain", "g2-standard-4", "")
	declared := `resource "kubernetes_runtime_class_v1" "gvisor" {
  metadata { name = "gvisor" }
  handler = "runsc"
}
`
	for _, c := range []struct {
		name, src, pod string
		want           string // the pod's node type and groups: a class that selects no node lets the taint keep its pods off
		note           string // in the pod's notes
		gke            bool   // GKE's own class applies (a note says so)
	}{
		{"gVisor", pools + pod("sandboxed", `"gvisor"`), "sandboxed", "g2-standard-8 google_container_node_pool.sandboxed",
			"it is GKE Sandbox's, which GKE creates in a cluster with a sandboxed node pool (google_container_node_pool.sandboxed)", true},
		{"no class", pools + pod("plain", "null"), "plain", "g2-standard-4 google_container_node_pool.plain", "", false},
		{"a class among the files", pools + declared + pod("declared", `"gvisor"`), "declared", "g2-standard-4 google_container_node_pool.plain", "", false},
		{"another class not among the files", pools + pod("kata", `"kata"`), "kata", "g2-standard-4 google_container_node_pool.plain",
			"its pods run under RuntimeClass kata, which is not among the files read", false},
		{"no sandboxed pool", gkeL4Pool("plain", "g2-standard-4", "") + pod("nowhere", `"gvisor"`), "nowhere", "g2-standard-4 google_container_node_pool.plain",
			"its pods run under RuntimeClass gvisor, which is not among the files read", false},
	} {
		res := ParseSource("main.tf", []byte(c.src), Options{})
		if len(res.Errors) != 0 {
			t.Fatalf("%s: errors %+v", c.name, res.Errors)
		}
		var r *parser.Resource
		for i := range res.Resources {
			if res.Resources[i].Address == "kubernetes_manifest."+c.pod {
				r = &res.Resources[i]
			}
		}
		if r == nil || r.Pod == nil {
			t.Fatalf("%s: no pod among %+v", c.name, res.Resources)
		}
		got := strings.TrimSpace(r.InstanceType + " " + groupRefs(r.Pod))
		notes := strings.Join(r.Notes, "\n")
		if got != c.want {
			t.Errorf("%s: pod on %q, want %q (notes %q)", c.name, got, c.want, notes)
		}
		if strings.Contains(notes, "GKE Sandbox") != c.gke || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
	// A pod that selects the sandbox's label itself, with no sandboxed pool among the groups,
	// is not priced on a pool that cannot run it.
	res := ParseSource("main.tf", []byte(gkeL4Pool("plain", "g2-standard-4", "")+podOf("p", ` "sandbox.gke.io/runtime" = "gvisor" `)), Options{})
	podNode(t, res, "")
}

// The GKE module's pools run GKE Sandbox where a pool sets sandbox_enabled, else where the
// call's own sandbox_enabled does (the beta variants' variable).
func TestGKEModuleSandbox(t *testing.T) {
	call := func(all string) string {
		return `module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google//modules/beta-private-cluster"
  project_id = "p"
  name       = "ml"
  region     = "us-central1"
  ` + all + `
  node_pools = [
    { name = "sandboxed", machine_type = "g2-standard-8", sandbox_enabled = true },
    { name = "plain", machine_type = "g2-standard-8", sandbox_enabled = false },
    { name = "default", machine_type = "g2-standard-8" },
  ]
}
`
	}
	for _, c := range []struct {
		all  string
		want string // the pools GKE Sandbox runs
	}{
		{"", "sandboxed"},
		{"sandbox_enabled = true", "default sandboxed"},
	} {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{"main.tf": call(c.all)})
		pools := parseCleanly(t, root)
		if len(pools) != 3 {
			t.Fatalf("%q: resources %+v", c.all, pools)
		}
		var sandboxed []string
		for _, r := range pools {
			if r.NodeLabels != nil && r.NodeLabels.Labels[kubernetes.LabelGKESandbox] == "gvisor" {
				sandboxed = append(sandboxed, r.NodeLabels.Labels["cloud.google.com/gke-nodepool"])
			}
		}
		slices.Sort(sandboxed)
		if got := strings.Join(sandboxed, " "); got != c.want {
			t.Errorf("%q: sandboxed pools %q, want %q", c.all, got, c.want)
		}
	}
}
