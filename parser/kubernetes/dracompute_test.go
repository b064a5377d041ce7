package kubernetes

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// The shapes of a selector on NVIDIA's cudaComputeCapability that gpuguard reads, as the range
// of capabilities they allow, and those it leaves unread rather than guess.
func TestReadComputeCapability(t *testing.T) {
	const cc = `device.attributes["gpu.nvidia.com"].cudaComputeCapability`
	for _, tc := range []struct {
		expr, want, unread string // want: the range read, "" for none
	}{
		{cc + `.isGreaterThan(semver("8.0.0"))`, "> 8.0", ""},
		{cc + `.isLessThan(semver("9.0.0"))`, "< 9.0", ""},
		{`!` + cc + `.isLessThan(semver("8.9.0"))`, "≥ 8.9", ""},
		{`! ` + cc + `.isGreaterThan(semver("8.6.0"))`, "≤ 8.6", ""},
		{`semver("8.0.0").isLessThan(` + cc + `)`, "> 8.0", ""},
		{`!semver("9.0.0").isGreaterThan(` + cc + `)`, "≥ 9.0", ""},
		{cc + `.compareTo(semver("8.6.0")) >= 0`, "≥ 8.6", ""},
		{cc + `.compareTo(semver("8.6.0")) > 0`, "> 8.6", ""},
		{cc + `.compareTo(semver("8.6.0")) == 1`, "> 8.6", ""},
		{cc + `.compareTo(semver("9.0.0")) < 0`, "< 9.0", ""},
		{cc + `.compareTo(semver("9.0.0")) <= 0`, "≤ 9.0", ""},
		{cc + `.compareTo(semver("9.0.0")) == -1`, "< 9.0", ""},
		{cc + `.compareTo(semver("9.0.0")) > -1`, "≥ 9.0", ""},
		{cc + `.compareTo(semver("9.0.0")) == 0`, "= 9.0", ""},
		{cc + ` == semver("9.0.0")`, "= 9.0", ""},
		{cc + ` == semver("9.0", true)`, "= 9.0", ""},
		// A patch lies between capabilities the driver writes as major.minor.0.
		{cc + `.compareTo(semver("8.0.1")) >= 0`, "> 8.0", ""},
		{cc + `.isLessThan(semver("8.0.1"))`, "≤ 8.0", ""},
		{cc + `.major() >= 8`, "≥ 8.0", ""},
		{cc + `.major() > 8`, "≥ 9.0", ""},
		{cc + `.major() < 9`, "< 9.0", ""},
		{cc + `.major() <= 8`, "< 9.0", ""},
		{cc + `.major() == 8`, "≥ 8.0 and < 9.0", ""},
		// Terms joined by && narrow together, with the other attributes'.
		{`!` + cc + `.isLessThan(semver("8.0.0")) && ` + cc + `.isLessThan(semver("9.0.0"))`, "≥ 8.0 and < 9.0", ""},
		{cc + `.major() >= 8 && ` + cc + `.compareTo(semver("8.6.0")) >= 0`, "≥ 8.6", ""},
		{`device.driver == "gpu.nvidia.com" && ` + cc + `.isGreaterThan(semver("7.5.0"))`, "> 7.5", ""},
		// What is not read.
		{cc + `.compareTo(semver("9.0.0")) != 0`, "", "a cudaComputeCapability term of another shape"},
		{cc + `.compareTo(semver("9.0.0")) > 1`, "", "always or never true"},
		{cc + `.isGreaterThan(semver("nine"))`, "", `compared with "nine", not a version`},
		{cc + `.minor() >= 6`, "", "a cudaComputeCapability term of another shape"},
		{cc + `.major() > 9223372036854775807`, "", "not a compute capability"},
		{cc + `.major() >= 99999999999999999999`, "", "not a compute capability"},
		{cc + ` == semver("99999999999999999999.0.0")`, "", "not a version"},
		{cc + `.isLessThan(semver("-1.0.0"))`, "", "not a version"},
		{cc + `.isGreaterThan(semver("8.0.0")) || ` + cc + `.isLessThan(semver("7.0.0"))`, "", "an || with other terms"},
		{`!(` + cc + `.isLessThan(semver("8.0.0")))`, "", "a negation"},
		{`device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("550.0.0"))`, "", ""},
	} {
		s := readCEL(tc.expr)
		got := ""
		if s.compute != nil {
			got = s.compute.String()
		}
		if got != tc.want {
			t.Errorf("%s: range %q, want %q", tc.expr, got, tc.want)
		}
		if u := strings.Join(s.unread, "|"); tc.unread == "" && u != "" || !strings.Contains(u, tc.unread) {
			t.Errorf("%s: unread %q, want %q", tc.expr, u, tc.unread)
		}
	}
}

// Any selector text reads without a panic; a range is read only from a cudaComputeCapability
// term, and one read has an end.
func FuzzReadCEL(f *testing.F) {
	const cc = `device.attributes["gpu.nvidia.com"].cudaComputeCapability`
	for _, s := range []string{
		`!` + cc + `.isLessThan(semver("8.9.0")) && ` + cc + `.major() == 8`,
		cc + `.compareTo(semver("9.0.1", true)) >= -1 || device.attributes["gpu.nvidia.com"].productName == "NVIDIA L4"`,
		`semver("8.0").isGreaterThan(` + cc + `) && device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`,
		cc + ` == semver("99999999999999999999.0.0")`,
		cc + `.major() > 9223372036854775807`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s := readCEL(expr)
		if s.compute == nil {
			return
		}
		if !strings.Contains(expr, "cudaComputeCapability") {
			t.Fatalf("%q: a compute capability range %s from no such term", expr, s.compute)
		}
		if s.compute.Min == nil && s.compute.Max == nil {
			t.Fatalf("%q: a range with no end", expr)
		}
		for _, b := range []*parser.ComputeBound{s.compute.Min, s.compute.Max} {
			if b != nil && (b.Major < 0 || b.Minor < 0) {
				t.Fatalf("%q: a bound of %s, no compute capability", expr, b.Capability)
			}
		}
	})
}

// A pod's compute floor is its claims' lower bound or GPU feature discovery's compute.major on its
// labels, or the least capability of the architectures its gpu.family label or its claims'
// architecture allow, the highest of them, wherever the pod runs (a pinned type too): an upper
// bound alone sets none, nor does an architecture gpuguard does not know.
func TestComputeFloor(t *testing.T) {
	const cc = `device.attributes["gpu.nvidia.com"].cudaComputeCapability`
	src := func(expr, labels, affinity string) string {
		tmpl := ""
		claims, uses := "", ""
		if expr != "" {
			tmpl = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\nspec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com, selectors: [{cel: {expression: '" + expr + "'}}]}}]}}}\n---\n"
			claims, uses = "  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n", "claims: [{name: g}]"
		} else {
			uses = "limits: {nvidia.com/gpu: 1}"
		}
		if affinity != "" {
			affinity = "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [" + affinity + "]}]}}}\n"
		}
		return tmpl + "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeSelector: {" + labels + "}\n" + affinity + claims + "  containers: [{name: c, resources: {" + uses + "}}]\n"
	}
	for _, tc := range []struct {
		name, expr, labels, affinity, want string // want: "" for no floor
	}{
		{"claim", `!` + cc + `.isLessThan(semver("8.9.0"))`, "", "", "≥ 8.9"},
		{"claim above", cc + `.isGreaterThan(semver("8.6.0"))`, "", "", "> 8.6"},
		{"claim on a pinned type", `!` + cc + `.isLessThan(semver("9.0.0"))`, "node.kubernetes.io/instance-type: p5.4xlarge", "", "≥ 9.0"},
		{"claim's upper bound", cc + `.isLessThan(semver("9.0.0"))`, "", "", ""},
		{"label Gt", "", "", `{key: nvidia.com/gpu.compute.major, operator: Gt, values: ["7"]}`, "≥ 8.0"},
		{"label In", "", "", `{key: nvidia.com/gpu.compute.major, operator: In, values: ["9", "8"]}`, "≥ 8.0"},
		{"label value", "", "nvidia.com/gpu.compute.major: \"9\"", "", "≥ 9.0"},
		{"label In and Gt", "", "", `{key: nvidia.com/gpu.compute.major, operator: In, values: ["7", "9"]}, {key: nvidia.com/gpu.compute.major, operator: Gt, values: ["7"]}`, "≥ 9.0"},
		{"label Lt", "", "", `{key: nvidia.com/gpu.compute.major, operator: Lt, values: ["9"]}`, ""},
		{"the label's is higher", cc + `.compareTo(semver("8.6.0")) >= 0`, "", `{key: nvidia.com/gpu.compute.major, operator: Gt, values: ["8"]}`, "≥ 9.0"},
		{"the claim's is higher", cc + `.compareTo(semver("8.6.0")) >= 0`, "", `{key: nvidia.com/gpu.compute.major, operator: Gt, values: ["7"]}`, "≥ 8.6"},
		// GPU feature discovery's gpu.family: the least capability of the architectures allowed.
		{"family", "", "nvidia.com/gpu.family: hopper", "", "≥ 9.0"},
		{"families In", "", "", `{key: nvidia.com/gpu.family, operator: In, values: ["hopper", "ada-lovelace", "blackwell"]}`, "≥ 8.9"},
		{"family NotIn", "", "", `{key: nvidia.com/gpu.family, operator: NotIn, values: ["volta", "turing"]}`, ""},
		{"a family gpuguard does not know", "", "", `{key: nvidia.com/gpu.family, operator: In, values: ["hopper", "kepler"]}`, ""},
		{"the family's is higher", "", "nvidia.com/gpu.family: blackwell", `{key: nvidia.com/gpu.compute.major, operator: Gt, values: ["7"]}`, "≥ 10.0"},
		{"the label's major is higher", "", "nvidia.com/gpu.family: turing", `{key: nvidia.com/gpu.compute.major, operator: Gt, values: ["7"]}`, "≥ 8.0"},
		{"the claim's capability is higher than the family's", `!` + cc + `.isLessThan(semver("9.0.0"))`, "", `{key: nvidia.com/gpu.family, operator: In, values: ["ada-lovelace", "hopper"]}`, "≥ 9.0"},
		{"claim architecture", `device.attributes["gpu.nvidia.com"].architecture == "Ada Lovelace"`, "", "", "≥ 8.9"},
		{"claim architecture and a lower capability", `device.attributes["gpu.nvidia.com"].architecture == "Hopper" && ` + cc + `.compareTo(semver("8.0.0")) >= 0`, "", "", "≥ 9.0"},
	} {
		r := one(t, build(t, src(tc.expr, tc.labels, tc.affinity), Options{}))
		got := ""
		if f := r.Pod.GPUComputeFloor; f != nil {
			got = parser.ComputeRange{Min: f}.String()
		}
		if got != tc.want {
			t.Errorf("%s: floor %q, want %q", tc.name, got, tc.want)
		}
	}
}
