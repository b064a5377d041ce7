package profiles

import (
	"strings"
	"testing"
)

// A vLLM command line becomes the inference profile of what the server needs to start, in the
// command's forms (vllm serve's positional model, the API server module's --model, flags with =
// or a separate value, underscores, short forms, one shell string), or says why none can be.
func TestFromVLLM(t *testing.T) {
	type want struct {
		preset, precision, kv string
		seq, tp, tokens       int
		util                  float64
		loraSlots, loraRank   int
	}
	cases := []struct {
		name string
		argv []string
		want *want
		why  string
	}{
		{"serve, positional model, defaults", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"API server module, = forms, underscores, short tp", []string{"python3", "-m", "vllm.entrypoints.openai.api_server", "--model=meta-llama/Meta-Llama-3.1-70B-Instruct", "--max_model_len=32768", "-tp", "4", "--gpu-memory-utilization=0.95", "--max-num-batched-tokens", "4096", "--enforce-eager"},
			&want{"llama-3.1-70b", "bf16", "bf16", 32768, 4, 4096, 0.95, 0, 0}, ""},
		{"one shell string, fp8 weights and KV cache", []string{"sh", "-c", "vllm serve Qwen/Qwen2.5-7B-Instruct --quantization fp8 --kv-cache-dtype fp8_e4m3 --max-model-len 4096"},
			&want{"qwen2.5-7b", "fp8", "fp8", 4096, 1, 0, 0.9, 0, 0}, ""},
		{"AWQ weights keep a 16-bit KV cache; -it suffix", []string{"vllm", "serve", "google/gemma-2-9b-it", "-q", "awq", "--max-model-len", "8192"},
			&want{"gemma-2-9b", "int4", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"a versioned fine-tune; a context within the sliding window", []string{"vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.1", "--dtype", "half", "--max-model-len", "4096"},
			&want{"mistral-7b", "fp16", "fp16", 4096, 1, 0, 0.9, 0, 0}, ""},
		{"v0.3 is its own preset", []string{"vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.3", "--max-model-len", "4096"},
			&want{"mistral-7b-v0.3", "bf16", "bf16", 4096, 1, 0, 0.9, 0, 0}, ""},
		{"an unknown version is not guessed", []string{"vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.4", "--max-model-len", "4096"},
			nil, "not one of gpuguard's model presets"},
		{"fp16 dtype", []string{"vllm", "serve", "mistralai/Mistral-7B-v0.1", "--dtype", "float16", "--max-model-len", "4096"},
			&want{"mistral-7b", "fp16", "fp16", 4096, 1, 0, 0.9, 0, 0}, ""},
		// Without --max-model-len, vLLM serves the checkpoint's own context.
		{"no max-model-len: Llama 3.1's 128k context", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B"},
			&want{"llama-3.1-8b", "bf16", "bf16", 131072, 1, 0, 0.9, 0, 0}, ""},
		{"no max-model-len: Llama 3, not 3.1, has 8k", []string{"vllm", "serve", "meta-llama/Meta-Llama-3-8B-Instruct"},
			&want{"llama-3-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"no max-model-len: Qwen's instruct model ships 32k, its base 128k", []string{"vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"},
			&want{"qwen2.5-7b", "bf16", "bf16", 32768, 1, 0, 0.9, 0, 0}, ""},
		{"no max-model-len: Qwen base", []string{"vllm", "serve", "Qwen/Qwen2.5-7B"},
			&want{"qwen2.5-7b", "bf16", "bf16", 131072, 1, 0, 0.9, 0, 0}, ""},
		{"no max-model-len: Mistral v0.1's 32k context (its KV cache is its window's: TestMistralWindowsByVersion)", []string{"vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.1"},
			&want{"mistral-7b", "bf16", "bf16", 32768, 1, 0, 0.9, 0, 0}, ""},
		{"no max-model-len: Mistral v0.2", []string{"vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.2"},
			&want{"mistral-7b-v0.2", "bf16", "bf16", 32768, 1, 0, 0.9, 0, 0}, ""},
		// A quantized checkpoint's name gives its weights' precision, and its base model's
		// context: Qwen's AWQ instruct model keeps the instruct model's 32k.
		{"AWQ checkpoint by name", []string{"vllm", "serve", "Qwen/Qwen2.5-7B-Instruct-AWQ", "--dtype", "half"},
			&want{"qwen2.5-7b", "int4", "fp16", 32768, 1, 0, 0.9, 0, 0}, ""},
		{"FP8 checkpoint by name", []string{"vllm", "serve", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "--max-model-len", "8192"},
			&want{"llama-3.1-8b", "fp8", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		// DeepSeek's checkpoints store their linear layers in FP8: vLLM loads them so whatever
		// --dtype says, which then gives the activations' and KV cache's type.
		{"DeepSeek R1: FP8 weights by its checkpoint, its 163,840-token context", []string{"vllm", "serve", "deepseek-ai/DeepSeek-R1", "--tensor-parallel-size", "8", "--trust-remote-code"},
			&want{"deepseek-v3", "fp8", "bf16", 163840, 8, 0, 0.9, 0, 0}, ""},
		{"DeepSeek V3's March update, fp16 activations", []string{"vllm", "serve", "deepseek-ai/DeepSeek-V3-0324", "-tp", "8", "--dtype", "half", "--max-model-len", "32768", "--kv-cache-dtype", "fp8"},
			&want{"deepseek-v3", "fp8", "fp8", 32768, 8, 0, 0.9, 0, 0}, ""},
		{"LoRA slots on latent attention are not modelled", []string{"vllm", "serve", "deepseek-ai/DeepSeek-V3", "-tp", "8", "--enable-lora"},
			nil, "multi-head latent attention, are not modelled"},
		{"Qwen3-Coder 30B-A3B: Qwen3-30B-A3B at 262,144 tokens", []string{"vllm", "serve", "Qwen/Qwen3-Coder-30B-A3B-Instruct", "-tp", "2"},
			&want{"qwen3-30b-a3b", "bf16", "bf16", 262144, 2, 0, 0.9, 0, 0}, ""},
		{"Qwen3-Coder 480B's FP8 checkpoint", []string{"vllm", "serve", "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "-tp", "8", "--enable-expert-parallel"},
			&want{"qwen3-coder-480b-a35b", "fp8", "bf16", 262144, 8, 0, 0.9, 0, 0}, ""},
		{"Mixtral 8x22B's 65,536 tokens", []string{"vllm", "serve", "mistralai/Mixtral-8x22B-Instruct-v0.1", "-tp", "8"},
			&want{"mixtral-8x22b", "bf16", "bf16", 65536, 8, 0, 0.9, 0, 0}, ""},
		{"Kimi K2's September update: 262,144 tokens", []string{"vllm", "serve", "moonshotai/Kimi-K2-Instruct-0905", "--tensor-parallel-size", "16", "--trust-remote-code"},
			&want{"kimi-k2", "fp8", "bf16", 262144, 16, 0, 0.9, 0, 0}, ""},
		{"DeepSeek V3.1 Terminus: V3's configuration, FP8, 163,840 tokens", []string{"vllm", "serve", "deepseek-ai/DeepSeek-V3.1-Terminus", "-tp", "8"},
			&want{"deepseek-v3", "fp8", "bf16", 163840, 8, 0, 0.9, 0, 0}, ""},
		{"GLM-4.5: 131,072 tokens, 16-bit weights", []string{"vllm", "serve", "zai-org/GLM-4.5", "-tp", "16"},
			&want{"glm-4.5", "bf16", "bf16", 131072, 16, 0, 0.9, 0, 0}, ""},
		{"GLM-4.6's FP8 checkpoint: GLM-4.5's architecture at 202,752 tokens", []string{"vllm", "serve", "zai-org/GLM-4.6-FP8", "-tp", "8"},
			&want{"glm-4.5", "fp8", "bf16", 202752, 8, 0, 0.9, 0, 0}, ""},
		{"GLM-4.7 at 202,752 tokens", []string{"vllm", "serve", "zai-org/GLM-4.7", "-tp", "8", "--kv-cache-dtype", "fp8"},
			&want{"glm-4.5", "bf16", "fp8", 202752, 8, 0, 0.9, 0, 0}, ""},
		{"GLM-4.5-Air's FP8 checkpoint", []string{"vllm", "serve", "zai-org/GLM-4.5-Air-FP8", "-tp", "4"},
			&want{"glm-4.5-air", "fp8", "bf16", 131072, 4, 0, 0.9, 0, 0}, ""},
		{"MiniMax-M2.1: M2's FP8 checkpoint and 196,608 tokens", []string{"vllm", "serve", "MiniMaxAI/MiniMax-M2.1", "--trust-remote-code", "--tensor-parallel-size", "4", "--enable-expert-parallel"},
			&want{"minimax-m2", "fp8", "bf16", 196608, 4, 0, 0.9, 0, 0}, ""},
		{"DeepSeek V3.2's sparse attention is its own preset", []string{"vllm", "serve", "deepseek-ai/DeepSeek-V3.2-Exp", "-tp", "8"},
			&want{"deepseek-v3.2", "fp8", "bf16", 163840, 8, 0, 0.9, 0, 0}, ""},
		{"Kimi K2 Thinking's INT4 checkpoint is not K2's", []string{"vllm", "serve", "moonshotai/Kimi-K2-Thinking", "-tp", "8"},
			nil, "not one of gpuguard's model presets"},
		{"--quantization wins over the name", []string{"vllm", "serve", "Qwen/Qwen2.5-32B-Instruct-GPTQ-Int8", "--quantization", "gptq", "--max-model-len", "8192"},
			&want{"qwen2.5-32b", "int4", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"GPTQ Int8 by name", []string{"vllm", "serve", "Qwen/Qwen2.5-32B-Instruct-GPTQ-Int8", "--max-model-len", "8192"},
			&want{"qwen2.5-32b", "int8", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		// Newer models, and those that keep a preset's architecture.
		{"Qwen 3, 40k context", []string{"vllm", "serve", "Qwen/Qwen3-32B", "-tp", "2"},
			&want{"qwen3-32b", "bf16", "bf16", 40960, 2, 0, 0.9, 0, 0}, ""},
		{"Llama 3.3 is Llama 3.1's architecture", []string{"vllm", "serve", "meta-llama/Llama-3.3-70B-Instruct", "-tp", "4", "--max-model-len", "16k"},
			&want{"llama-3.1-70b", "bf16", "bf16", 16000, 4, 0, 0.9, 0, 0}, ""},
		{"an R1 distillation is its base's", []string{"vllm", "serve", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "-tp", "2"},
			&want{"qwen2.5-32b", "bf16", "bf16", 131072, 2, 0, 0.9, 0, 0}, ""},
		// Counts in vLLM's human-readable form: k, m decimal; K, M binary.
		{"decimal and binary suffixes", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "16K", "--max-num-batched-tokens", "2.5k"},
			&want{"llama-3.1-8b", "bf16", "bf16", 16384, 1, 2500, 0.9, 0, 0}, ""},
		// Multi-LoRA serving preallocates adapter slots: vLLM's defaults are one slot of rank 16.
		{"LoRA slots", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--enable-lora", "--max-loras", "16", "--max-lora-rank", "64"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 16, 64}, ""},
		{"LoRA defaults", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--enable-lora"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 1, 16}, ""},
		{"LoRA off", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--enable-lora=false", "--max-loras", "4"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"speculative decoding", []string{"vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--max-model-len", "8192", "-tp", "4", "--speculative-config", `{"model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 5}`}, nil, "speculative decoding by the draft model meta-llama/Llama-3.2-1B-Instruct loads a draft model"},
		{"CPU offload", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--cpu-offload-gb", "10"}, nil, "--cpu-offload-gb keeps part of the weights in CPU memory"},
		{"no CPU offload", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--cpu-offload-gb", "0"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"no fractions of binary units", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "1.5K"}, nil, `--max-model-len "1.5K" is not a count`},
		{"auto context", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "auto"}, nil, "shortens the context to what the GPU holds"},
		{"-1 context", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len=-1"}, nil, "shortens the context to what the GPU holds"},
		{"-1 context, a word of its own", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "-1"}, nil, "shortens the context to what the GPU holds"},
		{"switches before the model take no value", []string{"vllm", "serve", "--trust-remote-code", "--enable_lora", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--no-enable-prefix-caching", "--enforce-eager"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 1, 16}, ""},
		{"an old switch's explicit false", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--enable-lora", "False", "--max-model-len", "8192"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"local path", []string{"vllm", "serve", "/models/acme", "--max-model-len", "4096"}, nil, "/models/acme, which is not one of gpuguard's model presets"},
		{"a path into a Hugging Face cache", []string{"vllm", "serve", "/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/0e9e39f2", "--max-model-len", "8192"},
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 0, 0.9, 0, 0}, ""},
		{"a cache directory of no preset", []string{"vllm", "serve", "/hub/models--acme--chat-7b/snapshots/1", "--max-model-len", "4096"}, nil, "/hub/models--acme--chat-7b/snapshots/1, which is not one of gpuguard's model presets"},
		{"no model", []string{"vllm", "serve", "--max-model-len", "4096"}, nil, "names no model"},
		{"pipeline parallel", []string{"vllm", "serve", "meta-llama/Llama-3.1-70B", "--max-model-len", "4096", "--pipeline-parallel-size", "2"}, nil, "pipeline parallelism"},
		{"utilization over 1", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "4096", "--gpu-memory-utilization", "90"}, nil, "not a fraction"},
		{"unknown quantization", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "4096", "--quantization", "squeezellm"}, nil, `--quantization "squeezellm" is not modelled`},
		{"gpt-oss, its own MXFP4 named", []string{"vllm", "serve", "openai/gpt-oss-120b", "--quantization", "mxfp4", "--max-model-len", "32768", "-tp", "2"},
			&want{"gpt-oss-120b", "bf16", "bf16", 32768, 2, 0, 0.9, 0, 0}, ""},
		{"gpt-oss, nothing named", []string{"vllm", "serve", "openai/gpt-oss-20b"},
			&want{"gpt-oss-20b", "bf16", "bf16", 131072, 1, 0, 0.9, 0, 0}, ""},
		{"Qwen 3 MoE update, FP8 checkpoint, its 262,144-token context", []string{"vllm", "serve", "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", "-tp", "2"},
			&want{"qwen3-30b-a3b", "fp8", "bf16", 262144, 2, 0, 0.9, 0, 0}, ""},
		{"Qwen 3 MoE base", []string{"vllm", "serve", "Qwen/Qwen3-30B-A3B"},
			&want{"qwen3-30b-a3b", "bf16", "bf16", 40960, 1, 0, 0.9, 0, 0}, ""},
		{"MXFP4 named for a model not stored so", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "4096", "--quantization", "mxfp4"}, nil, "--quantization mxfp4 is modelled for checkpoints whose experts are stored in MXFP4 (gpt-oss), not llama-3.1-8b"},
		{"count not a number", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "$(LEN)"}, nil, `--max-model-len "$(LEN)" is not a count`},
		{"tensor parallel that does not divide the heads", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "4096", "--tensor-parallel-size", "3"}, nil, "does not divide the 32 attention heads"},
	}
	for _, c := range cases {
		p, why := FromVLLM(c.argv)
		if c.want == nil {
			if p != nil || !strings.Contains(why, c.why) {
				t.Errorf("%s: profile %v, why %q; want none, because %q", c.name, p != nil, why, c.why)
			}
			continue
		}
		if p == nil {
			t.Errorf("%s: no profile: %s", c.name, why)
			continue
		}
		w, in := c.want, p.Inference
		got := want{p.Model.Preset, p.Model.Precision, in.KVCachePrecision, in.MaxSequenceLength, in.TensorParallel, in.MaxBatchedTokens, in.GPUMemoryUtilization, in.LoRASlots, in.LoRARank}
		if got != *w || in.BatchSize != 1 || p.Workload.Type != TypeInference || p.Model.Layers == 0 || p.ContextFlag != "--max-model-len" || !strings.HasPrefix(p.Inferred, "vLLM arguments: model ") {
			t.Errorf("%s: got %+v (batch %d, %s, %d layers, flag %q, %q), want %+v", c.name, got, in.BatchSize, p.Workload.Type, p.Model.Layers, p.ContextFlag, p.Inferred, *w)
		}
	}
}

// Mistral 7B v0.1 attends to a 4,096-token window in every layer; v0.2 and v0.3 attend to the
// whole context. The served profile carries that to the KV cache's estimate.
func TestMistralWindowsByVersion(t *testing.T) {
	for model, window := range map[string]int{
		"mistralai/Mistral-7B-v0.1": 4096, "mistralai/Mistral-7B-Instruct-v0.1": 4096,
		"mistralai/Mistral-7B-Instruct-v0.2": 0, "mistralai/Mistral-7B-Instruct-v0.3": 0, "mistralai/Mistral-7B-v0.3": 0,
	} {
		p, why := FromVLLM([]string{"vllm", "serve", model})
		if p == nil {
			t.Errorf("%s: %s", model, why)
			continue
		}
		if p.Model.SlidingWindow != window || p.Model.SlidingWindowLayers != 0 {
			t.Errorf("%s: window %d on %d layers (0: all), want %d on all", model, p.Model.SlidingWindow, p.Model.SlidingWindowLayers, window)
		}
	}
}

// gpt-oss's preset carries what sizes it: the experts' MXFP4 and the windowed layers.
func TestFromVLLMKeepsGptOssFormat(t *testing.T) {
	for _, line := range []string{"vllm serve openai/gpt-oss-120b", "vllm serve openai/gpt-oss-120b --quantization MXFP4 --dtype bfloat16"} {
		p, why := FromVLLM(strings.Split(line, " "))
		if p == nil {
			t.Fatalf("%s: %s", line, why)
		}
		m := p.Model
		if m.ExpertPrecision != "mxfp4" || m.Precision != "bf16" || m.Experts != 128 || m.SlidingWindow != 128 || m.SlidingWindowLayers != 18 {
			t.Errorf("%s: model %+v", line, m)
		}
	}
}

// Any command line gives a valid profile or a reason, never a panic.
func FuzzFromVLLM(f *testing.F) {
	f.Add("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 -tp 2")
	f.Add("python -m vllm.entrypoints.openai.api_server --model=qwen/qwen2.5-7b --max_model_len=4096 --quantization awq --kv-cache-dtype fp8")
	f.Add("vllm serve gpt2 --max-model-len 1024 --gpu-memory-utilization 0.5 --max-num-batched-tokens 0 --dtype float")
	f.Add("vllm serve meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8 -tp 8 --max-model-len 430000 --dtype half")
	f.Add("vllm serve zai-org/GLM-4.6-FP8 -tp 8 --enable-expert-parallel --kv-cache-dtype fp8")
	f.Add(`vllm serve Qwen/Qwen3-8B --speculative-config {"method": "ngram", "num_speculative_tokens": 4} --speculative-config.prompt_lookup_max 4`)
	f.Add(`vllm serve deepseek-ai/DeepSeek-R1 -tp 8 --speculative-config {"method":"mtp","model":"deepseek-ai/DeepSeek-R1","num_speculative_tokens":3}`)
	f.Add("vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 --kv-cache-dtype fp8_ds_mla --max-model-len 65536")
	f.Fuzz(func(t *testing.T, line string) {
		p, why := FromVLLM(strings.Split(line, " "))
		if p == nil {
			if why == "" {
				t.Fatalf("%q: no profile and no reason", line)
			}
			return
		}
		in := p.Inference
		if in.MaxSequenceLength <= 0 || in.TensorParallel < 1 || in.BatchSize != 1 || in.GPUMemoryUtilization <= 0 || in.GPUMemoryUtilization > 1 || p.Model.Layers == 0 || p.Inferred == "" {
			t.Fatalf("%q: profile %+v %+v", line, p.Model, *in)
		}
	})
}

// Speculative decoding that drafts from the tokens already seen (n-gram prompt lookup, suffix
// decoding) loads nothing on the GPU and is served as without it, in each of the forms vLLM
// reads it: a JSON object (whole, split on its spaces in a shell line, or after =), its keys one
// by one, or vLLM 0.6's --speculative-model [ngram]. Draft models, EAGLE and MTP heads, the GPU
// n-gram proposer, a configuration that is no JSON, and --hf-overrides in either form are refused
// with the reason, as is older vLLM's --rope-scaling without --max-model-len (it stretches the
// context vLLM derives).
func TestVLLMSpeculativeDecoding(t *testing.T) {
	const serve = "vllm serve Qwen/Qwen3-8B --max-model-len 8192 "
	for _, c := range []struct {
		name string
		argv []string
		why  string // "" when served
	}{
		{"ngram, one argument", []string{"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192", "--speculative-config", `{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}`}, ""},
		{"ngram in a shell line", []string{"sh", "-c", serve + `--speculative-config '{"method": "ngram", "num_speculative_tokens": 4}' --tensor-parallel-size 1`}, ""},
		{"ngram after =", []string{"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192", `--speculative-config={"method":"ngram","num_speculative_tokens":3}`}, ""},
		{"ngram key by key", strings.Fields(serve + "--speculative-config.method ngram --speculative-config.num_speculative_tokens 4"), ""},
		{"ngram as the model", strings.Fields(serve + `--speculative-config {"model":"[ngram]","num_speculative_tokens":4}`), ""},
		{"vLLM 0.6's [ngram] model", strings.Fields(serve + "--speculative-model [ngram] --num-speculative-tokens 5"), ""},
		{"suffix decoding", strings.Fields(serve + `--speculative-config {"method":"suffix"}`), ""},
		{"EAGLE-3 key by key", strings.Fields(serve + "--speculative-config.method eagle3 --speculative-config.model yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"), "speculative decoding by eagle3 loads a draft model or speculative heads"},
		{"a draft model by vLLM 0.6", strings.Fields(serve + "--speculative-model Qwen/Qwen3-0.6B"), "by the draft model Qwen/Qwen3-0.6B loads a draft model"},
		{"MTP on a model without MTP layers", strings.Fields(serve + `--speculative-config {"method":"mtp","num_speculative_tokens":1}`), "by mtp needs multi-token prediction layers, which the checkpoint of qwen3-8b does not hold"},
		{"the GPU n-gram proposer", strings.Fields(serve + `--speculative-config {"method":"ngram_gpu"}`), "ngram_gpu keeps every sequence's token ids on the GPU"},
		{"a key alone", strings.Fields(serve + "--speculative-config.num_speculative_tokens 4"), "by an unnamed method loads"},
		{"not JSON", strings.Fields(serve + "--speculative-config {method:ngram}"), `"{method:ngram}" is not a JSON object gpuguard reads`},
		{"hf-overrides", []string{"vllm", "serve", "Qwen/Qwen3-8B", "--hf-overrides", `{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}`}, "--hf-overrides changes the model's configuration"},
		{"hf-overrides key by key", strings.Fields(serve + "--hf-overrides.max_position_embeddings 131072"), "--hf-overrides changes the model's configuration"},
		{"rope scaling with the context given", []string{"vllm", "serve", "Qwen/Qwen3-8B", "--rope-scaling", `{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}`, "--max-model-len", "8192", "--speculative-config.method", "ngram"}, ""},
		{"rope scaling without it", []string{"vllm", "serve", "Qwen/Qwen3-8B", "--rope-scaling", `{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}`}, "--rope-scaling stretches the context"},
		{"rope scaling key by key", strings.Fields("vllm serve Qwen/Qwen3-8B --rope-scaling.rope_type yarn --rope-scaling.factor 4"), "--rope-scaling stretches the context"},
	} {
		p, why := FromVLLM(c.argv)
		switch {
		case c.why == "" && p == nil:
			t.Errorf("%s: no profile: %s", c.name, why)
		case c.why == "" && (!strings.Contains(p.Inferred, "speculative decoding by ") || p.Inference.MaxSequenceLength != 8192 || p.Model.Preset != "qwen3-8b"):
			t.Errorf("%s: inferred %q, context %d", c.name, p.Inferred, p.Inference.MaxSequenceLength)
		case c.why != "" && (p != nil || !strings.Contains(why, c.why)):
			t.Errorf("%s: profile %v, why %q; want none, because %q", c.name, p != nil, why, c.why)
		}
	}
}

// TestVLLMMTPSpeculation: multi-token prediction speculative decoding drafts with the served
// checkpoint's own MTP layers, which the profile then carries (DeepSeek's and Z.ai's vLLM
// commands); a checkpoint without them, or a draft checkpoint of another model, is refused.
func TestVLLMMTPSpeculation(t *testing.T) {
	for _, c := range []struct {
		name string
		argv []string
		why  string // "" when served with the preset's MTP layers
	}{
		{"DeepSeek's JSON", []string{"vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "--speculative-config", `{"method": "deepseek_mtp", "num_speculative_tokens": 1}`}, ""},
		{"Z.ai's keys one by one", strings.Fields("vllm serve zai-org/GLM-4.5-Air --tensor-parallel-size 4 --speculative-config.method mtp --speculative-config.num_speculative_tokens 1"), ""},
		{"GLM's own method name", strings.Fields("vllm serve zai-org/GLM-4.6-FP8 -tp 8 --speculative-config.method glm4_moe_mtp"), ""},
		{"the served model named as the draft", []string{"vllm", "serve", "deepseek-ai/DeepSeek-V3", "-tp", "8", "--speculative-config", `{"method":"mtp","model":"deepseek-ai/DeepSeek-V3","num_speculative_tokens":3}`}, ""},
		{"another checkpoint as the draft", []string{"vllm", "serve", "deepseek-ai/DeepSeek-V3", "-tp", "8", "--speculative-config", `{"method":"mtp","model":"org/some-mtp-head"}`}, "drafts with org/some-mtp-head, a checkpoint other than the served one"},
		{"Kimi K2 has none", strings.Fields("vllm serve moonshotai/Kimi-K2-Instruct -tp 16 --speculative-config.method mtp"), "which the checkpoint of kimi-k2 does not hold"},
		{"EAGLE is still a draft model", []string{"vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "--speculative-config", `{"method":"eagle","model":"org/eagle-head"}`}, "by eagle loads a draft model or speculative heads"},
	} {
		p, why := FromVLLM(c.argv)
		switch {
		case c.why == "" && p == nil:
			t.Errorf("%s: no profile: %s", c.name, why)
		case c.why == "" && (p.Inference.MTPLayers != 1 || !strings.Contains(p.Inferred, "multi-token prediction layer as the draft")):
			t.Errorf("%s: MTP layers %d, inferred %q", c.name, p.Inference.MTPLayers, p.Inferred)
		case c.why != "" && (p != nil || !strings.Contains(why, c.why)):
			t.Errorf("%s: profile %v, why %q; want none, because %q", c.name, p != nil, why, c.why)
		}
	}
	p, why := FromVLLM(strings.Fields("vllm serve zai-org/GLM-4.5-Air --speculative-config.method ngram"))
	if p == nil || p.Inference.MTPLayers != 0 {
		t.Errorf("n-gram speculation loads no MTP layers: %v %s", p, why)
	}
}
