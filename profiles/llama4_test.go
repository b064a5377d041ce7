package profiles

import (
	"strings"
	"testing"
)

// Llama 4 is served by vLLM and SGLang under its Hub names; a quantized checkpoint by name
// quantizes the routed experts only (Preset.QuantizedExperts), while --quantization quantizes
// every linear layer as the engine does.
func TestLlama4Served(t *testing.T) {
	for _, c := range []struct {
		name                          string
		argv                          []string
		sglang                        bool
		preset, precision, expertPrec string
		context, tp                   int
	}{
		{"Scout instruct, its 10M context", []string{"vllm", "serve", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "-tp", "8"}, false,
			"llama-4-scout-17b-16e", "bf16", "", 10485760, 8},
		{"Maverick's FP8 checkpoint: FP8 experts, 16-bit rest", []string{"vllm", "serve", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "-tp", "8", "--max-model-len", "430000"}, false,
			"llama-4-maverick-17b-128e", "bf16", "fp8", 430000, 8},
		{"--quantization fp8 on the BF16 checkpoint quantizes every linear layer", []string{"vllm", "serve", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "--quantization", "fp8", "--max-model-len", "65536", "-tp", "2"}, false,
			"llama-4-scout-17b-16e", "fp8", "", 65536, 2},
		{"SGLang, Maverick base", []string{"python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-4-Maverick-17B-128E", "--tp", "8", "--context-length", "131072"}, true,
			"llama-4-maverick-17b-128e", "bf16", "", 131072, 8},
	} {
		var p *Profile
		var why string
		if c.sglang {
			p, why = FromSGLang(c.argv)
		} else {
			p, why = FromVLLM(c.argv)
		}
		if p == nil {
			t.Errorf("%s: no profile: %s", c.name, why)
			continue
		}
		m, in := p.Model, p.Inference
		if m.Preset != c.preset || m.Precision != c.precision || m.ExpertPrecision != c.expertPrec || in.MaxSequenceLength != c.context || in.TensorParallel != c.tp || m.SharedExperts != 1 || m.ExpertsPerToken != 1 {
			t.Errorf("%s: preset %s, precision %s, experts %q, context %d, tp %d, shared %d, per token %d; want %s, %s, %q, %d, %d, 1, 1",
				c.name, m.Preset, m.Precision, m.ExpertPrecision, in.MaxSequenceLength, in.TensorParallel, m.SharedExperts, m.ExpertsPerToken,
				c.preset, c.precision, c.expertPrec, c.context, c.tp)
		}
		if c.expertPrec != "" && !strings.Contains(p.Inferred, "routed experts") {
			t.Errorf("%s: the inferred profile does not say only the experts are quantized: %q", c.name, p.Inferred)
		}
	}
}

// Transformers runs every Llama 4 expert over every token, which the estimate does not count:
// a profile that trains the model or generates without an engine is refused at model.preset's
// line, while one with gpu_memory_utilization (a pre-allocating engine) is read.
func TestLlama4PresetsOnlyForEngines(t *testing.T) {
	const head = "apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata:\n  name: l4\n"
	// Maverick served on eight GPUs: the same profile with and without an engine's share.
	const served = "workload:\n  type: inference\nmodel:\n  preset: llama-4-maverick\n  precision: bf16\ninference:\n  batch_size: 1\n  max_sequence_length: 8192\n  tensor_parallel: 8\n"
	for _, c := range []struct {
		name, body string
		ok         bool
	}{
		{"training", "workload:\n  type: training\nmodel:\n  preset: meta-llama/Llama-4-Scout-17B-16E\n  precision: bf16\ntraining:\n  method: lora\n  lora_rank: 16\n  micro_batch_size: 1\n  sequence_length: 4096\n", false},
		{"generate() without an engine", served, false},
		{"a pre-allocating engine", served + "  gpu_memory_utilization: 0.9\n", true},
	} {
		p, err := Parse([]byte(head+c.body), "l4.yaml")
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.ok && p.Model.Experts != 128:
			t.Errorf("%s: the preset was not applied: %+v", c.name, p.Model)
		case !c.ok && err == nil:
			t.Errorf("%s: read, want it refused", c.name)
		case !c.ok && (!strings.Contains(err.Error(), "l4.yaml:8") || !strings.Contains(err.Error(), "every routed expert over every token")):
			t.Errorf("%s: %v; want the reason at model.preset's line 8", c.name, err)
		}
	}
}
