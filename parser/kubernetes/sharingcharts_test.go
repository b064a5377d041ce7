package kubernetes

import (
	"encoding/base64"
	"strings"
	"testing"
)

// The device plugin's sharing configs set through the values of a release of NVIDIA's charts
// (a Flux HelmRelease, an Argo CD Application, a release declared outside the manifests) apply
// to the pods as a ConfigMap's do: the chart's own default and fallback rules pick the config of
// nodes without the label, and a release of any other chart is not read.
func TestDevicePluginChartReleases(t *testing.T) {
	config := func(strategy string, replicas string) string {
		return "version: v1\nsharing:\n  " + strategy + ":\n    resources:\n    - name: nvidia.com/gpu\n      replicas: " + replicas + "\n"
	}
	indent := func(s, by string) string {
		return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by)
	}
	flux := func(chart, values string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp, namespace: nvidia}\nspec:\n  chart:\n    spec: {chart: " + chart +
			", sourceRef: {kind: HelmRepository, name: nvdp}}\n  values:\n" + indent(values, "    ") + "\n---\n"
	}
	configMap := func(files map[string]string, extra string) string {
		v := "config:\n" + extra + "  map:\n"
		for _, k := range []string{"default", "ts", "mps"} {
			if f, ok := files[k]; ok {
				v += "    " + k + ": |\n" + indent(f, "      ") + "\n"
			}
		}
		return v
	}
	pod := func(selector string) string {
		sel := "node.kubernetes.io/instance-type: g5.xlarge"
		if selector != "" {
			sel += ", " + selector
		}
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {" + sel + "}\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	argo := func(source string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: gpu-operator, namespace: argocd}\nspec:\n  destination: {namespace: gpu-operator}\n" + source + "---\n"
	}
	operatorValues := "devicePlugin:\n  config:\n    create: true\n    name: time-slicing\n    default: any\n    data:\n      any: |\n" + indent(config("timeSlicing", "3"), "        ") + "\n"
	timeSlicingConfigMap := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: time-slicing-config, namespace: gpu-operator}\ndata:\n  a100: |\n" + indent(config("timeSlicing", "7"), "    ") + "\n---\n"
	for _, tc := range []struct {
		name      string
		manifests string
		releases  []ChartRelease
		want      int
		note      string
	}{
		{"the device plugin chart's only config", flux("nvidia-device-plugin", configMap(map[string]string{"ts": config("timeSlicing", "4")}, "")) + pod(""), nil, 4,
			"HelmRelease nvidia/nvdp's values (config.map, key ts), the device plugin's default config, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)"},
		{"the key named default among several", flux("nvidia-device-plugin", configMap(map[string]string{"default": config("timeSlicing", "2"), "mps": config("mps", "4")}, "")) + pod(""), nil, 2, "key default"},
		{"the label picks another", flux("nvidia-device-plugin", configMap(map[string]string{"default": config("timeSlicing", "2"), "mps": config("mps", "4")}, "")) + pod("nvidia.com/device-plugin.config: mps"), nil, 4, "(mps)"},
		{"config.default", flux("nvidia-device-plugin", configMap(map[string]string{"ts": config("timeSlicing", "2"), "mps": config("mps", "4")}, "  default: mps\n")) + pod(""), nil, 4, "key mps"},
		{"several configs and no default", flux("nvidia-device-plugin", configMap(map[string]string{"ts": config("timeSlicing", "2"), "mps": config("mps", "4")}, "")) + pod(""), nil, 0, "which config this pod's nodes take is not said"},
		// With only the "named" strategy, a single config is not everyone's default.
		{"fallback strategies the chart is given", flux("nvidia-device-plugin", configMap(map[string]string{"ts": config("timeSlicing", "4")}, "  fallbackStrategies: [named]\n")) + pod(""), nil, 0, "which config this pod's nodes take is not said"},
		{"the plugin disabled", flux("nvidia-device-plugin", configMap(map[string]string{"ts": config("timeSlicing", "4")}, "")+"devicePlugin: {enabled: false}\n") + pod(""), nil, 0, ""},
		{"another chart's values", flux("my-inference", configMap(map[string]string{"ts": config("timeSlicing", "4")}, "")) + pod(""), nil, 0, ""},
		// The chart's ConfigMap is the one it reads: a manifest's ConfigMap with the same key is not.
		{"the release's own ConfigMap", strings.Replace(timeSlicingConfigMap, "a100:", "ts:", 1) + flux("nvdp/nvidia-device-plugin", configMap(map[string]string{"ts": config("timeSlicing", "4")}, "")) + pod(""), nil, 4, "key ts"},
		{"config.name: a ConfigMap among the manifests", timeSlicingConfigMap + flux("nvidia-device-plugin", "config: {name: time-slicing-config, default: a100}\n") + pod(""), nil, 7,
			"ConfigMap gpu-operator/time-slicing-config, key a100, the device plugin's default config in HelmRelease nvidia/nvdp's values"},
		{"the GPU Operator creating its ConfigMap (Argo CD valuesObject)", argo("  source:\n    chart: gpu-operator\n    repoURL: https://helm.ngc.nvidia.com/nvidia\n    helm:\n      valuesObject:\n"+indent(operatorValues, "        ")+"\n") + pod(""), nil, 3,
			"Application argocd/gpu-operator's values (devicePlugin.config.data, key any)"},
		{"parameters over values text (Argo CD sources)", timeSlicingConfigMap + argo("  sources:\n  - {repoURL: https://example.com/git, path: apps}\n  - chart: gpu-operator\n    helm:\n      values: |\n        devicePlugin: {config: {name: elsewhere}}\n      parameters:\n      - {name: devicePlugin.config.name, value: time-slicing-config}\n      - {name: devicePlugin.config.default, value: a100}\n") + pod(""), nil, 7, "key a100"},
		{"a release declared outside the manifests (an OCI chart)", pod(""), []ChartRelease{{Chart: "oci://ghcr.io/nvidia/gpu-operator:v25.3.0", Name: "gpu-operator", Namespace: "gpu-operator", Source: "helm_release.gpu",
			Values: map[string]any{"devicePlugin": map[string]any{"config": map[string]any{"create": true, "name": "ts", "default": "any", "data": map[string]any{"any": config("mps", "2")}}}}}}, 2,
			"helm_release.gpu's values (devicePlugin.config.data, key any), the device plugin's default config, shares each GPU as 2 units of nvidia.com/gpu (mps)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sharedPod(t, Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{ChartReleases: tc.releases}), tc.want, tc.note)
		})
	}
}

// A config in a release's values that the plugin would refuse is an error at the values, naming
// the value's path; an Application's bad parameter too.
func TestDevicePluginChartReleaseErrors(t *testing.T) {
	manifests := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp, namespace: nvidia}\nspec:\n  chart: {spec: {chart: nvidia-device-plugin}}\n  values:\n    config:\n      map:\n        ts: |\n          version: v1\n          sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 0}]}}\n" +
		"---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: op}\nspec:\n  source:\n    chart: gpu-operator\n    helm:\n      parameters: [{name: 'devicePlugin..config', value: x}]\n"
	res := Build([]*File{Decode("k.yaml", []byte(manifests))}, Options{})
	if len(res.Errors) != 2 {
		t.Fatalf("errors %v, want two", res.Errors)
	}
	if e := res.Errors[0]; e.Line != 7 || !strings.Contains(e.Message, "HelmRelease/nvidia/nvdp: config.map.ts: the device plugin's sharing config: time-slicing resource \"nvidia.com/gpu\": replicas 0") {
		t.Errorf("error %+v, want one at line 7 naming config.map.ts", e)
	}
	if e := res.Errors[1]; e.Line != 13 || !strings.Contains(e.Message, "spec.source.helm.parameters") {
		t.Errorf("error %+v, want one at line 13 naming the parameters", e)
	}
	rel := ChartRelease{Chart: "nvidia-device-plugin", Source: "helm_release.nvdp", File: "main.tf", Line: 3,
		Values: map[string]any{"config": map[string]any{"map": map[string]any{"ts": "version: v1\nsharing: {mps: {resources: [{name: nvidia.com/gpu, replicas: -1}]}}"}}}}
	res = Build(nil, Options{ChartReleases: []ChartRelease{rel}})
	if len(res.Errors) != 1 || res.Errors[0].File != "main.tf" || res.Errors[0].Line != 3 || !strings.HasPrefix(res.Errors[0].Message, "helm_release.nvdp: config.map.ts:") {
		t.Errorf("errors %+v, want one at main.tf:3", res.Errors)
	}
}

func TestChartName(t *testing.T) {
	for ref, want := range map[string]string{
		"nvidia-device-plugin": "nvidia-device-plugin", "nvdp/nvidia-device-plugin": "nvidia-device-plugin",
		"oci://ghcr.io/nvidia/gpu-operator:v25.3.0": "gpu-operator", "oci://localhost:5000/charts/gpu-operator": "gpu-operator",
		"https://example.com/charts/gpu-operator/": "gpu-operator",
	} {
		if got := chartName(ref); got != want {
			t.Errorf("chartName(%q) = %q, want %q", ref, got, want)
		}
	}
}

// A Flux HelmRelease's spec.valuesFrom: the values documents of ConfigMaps and Secrets in its
// namespace, merged in order (later over earlier) and spec.values over them all; a targetPath sets
// one value; a reference that cannot be read is a warning unless optional, and its values are
// left out.
func TestFluxValuesFrom(t *testing.T) {
	const ts4 = "version: v1\nsharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}"
	const mps2 = "version: v1\nsharing: {mps: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}"
	doc := func(v string) string { // a values document holding config.map.<key>: <config>
		return "config:\n  map:\n" + v
	}
	entry := func(key, config string) string {
		return "    " + key + ": |\n      " + strings.ReplaceAll(config, "\n", "\n      ") + "\n"
	}
	indent := func(s string) string { return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") }
	configMap := func(name, key, text string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: nvidia}\ndata:\n  " + key + ": |\n" + indent(text) + "\n---\n"
	}
	release := func(valuesFrom, values string) string {
		s := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp, namespace: nvidia}\nspec:\n  chart: {spec: {chart: nvidia-device-plugin}}\n  valuesFrom:\n" + valuesFrom
		if values != "" {
			s += "  values:\n" + values
		}
		return s + "---\n"
	}
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	b64 := base64.StdEncoding.EncodeToString([]byte(doc(entry("default", mps2))))
	for _, tc := range []struct {
		name, manifests string
		want            int
		note, warning   string
	}{
		{"a ConfigMap's values.yaml", configMap("nvdp-values", "values.yaml", doc(entry("ts", ts4))) + release("  - {kind: ConfigMap, name: nvdp-values}\n", "") + pod, 4,
			"HelmRelease nvidia/nvdp's values (config.map, key ts)", ""},
		{"a Secret's base64 data at a named key", "apiVersion: v1\nkind: Secret\nmetadata: {name: nvdp, namespace: nvidia}\ndata: {plugin.yaml: " + b64 + "}\n---\n" +
			release("  - {kind: Secret, name: nvdp, valuesKey: plugin.yaml}\n", "") + pod, 2, "(mps)", ""},
		{"a Secret's stringData", "apiVersion: v1\nkind: Secret\nmetadata: {name: nvdp, namespace: nvidia}\nstringData:\n  values.yaml: |\n" + indent(doc(entry("ts", ts4))) + "\n---\n" +
			release("  - {kind: Secret, name: nvdp}\n", "") + pod, 4, "key ts", ""},
		// The later reference's default wins over the earlier; spec.values names the default last.
		{"later over earlier, spec.values last", configMap("a", "values.yaml", doc(entry("default", ts4)+entry("mps", mps2))) + configMap("b", "values.yaml", "config: {default: mps}") +
			release("  - {kind: ConfigMap, name: a}\n  - {kind: ConfigMap, name: b}\n", "") + pod, 2, "key mps", ""},
		{"spec.values over valuesFrom", configMap("a", "values.yaml", doc(entry("default", ts4)+entry("mps", mps2))) + configMap("b", "values.yaml", "config: {default: mps}") +
			release("  - {kind: ConfigMap, name: a}\n  - {kind: ConfigMap, name: b}\n", "    config: {default: default}\n") + pod, 4, "key default", ""},
		{"a targetPath sets one value", configMap("a", "values.yaml", doc(entry("default", ts4)+entry("mps", mps2))) + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: pick, namespace: nvidia}\ndata: {key: mps}\n---\n" +
			release("  - {kind: ConfigMap, name: a}\n  - {kind: ConfigMap, name: pick, valuesKey: key, targetPath: config.default}\n", "") + pod, 2, "key mps", ""},
		// A ConfigMap of another namespace is not the release's.
		{"not among the manifests", strings.Replace(configMap("nvdp-values", "values.yaml", doc(entry("ts", ts4))), "namespace: nvidia", "namespace: other", 1) +
			release("  - {kind: ConfigMap, name: nvdp-values}\n", "") + pod, 0, "",
			"HelmRelease/nvidia/nvdp: spec.valuesFrom[0] (ConfigMap nvdp-values, key values.yaml) is not among the manifests: the values it holds are not read"},
		{"optional and missing", release("  - {kind: ConfigMap, name: nvdp-values, optional: true}\n", "    config: {map: {ts: '"+strings.ReplaceAll(ts4, "\n", "\n\n      ")+"'}}\n") + pod, 4, "key ts", ""},
		{"an encrypted Secret", "apiVersion: v1\nkind: Secret\nmetadata: {name: nvdp, namespace: nvidia}\ndata: {values.yaml: 'ENC[AES256_GCM,data:x]'}\nsops: {version: 3.9.0}\n---\n" +
			release("  - {kind: Secret, name: nvdp}\n", "") + pod, 0, "", "spec.valuesFrom[0] (Secret nvdp, key values.yaml) is encrypted (SOPS)"},
		{"no such key", configMap("nvdp-values", "other.yaml", "x: 1") + release("  - {kind: ConfigMap, name: nvdp-values}\n", "") + pod, 0, "", "has no such key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Build([]*File{Decode("k.yaml", []byte(tc.manifests))}, Options{})
			var warns []string
			for _, w := range res.Warnings {
				warns = append(warns, w.Message)
			}
			if tc.warning == "" && len(warns) > 0 || tc.warning != "" && (len(warns) != 1 || !strings.Contains(warns[0], tc.warning)) {
				t.Errorf("warnings %q, want %q", warns, tc.warning)
			}
			res.Warnings = nil
			sharedPod(t, res, tc.want, tc.note)
		})
	}
}

// A valuesFrom reference of another kind, or a document that is not values, is an error at the
// reference.
func TestFluxValuesFromErrors(t *testing.T) {
	manifests := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: nvidia}\ndata: {values.yaml: '[1, 2]'}\n---\n" +
		"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp, namespace: nvidia}\nspec:\n  chart: {spec: {chart: nvidia-device-plugin}}\n  valuesFrom:\n  - {kind: ConfigMap, name: bad}\n---\n" +
		"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: other, namespace: nvidia}\nspec:\n  chart: {spec: {chart: gpu-operator}}\n  valuesFrom:\n  - {kind: Bucket, name: x}\n"
	res := Build([]*File{Decode("k.yaml", []byte(manifests))}, Options{})
	if len(res.Errors) != 2 {
		t.Fatalf("errors %+v, want two", res.Errors)
	}
	// A Secret's YAML error is not shown: it may quote the Secret.
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: nvidia}\nstringData: {values.yaml: hunter2}\n---\n" +
		"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp, namespace: nvidia}\nspec:\n  chart: {spec: {chart: nvidia-device-plugin}}\n  valuesFrom:\n  - {kind: Secret, name: s}\n"
	if es := Build([]*File{Decode("s.yaml", []byte(secret))}, Options{}).Errors; len(es) != 1 || strings.Contains(es[0].Message, "hunter2") || !strings.Contains(es[0].Message, "is not a values document") {
		t.Errorf("errors %+v", es)
	}
	for _, want := range []struct {
		line int
		msg  string
	}{
		{12, "HelmRelease/nvidia/nvdp: spec.valuesFrom[0]: ConfigMap bad, key values.yaml, is not a values document"},
		{20, "HelmRelease/nvidia/other: spec.valuesFrom[0]: a reference is a kind (ConfigMap or Secret) and a name"},
	} {
		found := false
		for _, e := range res.Errors {
			found = found || e.Line == want.line && strings.Contains(e.Message, want.msg)
		}
		if !found {
			t.Errorf("errors %+v lack %q at line %d", res.Errors, want.msg, want.line)
		}
	}
}
