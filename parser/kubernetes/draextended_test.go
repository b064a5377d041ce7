package kubernetes

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A container may ask for a DeviceClass's devices by an extended resource name (KEP-5004): the
// class's implicit deviceclass.resource.kubernetes.io/<class>, or its extendedResourceName. Such
// a pod has GPUs of its own claim, chosen by the class's selectors and shared as its
// configuration says; a name a device plugin serves is counted once; another driver's devices
// are not GPUs.
func TestDRAExtendedResources(t *testing.T) {
	const h100 = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: h100}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\" && device.attributes[\"gpu.nvidia.com\"].productName == \"NVIDIA H100 80GB HBM3\"'}}]\n  extendedResourceName: example.com/h100\n---\n"
	const nic = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: sriov-nic}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"sriovnetwork.k8snetworkplumbingwg.io\"'}}]\n---\n"
	const mps = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu-mps}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}}]\n  config: [{opaque: {driver: gpu.nvidia.com, parameters: {kind: GpuConfig, sharing: {strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 6Gi}}}}}]\n---\n"
	const mig = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: mig-1g}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\" && device.attributes[\"gpu.nvidia.com\"].profile == \"1g.10gb\"'}}]\n---\n"
	const ngpu = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu-migration}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}}]\n  extendedResourceName: nvidia.com/gpu\n---\n"
	pod := func(limits string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers:\n    - name: vllm\n      image: vllm/vllm-openai:v0.10.1\n      args: [--model, Qwen/Qwen2.5-1.5B-Instruct]\n      resources: {limits: {" + limits + "}}\n"
	}
	for _, tc := range []struct {
		name, src string
		resource  string // "" for no GPU pod
		count     int64
		gpuNames  []string
		sharing   *parser.ClaimSharing
		note      string
	}{
		{"the implicit name of NVIDIA's class, not among the files", pod("deviceclass.resource.kubernetes.io/gpu.nvidia.com: 2"), ResourceNvidiaGPU, 2, nil, nil,
			"2 GPUs through DRA: extended resource deviceclass.resource.kubernetes.io/gpu.nvidia.com of DeviceClass gpu.nvidia.com, a claim of the pod's own that the scheduler makes"},
		{"a class's extendedResourceName: its selectors choose the GPU", h100 + pod("example.com/h100: 8"), ResourceNvidiaGPU, 8, []string{"NVIDIA H100 80GB HBM3"}, nil,
			"extended resource example.com/h100 of DeviceClass h100"},
		{"the implicit name of a class with an extendedResourceName", h100 + pod(`"deviceclass.resource.kubernetes.io/h100": 1`), ResourceNvidiaGPU, 1, []string{"NVIDIA H100 80GB HBM3"}, nil, ""},
		{"the class's MPS configuration", mps + pod("deviceclass.resource.kubernetes.io/gpu-mps: 1"), ResourceNvidiaGPU, 1, nil,
			&parser.ClaimSharing{Claim: "DeviceClass gpu-mps", Kind: "GpuConfig", From: "DeviceClass gpu-mps", Strategy: parser.SharingMPS, MemoryLimitGiB: 6},
			"the claim shares its GPUs through MPS (DeviceClass gpu-mps's GpuConfig): each process may use up to 6 GiB"},
		{"a MIG class's profile", mig + pod("deviceclass.resource.kubernetes.io/mig-1g: 1"), ResourceNvidiaMIG + "1g.10gb", 1, nil, nil, "1 MIG 1g.10gb slice through DRA"},
		{"nvidia.com/gpu, served by a class: counted once", ngpu + pod("nvidia.com/gpu: 1"), ResourceNvidiaGPU, 1, nil, nil, ""},
		{"another driver's devices", nic + pod("deviceclass.resource.kubernetes.io/sriov-nic: 2"), "", 0, nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			if tc.resource == "" {
				if len(res.Resources) != 0 {
					t.Fatalf("resources %+v, want none", res.Resources)
				}
				return
			}
			r := one(t, res)
			if r.Pod.Resource != tc.resource || r.Pod.Requested != tc.count || !slices.Equal(r.Pod.GPUNames, tc.gpuNames) {
				t.Errorf("pod %s × %d on %q, want %s × %d on %q", r.Pod.Resource, r.Pod.Requested, r.Pod.GPUNames, tc.resource, tc.count, tc.gpuNames)
			}
			if got := r.Pod.ClaimSharing; (got == nil) != (tc.sharing == nil) || got != nil && *got != *tc.sharing {
				t.Errorf("sharing %+v, want %+v", got, tc.sharing)
			}
			if tc.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q, want one with %q", r.Notes, tc.note)
			}
			dra := !strings.Contains(tc.name, "counted once") // nvidia.com/gpu is the device plugin's
			if r.Pod.ClaimedOnly != dra {
				t.Errorf("claimed only %v, want %v: a DRA driver allocates them, no device plugin", r.Pod.ClaimedOnly, dra)
			}
			if r.Pod.Serving == nil || r.Pod.Serving.Container != "vllm" {
				t.Errorf("serving %+v: the container asking for the GPUs runs vLLM", r.Pod.Serving)
			}
		})
	}
}

// An init container's request is the pod's when it is the larger (effectiveRequest), and a
// quantity that is not a whole number is an error at its line, the others still read.
func TestDRAExtendedResourceRequests(t *testing.T) {
	const src = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  initContainers:
    - name: warm
      resources: {limits: {deviceclass.resource.kubernetes.io/gpu.nvidia.com: 4}}
  containers:
    - name: a
      resources: {limits: {deviceclass.resource.kubernetes.io/gpu.nvidia.com: 2}}
    - name: b
      resources: {requests: {deviceclass.resource.kubernetes.io/gpu.nvidia.com: "0.5"}}
`
	res := build(t, src, Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 12 || !strings.Contains(res.Errors[0].Message, `container "b": deviceclass.resource.kubernetes.io/gpu.nvidia.com: quantity "0.5" is not a whole number`) {
		t.Errorf("errors %+v, want one at line 12", res.Errors)
	}
	if r := one(t, res); r.Pod.Requested != 4 {
		t.Errorf("requested %d, want 4: the init container's 4 over the app containers' 2", r.Pod.Requested)
	}

	// Two classes that give the same extendedResourceName: the one whose name sorts first (the
	// API picks the newer, which files do not say), whichever file order.
	class := func(name, product string) string {
		return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " + name + "}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\" && device.attributes[\"gpu.nvidia.com\"].productName == \"" + product + "\"'}}]\n  extendedResourceName: example.com/gpu\n---\n"
	}
	const p = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers: [{name: a, resources: {limits: {example.com/gpu: 1}}}]\n"
	for _, src := range []string{class("b-h100", "NVIDIA H100 80GB HBM3") + class("a-l4", "NVIDIA L4") + p, class("a-l4", "NVIDIA L4") + class("b-h100", "NVIDIA H100 80GB HBM3") + p} {
		if r := one(t, build(t, src, Options{})); !slices.Equal(r.Pod.GPUNames, []string{"NVIDIA L4"}) {
			t.Errorf("two classes for example.com/gpu: GPUs %q, want a-l4's NVIDIA L4", r.Pod.GPUNames)
		}
	}

	// A kind gpuguard does not read that asks for GPUs by a class's implicit name is a warning.
	res = build(t, "apiVersion: example.com/v1\nkind: Trainer\nmetadata: {name: t, namespace: ml}\nspec:\n  worker:\n    resources: {limits: {deviceclass.resource.kubernetes.io/gpu.nvidia.com: 4}}\n", Options{})
	if len(res.Warnings) != 1 || res.Warnings[0].Line != 6 || !strings.Contains(res.Warnings[0].Message, "requests deviceclass.resource.kubernetes.io/gpu.nvidia.com, but gpuguard does not know how this kind runs its pods") {
		t.Errorf("warnings %+v", res.Warnings)
	}
}
