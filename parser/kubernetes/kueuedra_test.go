package kubernetes

import (
	"strings"
	"testing"
)

// draJob is kueueJob's Job of pods pods queued on q, whose pods take their GPUs through a claim
// made from the ResourceClaimTemplate kq/t instead of a device plugin's limit; the template's
// one request is given (name g).
func draJob(pods, request string) string {
	job := kueueJob(pods, "0", "      resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n")
	return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: kq}\nspec: {spec: {devices: {requests: [{name: g, " + request + "}]}}}\n---\n" +
		strings.Replace(job, "limits: {nvidia.com/gpu: 0}", "claims: [{name: g}]", 1)
}

// Kueue counts a pod's DRA devices against the queue's quota as the logical resource its
// configuration maps their DeviceClass to (deviceClassMappings), so a workload whose devices
// the first flavor cannot hold takes the next; it never admits one with a request it cannot
// count.
func TestKueueDRA(t *testing.T) {
	mapping := func(classes, gates string) string {
		return kueueConfigMap(gates + "    resources:\n      deviceClassMappings:\n        - {name: example.com/gpu, deviceClassNames: [" + classes + "]}\n")
	}
	// train's GPU group covers the logical resource: a100 holds 8 of it, h100-spot 64.
	queue := strings.ReplaceAll(kueueQueue("8", "64", ""), "nvidia.com/gpu", "example.com/gpu")
	eight := "exactly: {deviceClassName: gpu.nvidia.com, count: 8}"
	if job := draJob("1", eight); strings.Contains(job, "nvidia.com/gpu") || !strings.Contains(job, "claims: [{name: g}]") {
		t.Fatalf("the Job asks for GPUs other than through its claim:\n%s", job)
	}
	counted := "Kueue counts each pod's DRA devices against the queue's quota as 8 example.com/gpu (resources.deviceClassMappings of Kueue's configuration (m.yaml:5"
	refused := func(why string) string {
		return "Kueue never admits it: ResourceClaimTemplate/kq/t's request \"g\" " + why + ", so Kueue cannot count it against the queue's quota"
	}
	for _, c := range []struct {
		name, src     string
		typ           string // "" where Kueue never admits the pods
		note, warning string
	}{
		{"one pod: the first flavor", mapping("gpu.nvidia.com", "") + kueueFlavors + queue + draJob("1", eight), "p4d.24xlarge", counted, ""},
		{"two pods: 16 devices take the next flavor", mapping("gpu.nvidia.com", "") + kueueFlavors + queue + draJob("2", eight), "p5.48xlarge", counted, ""},
		{"a request of the older API, its class beside its count", mapping("gpu.nvidia.com", "") + kueueFlavors + queue + draJob("2", "deviceClassName: gpu.nvidia.com, count: 8"), "p5.48xlarge", counted, ""},
		{"firstAvailable under the prioritized-list gate", mapping("gpu.nvidia.com", "    featureGates: {KueueDRAIntegrationPrioritizedList: true}\n") + kueueFlavors + queue +
			draJob("2", "firstAvailable: [{name: a, deviceClassName: gpu.nvidia.com, count: 8}]"), "p5.48xlarge", counted, ""},
		{"allocationMode All", mapping("gpu.nvidia.com", "") + kueueFlavors + queue + draJob("1", "exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All}"), "", "",
			refused("asks for allocationMode All")},
		{"a class no mapping names", mapping("mig.nvidia.com", "") + kueueFlavors + queue + draJob("1", eight), "", "",
			refused("asks for device class gpu.nvidia.com, which no deviceClassMappings entry names")},
		{"firstAvailable without the gate", mapping("gpu.nvidia.com", "") + kueueFlavors + queue + draJob("1", "firstAvailable: [{name: a, deviceClassName: gpu.nvidia.com, count: 8}]"), "", "",
			refused("uses firstAvailable, which Kueue counts only with its KueueDRAIntegrationPrioritizedList gate on")},
		{"alternatives of different counts", mapping("gpu.nvidia.com", "    featureGates: {KueueDRAIntegrationPrioritizedList: true}\n") + kueueFlavors + queue +
			draJob("1", "firstAvailable: [{name: a, deviceClassName: gpu.nvidia.com, count: 8}, {name: b, deviceClassName: gpu.nvidia.com, count: 4}]"), "", "",
			refused("has alternatives of different resources or counts")},
	} {
		checkQueued(t, c.name, c.src, c.typ, c.note, c.warning)
	}
	// With the integration's gate off the mapping counts nothing, nor does an admin-access
	// request: the pods take no GPU quota, and get the CPU group's flavor alone.
	for name, src := range map[string]string{
		"gate off":     mapping("gpu.nvidia.com", "    featureGates: {KueueDRAIntegration: false}\n") + kueueFlavors + queue + draJob("2", eight),
		"admin access": mapping("gpu.nvidia.com", "") + kueueFlavors + queue + draJob("2", "exactly: {deviceClassName: gpu.nvidia.com, count: 8, adminAccess: true}"),
	} {
		res := build(t, src, Options{})
		notes := ""
		if len(res.Resources) == 1 {
			notes = strings.Join(res.Resources[0].Notes, "\n")
		}
		if !strings.HasSuffix(notes, "ClusterQueue train → ResourceFlavor plain") || strings.Contains(notes, "against the queue's quota") {
			t.Errorf("%s: notes %q, want the plain flavor alone", name, notes)
		}
	}
}
