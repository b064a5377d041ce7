package kubernetes

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// gpuContainer is the pod's first app container that requests GPUs (by name, or through one of
// the pod's DRA claims that bring its GPUs, claimed, or a DRA extended resource): the one whose
// command line and environment describe the GPU work. nil when none does.
func gpuContainer(spec podSpec, claimed, draExtended map[string]bool) *container {
	for i := range spec.Containers {
		if c := &spec.Containers[i]; requestsGPUs(c) || c.usesClaim(claimed) || c.requestsAny(draExtended) {
			return c
		}
	}
	return nil
}

// servingCommand is the command line of the container that uses the pod's GPUs (gpuContainer),
// when it runs vLLM (`vllm serve`, `python -m vllm.entrypoints.openai.api_server`, or a vLLM
// image whose entrypoint is the server, given only args) or SGLang (`python -m
// sglang.launch_server`, `sglang serve`; its images need the command): profiles.FromVLLM or
// FromSGLang infers a workload profile from it. nil otherwise.
func servingCommand(c *container, o *object, cms configMaps) *parser.ServingCommand {
	if c == nil {
		return nil
	}
	argv := append(scalars(&c.Command), scalars(&c.Args)...)
	switch {
	case len(scalars(&c.Command)) > 0:
	case c.kserveHF != nil:
		if argv = kserveHuggingFace(argv, *c.kserveHF); argv == nil {
			return nil
		}
	case c.Image.Kind == yaml.ScalarNode && vllmImage(c.Image.Value):
		// The image's entrypoint is vLLM's OpenAI-compatible server; args are its flags.
		argv = append([]string{"vllm", "serve"}, argv...)
	}
	engine := servingEngine(argv)
	if engine == "" {
		return nil
	}
	env := knownEnv(environment(c, o, cms))
	for j, a := range argv {
		argv[j] = expandEnv(a, env)
	}
	line := o.line
	if c.Command.Line > 0 {
		line = o.lineOf(&c.Command)
	} else if c.Args.Line > 0 {
		line = o.lineOf(&c.Args)
	}
	return &parser.ServingCommand{Engine: engine, Container: c.Name, Argv: argv, Source: parser.Location{File: o.file, Line: line}}
}

// kserveHuggingFace is the vLLM command line of a KServe predictor served by the Hugging Face
// runtime, which runs vLLM unless --backend says otherwise and hands it the engine arguments it
// is given (kserve.github.io, "Hugging Face LLM Serving Runtime"): the model is --model_id, else
// the repository of an hf:// storageUri (hf://ORG/NAME[:REVISION]). nil when the backend is not
// vLLM or no model is named.
func kserveHuggingFace(args []string, storageURI string) []string {
	argv := []string{"vllm", "serve"}
	named := false
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		switch strings.ReplaceAll(name, "_", "-") {
		case "--backend":
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			if !strings.EqualFold(value, "vllm") && !strings.EqualFold(value, "auto") {
				return nil
			}
		case "--model-id":
			named = true
			if hasValue {
				argv = append(argv, "--model="+value)
				continue
			}
			argv = append(argv, "--model")
			continue
		}
		argv = append(argv, args[i])
	}
	if repo, ok := strings.CutPrefix(storageURI, "hf://"); ok && !named {
		repo, _, _ = strings.Cut(repo, ":")
		argv = append(argv, "--model", repo)
		named = true
	}
	if !named {
		return nil
	}
	return argv
}

// vllmImage says whether an image is vLLM's OpenAI-compatible server (vllm/vllm-openai, also
// from a mirror), whose entrypoint runs the server.
func vllmImage(image string) bool {
	name := image[strings.LastIndex(image, "/")+1:]
	if i := strings.IndexAny(name, ":@"); i >= 0 {
		name = name[:i]
	}
	return name == "vllm-openai"
}

// requestsGPUs says whether a container names a GPU resource in its limits or requests.
func requestsGPUs(c *container) bool {
	for _, m := range []map[string]yaml.Node{c.Resources.Limits, c.Resources.Requests} {
		for name := range m {
			if IsGPUResource(name) {
				return true
			}
		}
	}
	return false
}

// servingEngine is the engine a command line runs: vLLM for a word naming it or its server
// module, SGLang for its server module or `sglang serve`; NVIDIA Dynamo's workers for either
// (`python -m dynamo.vllm`, `dynamo.sglang`) take that engine's arguments. "" for neither.
func servingEngine(argv []string) string {
	prev := ""
	for _, a := range argv {
		for _, w := range strings.Fields(a) {
			switch {
			case w == "vllm" || strings.HasSuffix(w, "/vllm") || strings.HasPrefix(w, "vllm.entrypoints.") || w == "dynamo.vllm":
				return parser.EngineVLLM
			case w == "sglang.launch_server" || w == "dynamo.sglang" || w == "serve" && (prev == "sglang" || strings.HasSuffix(prev, "/sglang")):
				return parser.EngineSGLang
			}
			prev = w
		}
	}
	return ""
}

// scalars reads a list of strings; anything else reads as none.
func scalars(n *yaml.Node) []string {
	if n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return nil
		}
		out = append(out, c.Value)
	}
	return out
}

var envRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expandEnv expands $(VAR) references as the kubelet does in command and args: a defined
// variable's value, an undefined reference left as written, $$ an escaped $.
// https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#use-environment-variables-to-define-arguments
func expandEnv(s string, env map[string]string) string {
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := env[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}
