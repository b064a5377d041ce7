package profiles

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// VLLMDefaultMemoryUtilization is vLLM's default --gpu-memory-utilization: the share of each GPU
// the engine takes (vLLM engine arguments, docs.vllm.ai, "--gpu-memory-utilization", default 0.9).
const VLLMDefaultMemoryUtilization = 0.9

// FromVLLM infers an inference profile from a vLLM server's command line (`vllm serve MODEL
// ...` or `python -m vllm.entrypoints.openai.api_server --model MODEL ...`), for a GPU workload
// that has none attached. What it sizes is what vLLM needs to start: the weights (split by
// --tensor-parallel-size), the KV cache of one sequence of --max-model-len tokens (vLLM refuses
// to start without room for it), one forward pass of --max-num-batched-tokens, within
// --gpu-memory-utilization of each GPU. How many sequences the rest serves at once is the
// deployment's choice, so the inferred profile says whether the model fits, not whether the GPU
// is larger than the traffic needs.
//
// It returns the profile, with Inferred describing it, or nil and why none could be inferred:
// a model that is not a preset (a local path, an unknown checkpoint), no --max-model-len (vLLM
// then takes the model's full context, which the presets do not carry), pipeline parallelism,
// or a quantization or dtype it does not model.
func FromVLLM(argv []string) (*Profile, string) {
	flags, positional := vllmFlags(argv)
	model := flags["model"]
	if model == "" && len(positional) > 0 {
		model = positional[0]
	}
	if model == "" {
		return nil, "the vLLM command names no model"
	}
	preset, ok := vllmPreset(model)
	if !ok {
		return nil, fmt.Sprintf("vLLM serves %s, which is not one of gpuguard's model presets", model)
	}
	p := &Profile{APIVersion: APIVersion, Kind: Kind,
		Metadata:  Metadata{Name: "inferred from vLLM arguments"},
		Workload:  Workload{Type: TypeInference},
		Model:     Model{Preset: preset},
		Inference: &Inference{BatchSize: 1, GPUMemoryUtilization: VLLMDefaultMemoryUtilization, TensorParallel: 1},
	}
	desc := []string{"model " + model + " (preset " + preset + ")"}
	n, err := vllmInt(flags, "max-model-len")
	switch {
	case err != nil:
		return nil, err.Error()
	case n == 0:
		return nil, fmt.Sprintf("vLLM serves %s without --max-model-len, so it reserves the model's full context, which gpuguard's presets do not carry", model)
	}
	p.Inference.MaxSequenceLength = n
	desc = append(desc, fmt.Sprintf("--max-model-len %d", n))
	if pp, err := vllmInt(flags, "pipeline-parallel-size"); err != nil || pp > 1 {
		return nil, "vLLM runs with pipeline parallelism, which the inferred profile does not model"
	}
	if tp, err := vllmInt(flags, "tensor-parallel-size"); err != nil {
		return nil, err.Error()
	} else if tp > 0 {
		p.Inference.TensorParallel = tp
		desc = append(desc, fmt.Sprintf("--tensor-parallel-size %d", tp))
	}
	if v, ok := flags["gpu-memory-utilization"]; ok {
		u, err := strconv.ParseFloat(v, 64)
		if err != nil || u <= 0 || u > 1 {
			return nil, fmt.Sprintf("vLLM's --gpu-memory-utilization %q is not a fraction of the GPU", v)
		}
		p.Inference.GPUMemoryUtilization = u
		desc = append(desc, "--gpu-memory-utilization "+v)
	}
	if t, err := vllmInt(flags, "max-num-batched-tokens"); err != nil {
		return nil, err.Error()
	} else if t > 0 {
		p.Inference.MaxBatchedTokens = t
		desc = append(desc, fmt.Sprintf("--max-num-batched-tokens %d", t))
	}
	// Weights: --quantization, else --dtype (auto is the checkpoint's 16-bit type for every
	// preset's model); the KV cache takes the activations' 16-bit type unless --kv-cache-dtype
	// says fp8.
	precision, why := vllmPrecision(flags["dtype"], flags["quantization"])
	if why != "" {
		return nil, why
	}
	p.Model.Precision = precision
	kv := "bf16"
	if precision == "fp16" || precision == "fp32" {
		kv = precision
	}
	switch d := strings.ToLower(flags["kv-cache-dtype"]); {
	case d == "" || d == "auto":
	case strings.HasPrefix(d, "fp8"):
		kv = "fp8"
		desc = append(desc, "--kv-cache-dtype "+d)
	default:
		return nil, fmt.Sprintf("vLLM's --kv-cache-dtype %q is not modelled", d)
	}
	p.Inference.KVCachePrecision = kv
	if err := p.applyPreset(); err != nil {
		return nil, err.Error()
	}
	if err := p.validate(); err != nil {
		var ve *validationError
		if errors.As(err, &ve) {
			return nil, "the profile inferred from vLLM's arguments is invalid: " + ve.msg
		}
		return nil, err.Error()
	}
	p.Inferred = "vLLM arguments: " + strings.Join(desc, ", ")
	return p, ""
}

// vllmFlags reads a vLLM command line: --name=value and --name value pairs (names with
// underscores read as with dashes; -tp, -pp and -q are the short forms vLLM accepts), and the
// words after `serve` that are not flags. Bare flags (--enforce-eager) have the value "true".
func vllmFlags(argv []string) (map[string]string, []string) {
	short := map[string]string{"tp": "tensor-parallel-size", "pp": "pipeline-parallel-size", "q": "quantization"}
	flags := map[string]string{}
	var positional []string
	var words []string
	for _, a := range argv {
		// A shell line (sh -c "vllm serve ...") is one argument: split it on spaces.
		words = append(words, strings.Fields(a)...)
	}
	served := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "-"):
			name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			name = strings.ReplaceAll(name, "_", "-")
			if s, ok := short[name]; ok {
				name = s
			}
			if !hasValue {
				if i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
					value = words[i+1]
					i++
				} else {
					value = "true"
				}
			}
			flags[name] = strings.Trim(value, `"'`)
		case w == "serve":
			served = true
		case served:
			positional = append(positional, strings.Trim(w, `"'`))
		}
	}
	return flags, positional
}

func vllmInt(flags map[string]string, name string) (int, error) {
	v, ok := flags[name]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("vLLM's --%s %q is not a count", name, v)
	}
	return n, nil
}

// vllmPrecision is the weights' precision from --dtype and --quantization.
func vllmPrecision(dtype, quantization string) (string, string) {
	switch q := strings.ToLower(quantization); q {
	case "":
	case "awq", "awq_marlin", "gptq", "gptq_marlin", "marlin":
		// 4-bit group-quantized weights, the common AWQ and GPTQ checkpoints (a GPTQ
		// checkpoint may be 8-bit: attach a profile for that).
		return "int4", ""
	case "bitsandbytes":
		return "nf4", ""
	case "fp8":
		return "fp8", ""
	default:
		return "", fmt.Sprintf("vLLM's --quantization %q is not modelled", quantization)
	}
	switch d := strings.ToLower(dtype); d {
	case "", "auto", "bfloat16":
		return "bf16", ""
	case "half", "float16":
		return "fp16", ""
	case "float", "float32":
		return "fp32", ""
	default:
		return "", fmt.Sprintf("vLLM's --dtype %q is not modelled", dtype)
	}
}

// vllmPreset finds the preset of a Hugging Face model name as vLLM is given it: the name
// itself, then without its organisation, a "Meta-" prefix and a fine-tune suffix (-Instruct,
// -Chat, -it, -hf), which keep the base model's architecture.
func vllmPreset(model string) (string, bool) {
	if p, ok := LookupPreset(model); ok {
		return p.Name, true
	}
	n := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	n = strings.TrimPrefix(n, "meta-")
	for _, suffix := range []string{"-instruct", "-chat", "-it", "-hf"} {
		n = strings.TrimSuffix(n, suffix)
	}
	if p, ok := LookupPreset(n); ok {
		return p.Name, true
	}
	return "", false
}
