package kubernetes

import (
	"slices"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// The command line of the container that uses the GPUs is kept when it runs vLLM, with $(VAR)
// references to the container's environment expanded as the kubelet does (literal values, and
// those of ConfigMaps among the manifests; one from a Secret stays as written); an image whose
// entrypoint is vLLM's server takes args alone; a shape the API would refuse reads as no command
// and does not fail the object.
func TestServingCommand(t *testing.T) {
	pod := func(containers string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n" + containers
	}
	cases := []struct {
		name, containers string
		argv             []string // nil: no serving command
		container        string
		line             int
	}{
		{"args of the server image, env expanded, sidecar without GPUs skipped", `    - name: proxy
      image: envoyproxy/envoy
      args: ["vllm"]
    - name: vllm
      image: docker.io/vllm/vllm-openai:v0.8.5
      args: ["--model=$(MODEL)", "--served-model-name", "$(NAME)", "$$(MODEL)", "$(UNSET)"]
      env:
        - {name: MODEL, value: meta-llama/Llama-3.1-8B}
        - name: NAME
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
      resources: {limits: {nvidia.com/gpu: 1}}
`, []string{"vllm", "serve", "--model=meta-llama/Llama-3.1-8B", "--served-model-name", "$(NAME)", "$(MODEL)", "$(UNSET)"}, "vllm", 12},
		{"$(VAR) from ConfigMaps among the manifests: envFrom, a prefix, configMapKeyRef; env wins", `    - name: vllm
      image: vllm/vllm-openai:v0.8.5
      args: ["--model", "$(MODEL)", "--max-model-len", "$(VLLM_LEN)", "--dtype", "$(DTYPE)", "$(SECRET)"]
      envFrom:
        - configMapRef: {name: model}
        - prefix: VLLM_
          configMapRef: {name: limits}
        - secretRef: {name: tokens}
      env:
        - name: DTYPE
          valueFrom: {configMapKeyRef: {name: model, key: dtype}}
        - name: SECRET
          valueFrom: {secretKeyRef: {name: tokens, key: t}}
      resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: model}
data: {MODEL: Qwen/Qwen2.5-7B-Instruct, dtype: bfloat16, SECRET: not-this}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: limits}
data: {LEN: "8192"}
`, []string{"vllm", "serve", "--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--dtype", "bfloat16", "$(SECRET)"}, "vllm", 9},
		{"command and args", `    - name: c
      image: python
      command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
      args: ["--model", "x"]
      resources: {requests: {nvidia.com/gpu: 1}}
`, []string{"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "x"}, "c", 9},
		{"a shell line", `    - name: c
      image: python
      command: ["bash", "-c", "pip install vllm && vllm serve x"]
      resources: {limits: {nvidia.com/gpu: 1}}
`, []string{"bash", "-c", "pip install vllm && vllm serve x"}, "c", 9},
		{"not vLLM", `    - name: c
      image: nvcr.io/nvidia/tritonserver
      args: ["tritonserver", "--model-repository=/models"]
      resources: {limits: {nvidia.com/gpu: 1}}
`, nil, "", 0},
		{"a command that is not a list", `    - name: c
      image: vllm/vllm-openai
      command: vllm serve x
      args: {model: x}
      resources: {limits: {nvidia.com/gpu: 1}}
`, []string{"vllm", "serve"}, "c", 9},
	}
	for _, c := range cases {
		s := one(t, build(t, pod(c.containers), Options{})).Pod.Serving
		if sameServing(t, c.name, s, c.argv) && (s.Container != c.container || s.Source.Line != c.line || s.Source.File != "m.yaml") {
			t.Errorf("%s: %s at %s, want %s at line %d", c.name, s.Container, s.Source, c.container, c.line)
		}
	}
}

// A GPU container's command names its engine: vLLM (the vllm word, its server module, its image),
// or SGLang (its server module, `sglang serve`, a path to the sglang script), also through NVIDIA
// Dynamo's workers; a word that only mentions SGLang does not.
func TestServingEngine(t *testing.T) {
	pod := func(command string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: lmsysorg/sglang:latest\n" +
			"      command: " + command + "\n      resources: {limits: {nvidia.com/gpu: 1}}\n"
	}
	cases := []struct{ name, command, engine string }{
		{"SGLang's server module", `["python3", "-m", "sglang.launch_server", "--model-path", "x"]`, parser.EngineSGLang},
		{"sglang serve", `["sglang", "serve", "--model-path", "x"]`, parser.EngineSGLang},
		{"the script by its path, in a shell line", `["sh", "-c", "/usr/local/bin/sglang serve --model-path x"]`, parser.EngineSGLang},
		{"vLLM", `["vllm", "serve", "x"]`, parser.EngineVLLM},
		{"Dynamo's SGLang worker", `["python3", "-m", "dynamo.sglang", "--model-path", "x"]`, parser.EngineSGLang},
		{"Dynamo's vLLM worker", `["python3", "-m", "dynamo.vllm", "--model", "x"]`, parser.EngineVLLM},
		{"SGLang installed, something else run", `["sh", "-c", "pip install sglang && python serve.py"]`, ""},
		{"serve before sglang", `["serve", "sglang"]`, ""},
	}
	for _, c := range cases {
		s := one(t, build(t, pod(c.command), Options{})).Pod.Serving
		switch {
		case c.engine == "" && s != nil:
			t.Errorf("%s: serving command %s %q", c.name, s.Engine, s.Argv)
		case c.engine != "" && (s == nil || s.Engine != c.engine):
			t.Errorf("%s: %+v, want engine %s", c.name, s, c.engine)
		}
	}
}

// sameServing checks that a serving command is there when want is not nil, with want's
// arguments, and not there when it is; it reports whether there is one to check further.
func sameServing(t *testing.T, name string, s *parser.ServingCommand, want []string) bool {
	t.Helper()
	switch {
	case want == nil && s != nil:
		t.Errorf("%s: serving command %q", name, s.Argv)
	case want == nil:
	case s == nil:
		t.Errorf("%s: no serving command", name)
	case !slices.Equal(s.Argv, want):
		t.Errorf("%s: %q, want %q", name, s.Argv, want)
	default:
		return true
	}
	return false
}

// A KServe predictor on the Hugging Face runtime runs vLLM with the arguments it is given: the
// model is --model_id, else an hf:// storageUri's repository; the Hugging Face backend, or no
// model named, is no vLLM command.
func TestServingCommandOfKServeHuggingFaceRuntime(t *testing.T) {
	isvc := func(predictor string) string {
		return "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: s\nspec:\n  predictor:\n" + predictor
	}
	cases := []struct {
		name, predictor string
		argv            []string
	}{
		{"model_id", `    model:
      modelFormat: {name: huggingface}
      args: ["--model_name=llama3", "--model_id=meta-llama/Llama-3.1-8B-Instruct", "--max_model_len", "8192"]
      resources: {limits: {nvidia.com/gpu: "1"}}
`, []string{"vllm", "serve", "--model_name=llama3", "--model=meta-llama/Llama-3.1-8B-Instruct", "--max_model_len", "8192"}},
		{"model_id as two words; backend vllm", `    model:
      modelFormat: {name: HuggingFace}
      args: ["--backend", "vllm", "--model-id", "Qwen/Qwen2.5-7B-Instruct"]
      resources: {limits: {nvidia.com/gpu: "1"}}
`, []string{"vllm", "serve", "--backend", "vllm", "--model", "Qwen/Qwen2.5-7B-Instruct"}},
		{"hf storageUri with a revision, legacy huggingface field", `    huggingface:
      storageUri: hf://google/gemma-2-9b-it:main
      args: ["--model_name=gemma"]
      resources: {limits: {nvidia.com/gpu: "1"}}
`, []string{"vllm", "serve", "--model_name=gemma", "--model", "google/gemma-2-9b-it"}},
		{"Hugging Face backend", `    model:
      modelFormat: {name: huggingface}
      args: ["--model_id=meta-llama/Llama-3.1-8B-Instruct", "--backend=huggingface"]
      resources: {limits: {nvidia.com/gpu: "1"}}
`, nil},
		{"no model named", `    model:
      modelFormat: {name: huggingface}
      storageUri: gs://models/llama
      resources: {limits: {nvidia.com/gpu: "1"}}
`, nil},
		{"another runtime", `    model:
      modelFormat: {name: pytorch}
      args: ["--model_id=meta-llama/Llama-3.1-8B-Instruct"]
      resources: {limits: {nvidia.com/gpu: "1"}}
`, nil},
	}
	for _, c := range cases {
		sameServing(t, c.name, one(t, build(t, isvc(c.predictor), Options{})).Pod.Serving, c.argv)
	}
}
