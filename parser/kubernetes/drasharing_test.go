package kubernetes

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A claim's opaque configuration for NVIDIA's driver says how the processes that use its GPUs
// share them: the pod carries it (the tightest, where several of its claims say), from the claim
// or its DeviceClass, the claim's own standing over the class's; a configuration for another
// request or another driver says nothing of the GPUs.
func TestClaimSharingConfig(t *testing.T) {
	const pod = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  resourceClaims: [{name: g, resourceClaimName: c}]\n  containers: [{name: c, resources: {claims: [{name: g}]}}]\n"
	claim := func(class, config string) string {
		return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec:\n  devices:\n    requests: [{name: gpu, exactly: {deviceClassName: " + class + "}}]\n" + config + pod
	}
	opaque := func(requests, driver, sharing string) string {
		return fmt.Sprintf("    config:\n      - requests: [%s]\n        opaque:\n          driver: %s\n          parameters:\n            apiVersion: resource.nvidia.com/v1beta1\n            kind: GpuConfig\n            sharing: %s\n", requests, driver, sharing)
	}
	const classMPS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: mps-8g}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}}]\n  config:\n    - opaque: {driver: gpu.nvidia.com, parameters: {kind: GpuConfig, sharing: {strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 8Gi}}}}\n---\n"
	for _, tc := range []struct {
		name, src string
		want      *parser.ClaimSharing
		note      string
	}{
		{"MPS with limits", claim("gpu.nvidia.com", opaque("gpu", "gpu.nvidia.com", "{strategy: MPS, mpsConfig: {defaultActiveThreadPercentage: 50, defaultPinnedDeviceMemoryLimit: 10Gi}}")),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingMPS, MemoryLimitGiB: 10, ActiveThreadPercent: 50},
			"ResourceClaim/ns/c shares its GPUs through MPS (GpuConfig): each process may use up to 10 GiB of each GPU's memory (defaultPinnedDeviceMemoryLimit) and 50% of its threads (defaultActiveThreadPercentage)"},
		{"a limit in bytes, unquoted", claim("gpu.nvidia.com", opaque("", "gpu.nvidia.com", "{strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 5368709120}}")),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingMPS, MemoryLimitGiB: 5}, ""},
		{"a device's own limit, lower than the default", claim("gpu.nvidia.com", opaque("gpu", "gpu.nvidia.com", `{strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 10Gi, defaultPerDevicePinnedMemoryLimit: {"0": 4Gi, "1": 12Gi}}}`)),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingMPS, MemoryLimitGiB: 4, LimitPerDevice: true},
			"each process may use up to 4 GiB of each GPU's memory (defaultPerDevicePinnedMemoryLimit, the lowest of its devices')"},
		{"MPS without a limit", claim("gpu.nvidia.com", opaque("", "gpu.nvidia.com", "{strategy: MPS}")),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingMPS},
			"ResourceClaim/ns/c shares its GPUs through MPS (GpuConfig) without a memory limit: none of their memory is isolated"},
		{"time-slicing", claim("gpu.nvidia.com", opaque("gpu", "gpu.nvidia.com", "{strategy: TimeSlicing, timeSlicingConfig: {interval: Long}}")),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingTimeSlicing},
			"ResourceClaim/ns/c time-slices its GPUs between the processes that use them (GpuConfig, sharing TimeSlicing)"},
		{"a MIG slice's", claim("mig.nvidia.com", "    config: [{opaque: {driver: gpu.nvidia.com, parameters: {kind: MigDeviceConfig, sharing: {strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 4Gi}}}}}]\n"),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "MigDeviceConfig", Strategy: parser.SharingMPS, MemoryLimitGiB: 4},
			"ResourceClaim/ns/c shares its MIG slices through MPS (MigDeviceConfig): each process may use up to 4 GiB of each MIG slice's memory"},
		{"for another request", claim("gpu.nvidia.com", opaque("nic", "gpu.nvidia.com", "{strategy: MPS}")), nil, ""},
		{"for a subrequest of this one", claim("gpu.nvidia.com", opaque("gpu/big", "gpu.nvidia.com", "{strategy: MPS}")),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingMPS}, ""},
		{"another driver's", claim("gpu.nvidia.com", opaque("", "gpu.example.com", "{strategy: MPS}")), nil, ""},
		{"the DeviceClass's", classMPS + claim("mps-8g", ""),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingMPS, MemoryLimitGiB: 8, From: "DeviceClass mps-8g"},
			"shares its GPUs through MPS (DeviceClass mps-8g's GpuConfig): each process may use up to 8 GiB"},
		{"the claim's over the DeviceClass's", classMPS + claim("mps-8g", opaque("", "gpu.nvidia.com", "{strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 12Gi}}")),
			&parser.ClaimSharing{Claim: "ResourceClaim/ns/c", Kind: "GpuConfig", Strategy: parser.SharingMPS, MemoryLimitGiB: 12}, "(GpuConfig)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			r := one(t, res)
			got := r.Pod.ClaimSharing
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Fatalf("sharing %+v, want %+v", got, tc.want)
			}
			if tc.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q, want one with %q", r.Notes, tc.note)
			}
			if tc.want == nil && slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "MPS") }) {
				t.Errorf("notes %q speak of MPS for a configuration that is not the GPUs'", r.Notes)
			}
		})
	}
}

// A DeviceClass's configuration, read once, is each claim's own copy: two claims for one class
// each name themselves.
func TestClassSharingIsEachClaims(t *testing.T) {
	const class = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: mps}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}}]\n  config: [{opaque: {driver: gpu.nvidia.com, parameters: {sharing: {strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 8Gi}}}}}]\n---\n"
	claimAndPod := func(name string) string {
		return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name + ", namespace: ns}\nspec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: mps}}]}}\n---\n" +
			"apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ns}\nspec:\n  resourceClaims: [{name: g, resourceClaimName: " + name + "}]\n  containers: [{name: c, resources: {claims: [{name: g}]}}]\n---\n"
	}
	res := build(t, class+claimAndPod("a")+claimAndPod("b"), Options{})
	if len(res.Resources) != 2 {
		t.Fatalf("resources %+v, errors %v", res.Resources, res.Errors)
	}
	for _, r := range res.Resources {
		want := "ResourceClaim/ns/" + strings.TrimPrefix(r.Address, "Pod/ns/")
		if s := r.Pod.ClaimSharing; s == nil || s.Claim != want || s.From != "DeviceClass mps" || s.MemoryLimitGiB != 8 {
			t.Errorf("%s: sharing %+v, want %s's, from DeviceClass mps", r.Address, s, want)
		}
	}
}

// Of a pod's claims, the tightest sharing stands: a memory limit over none, a lower one over a
// higher.
func TestClaimSharingTighter(t *testing.T) {
	claim := func(name, sharing string) string {
		return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name + ", namespace: ns}\nspec:\n  devices:\n    requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]\n" +
			"    config: [{opaque: {driver: gpu.nvidia.com, parameters: {sharing: " + sharing + "}}}]\n---\n"
	}
	src := claim("open", "{strategy: MPS}") + claim("held", "{strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 6Gi}}") + claim("loose", "{strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: 12Gi}}") +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  resourceClaims: [{name: a, resourceClaimName: open}, {name: b, resourceClaimName: held}, {name: c, resourceClaimName: loose}]\n  containers: [{name: c, resources: {claims: [{name: a}, {name: b}, {name: c}]}}]\n"
	if r := one(t, build(t, src, Options{})); r.Pod.Requested != 3 || r.Pod.ClaimSharing == nil || r.Pod.ClaimSharing.Claim != "ResourceClaim/ns/held" || r.Pod.ClaimSharing.MemoryLimitGiB != 6 {
		t.Errorf("three claims: %d GPUs, sharing %+v; want 3 under ResourceClaim/ns/held's 6 GiB limit", r.Pod.Requested, r.Pod.ClaimSharing)
	}

	mps := func(limit float64) *parser.ClaimSharing {
		return &parser.ClaimSharing{Strategy: parser.SharingMPS, MemoryLimitGiB: limit}
	}
	ts := &parser.ClaimSharing{Strategy: parser.SharingTimeSlicing}
	for _, tc := range []struct {
		name string
		a, b *parser.ClaimSharing
		want bool
	}{
		{"any over none", ts, nil, true},
		{"none over any", nil, ts, false},
		{"a limit over none", mps(8), mps(0), true},
		{"no limit over one", mps(0), mps(8), false},
		{"the lower limit", mps(4), mps(8), true},
		{"not the higher", mps(8), mps(4), false},
		{"MPS over time-slicing", mps(0), ts, true},
		{"time-slicing over MPS", ts, mps(0), false},
	} {
		if got := tc.a.Tighter(tc.b); got != tc.want {
			t.Errorf("%s: Tighter = %v", tc.name, got)
		}
	}
}

// A configuration that cannot be read is an error at its line, and the claim's GPUs are still
// counted and priced: one bad limit does not make a pod look GPU-less.
func TestBadClaimSharingConfig(t *testing.T) {
	for _, tc := range []struct {
		name, mps string
		line      int
		want      string
	}{
		{"a limit that is not a quantity", "{defaultPinnedDeviceMemoryLimit: lots}", 14, `defaultPinnedDeviceMemoryLimit "lots" is not a memory quantity of at least 1Mi`},
		{"a limit under a MiB", "{defaultPinnedDeviceMemoryLimit: 1Ki}", 14, `"1Ki" is not a memory quantity`},
		{"a device's limit", `{defaultPerDevicePinnedMemoryLimit: {"0": lots}}`, 14, `defaultPerDevicePinnedMemoryLimit[0] "lots"`},
		{"a percentage over 100", "{defaultActiveThreadPercentage: 150}", 14, `defaultActiveThreadPercentage "150" is not a percentage from 1 to 100`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec:\n  devices:\n    requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]\n" +
				"    config:\n      - opaque:\n          driver: gpu.nvidia.com\n          parameters:\n            kind: GpuConfig\n            sharing:\n              strategy: MPS\n              mpsConfig: " + tc.mps + "\n" +
				"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  resourceClaims: [{name: g, resourceClaimName: c}]\n  containers: [{name: c, resources: {claims: [{name: g}]}}]\n"
			res := build(t, src, Options{})
			if len(res.Errors) != 1 || res.Errors[0].Line != tc.line || !strings.Contains(res.Errors[0].Message, tc.want) || !strings.HasPrefix(res.Errors[0].Message, "ResourceClaim/ns/c: ") {
				t.Fatalf("errors %+v, want one at line %d with %q", res.Errors, tc.line, tc.want)
			}
			r := one(t, res)
			if r.Pod.Requested != 1 || r.Pod.ClaimSharing == nil || r.Pod.ClaimSharing.Strategy != parser.SharingMPS || r.Pod.ClaimSharing.MemoryLimitGiB != 0 {
				t.Errorf("pod %+v, sharing %+v: want its GPU counted, under MPS without the unread limit", r.Pod, r.Pod.ClaimSharing)
			}
		})
	}
	// A config for all of a claim's requests is one error, not one for each request.
	two := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec:\n  devices:\n    requests: [{name: a, exactly: {deviceClassName: gpu.nvidia.com}}, {name: b, exactly: {deviceClassName: gpu.nvidia.com}}]\n" +
		"    config: [{opaque: {driver: gpu.nvidia.com, parameters: {sharing: {strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: lots}}}}}]\n"
	if res := build(t, two, Options{}); len(res.Errors) != 1 || res.Errors[0].Line != 7 {
		t.Errorf("two requests: errors %+v, want one at line 7", res.Errors)
	}
	// A DeviceClass's bad configuration is its own file's error, not each claim's.
	src := "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: k}\nspec:\n  config:\n    - opaque: {driver: gpu.nvidia.com, parameters: {sharing: {strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: lots}}}}\n"
	res := Parse("class.yaml", []byte(src), Options{})
	if len(res.Errors) != 1 || res.Errors[0].File != "class.yaml" || res.Errors[0].Line != 6 || !strings.HasPrefix(res.Errors[0].Message, "DeviceClass/k: ") {
		t.Errorf("errors %+v, want one at class.yaml:6", res.Errors)
	}
}
