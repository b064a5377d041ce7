package terraform

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// gkeClusterSrc writes a google_container_cluster "c" in us-central1 with the given
// cluster_autoscaling body and more attributes or blocks.
func gkeClusterSrc(autoscaling, more string) string {
	return "resource \"google_container_cluster\" \"c\" {\n  name = \"c\"\n  location = \"us-central1\"\n  remove_default_node_pool = true\n" +
		"  cluster_autoscaling {\n" + autoscaling + "\n  }\n" + more + "\n}\n"
}

func limitSrc(typ, minimum, maximum string) string {
	s := "    resource_limits {\n      resource_type = \"" + typ + "\"\n"
	if minimum != "" {
		s += "      minimum = " + minimum + "\n"
	}
	if maximum != "" {
		s += "      maximum = " + maximum + "\n"
	}
	return s + "    }\n"
}

// Node auto-provisioning's GPU limits are GPU capacity at the cluster's address, one resource
// for each GPU type: no nodes until pods wait for them, at most the limit's GPUs, sharing the
// limit. cpu, memory and TPU limits are not GPUs; a maximum of 0 adds none; a disabled
// autoscaler has no limits; one known only at apply is read as enabled, and says so.
func TestGKEAutoProvisioningLimits(t *testing.T) {
	limits := limitSrc("cpu", "4", "512") + limitSrc("memory", "16", "2048") + limitSrc("tpu-v5-lite-podslice", "", "16") +
		limitSrc("nvidia-l4", "2", "16") + limitSrc("nvidia-h100-80gb", "", "8") + limitSrc("nvidia-tesla-t4", "", "0")
	cases := []struct {
		name, enabled string
		want          []string // addresses of the auto-provisioned capacity
		unknownNote   bool
	}{
		{"enabled", "true", []string{`google_container_cluster.c.cluster_autoscaling["nvidia-l4"]`, `google_container_cluster.c.cluster_autoscaling["nvidia-h100-80gb"]`}, false},
		{"disabled", "false", nil, false},
		{"known only at apply", "var.nap", []string{`google_container_cluster.c.cluster_autoscaling["nvidia-l4"]`, `google_container_cluster.c.cluster_autoscaling["nvidia-h100-80gb"]`}, true},
	}
	for _, tc := range cases {
		src := "variable \"nap\" { type = bool }\n" + gkeClusterSrc("    enabled = "+tc.enabled+"\n"+limits, "  resource_labels = { team = \"ml\" }")
		res := ParseSource("main.tf", []byte(src), Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: %+v", tc.name, res.Errors)
		}
		var got []string
		for _, r := range res.Resources {
			got = append(got, r.Address)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: resources %q, want %q", tc.name, got, tc.want)
			continue
		}
		if len(tc.want) == 0 {
			continue
		}
		l4 := byAddress(t, res)[tc.want[0]]
		a := l4.AutoProvision
		if a == nil || a.Accelerator != "nvidia-l4" || a.MaxGPUs != 16 || a.MaxUnknown || !strings.Contains(a.From, "resource_limits nvidia-l4 maximum") {
			t.Errorf("%s: auto-provision %+v", tc.name, a)
		}
		if l4.Quantity != 0 || l4.Region != "us-central1" || l4.Provider != parser.GCP || l4.Type != "google_container_cluster" || l4.InstanceType != "" || l4.Tags["team"] != "ml" || l4.Source.Line != 2 {
			t.Errorf("%s: %+v", tc.name, l4)
		}
		sl := l4.SharedLimit
		if sl == nil || sl.Owner != "google_container_cluster.c" || sl.Limit != 16 || sl.Unit != "nvidia-l4" || !sl.PerGPU || sl.PerInstance != 0 {
			t.Errorf("%s: shared limit %+v", tc.name, sl)
		}
		notes := strings.Join(l4.Notes, "\n")
		if !strings.Contains(notes, "up to 16 GPUs in the cluster") || !strings.Contains(notes, "minimum 2: the cluster autoscaler removes no nvidia-l4 node below it, but creates none") {
			t.Errorf("%s: notes %q", tc.name, l4.Notes)
		}
		if strings.Contains(notes, "enabled is known only at apply") != tc.unknownNote {
			t.Errorf("%s: notes %q", tc.name, l4.Notes)
		}
	}
}

// A GPU limit whose maximum is known only at apply, or is not a whole number of GPUs, is
// capacity without a known most, and says why; one without a maximum, or a null one, adds none.
func TestGKEAutoProvisioningMaximumUnknown(t *testing.T) {
	for _, c := range []struct{ maximum, why string }{
		{"var.most", "not a number of GPUs here (var.most has no value"},
		{"2.5", "not a number of GPUs here (a whole non-negative number is required, got 2.5)"},
		{"1000000000000", "not a number of GPUs here (1000000000000 is too large)"},
		{"-3", "a whole non-negative number is required, got -3"},
		{"", ""},
		{"null", ""},
	} {
		src := "variable \"most\" { type = number }\n" + gkeClusterSrc("    enabled = true\n"+limitSrc("nvidia-l4", "", c.maximum), "")
		res := ParseSource("main.tf", []byte(src), Options{})
		if c.why == "" {
			if len(res.Resources) != 0 {
				t.Errorf("maximum %q: %+v", c.maximum, res.Resources)
			}
			continue
		}
		if len(res.Resources) != 1 {
			t.Fatalf("maximum %q: resources %+v, errors %+v", c.maximum, res.Resources, res.Errors)
		}
		r := res.Resources[0]
		if r.AutoProvision == nil || !r.AutoProvision.MaxUnknown || r.SharedLimit != nil || !strings.Contains(strings.Join(r.Notes, "\n"), c.why) {
			t.Errorf("maximum %q: %+v", c.maximum, r)
		}
	}
}

// The cluster's own node pools share its limit on their GPU type, whichever way they are
// declared: a node_pool block, the default pool, a google_container_node_pool by reference or
// by name. A pool of N1 VMs counts its attached GPUs; one of a machine type with GPUs built in
// leaves the count to the estimator. A pool of a GPU type without a limit, or whose limit is
// known only at apply, and a cluster whose autoscaling is off, share none.
func TestGKEPoolsShareTheClusterLimit(t *testing.T) {
	limits := "    enabled = true\n" + limitSrc("nvidia-l4", "", "12") + limitSrc("nvidia-tesla-t4", "", "6")
	const t4 = "\n  node_config {\n    machine_type = \"n1-standard-8\"\n    guest_accelerator {\n      type  = \"nvidia-tesla-t4\"\n      count = 2\n    }\n  }\n"
	cases := []struct {
		name, src, address string
		unit               string // "" for none
		per                float64
	}{
		{"node_pool block", gkeClusterSrc(limits, "  node_pool {\n    name = \"l4\"\n    node_config { machine_type = \"g2-standard-24\" }\n  }"),
			`google_container_cluster.c.node_pool["l4"]`, "nvidia-l4", 0},
		{"default pool", strings.Replace(gkeClusterSrc(limits, "  node_config { machine_type = \"g2-standard-8\" }"), "remove_default_node_pool = true", "", 1),
			"google_container_cluster.c.default_node_pool", "nvidia-l4", 0},
		{"node pool by reference", gkeClusterSrc(limits, "") + "resource \"google_container_node_pool\" \"p\" {\n  cluster = google_container_cluster.c.id" + t4 + "}\n",
			"google_container_node_pool.p", "nvidia-tesla-t4", 2},
		{"node pool by name", gkeClusterSrc(limits, "") + "resource \"google_container_node_pool\" \"p\" {\n  cluster = \"c\"\n  location = \"us-central1\"" + t4 + "}\n",
			"google_container_node_pool.p", "nvidia-tesla-t4", 2},
		{"GPU type without a limit", gkeClusterSrc(limits, "  node_pool {\n    name = \"a100\"\n    node_config { machine_type = \"a2-highgpu-1g\" }\n  }"),
			`google_container_cluster.c.node_pool["a100"]`, "", 0},
		{"limit known only at apply", "variable \"most\" { type = number }\n" + gkeClusterSrc("    enabled = true\n"+limitSrc("nvidia-l4", "", "var.most"),
			"  node_pool {\n    name = \"l4\"\n    node_config { machine_type = \"g2-standard-24\" }\n  }"),
			`google_container_cluster.c.node_pool["l4"]`, "", 0},
		{"autoscaling off", gkeClusterSrc(strings.Replace(limits, "true", "false", 1), "  node_pool {\n    name = \"l4\"\n    node_config { machine_type = \"g2-standard-24\" }\n  }"),
			`google_container_cluster.c.node_pool["l4"]`, "", 0},
	}
	for _, tc := range cases {
		res := ParseSource("main.tf", []byte(tc.src), Options{})
		r, ok := byAddress(t, res)[tc.address]
		if !ok {
			t.Errorf("%s: no %s among %+v (errors %+v)", tc.name, tc.address, res.Resources, res.Errors)
			continue
		}
		sl := r.SharedLimit
		if tc.unit == "" {
			if sl != nil {
				t.Errorf("%s: shares %+v", tc.name, sl)
			}
			continue
		}
		if sl == nil || sl.Owner != "google_container_cluster.c" || sl.Unit != tc.unit || sl.PerInstance != tc.per || sl.PerGPU != (tc.per == 0) {
			t.Errorf("%s: shared limit %+v", tc.name, sl)
			continue
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "google_container_cluster.c's cluster_autoscaling limits its "+tc.unit+" GPUs") {
			t.Errorf("%s: notes %q", tc.name, r.Notes)
		}
	}
}

// A plan's values carry the same blocks as lists of objects: the limit is read from them, and a
// pool names its cluster by name.
func TestGKEAutoProvisioningInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2","planned_values":{"root_module":{"resources":[
{"address":"google_container_cluster.ml","mode":"managed","type":"google_container_cluster","name":"ml",
 "values":{"name":"ml","location":"us-central1","node_pool":[],
   "cluster_autoscaling":[{"enabled":true,"resource_limits":[{"resource_type":"cpu","minimum":1,"maximum":64},{"resource_type":"nvidia-l4","minimum":0,"maximum":8}]}]}},
{"address":"google_container_node_pool.l4","mode":"managed","type":"google_container_node_pool","name":"l4",
 "values":{"name":"l4","cluster":"ml","location":"us-central1","autoscaling":[{"min_node_count":0,"max_node_count":20}],
   "node_config":[{"machine_type":"g2-standard-8","guest_accelerator":[]}]}}]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	rs := byAddress(t, res)
	nap, ok := rs[`google_container_cluster.ml.cluster_autoscaling["nvidia-l4"]`]
	if !ok || nap.AutoProvision == nil || nap.AutoProvision.MaxGPUs != 8 || nap.Region != "us-central1" {
		t.Fatalf("auto-provisioned capacity %+v (errors %+v)", nap, res.Errors)
	}
	if l := rs["google_container_node_pool.l4"].SharedLimit; l == nil || l.Owner != "google_container_cluster.ml" || l.Limit != 8 || !l.PerGPU {
		t.Errorf("pool's limit %+v", l)
	}
}

// deploymentSrc is a kubernetes_manifest Deployment "name" of replicas pods that each ask for
// gpus GPUs and select the GKE accelerator.
func deploymentSrc(name string, replicas, gpus int, accelerator string) string {
	return fmt.Sprintf(`resource "kubernetes_manifest" %q {
  manifest = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = %q, namespace = "default" }
    spec = {
      replicas = %d
      selector = { matchLabels = { app = %q } }
      template = {
        metadata = { labels = { app = %q } }
        spec = {
          nodeSelector = { "cloud.google.com/gke-accelerator" = %q }
          containers   = [{ name = "c", image = "x", resources = { limits = { "nvidia.com/gpu" = "%d" } } }]
        }
      }
    }
  }
}
`, name, name, replicas, name, name, accelerator, gpus)
}

// A GPU workload the configuration applies to its GKE cluster (the one its kubernetes provider
// connects to, or the only one), on none of the cluster's pools, runs on nodes node
// auto-provisioning creates: it shares the cluster's limit on its GPU type, and a floor past
// the limit is a warning at its block. A workload on a pool, of a type without a limit, or in
// a configuration whose cluster is not known, is left alone; so is one that may take either of
// two GPU types, whose limit is not known.
func TestGKEAutoProvisionedPods(t *testing.T) {
	limits := "    enabled = true\n" + limitSrc("nvidia-l4", "", "4") + limitSrc("nvidia-tesla-t4", "", "2")
	other := strings.ReplaceAll(gkeClusterSrc(limits, ""), `"c"`, `"d"`)
	cluster := gkeClusterSrc(limits, "") + `
resource "google_container_node_pool" "t4" {
  cluster    = google_container_cluster.c.name
  node_count = 1
  node_config {
    machine_type = "n1-standard-8"
    guest_accelerator {
      type  = "nvidia-tesla-t4"
      count = 1
    }
  }
}
`
	workloads := deploymentSrc("within", 2, 2, "nvidia-l4") + deploymentSrc("over", 3, 2, "nvidia-l4") +
		deploymentSrc("pool", 1, 1, "nvidia-tesla-t4") + deploymentSrc("unlimited", 1, 1, "nvidia-h100-80gb") +
		strings.Replace(deploymentSrc("either", 1, 1, "nvidia-l4"), `nodeSelector = { "cloud.google.com/gke-accelerator" = "nvidia-l4" }`,
			`affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = [{ matchExpressions = [{ key = "cloud.google.com/gke-accelerator", operator = "In", values = ["nvidia-l4", "nvidia-tesla-a100"] }] }] } } }`, 1)
	for _, c := range []struct {
		name, src string
		linked    bool
	}{
		{"provider connects to it", cluster + other + "provider \"kubernetes\" { host = google_container_cluster.c.endpoint }\n" + workloads, true},
		{"the only cluster", cluster + workloads, true},
		{"two clusters, no provider", cluster + other + workloads, false},
	} {
		res := ParseSource("main.tf", []byte(c.src), Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: %+v", c.name, res.Errors)
		}
		rs := byAddress(t, res)
		for _, addr := range []string{"kubernetes_manifest.within", "kubernetes_manifest.over"} {
			l := rs[addr].SharedLimit
			if !c.linked {
				if l != nil {
					t.Errorf("%s: %s shares %+v", c.name, addr, l)
				}
				continue
			}
			if l == nil || l.Owner != "google_container_cluster.c" || l.Unit != "nvidia-l4" || l.Limit != 4 || l.PerInstance != 2 || l.PerGPU {
				t.Errorf("%s: %s limit %+v", c.name, addr, l)
			}
			if !strings.Contains(strings.Join(rs[addr].Notes, "\n"), "runs on nodes that google_container_cluster.c's node auto-provisioning creates") {
				t.Errorf("%s: %s notes %q", c.name, addr, rs[addr].Notes)
			}
		}
		if e := rs["kubernetes_manifest.either"]; e.Pod == nil || len(e.Pod.GPUNames) != 2 {
			t.Fatalf("%s: the pod that selects either GPU: %+v", c.name, e.Pod)
		}
		for _, addr := range []string{"kubernetes_manifest.pool", "kubernetes_manifest.unlimited", "kubernetes_manifest.either"} {
			if l := rs[addr].SharedLimit; l != nil {
				t.Errorf("%s: %s shares %+v", c.name, addr, l)
			}
		}
		var pending []parser.Error
		for _, w := range res.Warnings {
			if strings.Contains(w.Message, "cluster_autoscaling allows") {
				pending = append(pending, w)
			}
		}
		want := 0
		if c.linked {
			want = 1
		}
		if len(pending) != want {
			t.Fatalf("%s: warnings %+v", c.name, res.Warnings)
		}
		if want == 1 {
			w := pending[0]
			if w.Line != strings.Count(c.src[:strings.Index(c.src, `"kubernetes_manifest" "over"`)], "\n")+1 ||
				w.Message != "kubernetes_manifest.over runs 3 pods of 2 nvidia-l4 GPUs each, but google_container_cluster.c's cluster_autoscaling allows 4 in the cluster: GKE creates nodes for at most 2 of them, and the others stay pending (priced as declared)" {
				t.Errorf("%s: warning %+v", c.name, w)
			}
		}
	}
}

// A cluster without a location, and its pool without one, are where the provider is: the
// auto-provisioned capacity and the pool alike.
func TestGKELocationFromTheProvider(t *testing.T) {
	src := "provider \"google\" { region = \"europe-west4\" }\n" +
		strings.Replace(gkeClusterSrc("    enabled = true\n"+limitSrc("nvidia-l4", "", "4"),
			"  node_pool {\n    name = \"l4\"\n    node_count = 1\n    node_config { machine_type = \"g2-standard-8\" }\n  }"), "  location = \"us-central1\"\n", "", 1)
	res := ParseSource("main.tf", []byte(src), Options{})
	rs := byAddress(t, res)
	for _, addr := range []string{`google_container_cluster.c.cluster_autoscaling["nvidia-l4"]`, `google_container_cluster.c.node_pool["l4"]`} {
		if r, ok := rs[addr]; !ok || r.Region != "europe-west4" {
			t.Errorf("%s: region %q (found %v; errors %+v)", addr, r.Region, ok, res.Errors)
		}
	}
}

// A GPU pod of a GKE cluster whose node auto-provisioning is enabled but sets no limit on the
// pod's GPU type (none, or a maximum of 0), on none of the cluster's pools, stays pending: GKE
// creates no node of a type its limits do not allow. That is a warning at the pod's block and a
// note on it. An Autopilot cluster, a disabled or unknown autoscaler, a limit whose type is
// known only at apply, and a workload scaled to zero say nothing.
func TestGKEPodsOfATypeWithoutALimitStayPending(t *testing.T) {
	const pending = "sets no limit on them: node auto-provisioning creates no such node, so the pods stay pending unless a pool declared elsewhere carries them"
	l4 := limitSrc("nvidia-l4", "", "4")
	for _, c := range []struct {
		name, autoscaling, more string
		replicas                int
		warn                    bool
	}{
		{"no limit on the type", "    enabled = true\n" + l4, "", 2, true},
		{"no GPU limit at all", "    enabled = true\n" + limitSrc("cpu", "", "64"), "", 1, true},
		{"a maximum of 0", "    enabled = true\n" + l4 + limitSrc("nvidia-h100-80gb", "", "0"), "", 1, true},
		{"scaled to zero", "    enabled = true\n" + l4, "", 0, false},
		{"autopilot", "    enabled = true\n" + l4, "  enable_autopilot = true\n", 1, false},
		{"autopilot known at apply", "    enabled = true\n" + l4, "  enable_autopilot = timestamp() != \"\"\n", 1, false},
		{"autoscaling disabled", "    enabled = false\n", "", 1, false},
		{"autoscaling known at apply", "    enabled = timestamp() != \"\"\n" + l4, "", 1, false},
		{"a limit's type known at apply", "    enabled = true\n" + l4 + strings.Replace(limitSrc("nvidia-tesla-a100", "", "8"), `"nvidia-tesla-a100"`, "timestamp()", 1), "", 1, false},
	} {
		src := gkeClusterSrc(c.autoscaling, c.more) + deploymentSrc("h100", c.replicas, 1, "nvidia-h100-80gb")
		res := ParseSource("main.tf", []byte(src), Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: %+v", c.name, res.Errors)
		}
		var got []parser.Error
		for _, w := range res.Warnings {
			if strings.Contains(w.Message, pending) {
				got = append(got, w)
			}
		}
		notes := strings.Join(byAddress(t, res)["kubernetes_manifest.h100"].Notes, "\n")
		noted := strings.Contains(notes, "google_container_cluster.c's node auto-provisioning sets no limit on nvidia-h100-80gb GPUs and none of its node pools here carries them")
		if !c.warn {
			if len(got) > 0 || noted {
				t.Errorf("%s: warned %+v, notes %q", c.name, got, notes)
			}
			continue
		}
		if len(got) != 1 || !noted || got[0].Line != strings.Count(src[:strings.Index(src, `"kubernetes_manifest" "h100"`)], "\n")+1 ||
			!strings.HasPrefix(got[0].Message, "kubernetes_manifest.h100 asks for nvidia-h100-80gb GPUs, but none of google_container_cluster.c's node pools here carries them") {
			t.Errorf("%s: warnings %+v, notes %q", c.name, res.Warnings, notes)
		}
	}
}
