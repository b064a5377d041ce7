package kubernetes

import (
	"strings"
	"testing"
)

// kueueConfigMap is the kueue-manager-config ConfigMap with the Configuration body (four spaces
// in) under its controller_manager_config.yaml key; the Configuration's first line is line 7.
func kueueConfigMap(body string) string {
	return `apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta1
    kind: Configuration
` + body + `---
`
}

// creditsQueue is the ClusterQueue train, whose GPU group also covers example.com/credits:
// a100 holds a100Credits of them, h100-spot 1000.
func creditsQueue(a100Credits string) string {
	return strings.NewReplacer(
		"coveredResources: [nvidia.com/gpu]", "coveredResources: [nvidia.com/gpu, example.com/credits]",
		"{name: nvidia.com/gpu, nominalQuota: 8}]", "{name: nvidia.com/gpu, nominalQuota: 8}, {name: example.com/credits, nominalQuota: "+a100Credits+"}]",
		"{name: nvidia.com/gpu, nominalQuota: 64}]", "{name: nvidia.com/gpu, nominalQuota: 64}, {name: example.com/credits, nominalQuota: 1000}]",
	).Replace(kueueQueue("8", "64", ""))
}

// Kueue's configuration decides which of a pod's requests count against quota: the resources it
// excludes are not counted, and transformations count others as what they output.
func TestKueueConfigurationResources(t *testing.T) {
	efa := strings.Replace(kueueJob("2", "8", ""), `cpu: "4"`, `cpu: "4", vpc.amazonaws.com/efa: 32`, 1)
	for _, c := range []struct {
		name, src string
		typ       string // the instance type its pods are priced on; "" where Kueue never admits them
		note      string // among its notes
		warning   string // among the warnings; "" for none
	}{
		{"no configuration: an uncovered request is refused", kueueFlavors + kueueQueue("16", "64", "") + efa, "",
			"", "ClusterQueue train covers no vpc.amazonaws.com/efa, which its pods request (unless Kueue's configuration leaves it out: resources.excludeResourcePrefixes)"},
		{"an excluded prefix", kueueConfigMap("    resources: {excludeResourcePrefixes: [vpc.amazonaws.com/]}\n") + kueueFlavors + kueueQueue("16", "64", "") + efa, "p4d.24xlarge",
			"Kueue's configuration (m.yaml:5, ConfigMap kueue-system/kueue-manager-config, key controller_manager_config.yaml) leaves vpc.amazonaws.com/efa out of quota (resources.excludeResourcePrefixes)", ""},
		{"a prefix that does not match", kueueConfigMap("    resources: {excludeResourcePrefixes: [rdma/]}\n") + kueueFlavors + kueueQueue("16", "64", "") + efa, "",
			"", "covers no vpc.amazonaws.com/efa, which its pods request (Kueue's configuration (m.yaml:5, ConfigMap kueue-system/kueue-manager-config, key controller_manager_config.yaml) does not leave it out (resources.excludeResourcePrefixes))"},
		// 2 pods × 8 GPUs × 10 credits = 160 credits: a100's 200 hold them, its 8 GPUs do not.
		{"Retain: the input is counted with the outputs", kueueConfigMap("    resources:\n      transformations:\n        - {input: nvidia.com/gpu, outputs: {example.com/credits: 10}}\n") + kueueFlavors + creditsQueue("200") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 8 at most)", ""},
		// With GPUs enough, a100's 100 credits do not hold the 160.
		{"Retain: the credits alone hold it back", kueueConfigMap("    resources:\n      transformations:\n        - {input: nvidia.com/gpu, outputs: {example.com/credits: 10}}\n") + kueueFlavors + strings.Replace(creditsQueue("100"), "nominalQuota: 8}", "nominalQuota: 16}", 1) + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 160 example.com/credits asked, 100 at most)", ""},
		// Replace: the 16 GPUs are not counted, so a100's 8 do not hold them back.
		{"Replace: the input is not counted", kueueConfigMap("    resources:\n      transformations:\n        - {input: nvidia.com/gpu, strategy: Replace, outputs: {example.com/credits: 10}}\n") + kueueFlavors + creditsQueue("200") + kueueJob("2", "8", ""), "p4d.24xlarge",
			"counts each nvidia.com/gpu the pod requests as example.com/credits × 10 (resources.transformations, Replace: it is not counted itself)", ""},
		{"Replace: an output no group covers", kueueConfigMap("    resources:\n      transformations:\n        - {input: nvidia.com/gpu, strategy: Replace, outputs: {example.com/gpu-memory: 80Gi}}\n") + kueueFlavors + kueueQueue("16", "64", "") + kueueJob("2", "8", ""), "",
			"", "ClusterQueue train covers no example.com/gpu-memory, which its pods request"},
		// multiplyBy: each pod's 4 CPUs times its 8 GPUs, 32 credits a pod, 64 for both.
		{"multiplyBy", kueueConfigMap("    resources:\n      transformations:\n        - {input: cpu, multiplyBy: nvidia.com/gpu, strategy: Replace, outputs: {example.com/credits: 1}}\n") + kueueFlavors + strings.Replace(creditsQueue("50"), "nominalQuota: 8}", "nominalQuota: 16}", 1) + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 64 example.com/credits asked, 50 at most)", ""},
		// A fraction of a unit counts as a whole one: 2 pods × 500m CPU are 2 credits.
		{"a fraction is rounded up", kueueConfigMap("    resources:\n      transformations:\n        - {input: cpu, strategy: Replace, outputs: {example.com/credits: 1}}\n") + kueueFlavors + strings.NewReplacer("[cpu, memory]", "[cpu, memory, example.com/credits]", "{name: memory, nominalQuota: 4Ti}", "{name: memory, nominalQuota: 4Ti}, {name: example.com/credits, nominalQuota: 1}").Replace(kueueQueue("16", "64", "")) + strings.Replace(kueueJob("2", "8", ""), `cpu: "4"`, `cpu: 500m`, 1), "",
			"", "no flavor of ClusterQueue train holds its pods' example.com/credits (plain: 2 example.com/credits asked, 1 at most)"},
		{"a Configuration document of its own", "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources: {excludeResourcePrefixes: [vpc.amazonaws.com/efa]}\n---\n" + kueueFlavors + kueueQueue("16", "64", "") + efa, "p4d.24xlarge",
			"Kueue's configuration (m.yaml:1) leaves vpc.amazonaws.com/efa out of quota", ""},
	} {
		checkQueued(t, c.name, c.src, c.typ, c.note, c.warning)
	}
}

// Kueue manages only the kinds whose integrations its configuration enables, and with
// manageJobsWithoutQueueName suspends for good the jobs that name no queue.
func TestKueueConfigurationJobs(t *testing.T) {
	deployment := kueueDeployment("1")
	unqueued := strings.Replace(kueueJob("1", "8", "      nodeSelector: {node.kubernetes.io/instance-type: g6e.48xlarge}\n"), ", labels: {kueue.x-k8s.io/queue-name: q}", "", 1)
	inSystem := strings.Replace(unqueued, "namespace: kq", "namespace: kube-system", 1)
	withoutQueue := "    manageJobsWithoutQueueName: true\n"
	for _, c := range []struct {
		name, src string
		typ       string
		note      string
		warning   string
	}{
		{"batch/job is enabled by default", kueueConfigMap("    namespace: kueue-system\n") + kueueFlavors + kueueQueue("16", "64", "") + kueueJob("1", "8", ""), "p4d.24xlarge",
			"ResourceFlavor a100", ""},
		{"deployment is not enabled by default", kueueConfigMap("    namespace: kueue-system\n") + kueueFlavors + kueueQueue("16", "64", "") + deployment, "",
			"Kueue's configuration (m.yaml:5, ConfigMap kueue-system/kueue-manager-config, key controller_manager_config.yaml) does not enable Kueue's deployment integration (integrations.frameworks): Kueue leaves the Deployment alone: its kueue.x-k8s.io/queue-name q does nothing, and the node comes from the pod's own labels", ""},
		{"deployment enabled", kueueConfigMap("    integrations: {frameworks: [batch/job, deployment]}\n") + kueueFlavors + kueueQueue("16", "64", "") + deployment, "p4d.24xlarge",
			"ResourceFlavor a100", ""},
		{"a job that names no queue, managed", kueueConfigMap(withoutQueue) + kueueFlavors + kueueQueue("16", "64", "") + unqueued, "g6e.48xlarge",
			"manageJobsWithoutQueueName, and managedJobsNamespaceSelector selects namespace kq",
			"Job/kq/j: Kueue never admits it: it names no kueue.x-k8s.io/queue-name and its namespace has no LocalQueue named default, but Kueue suspends it"},
		{"kube-system is not managed by default", kueueConfigMap(withoutQueue) + kueueFlavors + kueueQueue("16", "64", "") + inSystem, "g6e.48xlarge",
			"", ""},
		{"a selector that leaves the namespace out", kueueConfigMap(withoutQueue+"    managedJobsNamespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ml}}\n") + kueueFlavors + kueueQueue("16", "64", "") + unqueued, "g6e.48xlarge",
			"", ""},
		{"a selector on a label of a Namespace not read", kueueConfigMap(withoutQueue+"    managedJobsNamespaceSelector: {matchLabels: {kueue: managed}}\n") + kueueFlavors + kueueQueue("16", "64", "") + unqueued, "g6e.48xlarge",
			"sets manageJobsWithoutQueueName, which suspends for good a job that names no queue in the namespaces it manages; whether it manages kq is not known (Namespace kq is not among the files read)", ""},
		{"a selector on a label of a Namespace read", kueueConfigMap(withoutQueue+"    managedJobsNamespaceSelector: {matchLabels: {kueue: managed}}\n") + "apiVersion: v1\nkind: Namespace\nmetadata: {name: kq, labels: {kueue: managed}}\n---\n" + kueueFlavors + kueueQueue("16", "64", "") + unqueued, "g6e.48xlarge",
			"", "Kueue never admits it"},
		{"the namespace's default LocalQueue queues it", kueueConfigMap(withoutQueue) + strings.Replace(kueueFlavors, "metadata: {name: q, namespace: kq}", "metadata: {name: default, namespace: kq}", 1) + kueueQueue("16", "64", "") + strings.Replace(kueueJob("1", "8", ""), ", labels: {kueue.x-k8s.io/queue-name: q}", "", 1), "p4d.24xlarge",
			"its namespace's LocalQueue named default", ""},
		{"a Deployment that names no queue is left alone", kueueConfigMap(withoutQueue+"    integrations: {frameworks: [batch/job, deployment]}\n") + kueueFlavors + kueueQueue("16", "64", "") + strings.Replace(deployment, "    metadata: {labels: {kueue.x-k8s.io/queue-name: q}}\n", "", 1), "",
			"", ""},
	} {
		checkQueued(t, c.name, c.src, c.typ, c.note, c.warning)
	}
}

func TestKueueFramework(t *testing.T) {
	for _, c := range []struct{ apiVersion, kind, want string }{
		{"batch/v1", "Job", "batch/job"},
		{"batch/v1", "CronJob", "batch/job"},
		{"apps/v1", "Deployment", "deployment"},
		{"apps/v1", "StatefulSet", "statefulset"},
		{"v1", "Pod", "pod"},
		{"jobset.x-k8s.io/v1alpha2", "JobSet", "jobset.x-k8s.io/jobset"},
		{"kubeflow.org/v1", "PyTorchJob", "kubeflow.org/pytorchjob"},
		{"kubeflow.org/v2beta1", "MPIJob", "kubeflow.org/mpijob"},
		{"ray.io/v1", "RayJob", "ray.io/rayjob"},
		{"trainer.kubeflow.org/v1alpha1", "TrainJob", "trainer.kubeflow.org/trainjob"},
		{"workload.codeflare.dev/v1beta2", "AppWrapper", "workload.codeflare.dev/appwrapper"},
		{"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "leaderworkerset.x-k8s.io/leaderworkerset"},
		{"argoproj.io/v1alpha1", "Workflow", ""},
		{"apps/v1", "DaemonSet", ""},
	} {
		if got := kueueFramework(&object{APIVersion: c.apiVersion, Kind: c.kind}); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.apiVersion, c.kind, got, c.want)
		}
	}
	// A kind without an integration of its own: externalFrameworks names it, or the pod
	// integration manages its pods when they carry the queue label.
	wf := &object{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow"}
	if ok, _ := (&kueueConfig{frameworks: []string{"batch/job"}, external: []string{"Workflow.v1alpha1.argoproj.io"}}).manages(wf, false); !ok {
		t.Error("externalFrameworks: not managed")
	}
	if ok, _ := (&kueueConfig{frameworks: []string{"batch/job", "pod"}}).manages(wf, true); !ok {
		t.Error("pod integration, labelled pods: not managed")
	}
	if ok, why := (&kueueConfig{frameworks: []string{"batch/job", "pod"}}).manages(wf, false); ok || !strings.Contains(why, "enables no Kueue integration for Workflow") {
		t.Errorf("unlabelled pods: %v %q", ok, why)
	}
	if ok, _ := (*kueueConfig)(nil).manages(wf, false); !ok {
		t.Error("no configuration read: Kueue is taken to manage every kind")
	}
}

// A configuration Kueue refuses is an error at its line in the manifest, and is not used.
func TestKueueConfigurationErrors(t *testing.T) {
	efa := strings.Replace(kueueJob("1", "8", ""), `cpu: "4"`, `cpu: "4", vpc.amazonaws.com/efa: 32`, 1)
	for _, c := range []struct {
		name, body string
		line       int
		message    string
	}{
		{"a strategy", "    resources:\n      excludeResourcePrefixes: [vpc.amazonaws.com/]\n      transformations:\n        - input: nvidia.com/gpu\n          strategy: Swap\n          outputs: {example.com/credits: 1}\n", 12,
			`Kueue Configuration: transformation of nvidia.com/gpu: strategy "Swap" is not Retain or Replace: Kueue refuses the configuration`},
		{"an output", "    resources:\n      excludeResourcePrefixes: [vpc.amazonaws.com/]\n      transformations:\n        - input: nvidia.com/gpu\n          outputs: {example.com/credits: lots}\n", 12,
			`output example.com/credits "lots" is not a quantity`},
		{"an input twice", "    resources:\n      excludeResourcePrefixes: [vpc.amazonaws.com/]\n      transformations:\n        - {input: cpu, outputs: {example.com/credits: 1}}\n        - {input: cpu, outputs: {example.com/credits: 2}}\n", 12,
			`resources.transformations names input "cpu" twice`},
		{"a field of the wrong shape", "    resources: {excludeResourcePrefixes: {a: b}}\n", 8,
			"cannot unmarshal"},
	} {
		res := build(t, kueueConfigMap(c.body)+kueueFlavors+kueueQueue("16", "64", "")+efa, Options{})
		if len(res.Errors) != 1 || res.Errors[0].Line != c.line || !strings.Contains(res.Errors[0].Message, c.message) || !strings.HasPrefix(res.Errors[0].Message, "ConfigMap/kueue-system/kueue-manager-config: ") {
			t.Errorf("%s: errors %+v, want line %d and %q", c.name, res.Errors, c.line, c.message)
			continue
		}
		// Not used: its exclusion does not apply.
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "covers no vpc.amazonaws.com/efa") {
			t.Errorf("%s: warnings %+v", c.name, res.Warnings)
		}
	}
}

// In a repository of several clusters, a workload follows the Kueue configuration declared
// nearest it.
func TestKueueConfigurationNearest(t *testing.T) {
	efa := strings.Replace(kueueJob("1", "8", ""), `cpu: "4"`, `cpu: "4", vpc.amazonaws.com/efa: 32`, 1)
	files := []*File{
		Decode("clusters/dev/kueue-config.yaml", []byte(kueueConfigMap("    resources: {excludeResourcePrefixes: [rdma/]}\n"))),
		Decode("clusters/prod/kueue-config.yaml", []byte(kueueConfigMap("    resources: {excludeResourcePrefixes: [vpc.amazonaws.com/efa]}\n"))),
		Decode("clusters/prod/queues.yaml", []byte(kueueFlavors+kueueQueue("16", "64", ""))),
		Decode("clusters/prod/jobs/train.yaml", []byte(efa)),
	}
	res := Build(files, Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	r := one(t, res)
	if r.InstanceType != "p4d.24xlarge" || !strings.Contains(strings.Join(r.Notes, "\n"), "clusters/prod/kueue-config.yaml:5") {
		t.Errorf("priced on %q, notes %q", r.InstanceType, r.Notes)
	}
}

// Kueue's Helm chart writes managerConfig.controllerManagerConfigYaml whole into the ConfigMap
// Kueue reads: a Flux HelmRelease's or an Argo CD Application's values of the chart are Kueue's
// configuration.
func TestKueueConfigurationFromChartValues(t *testing.T) {
	efa := strings.Replace(kueueJob("1", "8", ""), `cpu: "4"`, `cpu: "4", vpc.amazonaws.com/efa: 32`, 1)
	flux := func(config string) string {
		return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: kueue, namespace: kueue-system}
spec:
  chart: {spec: {chart: kueue, sourceRef: {kind: HelmRepository, name: kueue}}}
  values:
    managerConfig:
      controllerManagerConfigYaml: ` + config + `
---
`
	}
	argo := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: kueue, namespace: argocd}
spec:
  source:
    repoURL: registry.k8s.io/kueue/charts
    chart: kueue
    targetRevision: 0.14.4
    helm:
      valuesObject:
        managerConfig:
          controllerManagerConfigYaml: |
            apiVersion: config.kueue.x-k8s.io/v1beta1
            kind: Configuration
            resources: {excludeResourcePrefixes: [vpc.amazonaws.com/efa]}
---
`
	for _, c := range []struct {
		name, src string
		typ       string
		note      string
		err       string // the one error, at line 5; "" for none
	}{
		{"a Flux release", flux(`"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nresources: {excludeResourcePrefixes: [vpc.amazonaws.com/efa]}"`) + kueueFlavors + kueueQueue("16", "64", "") + efa, "p4d.24xlarge",
			"Kueue's configuration (HelmRelease kueue-system/kueue's values, managerConfig.controllerManagerConfigYaml; m.yaml:", ""},
		{"a snippet without apiVersion", flux(`"resources: {excludeResourcePrefixes: [vpc.amazonaws.com/efa]}"`) + kueueFlavors + kueueQueue("16", "64", "") + efa, "p4d.24xlarge",
			"leaves vpc.amazonaws.com/efa out of quota", ""},
		{"an Argo CD Application", argo + kueueFlavors + kueueQueue("16", "64", "") + efa, "p4d.24xlarge",
			"leaves vpc.amazonaws.com/efa out of quota", ""},
		{"another kind", flux(`"apiVersion: v1\nkind: ConfigMap"`) + kueueFlavors + kueueQueue("16", "64", "") + efa, "",
			"", "managerConfig.controllerManagerConfigYaml: apiVersion v1, kind ConfigMap is not Kueue's Configuration"},
		{"a transformation Kueue refuses", flux(`"resources: {transformations: [{input: cpu, strategy: Drop}]}"`) + kueueFlavors + kueueQueue("16", "64", "") + efa, "",
			"", `managerConfig.controllerManagerConfigYaml: Kueue Configuration: transformation of cpu: strategy "Drop" is not Retain or Replace`},
	} {
		res := build(t, c.src, Options{})
		var errs []string
		for _, e := range res.Errors {
			errs = append(errs, e.Message)
		}
		if c.err == "" && len(errs) > 0 || c.err != "" && (len(res.Errors) != 1 || !strings.Contains(errs[0], c.err)) {
			t.Errorf("%s: errors %q, want %q", c.name, errs, c.err)
			continue
		}
		r := one(t, res)
		if r.InstanceType != c.typ || !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
			t.Errorf("%s: priced on %q, notes %q; want %q and %q", c.name, r.InstanceType, r.Notes, c.typ, c.note)
		}
	}
}
