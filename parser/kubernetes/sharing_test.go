package kubernetes

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// partialAndExclusive are two ConfigMap data keys (indented under data:) of device plugin
// configs: some-gpus time-slices only 2 of a node's GPUs 8 ways, exclusive shares nothing.
const partialAndExclusive = `  some-gpus: |-
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 8
          devices: 2
  exclusive: |-
    version: v1
    flags:
      migStrategy: none
`

// clusterPolicy is a GPU Operator ClusterPolicy (a document after ---) whose device plugin reads
// the ConfigMap plugin-configs, with defaultKey its default config.
func clusterPolicy(defaultKey string) string {
	return "\n---\napiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: cluster-policy}\nspec:\n  devicePlugin:\n    config: {name: plugin-configs, default: " + defaultKey + "}\n"
}

// The NVIDIA device plugin's time-slicing and MPS configs, read from the ConfigMaps among the
// manifests, make each unit of the resource they replicate that share of a GPU, on the nodes that
// take the config: the one their nvidia.com/device-plugin.config label names, else the default
// (the GPU Operator ClusterPolicy's, a key named default, or the only one).
func TestDevicePluginSharing(t *testing.T) {
	const configMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: plugin-configs, namespace: gpu-operator}
data:
  any: |-
    version: v1
    flags:
      migStrategy: none
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 4
  mps-renamed: |-
    version: v1
    sharing:
      mps:
        renameByDefault: true
        resources:
        - name: nvidia.com/gpu
          replicas: 2
` + partialAndExclusive + `---
apiVersion: v1
kind: ConfigMap
metadata: {name: app-settings}
data:
  settings.yaml: |
    version: 3
    flags: [fast]
    sharing: none
`
	policy := clusterPolicy("any")
	pod := func(name, resource string, selector ...string) string {
		sel := "node.kubernetes.io/instance-type: g5.12xlarge"
		for _, s := range selector {
			sel += ", " + s
		}
		return "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n  nodeSelector: {" + sel + "}\n  containers: [{name: c, resources: {limits: {" + resource + ": 1}}}]\n"
	}
	for _, tc := range []struct {
		name      string
		manifests string
		groups    []NodeGroup
		replicas  int
		strategy  string
		note      string // in the resource's notes
	}{
		{"the ClusterPolicy's default config", configMap + policy + pod("p", "nvidia.com/gpu"), nil, 4, SharingTimeSlicing,
			"ConfigMap gpu-operator/plugin-configs, key any, the device plugin's default config in ClusterPolicy cluster-policy, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)"},
		{"a config the pod selects, renaming the resource", configMap + policy + pod("p", "nvidia.com/gpu.shared", "nvidia.com/device-plugin.config: mps-renamed"), nil, 2, SharingMPS,
			"key mps-renamed, which the pod selects with nvidia.com/device-plugin.config, shares each GPU as 2 units of nvidia.com/gpu.shared (mps)"},
		{"a renamed resource leaves nvidia.com/gpu whole", configMap + policy + pod("p", "nvidia.com/gpu", "nvidia.com/device-plugin.config: mps-renamed"), nil, 0, "", ""},
		{"an exclusive config shares nothing", configMap + policy + pod("p", "nvidia.com/gpu", "nvidia.com/device-plugin.config: exclusive"), nil, 0, "", ""},
		{"replicas over only some GPUs are not priced as shares", configMap + policy + pod("p", "nvidia.com/gpu", "nvidia.com/device-plugin.config: some-gpus"), nil, 0, "",
			"shares only some of a node's GPUs (devices): a unit of nvidia.com/gpu may be a whole GPU or 1/8 of one, priced as a whole GPU"},
		{"no default among several configs", configMap + pod("p", "nvidia.com/gpu"), nil, 0, "",
			"the NVIDIA device plugin's configs among the manifests (keys any, exclusive, mps-renamed, some-gpus) share nvidia.com/gpu on some nodes, but which config this pod's nodes take is not said"},
		{"the only config is the default", configMap[:strings.Index(configMap, "  mps-renamed")] + pod("p", "nvidia.com/gpu"), nil, 4, SharingTimeSlicing,
			"key any, the device plugin's default config, shares each GPU as 4 units"},
		{"a node group's label names the config", configMap + policy + "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {eks.amazonaws.com/nodegroup: shared}\n  containers: [{resources: {limits: {nvidia.com/gpu.shared: 1}}}]\n",
			[]NodeGroup{{Address: "aws_eks_node_group.shared", InstanceType: "g5.xlarge", Provider: parser.AWS, Region: "us-east-1",
				NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": "shared", labelPluginConfig: "mps-renamed"}}}},
			2, SharingMPS, "which aws_eks_node_group.shared labels its nodes with (nvidia.com/device-plugin.config)"},
		{"GFD's replicas label", pod("p", "nvidia.com/gpu", "nvidia.com/gpu.replicas: '8'", "nvidia.com/gpu.sharing-strategy: mps"), nil, 8, SharingMPS,
			"the pod selects nvidia.com/gpu.replicas=8"},
		{"a Karpenter NodePool's template label", configMap + policy + `
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: shared}
spec:
  template:
    metadata:
      labels: {nvidia.com/device-plugin.config: mps-renamed}
    spec:
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}
` + "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {karpenter.sh/nodepool: shared}\n  containers: [{resources: {limits: {nvidia.com/gpu.shared: 1}}}]\n", nil, 2, SharingMPS, "key mps-renamed"},
		{"GKE's own sharing label wins", configMap + policy + pod("p", "nvidia.com/gpu", "cloud.google.com/gke-max-shared-clients-per-gpu: '3'"), nil, 3, "", ""},
		{"GKE's time-sharing is named", pod("p", "nvidia.com/gpu", "cloud.google.com/gke-max-shared-clients-per-gpu: '3'", "cloud.google.com/gke-gpu-sharing-strategy: time-sharing"), nil, 3, parser.SharingGKETimeSharing, ""},
		{"GKE's MPS is not", pod("p", "nvidia.com/gpu", "cloud.google.com/gke-max-shared-clients-per-gpu: '3'", "cloud.google.com/gke-gpu-sharing-strategy: mps"), nil, 3, "", ""},
		{"a GKE pool labelled time-sharing", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {cloud.google.com/gke-nodepool: ts}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n",
			[]NodeGroup{{Address: "google_container_node_pool.ts", InstanceType: "g2-standard-8", Provider: parser.GCP, Region: "us-central1",
				NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "ts", LabelGKESharedClients: "2", LabelGKESharingStrategy: "time-sharing"}}}},
			2, parser.SharingGKETimeSharing, "shares each GPU between up to 2 containers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sharedPod(t, Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{NodeGroups: tc.groups}), tc.replicas, tc.note)
			if r.Pod.SharingStrategy != tc.strategy {
				t.Errorf("sharing strategy %q, want %q", r.Pod.SharingStrategy, tc.strategy)
			}
		})
	}
}

// A device plugin config the plugin would refuse is an error at its key; two ConfigMaps with
// the same key are told apart only by the one the ClusterPolicy names.
func TestDevicePluginSharingConfigs(t *testing.T) {
	bad := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: x\n  ts: |\n    version: v1\n    sharing:\n      timeSlicing:\n        resources: [{name: nvidia.com/gpu, replicas: 0}]\n"
	res := Build([]*File{Decode("cm.yaml", []byte(bad))}, Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 6 || !strings.Contains(res.Errors[0].Message, "data.ts: the device plugin's sharing config") ||
		!strings.Contains(res.Errors[0].Message, "replicas 0 is not a number of shares of a GPU") {
		t.Errorf("errors %v, want one at line 6 naming data.ts", res.Errors)
	}

	cm := func(name string, n int) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: gpu-operator}\ndata:\n  any: |\n    version: v1\n    sharing:\n      timeSlicing:\n        resources: [{name: nvidia.com/gpu, replicas: " + string(rune('0'+n)) + "}]\n---\n"
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	policy := "---\napiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec: {devicePlugin: {config: {name: second, default: any}}}\n"
	for _, tc := range []struct {
		name, manifests string
		want            int
	}{
		{"two ConfigMaps, neither named", cm("first", 2) + cm("second", 4) + pod, 0},
		{"the ClusterPolicy names the second", cm("first", 2) + cm("second", 4) + pod + policy, 4},
		// Without a ClusterPolicy, the plugin's chart takes a key named default as the default.
		{"a key named default", strings.Replace(cm("first", 3), "  any: |", "  default: |", 1) + strings.Replace(cm("first", 2), "{name: first,", "{name: other,", 1) + pod, 3},
	} {
		res := Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{})
		if len(res.Errors) > 0 || len(res.Resources) != 1 {
			t.Fatalf("%s: errors %v resources %d", tc.name, res.Errors, len(res.Resources))
		}
		if got := res.Resources[0].Pod.SharedReplicas; got != tc.want {
			t.Errorf("%s: shared by %d, want %d (notes %q)", tc.name, got, tc.want, res.Resources[0].Notes)
		}
	}
}

// sharedPod checks that the manifests built one pod, each unit of its GPU resource shared by
// replicas pods (0: not shared), with note among its notes, or, when note is "", none that speaks
// of the device plugin. It returns the pod's resource.
func sharedPod(t *testing.T, res parser.Result, replicas int, note string) parser.Resource {
	t.Helper()
	if len(res.Errors) > 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %v, %d resources, want the pod", res.Errors, len(res.Resources))
	}
	r := res.Resources[0]
	if r.Pod.SharedReplicas != replicas {
		t.Errorf("shared by %d, want %d; notes %q", r.Pod.SharedReplicas, replicas, r.Notes)
	}
	notes := strings.Join(r.Notes, "\n")
	if note != "" && !strings.Contains(notes, note) {
		t.Errorf("notes %q\nwant %q", r.Notes, note)
	}
	if note == "" && strings.Contains(notes, "device plugin") {
		t.Errorf("notes %q speak of the device plugin", r.Notes)
	}
	return r
}

// A configuration resolves for each of its node groups the device plugin config its nodes take
// (DevicePluginOnGroups); a pod read elsewhere that runs on the group shares its GPUs so, ahead
// of the configs among its own manifests.
func TestDevicePluginOnGroups(t *testing.T) {
	const configs = `apiVersion: v1
kind: ConfigMap
metadata: {name: plugin-configs, namespace: gpu-operator}
data:
  quarters: |-
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 4
` + partialAndExclusive
	policy := clusterPolicy("quarters")
	group := func(name, config string) NodeGroup {
		g := NodeGroup{Address: "aws_eks_node_group." + name, InstanceType: "g5.xlarge", Provider: parser.AWS, Region: "us-east-1",
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": name}}}
		if config != "" {
			g.Labels[labelPluginConfig] = config
		}
		return g
	}
	groups := []NodeGroup{group("plain", ""), group("some", "some-gpus"), group("exclusive", "exclusive"), group("missing", "nine")}
	resolve := func(manifests string) map[string]*parser.DevicePluginConfig {
		return DevicePluginOnGroups([]*File{Decode("k.yaml", []byte(manifests))}, nil, groups)
	}
	withPolicy := resolve(configs + policy)
	if got := withPolicy["aws_eks_node_group.plain"]; got == nil || got.Replicas["nvidia.com/gpu"] != 4 || got.Strategy != SharingTimeSlicing ||
		got.Source != "ConfigMap gpu-operator/plugin-configs, key quarters" || got.From != "the device plugin's default config in ClusterPolicy cluster-policy" {
		t.Errorf("plain: %+v", got)
	}
	if got := withPolicy["aws_eks_node_group.some"]; got == nil || !got.Partial["nvidia.com/gpu"] || got.From != "which aws_eks_node_group.some labels its nodes with (nvidia.com/device-plugin.config)" {
		t.Errorf("some: %+v", got)
	}
	if got := withPolicy["aws_eks_node_group.exclusive"]; got == nil || len(got.Replicas) != 0 || got.Undecided != nil {
		t.Errorf("exclusive: %+v, want its config, which shares nothing", got)
	}
	if got := withPolicy["aws_eks_node_group.missing"]; got == nil || !slices.Equal(got.Undecided, []string{"exclusive", "quarters", "some-gpus"}) || !got.Shares["nvidia.com/gpu"] {
		t.Errorf("missing: %+v, want the configs undecided", got)
	}
	// Without the ClusterPolicy, nothing names a default among three keys.
	if got := resolve(configs)["aws_eks_node_group.plain"]; got == nil || got.Undecided == nil {
		t.Errorf("plain without a default: %+v, want undecided", got)
	}
	// Configs that share nothing: whichever the nodes take, the group's GPUs are whole.
	exclusive := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nvdp}\ndata:\n  a: 'version: v1\n\n    flags: {migStrategy: none}'\n  b: 'version: v1\n\n    flags: {migStrategy: single}'\n"
	if got := resolve(exclusive)["aws_eks_node_group.plain"]; got == nil || !slices.Equal(got.Undecided, []string{"a", "b"}) || len(got.Shares) != 0 {
		t.Errorf("plain with configs that share nothing: %+v", got)
	}
	if got := resolve("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {a: b}\n"); got != nil {
		t.Errorf("no plugin config: %+v", got)
	}

	// Pods read elsewhere, on those groups (of root infra), beside manifests whose own config
	// would share each GPU 2 ways.
	own := `apiVersion: v1
kind: ConfigMap
metadata: {name: nvdp, namespace: nvidia}
data:
  default: |-
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 2
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {eks.amazonaws.com/nodegroup: %s}
  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	for _, tc := range []struct {
		group    string
		replicas int
		note     string
	}{
		{"plain", 4, "ConfigMap gpu-operator/plugin-configs, key quarters in infra, the device plugin's default config in ClusterPolicy cluster-policy, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)"},
		{"some", 0, "ConfigMap gpu-operator/plugin-configs, key some-gpus in infra, which aws_eks_node_group.some labels its nodes with (nvidia.com/device-plugin.config), shares only some of a node's GPUs (devices): a unit of nvidia.com/gpu may be a whole GPU or 1/8 of one, priced as a whole GPU"},
		{"exclusive", 0, ""},
		{"nothing", 0, ""},
		{"missing", 0, "the NVIDIA device plugin's configs declared with aws_eks_node_group.missing in infra (keys exclusive, quarters, some-gpus) share nvidia.com/gpu on some nodes, but which config its nodes take is not said"},
		{"elsewhere", 2, "ConfigMap nvidia/nvdp, key default, the device plugin's default config, shares each GPU as 2 units"},
	} {
		t.Run(tc.group, func(t *testing.T) {
			gs := []NodeGroup{group("elsewhere", "")}
			gs[0].Root = "infra"
			for _, g := range groups {
				g.Root, g.DevicePlugin = "infra", withPolicy[g.Address]
				gs = append(gs, g)
			}
			g := group("nothing", "")
			g.Root, g.DevicePlugin = "infra", resolve(exclusive)["aws_eks_node_group.plain"]
			gs = append(gs, g)
			sharedPod(t, Build([]*File{Decode("k.yaml", []byte(fmt.Sprintf(own, tc.group)))}, Options{NodeGroups: gs}), tc.replicas, tc.note)
		})
	}
}

// How NVIDIA's device plugin hands a pod several units of a shared GPU is the config's too: its
// failRequestsGreaterThanOne refuses the request (MPS sets it unless the config says false, so
// a node GFD labels as MPS-shared refuses it), and its sharedDevicesAllocationPolicy packs the
// units onto few GPUs instead of spreading them. The pod takes both from the config its nodes
// take, whether its own manifests declare it or its node group's configuration does. A policy
// the plugin does not know is an error at the config's key.
func TestDevicePluginSeveralUnits(t *testing.T) {
	configs := pluginConfigs(`  strict: |-
    version: v1
    sharing:
      timeSlicing:
        failRequestsGreaterThanOne: true
        resources: [{name: nvidia.com/gpu, replicas: 4}]
  packed: |-
    version: v1
    flags:
      plugin: {sharedDevicesAllocationPolicy: packed}
    sharing:
      timeSlicing:
        resources: [{name: nvidia.com/gpu, replicas: 4}]
  distributed: |-
    version: v1
    flags:
      plugin: {sharedDevicesAllocationPolicy: distributed}
    sharing:
      timeSlicing:
        failRequestsGreaterThanOne: false
        resources: [{name: nvidia.com/gpu, replicas: 4}]
  mps: |-
    version: v1
    sharing:
      mps:
        resources: [{name: nvidia.com/gpu, replicas: 2}]
  mps-several: |-
    version: v1
    sharing:
      mps:
        failRequestsGreaterThanOne: false
        resources: [{name: nvidia.com/gpu, replicas: 2}]
`)
	pod := func(selector string) string {
		return "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.12xlarge, " + selector +
			"}\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
	}
	for _, tc := range []struct {
		name            string
		manifests       string
		replicas        int
		oneUnit, packed bool
	}{
		{"time-slicing spreads, and lets a pod take several", configs + pod("nvidia.com/device-plugin.config: spread"), 4, false, false},
		{"failRequestsGreaterThanOne", configs + pod("nvidia.com/device-plugin.config: strict"), 4, true, false},
		{"the packed policy", configs + pod("nvidia.com/device-plugin.config: packed"), 4, false, true},
		{"the distributed policy, said", configs + pod("nvidia.com/device-plugin.config: distributed"), 4, false, false},
		{"MPS refuses several units", configs + pod("nvidia.com/device-plugin.config: mps"), 2, true, false},
		{"unless its config says false", configs + pod("nvidia.com/device-plugin.config: mps-several"), 2, false, false},
		{"GFD's MPS label: the plugin's default", pod("nvidia.com/gpu.replicas: '2', nvidia.com/gpu.sharing-strategy: mps"), 2, true, false},
		{"GFD's time-slicing label", pod("nvidia.com/gpu.replicas: '2', nvidia.com/gpu.sharing-strategy: time-slicing"), 2, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			note := "shares each GPU as"
			if !strings.Contains(tc.manifests, "ConfigMap") {
				note = "the pod selects nvidia.com/gpu.replicas=2"
			}
			r := sharedPod(t, Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{}), tc.replicas, note)
			if r.Pod.SharedOneUnit != tc.oneUnit || r.Pod.SharedPacked != tc.packed {
				t.Errorf("one unit %v, packed %v; want %v, %v", r.Pod.SharedOneUnit, r.Pod.SharedPacked, tc.oneUnit, tc.packed)
			}
		})
	}

	// A node group's configuration resolves the config; a pod read elsewhere on it takes its
	// refusal and its policy.
	groups := []NodeGroup{}
	for _, key := range []string{"strict", "packed"} {
		g := NodeGroup{Address: "aws_eks_node_group." + key, InstanceType: "g5.12xlarge", Provider: parser.AWS, Region: "us-east-1", Root: "infra",
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": key, labelPluginConfig: key}}}
		groups = append(groups, g)
	}
	resolved := DevicePluginOnGroups([]*File{Decode("k.yaml", []byte(configs))}, nil, groups)
	for i := range groups {
		groups[i].DevicePlugin = resolved[groups[i].Address]
	}
	for key, want := range map[string][2]bool{"strict": {true, false}, "packed": {false, true}} {
		manifest := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {eks.amazonaws.com/nodegroup: " + key + "}\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
		r := sharedPod(t, Build([]*File{Decode("p.yaml", []byte(manifest))}, Options{NodeGroups: groups}), 4, "key "+key+" in infra")
		if got := [2]bool{r.Pod.SharedOneUnit, r.Pod.SharedPacked}; got != want {
			t.Errorf("on the %s group: one unit, packed %v, want %v", key, got, want)
		}
	}

	// GKE's sharing refuses a container more than one nvidia.com/gpu, whether the pod selects
	// it or its node pool's labels say so.
	gke := pod("cloud.google.com/gke-max-shared-clients-per-gpu: '3', cloud.google.com/gke-gpu-sharing-strategy: time-sharing")
	if r := sharedPod(t, Build([]*File{Decode("k.yaml", []byte(gke))}, Options{}), 3, ""); !r.Pod.SharedOneUnit {
		t.Errorf("GKE time-sharing selected by the pod: %+v, want one unit a container", r.Pod)
	}
	pool := []NodeGroup{{Address: "google_container_node_pool.mps", InstanceType: "g2-standard-24", Provider: parser.GCP, Region: "us-central1",
		NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "mps", LabelGKESharedClients: "2", LabelGKESharingStrategy: "mps"}}}}
	onPool := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {cloud.google.com/gke-nodepool: mps}\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
	if r := sharedPod(t, Build([]*File{Decode("k.yaml", []byte(onPool))}, Options{NodeGroups: pool}), 2, "shares each GPU between up to 2 containers"); !r.Pod.SharedOneUnit {
		t.Errorf("on a GKE pool whose GPUs MPS shares: %+v, want one unit a container", r.Pod)
	}

	// The device plugin allocates each container's request apart: the largest is what it
	// refuses or not.
	two := strings.Replace(pod("nvidia.com/device-plugin.config: strict"), "containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]",
		"containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}, {name: b, resources: {limits: {nvidia.com/gpu: 1}}}]\n  initContainers: [{name: i, resources: {limits: {nvidia.com/gpu: 1}}}]", 1)
	if r := sharedPod(t, Build([]*File{Decode("k.yaml", []byte(configs+two))}, Options{}), 4, "key strict"); r.Pod.Requested != 2 || r.Pod.LargestContainer != 1 || !r.Pod.SharedOneUnit {
		t.Errorf("two containers of one unit each: %+v, want 2 units, 1 the largest container's", r.Pod)
	}

	bad := strings.Replace(configs, "sharedDevicesAllocationPolicy: packed", "sharedDevicesAllocationPolicy: spread", 1)
	res := Build([]*File{Decode("k.yaml", []byte(bad))}, Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 16 || !strings.Contains(res.Errors[0].Message, `data.packed: the device plugin's sharing config: flags.plugin.sharedDevicesAllocationPolicy is "spread": the device plugin takes distributed or packed`) {
		t.Errorf("errors %v, want one at line 16 naming the policy", res.Errors)
	}
}

// NVIDIA's device plugin time-slices MIG slices as it does whole GPUs: the mixed strategy's
// nvidia.com/mig-<profile> (renamed <resource>.shared too), the single strategy's nvidia.com/gpu
// on nodes whose GPUs are split. A unit is then that share of one slice. MPS does not share MIG
// devices (the plugin refuses it), and GKE's time-sharing of a partitioned pool shares its slices.
func TestMIGSlicesShared(t *testing.T) {
	const configs = `apiVersion: v1
kind: ConfigMap
metadata: {name: plugin-configs, namespace: gpu-operator}
data:
  mixed: |-
    version: v1
    flags: {migStrategy: mixed}
    sharing:
      timeSlicing:
        resources:
        - {name: nvidia.com/mig-1g.10gb, replicas: 2}
        - {name: nvidia.com/mig-3g.40gb, replicas: 3, rename: nvidia.com/mig-3g.40gb.shared}
  single: |-
    version: v1
    flags: {migStrategy: single}
    sharing:
      timeSlicing:
        resources:
        - {name: nvidia.com/gpu, replicas: 4}
  mps: |-
    version: v1
    sharing:
      mps:
        resources:
        - {name: nvidia.com/mig-1g.10gb, replicas: 2}
`
	pod := func(resource, config string) string {
		return configs + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {eks.amazonaws.com/nodegroup: mig, nvidia.com/device-plugin.config: " + config +
			"}\n  containers: [{name: c, resources: {limits: {" + resource + ": 1}}}]\n"
	}
	migGroup := []NodeGroup{{Address: "aws_eks_node_group.mig", InstanceType: "p4de.24xlarge", Provider: parser.AWS, Region: "us-east-1", GPUPartition: "1g.10gb",
		NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": "mig"}}}}
	for _, tc := range []struct {
		name, manifests string
		groups          []NodeGroup
		profile         string
		replicas        int
		strategy        string
		note            string
	}{
		{"the mixed strategy's slice", pod("nvidia.com/mig-1g.10gb", "mixed"), nil, "1g.10gb", 2, SharingTimeSlicing,
			"key mixed, which the pod selects with nvidia.com/device-plugin.config, shares each MIG 1g.10gb slice as 2 units of nvidia.com/mig-1g.10gb (time-slicing)"},
		{"a renamed slice is still the slice", pod("nvidia.com/mig-3g.40gb.shared", "mixed"), nil, "3g.40gb", 3, SharingTimeSlicing,
			"shares each MIG 3g.40gb slice as 3 units of nvidia.com/mig-3g.40gb.shared"},
		{"a slice the config does not share", pod("nvidia.com/mig-2g.20gb", "mixed"), nil, "2g.20gb", 0, "", ""},
		// GFD's nvidia.com/gpu.replicas counts the replicas of nvidia.com/gpu, not of a slice.
		{"GFD's replicas label is nvidia.com/gpu's", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {nvidia.com/gpu.replicas: '4'}\n  containers: [{resources: {limits: {nvidia.com/mig-2g.20gb: 1}}}]\n",
			nil, "2g.20gb", 0, "", ""},
		{"the single strategy's nvidia.com/gpu on split GPUs", pod("nvidia.com/gpu", "single"), migGroup, "1g.10gb", 4, SharingTimeSlicing,
			"shares each MIG 1g.10gb slice as 4 units of nvidia.com/gpu (time-slicing)"},
		{"MPS does not share MIG slices", pod("nvidia.com/mig-1g.10gb", "mps"), nil, "1g.10gb", 0, "",
			"shares nvidia.com/mig-1g.10gb with MPS, which NVIDIA's device plugin refuses for MIG devices (they are shared by time-slicing only): each unit is priced as a whole MIG 1g.10gb slice"},
		{"GKE time-shares a partitioned pool's slices", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {cloud.google.com/gke-nodepool: ts}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n",
			[]NodeGroup{{Address: "google_container_node_pool.ts", InstanceType: "a2-highgpu-1g", Provider: parser.GCP, Region: "us-central1", GPUPartition: "1g.5gb",
				NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "ts", LabelGKESharedClients: "3", LabelGKESharingStrategy: "time-sharing"}}}},
			"1g.5gb", 3, parser.SharingGKETimeSharing, "google_container_node_pool.ts shares each MIG 1g.5gb slice between up to 3 containers (gpu_sharing_config)"},
		{"a pod that selects GKE's partition on a time-shared pool", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {cloud.google.com/gke-nodepool: ts, cloud.google.com/gke-gpu-partition-size: 1g.5gb}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n",
			[]NodeGroup{{Address: "google_container_node_pool.ts", InstanceType: "a2-highgpu-1g", Provider: parser.GCP, Region: "us-central1",
				NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "ts", LabelGKEGPUPartition: "1g.5gb", LabelGKESharedClients: "3", LabelGKESharingStrategy: "time-sharing"}}}},
			"1g.5gb", 3, parser.SharingGKETimeSharing, "shares each MIG 1g.5gb slice between up to 3 containers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sharedPod(t, Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{NodeGroups: tc.groups}), tc.replicas, tc.note)
			if r.Pod.MIGProfile != tc.profile || r.Pod.SharingStrategy != tc.strategy {
				t.Errorf("MIG profile %q, strategy %q; want %q, %q", r.Pod.MIGProfile, r.Pod.SharingStrategy, tc.profile, tc.strategy)
			}
		})
	}
}

// A pod whose nodes carry a MIG layout of the GPU Operator's MIG manager (nvidia.com/mig.config:
// all-<profile>), selected by the pod or put on them by its Karpenter NodePool's template, asks
// for one slice with each nvidia.com/gpu (the single MIG strategy).
// migParted is a ConfigMap of custom MIG layouts, as the GPU Operator's ClusterPolicy names
// one in spec.migManager.config.name.
const migParted = `apiVersion: v1
kind: ConfigMap
metadata: {name: custom-mig, namespace: gpu-operator}
data:
  config.yaml: |
    version: v1
    mig-configs:
      all-1g.10gb:
        - devices: all
          mig-enabled: false
      vllm-3g:
        - devices: all
          mig-enabled: true
          mig-devices: {"3g.40gb": 2}
      small:
        - device-filter: ["0x20B010DE"]
          devices: all
          mig-enabled: true
          mig-devices: {"1g.10gb": 7}
        - device-filter: ["0x20B510DE"]
          devices: all
          mig-enabled: true
          mig-devices: {"1g.10gb": 7}
      mixed-sizes:
        - devices: all
          mig-enabled: true
          mig-devices: {"1g.10gb": 2, "2g.20gb": 2}
      per-model:
        - device-filter: ["0x20B010DE"]
          devices: all
          mig-enabled: true
          mig-devices: {"1g.5gb": 7}
        - device-filter: ["0x20B510DE"]
          devices: all
          mig-enabled: true
          mig-devices: {"1g.10gb": 7}
      some:
        - devices: [0, 1]
          mig-enabled: true
          mig-devices: {"1g.10gb": 7}
      half:
        - devices: [0, 1, 2, 3]
          mig-enabled: false
        - devices: [4, 5, 6, 7]
          mig-enabled: true
          mig-devices: {"1g.10gb": 7}
---
`

// migPod checks the one resource of res, a pod: the MIG slice each unit it asks for is, and a
// note saying why (none that speaks of nvidia.com/mig.config when note is "").
func migPod(t *testing.T, res parser.Result, profile, note string) {
	t.Helper()
	if len(res.Errors) > 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
	}
	r := res.Resources[0]
	notes := strings.Join(r.Notes, "\n")
	if r.Pod.MIGProfile != profile || note != "" && !strings.Contains(notes, note) || note == "" && strings.Contains(notes, "mig.config") {
		t.Errorf("MIG profile %q, notes %q; want %q with %q", r.Pod.MIGProfile, r.Notes, profile, note)
	}
}

func TestMIGManagerLayoutOfPods(t *testing.T) {
	pod := func(selector string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: p4de.24xlarge, " + selector + "}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	const nodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: sliced}
spec:
  template:
    metadata:
      labels: {nvidia.com/mig.config: all-2g.20gb}
    spec:
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [p4de.24xlarge]}
---
`
	for _, tc := range []struct {
		name, manifests, profile, note string
	}{
		{"the pod selects the layout", pod("nvidia.com/mig.config: all-1g.10gb"), "1g.10gb",
			"its nodes are labelled nvidia.com/mig.config=all-1g.10gb: the GPU Operator's MIG manager splits their GPUs into 1g.10gb slices, and each nvidia.com/gpu the pod requests is one"},
		{"its NodePool's template labels the nodes", nodePool + pod("karpenter.sh/nodepool: sliced"), "2g.20gb", "nvidia.com/mig.config=all-2g.20gb"},
		{"a layout of no single slice", pod("nvidia.com/mig.config: all-balanced"), "", "its nodes are labelled nvidia.com/mig.config=all-balanced, which splits each GPU into a mix of slices"},
		{"no layout", pod("team: ml"), "", ""},
		{"a custom layout of one slice", migParted + pod("nvidia.com/mig.config: vllm-3g"), "3g.40gb",
			"splits their GPUs into 3g.40gb slices (as the mig-parted config in ConfigMap gpu-operator/custom-mig (key config.yaml) declares it)"},
		{"a custom layout of one slice on every model", migParted + pod("nvidia.com/mig.config: small"), "1g.10gb", "1g.10gb slices (as the mig-parted config"},
		{"a custom layout in place of a default one", migParted + pod("nvidia.com/mig.config: all-1g.10gb"), "", ""},
		{"a custom layout of two sizes", migParted + pod("nvidia.com/mig.config: mixed-sizes"), "", "with several slice sizes on each GPU"},
		{"a custom layout of a size per model", migParted + pod("nvidia.com/mig.config: per-model"), "", "with a slice size per GPU model"},
		{"a custom layout over two GPUs", migParted + pod("nvidia.com/mig.config: some"), "", "with MIG on some of a node's GPUs only"},
		{"a custom layout over half the GPUs", migParted + pod("nvidia.com/mig.config: half"), "", "with MIG on some of a node's GPUs only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{})
			migPod(t, res, tc.profile, tc.note)
		})
	}
}

// A pod on a node group whose label names a MIG manager layout (the configuration sets
// nvidia.com/mig.config on its nodes) asks for slices of a custom layout among the manifests,
// read there; one the manifests redefine replaces the default config's the group was read with.
// A partition the group declares itself (GKE's gpu_partition_size) is left as it is.
func TestMIGManagerLayoutOfGroups(t *testing.T) {
	group := func(layout, partition string) NodeGroup {
		if partition == "" {
			partition, _ = MIGLayoutSlice(layout) // as the group's own configuration reads it
		}
		return NodeGroup{Address: "aws_eks_node_group.sliced", InstanceType: "p4de.24xlarge", Provider: parser.AWS, Region: "us-east-1", GPUPartition: partition,
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": "sliced", LabelMIGConfig: layout}}}
	}
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {eks.amazonaws.com/nodegroup: sliced}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	for _, tc := range []struct {
		name, manifests string
		group           NodeGroup
		profile, note   string
	}{
		{"a custom layout of one slice", migParted + pod, group("vllm-3g", ""), "3g.40gb",
			"aws_eks_node_group.sliced labels its nodes nvidia.com/mig.config=vllm-3g: the GPU Operator's MIG manager splits their GPUs into 3g.40gb slices (as the mig-parted config in ConfigMap gpu-operator/custom-mig (key config.yaml) declares it)"},
		{"a custom layout not among the manifests", pod, group("vllm-3g", ""), "", ""},
		{"a default layout", pod, group("all-2g.20gb", ""), "2g.20gb", "aws_eks_node_group.sliced splits its GPUs into MIG slices (2g.20gb)"},
		{"a default layout the manifests redefine", migParted + pod, group("all-1g.10gb", ""), "",
			"aws_eks_node_group.sliced labels its nodes nvidia.com/mig.config=all-1g.10gb, which the mig-parted config in ConfigMap gpu-operator/custom-mig (key config.yaml) declares with MIG disabled: the GPUs are whole"},
		{"a custom layout of two sizes", migParted + pod, group("mixed-sizes", ""), "", "with several slice sizes on each GPU: the GPUs are judged whole"},
		{"a partition of the group's own", migParted + pod, group("vllm-3g", "1g.10gb"), "1g.10gb", "(1g.10gb)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{NodeGroups: []NodeGroup{tc.group}})
			migPod(t, res, tc.profile, tc.note)
		})
	}
}

func TestMIGLayoutSlice(t *testing.T) {
	for layout, want := range map[string]struct {
		slice  string
		reason bool // why the GPUs are judged whole
	}{
		"all-1g.10gb": {"1g.10gb", false}, "all-1g.5gb.me": {"1g.5gb", false}, "all-3g.40gb": {"3g.40gb", false}, " all-7g.80gb ": {"7g.80gb", false},
		"all-1g.10gb+me": {"1g.10gb", false}, "all-disabled": {"", false}, "": {"", false},
		"all-enabled": {"", true}, "all-balanced": {"", true}, "all-8g.80gb": {"", true}, "1g.10gb": {"", true}, "all-1g.10gb-custom": {"", true},
	} {
		if slice, why := MIGLayoutSlice(layout); slice != want.slice || (why != "") != want.reason {
			t.Errorf("MIGLayoutSlice(%q) = %q, %q; want %q, a reason %v", layout, slice, why, want.slice, want.reason)
		}
	}
}

// An Argo CD Application's chart directories are read with their Helm settings; settings that
// cannot be read are an error at the Application, at the line of a valuesObject.
func TestGitCharts(t *testing.T) {
	const manifest = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  destination: {namespace: serving}
  source: {repoURL: https://github.com/acme/platform, path: charts/web, helm: {values: "a: 1", valuesObject: {b: 2}, parameters: [{name: c, value: "007", forceString: true}]}}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: remote, namespace: argocd}
spec:
  sources:
  - {repoURL: https://charts.example.com, chart: web, targetRevision: 1.0.0}
  - {repoURL: https://github.com/acme/values, ref: values}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: bad, namespace: argocd}
spec:
  source:
    path: charts/bad
    helm:
      valuesObject: [not, a, map]
`
	charts, errs, _ := GitSources([]*File{Decode("apps.yaml", []byte(manifest))})
	if len(charts) != 1 {
		t.Fatalf("charts %+v, want web's alone", charts)
	}
	c := charts[0]
	if c.Owner != "Application argocd/web" || c.Path != "charts/web" || c.ReleaseName != "web" || c.Namespace != "serving" || len(c.Overrides) != 3 ||
		fmt.Sprint(c.Overrides[0]["a"], c.Overrides[1]["b"]) != "1 2" || c.Overrides[2]["c"] != "007" {
		t.Errorf("chart %+v", c)
	}
	if len(errs) != 1 || errs[0].Line != 23 || !strings.Contains(errs[0].Message, "spec.source.helm.valuesObject") {
		t.Errorf("errors %+v, want one at line 23 naming the valuesObject", errs)
	}
}

// A Flux HelmRelease's Git chart is its inline chart template's, or that of the HelmChart its
// chartRef names (in the chartRef's namespace, else the release's); an OCIRepository chartRef is
// not one. Its values are valuesFrom in order, then values over them. A values document that
// is not one stops the release: an error, and no chart.
func TestFluxGitCharts(t *testing.T) {
	const manifest = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: apps}
spec:
  chartRef: {kind: HelmChart, name: web, namespace: shared}
  valuesFrom:
  - {kind: ConfigMap, name: base}
  - {kind: ConfigMap, name: base, valuesKey: gpus, targetPath: resources.gpus}
  values: {replicas: 5}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: oci, namespace: shared}
spec:
  chartRef: {kind: OCIRepository, name: web}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: bad, namespace: apps}
spec:
  chart: {spec: {chart: charts/web, sourceRef: {kind: GitRepository, name: flux-system}}}
  valuesFrom: [{kind: ConfigMap, name: broken}]
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmChart
metadata: {name: web, namespace: shared}
spec: {chart: charts/web, sourceRef: {kind: GitRepository, name: flux-system}, valuesFiles: [charts/web/prod.yaml]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: base, namespace: apps}
data:
  values.yaml: "replicas: 2\ntype: g5.xlarge\n"
  gpus: "4"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: broken, namespace: apps}
data: {values.yaml: "[not, a, map]"}
`
	charts, errs, warns := GitSources([]*File{Decode("flux.yaml", []byte(manifest))})
	if len(charts) != 1 {
		t.Fatalf("charts %+v, want web's alone", charts)
	}
	c := charts[0]
	if c.Tool != "Flux" || c.Owner != "HelmRelease apps/web" || c.Path != "charts/web" || c.ReleaseName != "web" || c.Namespace != "apps" ||
		!c.ValueFilesAtRoot || fmt.Sprint(c.ValueFiles) != "[{charts/web/prod.yaml  }]" || len(c.Overrides) != 1 ||
		fmt.Sprint(c.Overrides[0]) != "map[replicas:5 resources:map[gpus:4] type:g5.xlarge]" {
		t.Errorf("chart %+v", c)
	}
	if len(errs) != 1 || errs[0].Line != 22 || !strings.Contains(errs[0].Message, "spec.valuesFrom[0]: ConfigMap broken, key values.yaml, is not a values document") {
		t.Errorf("errors %+v, want one at bad's valuesFrom", errs)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %+v", warns)
	}
}

// Flux names a release [targetNamespace-]name and shortens a name longer than Helm's 53
// characters to its first 40, '-' and 12 digits of its SHA-256; spec.releaseName is kept. The
// expected name is Flux's own test case (helm-controller internal/release/name_test.go).
func TestFluxReleaseNames(t *testing.T) {
	release := func(name, spec string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: " + name + ", namespace: apps}\nspec:\n" +
			"  chart: {spec: {chart: charts/web, sourceRef: {kind: GitRepository, name: flux-system}}}\n" + spec + "---\n"
	}
	exact := strings.Repeat("x", 53)
	manifest := release("name-with-very-long-name-which-is-longer-than-53-characters", "  targetNamespace: release\n") +
		release(exact, "") + release("short", "  releaseName: chosen\n")
	charts, errs, _ := GitSources([]*File{Decode("flux.yaml", []byte(manifest))})
	var got []string
	for _, c := range charts {
		got = append(got, c.ReleaseName+" in "+c.Namespace)
	}
	want := []string{"release-name-with-very-long-name-which-i-788ca0d0d7b0 in release", exact + " in apps", "chosen in apps"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(errs) != 0 {
		t.Errorf("release names\n got %q\nwant %q\nerrors %v", got, want, errs)
	}
}

// The GPU Operator's chart makes the MIG manager's ConfigMap from its values when asked to
// (migManager.config.create, with the layouts as text in .data): a release's layouts are read as
// a ConfigMap's, wherever the release is declared, and a ConfigMap among the manifests that
// declares a layout of the same name wins. Data the chart cannot render is an error at the release.
func TestMIGLayoutsOfReleases(t *testing.T) {
	const layouts = "vllm-3g:\n  - devices: all\n    mig-enabled: true\n    mig-devices: {\"3g.40gb\": 2}\nall-2g.20gb:\n  - devices: all\n    mig-enabled: false\n"
	values := func(create bool, data any) map[string]any {
		return map[string]any{"migManager": map[string]any{"config": map[string]any{"create": create, "name": "custom-mig", "data": data}},
			"devicePlugin": map[string]any{"enabled": false}} // layouts are read whether or not the plugin is installed
	}
	release := func(chart string, v map[string]any) ChartRelease {
		return ChartRelease{Chart: chart, Namespace: "gpu-operator", Values: v, Source: "helm_release.gpu_operator", File: "main.tf", Line: 7}
	}
	group := func(layout string) NodeGroup {
		partition, _ := MIGLayoutSlice(layout) // as the group's own configuration reads it
		return NodeGroup{Address: "aws_eks_node_group.sliced", InstanceType: "p4de.24xlarge", Provider: parser.AWS, Region: "us-east-1", GPUPartition: partition,
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": "sliced", LabelMIGConfig: layout}}}
	}
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {eks.amazonaws.com/nodegroup: sliced}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	const fromRelease = "aws_eks_node_group.sliced labels its nodes nvidia.com/mig.config=vllm-3g: the GPU Operator's MIG manager splits their GPUs into 3g.40gb slices (as helm_release.gpu_operator's values (migManager.config.data, ConfigMap gpu-operator/custom-mig) declares it)"
	flux := `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: gpu-operator, namespace: gpu-operator}
spec:
  chart: {spec: {chart: gpu-operator, sourceRef: {kind: HelmRepository, name: nvidia}}}
  values:
    migManager:
      config:
        create: true
        name: flux-mig
        data: |
          vllm-3g:
            - devices: all
              mig-enabled: true
              mig-devices: {"3g.40gb": 2}
---
`
	argo := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: gpu-operator, namespace: argocd}
spec:
  destination: {namespace: gpu-operator}
  source:
    repoURL: https://helm.ngc.nvidia.com/nvidia
    chart: gpu-operator
    targetRevision: v25.3.0
    helm:
      valuesObject:
        migManager: {config: {create: true, name: argo-mig, data: "vllm-3g: [{devices: all, mig-enabled: true, mig-devices: {3g.40gb: 2}}]"}}
---
`
	for _, tc := range []struct {
		name, manifests string
		releases        []ChartRelease
		layout          string
		profile, note   string
	}{
		{"a helm_release's layout", pod, []ChartRelease{release("gpu-operator", values(true, layouts))}, "vllm-3g", "3g.40gb", fromRelease},
		{"a default layout the release redefines", pod, []ChartRelease{release("nvidia/gpu-operator", values(true, layouts))}, "all-2g.20gb", "",
			"which helm_release.gpu_operator's values (migManager.config.data, ConfigMap gpu-operator/custom-mig) declares with MIG disabled: the GPUs are whole"},
		{"values the chart does not render (create is false)", pod, []ChartRelease{release("gpu-operator", values(false, layouts))}, "vllm-3g", "", ""},
		{"another chart's values", pod, []ChartRelease{release("nvidia-device-plugin", values(true, layouts))}, "vllm-3g", "", ""},
		{"a ConfigMap among the manifests wins", migParted + pod, []ChartRelease{release("gpu-operator", values(true, "vllm-3g: [{devices: all, mig-enabled: false}]"))}, "vllm-3g", "3g.40gb",
			"(as the mig-parted config in ConfigMap gpu-operator/custom-mig (key config.yaml) declares it)"},
		{"a Flux HelmRelease", flux + pod, nil, "vllm-3g", "3g.40gb", "(as HelmRelease gpu-operator/gpu-operator's values (migManager.config.data, ConfigMap gpu-operator/flux-mig) declares it)"},
		{"an Argo CD Application", argo + pod, nil, "vllm-3g", "3g.40gb", "(as Application argocd/gpu-operator's values (migManager.config.data, ConfigMap gpu-operator/argo-mig) declares it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := []*File{Decode("k.yaml", []byte(tc.manifests))}
			res := Build(files, Options{NodeGroups: []NodeGroup{group(tc.layout)}, ChartReleases: tc.releases})
			migPod(t, res, tc.profile, tc.note)
			// A node group's own configuration, or a scan for the groups read beside these
			// manifests, reads the same layouts.
			if slice, _, _ := MIGLayoutsOf(files, tc.releases).Slice(tc.layout); slice != tc.profile {
				t.Errorf("MIGLayoutsOf: slice %q, want %q", slice, tc.profile)
			}
		})
	}
	// The group's own configuration read the custom layout (its partition is the layout's slice).
	g := group("vllm-3g")
	g.GPUPartition = "3g.40gb"
	res := Build([]*File{Decode("k.yaml", []byte(pod))}, Options{NodeGroups: []NodeGroup{g}, ChartReleases: []ChartRelease{release("gpu-operator", values(true, layouts))}})
	migPod(t, res, "3g.40gb", fromRelease)

	for _, tc := range []struct {
		name string
		data any
		want string
	}{
		{"a mapping", map[string]any{"vllm-3g": []any{}}, "main.tf:7: helm_release.gpu_operator: migManager.config.data is a mapping, not text: the chart writes it as the text of the layouts under mig-configs"},
		{"text that is not YAML of layouts", "vllm-3g: [devices: all", "main.tf:7: helm_release.gpu_operator: migManager.config.data: the MIG manager's layouts: yaml:"},
	} {
		res := Build([]*File{Decode("k.yaml", []byte(pod))}, Options{NodeGroups: []NodeGroup{group("vllm-3g")}, ChartReleases: []ChartRelease{release("gpu-operator", values(true, tc.data))}})
		if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), tc.want) {
			t.Errorf("%s: errors %v, want one with %q", tc.name, res.Errors, tc.want)
		}
	}
}

// Without a repository (manifests from stdin), an Argo CD Application's value files of NVIDIA's
// charts cannot be read: a warning says the release is read without them. With one, they are
// read from it (the file is the Application's, the path after the ref).
func TestArgoValueFilesWithoutRepository(t *testing.T) {
	const manifests = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: nvdp, namespace: argocd}
spec:
  destination: {namespace: nvidia}
  sources:
  - {repoURL: https://nvidia.github.io/k8s-device-plugin, chart: nvidia-device-plugin, helm: {valueFiles: [$values/nvdp.yaml]}}
  - {repoURL: https://github.com/acme/platform, ref: values}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]
`
	res := Build([]*File{Decode("apps.yaml", []byte(manifests))}, Options{})
	want := "apps.yaml:1: Application/argocd/nvdp: spec.sources[0].helm.valueFiles: $values/nvdp.yaml is not read (no repository is read with the manifests): the values of chart nvidia-device-plugin are read without it"
	if len(res.Warnings) != 1 || res.Warnings[0].Error() != want || res.Resources[0].Pod.SharedReplicas != 0 {
		t.Errorf("warnings %v, shared by %d; want %q and whole GPUs", res.Warnings, res.Resources[0].Pod.SharedReplicas, want)
	}
	repo := fakeRepo{"nvdp.yaml": "config:\n  map:\n    default: |\n      version: v1\n      sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 3}]}}\n"}
	res = Build([]*File{Decode("apps.yaml", []byte(manifests))}, Options{Repository: repo})
	if len(res.Warnings) != 0 || len(res.Errors) != 0 || res.Resources[0].Pod.SharedReplicas != 3 {
		t.Errorf("warnings %v, errors %v, shared by %d; want 3", res.Warnings, res.Errors, res.Resources[0].Pod.SharedReplicas)
	}
}

// A Flux HelmRelease of NVIDIA's chart from a HelmRepository takes its valuesFiles from the
// chart's package, which is not downloaded: a warning says its values are read without them.
func TestFluxValuesFilesOfNVIDIACharts(t *testing.T) {
	release := func(source, files string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp, namespace: nvidia}\nspec:\n" +
			"  chart: {spec: {chart: nvidia-device-plugin, sourceRef: {kind: " + source + ", name: nvdp}" + files + "}}\n" +
			"  values: {config: {map: {default: 'version: v1\n\n    sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}'}}}\n"
	}
	for _, tc := range []struct {
		name, manifest, warn string
	}{
		{"from a HelmRepository", release("HelmRepository", ", valuesFiles: [values-prod.yaml], valuesFile: values-base.yaml"),
			"k.yaml:1: HelmRelease/nvidia/nvdp: spec.chart.spec.valuesFiles: values-base.yaml, values-prod.yaml in the package of chart nvidia-device-plugin, which gpuguard does not download: its values are read without them"},
		{"without value files", release("HelmRepository", ""), ""},
		{"from a GitRepository (rendered with them)", release("GitRepository", ", valuesFiles: [values-prod.yaml]"), ""},
	} {
		const pod = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"
		res := Build([]*File{Decode("k.yaml", []byte(tc.manifest+pod))}, Options{})
		var warns []string
		for _, w := range res.Warnings {
			warns = append(warns, w.Error())
		}
		if tc.warn == "" && len(warns) != 0 || tc.warn != "" && (len(warns) != 1 || warns[0] != tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.name, warns, tc.warn)
		}
		if len(res.Resources) != 1 || res.Resources[0].Pod.SharedReplicas != 2 {
			t.Errorf("%s: %d resources, want the pod shared by 2 (spec.values are read)", tc.name, len(res.Resources))
		}
	}
}

// A Karpenter EC2NodeClass of Bottlerocket nodes configures the NVIDIA device plugin
// Bottlerocket runs through its userData: pods Karpenter places on the NodePools of that class
// share the GPUs as the settings say (ahead of a device plugin config among the manifests), and
// MIG settings make each nvidia.com/gpu the slice named for the instance type's GPU model.
func TestBottlerocketNodeClass(t *testing.T) {
	class := func(ami, userData string) string {
		return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: br}\nspec:\n  " + ami + "\n  role: r\n  userData: |\n    " +
			strings.ReplaceAll(userData, "\n", "\n    ") + "\n---\n"
	}
	pool := func(instanceType string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n" +
			"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: br}\n" +
			"      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [" + instanceType + "]}]\n---\n"
	}
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {karpenter.sh/nodepool: gpu}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	// A device plugin config among the manifests, the default key of a ConfigMap the plugin reads.
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nvdp, namespace: nvidia}\ndata:\n  default: |\n    version: v1\n    sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 8}]}}\n---\n"
	const timeSlicing = "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\n[settings.kubelet-device-plugins.nvidia.time-slicing]\nreplicas = 4\nrename-by-default = false"
	const mig = "[settings.kubelet-device-plugins.nvidia]\ndevice-partitioning-strategy = \"mig\"\nmig.profile = { \"a100.40gb\" = \"1g.5gb\" }"
	for _, tc := range []struct {
		name, manifests string
		replicas        int
		profile, note   string
		err             string
	}{
		{"time-slicing, by the alias", class("amiSelectorTerms: [{alias: bottlerocket@latest}]", timeSlicing) + pool("g5.xlarge") + pod, 4, "",
			"settings.kubelet-device-plugins.nvidia in EC2NodeClass/br's userData, the Bottlerocket settings NodePool/gpu's nodes boot with, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)", ""},
		{"ahead of the manifests' config, by the AMI family", cm + class("amiFamily: Bottlerocket", timeSlicing) + pool("g5.xlarge") + pod, 4, "", "EC2NodeClass/br's userData", ""},
		{"the plugin disabled: the manifests' config shares", cm + class("amiFamily: Bottlerocket", "[settings.kubelet-device-plugins.nvidia]\nenabled = false") + pool("g5.xlarge") + pod, 8, "", "", ""},
		{"not Bottlerocket: userData is not read", cm + class("amiSelectorTerms: [{alias: al2023@latest}]", timeSlicing) + pool("g5.xlarge") + pod, 8, "", "", ""},
		{"MIG", class("amiSelectorTerms: [{alias: bottlerocket@v1.30.0}]", mig) + pool("p4d.24xlarge") + pod, 0, "1g.5gb",
			"settings.kubelet-device-plugins.nvidia in EC2NodeClass/br's userData splits the GPUs of NodePool/gpu's nodes into MIG 1g.5gb slices", ""},
		{"MIG not named for the model", class("amiSelectorTerms: [{alias: bottlerocket@latest}]", mig) + pool("p5.48xlarge") + pod, 0, "",
			"asks for MIG, but mig.profile names no slice for h100.80gb", ""},
		{"settings Bottlerocket refuses", class("amiFamily: Bottlerocket", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = 2") + pool("g5.xlarge") + pod, 0, "", "",
			"k.yaml:1: EC2NodeClass/br: spec.userData: settings.kubelet-device-plugins.nvidia.device-sharing-strategy is 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{})
			if tc.err != "" {
				if len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0].Error(), tc.err) {
					t.Fatalf("errors %v, want %q", res.Errors, tc.err)
				}
				return
			}
			if len(res.Errors) > 0 || len(res.Resources) != 1 {
				t.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
			}
			r := res.Resources[0]
			if r.Pod.SharedReplicas != tc.replicas || r.Pod.MIGProfile != tc.profile || !strings.Contains(strings.Join(r.Notes, "\n"), tc.note) {
				t.Errorf("shared by %d, MIG %q, notes %q; want %d, %q with %q", r.Pod.SharedReplicas, r.Pod.MIGProfile, r.Notes, tc.replicas, tc.profile, tc.note)
			}
		})
	}
}

// A pod that selects GPU feature discovery's -SHARED product, with nothing saying into how many
// units its GPUs are split, is told it is priced as a whole GPU; with nvidia.com/gpu.replicas it
// is priced as the share, and no such note is added.
func TestSharedProductLabel(t *testing.T) {
	pod := func(selector string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector:\n" + selector + "  containers:\n    - {name: c, resources: {limits: {nvidia.com/gpu: 1}}}\n"
	}
	has := func(r parser.Resource) bool {
		for _, n := range r.Notes {
			if strings.Contains(n, "nvidia.com/gpu.product NVIDIA-A10G-SHARED") && strings.Contains(n, "priced as a whole GPU") {
				return true
			}
		}
		return false
	}
	if r := one(t, build(t, pod("    nvidia.com/gpu.product: NVIDIA-A10G-SHARED\n"), Options{})); !has(r) || r.Pod.SharedReplicas != 0 {
		t.Errorf("shared product alone: %d replicas, notes %q", r.Pod.SharedReplicas, r.Notes)
	}
	if r := one(t, build(t, pod("    nvidia.com/gpu.product: NVIDIA-A10G-SHARED\n    nvidia.com/gpu.replicas: \"4\"\n"), Options{})); has(r) || r.Pod.SharedReplicas != 4 {
		t.Errorf("with replicas: %d replicas, notes %q", r.Pod.SharedReplicas, r.Notes)
	}
	if r := one(t, build(t, pod("    nvidia.com/gpu.product: NVIDIA-A10G\n"), Options{})); has(r) {
		t.Errorf("unshared product: notes %q", r.Notes)
	}
}

// GPUs that come through DRA claims are a DRA driver's, not the device plugin's: its time-slicing
// config and GPU feature discovery's sharing labels do not make a unit of them a share, where a
// pod on the same nodes that asks for nvidia.com/gpu by name gets one.
func TestDeviceSharingIsNotForClaimedGPUs(t *testing.T) {
	const claim = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: default}\nspec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n---\n"
	config := pluginConfigs("")
	pod := func(name, selector, resources string) string {
		return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n  nodeSelector: {" + selector +
			"}\n  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n  containers: [{name: c, resources: " + resources + "}]\n"
	}
	const aws = "node.kubernetes.io/instance-type: g5.12xlarge"
	gfd := aws + ", nvidia.com/gpu.replicas: '2', nvidia.com/gpu.sharing-strategy: time-slicing"
	gke := "cloud.google.com/gke-accelerator: nvidia-l4, cloud.google.com/gke-max-shared-clients-per-gpu: '3', cloud.google.com/gke-gpu-sharing-strategy: time-sharing"
	for _, tc := range []struct {
		name      string
		manifests string
		replicas  int
	}{
		{"the plugin's config", config + pod("p", aws, "{claims: [{name: g}]}"), 0},
		{"GFD's labels", pod("p", gfd, "{claims: [{name: g}]}"), 0},
		{"a GPU by name beside the claim", config + pod("p", aws, "{limits: {nvidia.com/gpu: 1}, claims: [{name: g}]}"), 4},
		{"GKE's sharing labels", pod("p", gke, "{claims: [{name: g}]}"), 0},
		{"GKE's sharing labels, a GPU by name", pod("p", gke, "{limits: {nvidia.com/gpu: 1}}"), 3},
		{"GFD's labels, a GPU by name", pod("p", gfd, "{limits: {nvidia.com/gpu: 1}}"), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, build(t, claim+tc.manifests, Options{}))
			if r.Pod.SharedReplicas != tc.replicas || tc.replicas == 0 && strings.Contains(strings.Join(r.Notes, "|"), "units of nvidia.com/gpu") {
				t.Errorf("shared replicas %d, want %d; notes %q", r.Pod.SharedReplicas, tc.replicas, r.Notes)
			}
		})
	}
}

// pluginConfigs is a ConfigMap of NVIDIA device plugin configs that the ClusterPolicy after it
// makes the plugin's: "spread", its default, time-slices each GPU 4 ways; more keys may follow.
func pluginConfigs(more string) string {
	return `apiVersion: v1
kind: ConfigMap
metadata: {name: plugin-configs, namespace: gpu-operator}
data:
  spread: |-
    version: v1
    sharing:
      timeSlicing:
        resources: [{name: nvidia.com/gpu, replicas: 4}]
` + more + "---\n" + `apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: cluster-policy}
spec:
  devicePlugin:
    config: {name: plugin-configs, default: spread}
`
}
