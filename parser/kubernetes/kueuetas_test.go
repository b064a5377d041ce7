package kubernetes

import (
	"strings"
	"testing"
)

// tasQueue is a LocalQueue q feeding ClusterQueue tas, whose one resource group tries the
// flavors a100 (no topology, or topology first when tasOnly) and then h100-tas (Topology
// gpu-topo: a network block, then the hostname), and the Topology itself unless topology is
// false.
func tasQueue(a100 string, tasOnly, topology bool) string {
	src := `apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec:
  nodeLabels: {node.kubernetes.io/instance-type: p4d.24xlarge}
`
	if tasOnly {
		src += "  topologyName: gpu-topo\n"
	}
	src += `---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100-tas}
spec:
  nodeLabels: {node.kubernetes.io/instance-type: p5.48xlarge}
  topologyName: gpu-topo
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: kq}
spec: {clusterQueue: tas}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: tas}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [cpu, memory, nvidia.com/gpu]
      flavors:
        - name: a100
          resources: [{name: cpu, nominalQuota: 1000}, {name: memory, nominalQuota: 4Ti}, {name: nvidia.com/gpu, nominalQuota: ` + a100 + `}]
        - name: h100-tas
          resources: [{name: cpu, nominalQuota: 1000}, {name: memory, nominalQuota: 4Ti}, {name: nvidia.com/gpu, nominalQuota: 64}]
---
`
	if topology {
		src += `apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: gpu-topo}
spec:
  levels:
    - nodeLabel: topology.k8s.aws/network-node-layer-3
    - nodeLabel: kubernetes.io/hostname
---
`
	}
	return src
}

// tasJob is a Job of 4 pods of 2 GPUs queued on q, its pod template annotated with ann.
func tasJob(ann string) string {
	pod := ""
	if ann != "" {
		pod = "    metadata: {annotations: {" + ann + "}}\n"
	}
	return strings.Replace(kueueJob("4", "2", ""), "    spec:\n      containers", pod+"    spec:\n      containers", 1)
}

// Kueue's topology-aware scheduling: a pod set that asks for it passes over flavors without a
// topologyName, and those whose Topology lacks its level; one that does not passes over
// flavors with one, unless all of its ClusterQueue's have one. A pod set required on the
// hostname (or in slices there) must fit one node; annotations Kueue rejects leave the
// workload suspended.
func TestKueueTopologyAwareScheduling(t *testing.T) {
	const required, preferred = "kueue.x-k8s.io/podset-required-topology: ", "kueue.x-k8s.io/podset-preferred-topology: "
	const slice, size = "kueue.x-k8s.io/podset-slice-required-topology: ", "kueue.x-k8s.io/podset-slice-size: "
	const host, block = "kubernetes.io/hostname", "topology.k8s.aws/network-node-layer-3"
	skippedA100 := "a100: it has no topologyName, and its pods ask for topology-aware scheduling"
	for _, c := range []struct {
		name, src     string
		typ           string
		together      int
		note, warning string
	}{
		{"required on the hostname", tasQueue("64", false, true) + tasJob(required+host), "p5.48xlarge", 4,
			skippedA100, ""},
		{"required in a block", tasQueue("64", false, true) + tasJob(required+block), "p5.48xlarge", 0,
			skippedA100, ""},
		{"preferred on the hostname", tasQueue("64", false, true) + tasJob(preferred+host), "p5.48xlarge", 0,
			skippedA100, ""},
		{"unconstrained", tasQueue("64", false, true) + tasJob("kueue.x-k8s.io/podset-unconstrained-topology: \"true\""), "p5.48xlarge", 0,
			skippedA100, ""},
		{"in slices of 2 on the hostname", tasQueue("64", false, true) + tasJob(required+block+", "+slice+host+", "+size+"2"), "p5.48xlarge", 2,
			skippedA100, ""},
		{"no TAS", tasQueue("64", false, true) + tasJob(""), "p4d.24xlarge", 0,
			"→ ResourceFlavor a100, the first of 2 flavors (Kueue moves to the next when its quota is used, but not to h100-tas: its topologyName gpu-topo makes it a flavor for topology-aware scheduling only, which its pods do not ask for)", ""},
		{"no TAS, the first flavor full", tasQueue("4", false, true) + tasJob(""), "", 0,
			"", "h100-tas: its topologyName gpu-topo makes it a flavor for topology-aware scheduling only, which its pods do not ask for"},
		{"no TAS on a queue of TAS flavors only", tasQueue("64", true, true) + tasJob(""), "p4d.24xlarge", 0,
			"→ ResourceFlavor a100, the first of 2 flavors (Kueue moves to the next when its quota is used)", ""},
		{"TAS on a queue of TAS flavors only", tasQueue("64", true, true) + tasJob(required+host), "p4d.24xlarge", 4,
			"→ ResourceFlavor a100, the first of 2 flavors", ""},
		{"a level the Topology lacks", tasQueue("64", false, true) + tasJob(required+"cloud.google.com/gce-topology-block"), "", 0,
			"", "h100-tas: its Topology gpu-topo has no level cloud.google.com/gce-topology-block (topology.k8s.aws/network-node-layer-3, kubernetes.io/hostname)"},
		{"a Topology not read", tasQueue("64", false, false) + tasJob(required+host), "p5.48xlarge", 4,
			"Kueue Topology gpu-topo (ResourceFlavor h100-tas's topologyName) is not among the files read: whether it has the level kubernetes.io/hostname is not known", ""},
		{"a slice size that does not divide", tasQueue("64", false, true) + tasJob(slice+host+", "+size+"3"), "", 0,
			"", "Kueue never admits it: kueue.x-k8s.io/podset-slice-size 3 does not divide its 4 pods"},
		{"a slice without a size", tasQueue("64", false, true) + tasJob(slice+host), "", 0,
			"", "Kueue never admits it: its pod template sets kueue.x-k8s.io/podset-slice-required-topology without kueue.x-k8s.io/podset-slice-size"},
		{"a slice size not a number", tasQueue("64", false, true) + tasJob(slice+host+", "+size+"two"), "", 0,
			"", `kueue.x-k8s.io/podset-slice-size: "two" is not a number of pods`},
		{"a slice size of none", tasQueue("64", false, true) + tasJob(slice+host+", "+size+"\"0\""), "", 0,
			"", `kueue.x-k8s.io/podset-slice-size: "0" is not a number of pods`},
		{"unconstrained, as Go reads a boolean", tasQueue("64", false, true) + tasJob("kueue.x-k8s.io/podset-unconstrained-topology: \"True\""), "p5.48xlarge", 0,
			skippedA100, ""},
		{"unconstrained false", tasQueue("64", false, true) + tasJob("kueue.x-k8s.io/podset-unconstrained-topology: \"false\""), "p4d.24xlarge", 0,
			"→ ResourceFlavor a100", ""},
		{"unconstrained not a boolean", tasQueue("64", false, true) + tasJob("kueue.x-k8s.io/podset-unconstrained-topology: \"yes\""), "", 0,
			"", `Kueue never admits it: kueue.x-k8s.io/podset-unconstrained-topology: "yes" is not a boolean`},
		{"required and preferred", tasQueue("64", false, true) + tasJob(required+host+", "+preferred+block), "", 0,
			"", "its pod template sets both kueue.x-k8s.io/podset-required-topology and kueue.x-k8s.io/podset-preferred-topology"},
	} {
		r := one(t, buildWarning(t, c.name, c.src, c.warning))
		if c.typ != "" && r.InstanceType != c.typ || !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
			t.Errorf("%s: priced on %q, notes %q; want %q and %q", c.name, r.InstanceType, r.Notes, c.typ, c.note)
		}
		if r.Pod.Together != c.together {
			t.Errorf("%s: together %d (%q), want %d", c.name, r.Pod.Together, r.Pod.TogetherWhy, c.together)
		}
	}
}

// Slices of slices (podset-slice-required-topology-constraints): a layer on the hostname keeps
// its slices on one node; the layers Kueue's webhook rejects leave the workload suspended, and
// a flavor whose Topology has them out of order (a layer not below the one before, the first
// above the pod set's level) holds none of them.
func TestKueueTopologySliceLayers(t *testing.T) {
	const host, block = "kubernetes.io/hostname", "topology.k8s.aws/network-node-layer-3"
	layers := func(v string) string { return "kueue.x-k8s.io/podset-slice-required-topology-constraints: '" + v + "'" }
	const never = "Kueue never admits it: "
	for _, c := range []struct {
		name, ann    string
		together     int
		why, warning string
	}{
		{"a block of 4, nodes of 2", layers(`[{"topology": "` + block + `", "size": 4}, {"topology": "` + host + `", "size": 2}]`), 2,
			"Kueue's topology-aware scheduling (kueue.x-k8s.io/podset-slice-required-topology-constraints, layer 2: kubernetes.io/hostname, size 2) puts each slice of 2 pods on one node", ""},
		{"one layer of 4 on the hostname", "kueue.x-k8s.io/podset-required-topology: " + block + ", " + layers(`[{"topology": "`+host+`", "size": 4}]`), 4,
			"Kueue's topology-aware scheduling (kueue.x-k8s.io/podset-slice-required-topology-constraints, layer 1: kubernetes.io/hostname, size 4) puts each slice of 4 pods on one node", ""},
		{"slices of one pod", layers(`[{"topology": "` + host + `", "size": 1}]`), 0, "", ""},
		{"a layer on the pod set's level", "kueue.x-k8s.io/podset-required-topology: " + block + ", " + layers(`[{"topology": "`+block+`", "size": 4}, {"topology": "`+host+`", "size": 2}]`), 2,
			"Kueue's topology-aware scheduling (kueue.x-k8s.io/podset-slice-required-topology-constraints, layer 2: kubernetes.io/hostname, size 2) puts each slice of 2 pods on one node", ""},
		{"blocks only", layers(`[{"topology": "` + block + `", "size": 2}]`), 0, "", ""},
		{"the hostname above the block", layers(`[{"topology": "` + host + `", "size": 4}, {"topology": "` + block + `", "size": 2}]`), 0, "",
			"h100-tas: in its Topology gpu-topo (topology.k8s.aws/network-node-layer-3, kubernetes.io/hostname), layer 2's level topology.k8s.aws/network-node-layer-3 is above layer 1's level kubernetes.io/hostname, so Kueue cannot place the slices there"},
		{"a layer above the pod set's level", "kueue.x-k8s.io/podset-required-topology: " + host + ", " + layers(`[{"topology": "`+block+`", "size": 2}]`), 0, "",
			"layer 1's level topology.k8s.aws/network-node-layer-3 is above the pod set's level kubernetes.io/hostname, so Kueue cannot place the slices there"},
		{"a one-layer slice above the pod set's level", "kueue.x-k8s.io/podset-required-topology: " + host + ", kueue.x-k8s.io/podset-slice-required-topology: " + block + ", kueue.x-k8s.io/podset-slice-size: \"2\"", 0, "",
			"the slices' level topology.k8s.aws/network-node-layer-3 is above the pod set's level kubernetes.io/hostname"},
		{"beside the one-layer slice", "kueue.x-k8s.io/podset-slice-required-topology: " + host + ", " + layers(`[{"topology": "`+host+`", "size": 2}]`), 0, "",
			never + "its pod template sets both kueue.x-k8s.io/podset-slice-required-topology-constraints and kueue.x-k8s.io/podset-slice-required-topology"},
		{"beside a slice size", "kueue.x-k8s.io/podset-slice-size: \"2\", " + layers(`[{"topology": "`+host+`", "size": 2}]`), 0, "",
			never + "its pod template sets both kueue.x-k8s.io/podset-slice-required-topology-constraints and kueue.x-k8s.io/podset-slice-size"},
		{"a slice size alone", "kueue.x-k8s.io/podset-slice-size: \"2\"", 0, "",
			never + "its pod template sets kueue.x-k8s.io/podset-slice-size without kueue.x-k8s.io/podset-slice-required-topology"},
		{"not JSON", layers(`[{"topology": "` + host + `", "size": "2"}]`), 0, "",
			never + `kueue.x-k8s.io/podset-slice-required-topology-constraints is not a JSON array of {"topology": level, "size": pods}`},
		{"no layers", layers(`[]`), 0, "", never + "kueue.x-k8s.io/podset-slice-required-topology-constraints has 0 layers; Kueue takes 1 to 3"},
		{"4 layers", layers(`[{"topology": "a", "size": 4}, {"topology": "b", "size": 4}, {"topology": "c", "size": 2}, {"topology": "d", "size": 2}]`), 0, "",
			never + "kueue.x-k8s.io/podset-slice-required-topology-constraints has 4 layers; Kueue takes 1 to 3"},
		{"no level", layers(`[{"size": 2}]`), 0, "", never + "kueue.x-k8s.io/podset-slice-required-topology-constraints: layer 1 names no topology level"},
		{"a size of none", layers(`[{"topology": "` + host + `", "size": 0}]`), 0, "",
			never + "kueue.x-k8s.io/podset-slice-required-topology-constraints: layer 1's size 0 is not a number of pods"},
		{"a level twice", layers(`[{"topology": "` + host + `", "size": 4}, {"topology": "` + host + `", "size": 2}]`), 0, "",
			never + "kueue.x-k8s.io/podset-slice-required-topology-constraints names the level kubernetes.io/hostname twice"},
		{"a size that does not divide the one before", layers(`[{"topology": "` + block + `", "size": 4}, {"topology": "` + host + `", "size": 3}]`), 0, "",
			never + "kueue.x-k8s.io/podset-slice-required-topology-constraints: layer 2's size 3 does not divide the size 4 of the layer before"},
		{"a first size that does not divide the pods", layers(`[{"topology": "` + block + `", "size": 3}, {"topology": "` + host + `", "size": 3}]`), 0, "",
			never + "kueue.x-k8s.io/podset-slice-required-topology-constraints: its first layer's size 3 does not divide its 4 pods"},
	} {
		r := one(t, buildWarning(t, c.name, tasQueue("64", false, true)+tasJob(c.ann), c.warning))
		if c.warning == "" && r.InstanceType != "p5.48xlarge" {
			t.Errorf("%s: priced on %q, want p5.48xlarge (h100-tas)", c.name, r.InstanceType)
		}
		if r.Pod.Together != c.together || r.Pod.TogetherWhy != c.why {
			t.Errorf("%s: together %d (%q), want %d (%q)", c.name, r.Pod.Together, r.Pod.TogetherWhy, c.together, c.why)
		}
	}
	// A Topology not read: every layer's level is named as not known.
	r := one(t, build(t, tasQueue("64", false, false)+tasJob(layers(`[{"topology": "`+block+`", "size": 4}, {"topology": "`+host+`", "size": 2}]`)), Options{}))
	if want := "whether it has the level topology.k8s.aws/network-node-layer-3, kubernetes.io/hostname is not known"; !strings.Contains(strings.Join(r.Notes, "\n"), want) {
		t.Errorf("a Topology not read: notes %q, want %q", r.Notes, want)
	}
}

// The pods TAS keeps on one node are the pod set's in one Kueue workload: a JobSet's replicated
// job (its slice is one Job unless the size is set), a StatefulSet's, but one pod of a
// Deployment, each of which Kueue admits alone.
func TestKueueTopologyAwareSchedulingPodSets(t *testing.T) {
	const host = "kubernetes.io/hostname"
	jobset := func(ann string) string {
		return `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
    - name: w
      replicas: 3
      template:
        spec:
          parallelism: 2
          template:
            metadata: {annotations: {` + ann + `}}
            spec:
              containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]
`
	}
	workload := func(kind, ann string) string {
		return `apiVersion: apps/v1
kind: ` + kind + `
metadata: {name: s, namespace: kq}
spec:
  replicas: 3
  template:
    metadata: {labels: {kueue.x-k8s.io/queue-name: q}, annotations: {` + ann + `}}
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]
`
	}
	for _, c := range []struct {
		name, src string
		together  int
		why       string
	}{
		{"a JobSet's Jobs in slices", jobset("kueue.x-k8s.io/podset-slice-required-topology: " + host), 2,
			"Kueue's topology-aware scheduling (kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname) puts each slice of 2 pods on one node"},
		{"a JobSet's slices of 6", jobset("kueue.x-k8s.io/podset-slice-required-topology: " + host + ", kueue.x-k8s.io/podset-slice-size: \"6\""), 6, ""},
		{"a JobSet's whole pod set", jobset("kueue.x-k8s.io/podset-required-topology: " + host), 6,
			"Kueue's topology-aware scheduling (kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname) puts its 6 pods on one node"},
		{"a StatefulSet", workload("StatefulSet", "kueue.x-k8s.io/podset-required-topology: "+host), 3, ""},
		{"a Deployment", workload("Deployment", "kueue.x-k8s.io/podset-required-topology: "+host), 0, ""},
	} {
		r := one(t, build(t, tasQueue("64", false, true)+c.src, Options{}))
		if r.InstanceType != "p5.48xlarge" || r.Pod.Together != c.together || c.why != "" && r.Pod.TogetherWhy != c.why {
			t.Errorf("%s: on %q, together %d (%q); want %d (%q)", c.name, r.InstanceType, r.Pod.Together, r.Pod.TogetherWhy, c.together, c.why)
		}
		if r.Pod.TogetherAdmitted != (c.together > 0) {
			t.Errorf("%s: admitted together %v", c.name, r.Pod.TogetherAdmitted)
		}
	}
}

// A placement that keeps more pods on one node than TAS does wins, and its pods are the
// kube-scheduler's to leave pending, not Kueue's to leave unadmitted: a JobSet's exclusive
// placement of each Job's 4 pods, or a required podAffinity on its own pods, over slices of 2.
func TestKueueTopologyBeneathOtherPlacement(t *testing.T) {
	jobset := func(ann, affinity string) string {
		return `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}, annotations: {` + ann + `}}
spec:
  replicatedJobs:
    - name: w
      replicas: 2
      template:
        spec:
          parallelism: 4
          template:
            metadata: {labels: {app: js}, annotations: {kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname, kueue.x-k8s.io/podset-slice-size: "2"}}
            spec:
              ` + affinity + `
              containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	}
	const affinity = "affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: js}}, topologyKey: kubernetes.io/hostname}]}}"
	for _, c := range []struct {
		name, src string
		together  int
		admitted  bool
	}{
		{"slices alone", jobset("", ""), 2, true},
		{"an exclusive Job", jobset("alpha.jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname", ""), 4, false},
		{"its own pods' affinity", jobset("", affinity), 8, false},
	} {
		r := one(t, build(t, tasQueue("64", false, true)+c.src, Options{}))
		if r.Pod.Together != c.together || r.Pod.TogetherAdmitted != c.admitted {
			t.Errorf("%s: together %d (%q), admitted together %v; want %d, %v", c.name, r.Pod.Together, r.Pod.TogetherWhy, r.Pod.TogetherAdmitted, c.together, c.admitted)
		}
	}
}

// TAS annotations on a workload's own metadata do nothing: Kueue reads the pod template's.
func TestKueueTopologyOnTheWrongObject(t *testing.T) {
	onJob := strings.Replace(tasJob(""), "labels: {kueue.x-k8s.io/queue-name: q}", "labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}", 1)
	res := buildWarning(t, "on the Job", tasQueue("64", false, true)+onJob,
		"Job/kq/j sets kueue.x-k8s.io/podset-required-topology on its own metadata, where Kueue does not read it: topology-aware scheduling takes it from the pod template, so it does nothing here")
	if r := one(t, res); r.Pod.Together != 0 || r.InstanceType != "p4d.24xlarge" {
		t.Errorf("on the Job: together %d on %q", r.Pod.Together, r.InstanceType)
	}
	both := strings.Replace(tasJob("kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname"), "labels: {kueue.x-k8s.io/queue-name: q}", "labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}", 1)
	buildWarning(t, "on both", tasQueue("64", false, true)+both, "")
	layers := strings.Replace(tasJob(""), "labels: {kueue.x-k8s.io/queue-name: q}", `labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/podset-slice-required-topology-constraints: '[{"topology": "kubernetes.io/hostname", "size": 2}]'}`, 1)
	if r := one(t, buildWarning(t, "slice layers on the Job", tasQueue("64", false, true)+layers,
		"Job/kq/j sets kueue.x-k8s.io/podset-slice-required-topology-constraints on its own metadata, where Kueue does not read it")); r.Pod.Together != 0 {
		t.Errorf("slice layers on the Job: together %d", r.Pod.Together)
	}
}
