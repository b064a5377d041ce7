package kubernetes

import (
	"testing"
)

// The allocator settings of a pod's GPU container come from its env, else from its envFrom
// ConfigMaps, as the kubelet builds the environment: env wins over envFrom, a later source
// over an earlier one, a prefix is taken off the ConfigMap's keys, and a configMapKeyRef reads
// the key it names. A ConfigMap is read when it is among the manifests of the workload's own
// build and namespace; otherwise, or from a Secret, the value is known only in the cluster.
func TestAllocatorSettingsFromConfigMaps(t *testing.T) {
	const configMaps = `apiVersion: v1
kind: ConfigMap
metadata: {name: torch-env, namespace: ml}
data:
  PYTORCH_ALLOC_CONF: "expandable_segments:True"
  OTHER: x
---
apiVersion: v1
kind: ConfigMap
metadata: {name: torch-off, namespace: ml}
data:
  PYTORCH_ALLOC_CONF: "expandable_segments:False"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: prefixed, namespace: ml}
data:
  ALLOC_CONF: "max_split_size_mb:512,expandable_segments:True"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: torch-env, namespace: other}
data:
  PYTORCH_ALLOC_CONF: "expandable_segments:False"
`
	job := func(container string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train, namespace: ml}\nspec:\n  template:\n    spec:\n" +
			"      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}\n      containers:\n        - name: trainer\n          resources: {limits: {nvidia.com/gpu: 1}}\n" + container
	}
	for _, c := range []struct {
		name, container, conf, from string
	}{
		{name: "envFrom", container: "          envFrom: [{configMapRef: {name: torch-env}}]\n",
			conf: "expandable_segments:True", from: "container trainer's PYTORCH_ALLOC_CONF (from ConfigMap ml/torch-env)"},
		{name: "a later source wins", container: "          envFrom: [{configMapRef: {name: torch-env}}, {configMapRef: {name: torch-off}}]\n",
			conf: "expandable_segments:False", from: "container trainer's PYTORCH_ALLOC_CONF (from ConfigMap ml/torch-off)"},
		{name: "a source without the key leaves the earlier one", container: "          envFrom: [{configMapRef: {name: torch-env}}, {configMapRef: {name: prefixed}}]\n",
			conf: "expandable_segments:True", from: "container trainer's PYTORCH_ALLOC_CONF (from ConfigMap ml/torch-env)"},
		{name: "a prefix", container: "          envFrom: [{prefix: PYTORCH_, configMapRef: {name: prefixed}}]\n",
			conf: "max_split_size_mb:512,expandable_segments:True", from: "container trainer's PYTORCH_ALLOC_CONF (from ConfigMap ml/prefixed)"},
		{name: "env wins over envFrom", container: "          envFrom: [{configMapRef: {name: torch-env}}]\n          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:False'}]\n",
			conf: "expandable_segments:False", from: "container trainer's PYTORCH_ALLOC_CONF"},
		{name: "PYTORCH_ALLOC_CONF from a ConfigMap wins over the older literal", container: "          envFrom: [{configMapRef: {name: torch-env}}]\n          env: [{name: PYTORCH_CUDA_ALLOC_CONF, value: 'expandable_segments:False'}]\n",
			conf: "expandable_segments:True", from: "container trainer's PYTORCH_ALLOC_CONF (from ConfigMap ml/torch-env)"},
		{name: "configMapKeyRef", container: "          env: [{name: PYTORCH_CUDA_ALLOC_CONF, valueFrom: {configMapKeyRef: {name: torch-env, key: PYTORCH_ALLOC_CONF}}}]\n",
			conf: "expandable_segments:True", from: "container trainer's PYTORCH_CUDA_ALLOC_CONF (from ConfigMap ml/torch-env, key PYTORCH_ALLOC_CONF)"},
		{name: "configMapKeyRef to a key that is not there", container: "          env: [{name: PYTORCH_ALLOC_CONF, valueFrom: {configMapKeyRef: {name: torch-env, key: missing}}}, {name: PYTORCH_CUDA_ALLOC_CONF, value: 'expandable_segments:True'}]\n"},
		{name: "an optional key that is not there is unset", container: "          env: [{name: PYTORCH_ALLOC_CONF, valueFrom: {configMapKeyRef: {name: torch-env, key: missing, optional: true}}}, {name: PYTORCH_CUDA_ALLOC_CONF, value: 'expandable_segments:True'}]\n",
			conf: "expandable_segments:True", from: "container trainer's PYTORCH_CUDA_ALLOC_CONF"},
		{name: "a name without a value is set, to nothing", container: "          envFrom: [{configMapRef: {name: torch-env}}]\n          env: [{name: PYTORCH_ALLOC_CONF}, {name: PYTORCH_CUDA_ALLOC_CONF, value: 'expandable_segments:True'}]\n",
			from: "container trainer's PYTORCH_ALLOC_CONF"},
		{name: "a ConfigMap not among the manifests", container: "          env: [{name: PYTORCH_ALLOC_CONF, valueFrom: {configMapKeyRef: {name: elsewhere, key: k}}}]\n"},
		{name: "a Secret", container: "          env: [{name: PYTORCH_ALLOC_CONF, valueFrom: {secretKeyRef: {name: torch-env, key: PYTORCH_ALLOC_CONF}}}]\n"},
		{name: "envFrom a Secret and a missing ConfigMap", container: "          envFrom: [{secretRef: {name: torch-env}}, {configMapRef: {name: elsewhere}}]\n          env: [{name: PYTORCH_CUDA_ALLOC_CONF, value: 'expandable_segments:True'}]\n",
			conf: "expandable_segments:True", from: "container trainer's PYTORCH_CUDA_ALLOC_CONF"},
	} {
		res := Parse("all.yaml", []byte(configMaps+"---\n"+job(c.container)), Options{})
		r, ok := byAddress(res)["Job/ml/train"]
		if !ok || len(res.Errors) > 0 {
			t.Fatalf("%s: resources %+v, errors %+v", c.name, res.Resources, res.Errors)
		}
		if r.Pod.PyTorchAllocConf != c.conf || r.Pod.PyTorchAllocConfFrom != c.from {
			t.Errorf("%s: %q from %q, want %q from %q", c.name, r.Pod.PyTorchAllocConf, r.Pod.PyTorchAllocConfFrom, c.conf, c.from)
		}
	}
	// A workload reads the ConfigMaps of its own build: another build's of the same name is
	// not this one's.
	cm := func(conf string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: torch-env, namespace: ml}\ndata: {PYTORCH_ALLOC_CONF: '" + conf + "'}\n---\n"
	}
	envFrom := job("          envFrom: [{configMapRef: {name: torch-env}}]\n")
	res := Build([]*File{
		DecodeRendered("a/rendered.yaml", "overlays/a", "", []byte(cm("expandable_segments:True"))),
		DecodeRendered("b/rendered.yaml", "overlays/b", "", []byte(cm("expandable_segments:False")+envFrom)),
		DecodeRendered("c/rendered.yaml", "overlays/c", "", []byte(envFrom)),
	}, Options{})
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Root] = r.Pod.PyTorchAllocConf
	}
	if len(got) != 2 || got["overlays/b"] != "expandable_segments:False" || got["overlays/c"] != "" {
		t.Errorf("settings by build: %q", got)
	}
}
