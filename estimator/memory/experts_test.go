package memory

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The Qwen3-MoE shape of the H100 runs (Qwen3-30B-A3B's layer, 24 layers, 32 experts).
const qwen3MoE = `model: {parameters: 4700872704, layers: 24, hidden_size: 2048, attention_heads: 32, kv_heads: 4,
  head_dim: 128, vocab_size: 151936, intermediate_size: 768, mlp: swiglu, experts: 32, experts_per_token: 8,
  qk_norm: true, precision: bf16}
`

// Four Mixtral-8x7B layers, as the H100 runs built them.
const mixtralLayers = "model: {parameters: 6067228672, layers: 4, hidden_size: 4096, attention_heads: 32, kv_heads: 8, vocab_size: 32000, intermediate_size: 14336, mlp: swiglu, experts: 8, experts_per_token: 2, precision: bf16}\n"

// Training a mixture of experts keeps, beyond its experts' MLPs, each token's k gathered inputs
// (for the experts' weight gradients) and k expert outputs (for the router's), and a model with
// q and k norms what they save. The Qwen3-MoE shape's queries are 4,096 wide (32 heads of 128),
// twice h: its attention kernel keeps 2·(2·4096 + 2·512) bytes a token, 9h. That gives 94.5h a
// layer in pure bf16, where the H100 run kept 95.5h. Over a frozen base the outputs and the
// norms' fp32 inputs only, and the adapters on q and o are as wide as the heads (PEFT counted
// 6,684,672 trainable parameters on the run).
func TestMixtureOfExpertsTrainingActivations(t *testing.T) {
	h, dff, k, L := 2048.0, 768.0, 8.0, 24.0
	heads := (32.0 + 4.0) * 128
	attn := 2 * (2*4096 + 2*512.0)
	e := estimate(t, "workload: {type: training}\n"+qwen3MoE+"training: {method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 2, sequence_length: 2048, flash_attention: true}\n")
	tokens := 2 * 2048.0
	perLayer := attn + k*8*dff + 4*k*h + 6*heads + 16*h
	if r := perLayer / (95.5 * h); r < 0.98 || r > 1.02 {
		t.Fatalf("the count is %gh a layer, the run kept 95.5h", perLayer/h)
	}
	if got, want := e.Term(TermActivations), tokens*L*perLayer; got != want {
		t.Errorf("pure bf16: activations %.0f, want %.0f", got, want)
	}

	e = estimate(t, "workload: {type: training}\n"+qwen3MoE+"training: {method: lora, lora_rank: 16, lora_targets: attention, optimizer: adamw, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}\n")
	tokens = 4 * 2048.0
	if got, want := e.Term(TermActivations), tokens*L*(attn+k*6*dff+2*k*h+4*heads+8*h); got != want {
		t.Errorf("LoRA: activations %.0f, want %.0f", got, want)
	}
	if got, want := e.Term(TermAdapterInputs), tokens*L*4*(3*h+32*128); got != want {
		t.Errorf("LoRA: adapter inputs %.0f, want %.0f (o reads 32 heads of 128)", got, want)
	}
	if got := e.Term(TermAdapters); got != 6684672*16 {
		t.Errorf("LoRA: adapters %.0f bytes, want PEFT's 6,684,672 parameters × 16", got)
	}

	// The first dense_layers layers have no experts, so keep no routed copies.
	dense := strings.Replace(qwen3MoE, "experts_per_token: 8,", "experts_per_token: 8, dense_layers: 6,", 1)
	e = estimate(t, "workload: {type: training}\n"+dense+"training: {method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 2, sequence_length: 2048, flash_attention: true}\n")
	tokens = 2 * 2048.0
	if got, want := e.Term(TermActivations), tokens*(L*(perLayer-4*k*h)+18*4*k*h); got != want {
		t.Errorf("6 dense layers: activations %.0f, want %.0f", got, want)
	}
}

// Qwen 3's and Gemma 3's q and k norms: the preset says so (its parameter count checks it), and
// training keeps 6 bytes per query and KV head element a layer.
func TestQKNormActivations(t *testing.T) {
	train := "training: {method: full, optimizer: adamw, micro_batch_size: 2, sequence_length: 2048, flash_attention: true}\n"
	with := estimate(t, "workload: {type: training}\nmodel: {preset: qwen3-1.7b}\n"+train)
	without := estimate(t, "workload: {type: training}\nmodel: {parameters: 1720574976, layers: 28, hidden_size: 2048, attention_heads: 16, kv_heads: 8, head_dim: 128, vocab_size: 151936, intermediate_size: 6144, mlp: swiglu, tied_embeddings: true, precision: bf16}\n"+train)
	if got, want := with.Term(TermActivations)-without.Term(TermActivations), 2*2048*28*6*(16+8)*128.0; got != want {
		t.Errorf("q and k norms add %.0f bytes, want %.0f", got, want)
	}
}

// Without a serving engine, Transformers' grouped-matmul experts hold at most max(2kh + 8k·d_ff,
// (4 + 2w)·kh) a token, w the routing weights' bytes (fp32 for DeepSeek V3's router); a serving
// engine's fused experts k·2·(h + 3·d_ff).
func TestTransformersExpertsInGenerate(t *testing.T) {
	h, hkv := 2048.0, 4*128.0
	attn := 2 * (3*h + 2*hkv)
	e := estimate(t, "workload: {type: inference}\n"+qwen3MoE+"inference: {batch_size: 16, max_sequence_length: 4096}\n")
	tokens := 16 * 4096.0
	if got, want := e.Term(TermActivations), tokens*(attn+8*8*h+4*h); got != want {
		t.Errorf("Qwen3-MoE generate(): activations %.0f, want %.0f (8kh: 16-bit routing weights)", got, want)
	}
	e = estimate(t, "workload: {type: inference}\n"+qwen3MoE+"inference: {batch_size: 16, max_sequence_length: 4096, gpu_memory_utilization: 0.9}\n")
	if got, want := e.Term(TermActivations), 8192*(attn+8*2*(h+3*768)+4*h); got != want {
		t.Errorf("Qwen3-MoE under vLLM: activations %.0f, want %.0f (fused experts)", got, want)
	}

	// Mixtral's wide experts: the gate and up outputs are the most.
	e = estimate(t, "workload: {type: inference}\n"+mixtralLayers+"inference: {batch_size: 8, max_sequence_length: 4096}\n")
	if got, want := e.Term(TermActivations), 8*4096*(2*(3*4096+2*1024)+2*2*4096+8*2*14336+4*4096.0); got != want {
		t.Errorf("Mixtral generate(): activations %.0f, want %.0f", got, want)
	}

	// DeepSeek's router hands the experts fp32 weights: 12kh, then the shared experts.
	deepseek := "model: {parameters: 15706484224, layers: 27, hidden_size: 2048, attention_heads: 16, kv_heads: 16, head_dim: 128, vocab_size: 102400, intermediate_size: 1408, mlp: swiglu, experts: 64, experts_per_token: 6, shared_experts: 2, dense_layers: 1, kv_lora_rank: 512, qk_rope_head_dim: 64, precision: bf16}\n"
	e = estimate(t, "workload: {type: inference}\n"+deepseek+"inference: {batch_size: 8, max_sequence_length: 4096}\n")
	if got, want := e.Term(TermActivations), 8*4096*(2*(3*h+2*h)+12*6*h+2*2*(h+3*1408)+4*h); got != want {
		t.Errorf("DeepSeek-V2-Lite generate(): activations %.0f, want %.0f", got, want)
	}
}

// A Transformers prefill's fragmentation margin is at least twice its largest transient tensor;
// a declared runtime.fragmentation and a pre-allocating engine keep theirs, and so does
// PyTorch's expandable segments, which map the next large tensor into their one segment.
func TestPrefillFragmentationMargin(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       func(e *Estimate) float64
	}{
		{"Mixtral generate()", mixtralLayers + "inference: {batch_size: 8, max_sequence_length: 4096}\n",
			func(*Estimate) float64 { return 2 * 8 * 4096 * 2 * 2 * 14336 * 2 }},
		{"Qwen3-MoE generate()", qwen3MoE + "inference: {batch_size: 16, max_sequence_length: 4096}\n",
			func(*Estimate) float64 { return 2 * 16 * 4096 * 8 * 2048 * 2 }},
		{"Llama generate() of one short sequence", llama1B + "inference: {batch_size: 1, max_sequence_length: 512}\n",
			func(e *Estimate) float64 { return DefaultFragmentation * allocatorBytes(e) }},
		{"declared", mixtralLayers + "inference: {batch_size: 8, max_sequence_length: 4096}\nruntime: {fragmentation: 0.05}\n",
			func(e *Estimate) float64 { return 0.05 * allocatorBytes(e) }},
		{"vLLM", mixtralLayers + "inference: {batch_size: 8, max_sequence_length: 4096, gpu_memory_utilization: 0.9}\n",
			func(e *Estimate) float64 { return DefaultFragmentation * allocatorBytes(e) }},
		{"expandable segments", mixtralLayers + "inference: {batch_size: 8, max_sequence_length: 4096}\nruntime: {pytorch_alloc_conf: 'expandable_segments:True'}\n",
			func(e *Estimate) float64 { return DefaultFragmentation * allocatorBytes(e) }},
		{"expandable segments off", mixtralLayers + "inference: {batch_size: 8, max_sequence_length: 4096}\nruntime: {pytorch_alloc_conf: 'expandable_segments:False'}\n",
			func(*Estimate) float64 { return 2 * 8 * 4096 * 2 * 2 * 14336 * 2 }},
	} {
		e := estimate(t, "workload: {type: inference}\n"+c.body)
		if got, want := e.Term(TermFragment), c.want(e); got != want {
			t.Errorf("%s: margin %.0f, want %.0f (%s)", c.name, got, want, source(e, TermFragment))
		}
	}
}

// allocatorBytes is what the estimate's terms before the margin add up to.
func allocatorBytes(e *Estimate) float64 {
	var sum float64
	for _, t := range e.Terms {
		if t.Name == TermFragment {
			break
		}
		sum += t.Bytes
	}
	return sum
}

// Gemma's four norms a layer scale in fp32: in full training each pre-norm keeps 10h (8h and
// autocast's casts for q, k, v, gate and up on an fp32 stream: 26h for two), each output norm
// 8h and the q and k norms 8 bytes an element; over a frozen base the norms keep their fp32
// inputs only. 22 of Gemma-3-1B's 26 layers attend within 512 tokens: at 2,048 they take a
// mask, so k and v are repeated to the 4 query heads and the kernel keeps a 16-bit mask of
// 2·s bytes a token. Measured on an H100, Gemma-3-1B kept 110.7h a layer under autocast, 102.5h
// in pure bf16 and 112.4h with all-linear LoRA (adapter inputs included); these count 108.6h,
// 102.6h and 113.7h. PEFT counted 13,045,760 adapter parameters, as the estimate does.
func TestSandwichNorms(t *testing.T) {
	h, dff, L := 1152.0, 6912.0, 26.0
	heads := (4.0 + 1.0) * 256
	windowed := 22 / L
	kv := 256 + (1024-256)*windowed
	attn := 2*(2*1024+2*kv) + windowed*2*2048
	const gemma = "workload: {type: training}\nmodel: {preset: gemma-3-1b}\n"
	for _, c := range []struct {
		name, training string
		tokens, want   float64
	}{
		{"autocast", "{method: full, optimizer: adamw, micro_batch_size: 2, sequence_length: 2048, flash_attention: true}", 2 * 2048, attn + 8*dff + 8*heads + 42*h},
		{"pure bf16", "{method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 2, sequence_length: 2048, flash_attention: true}", 2 * 2048, attn + 8*dff + 8*heads + 36*h},
		{"LoRA", "{method: lora, lora_rank: 16, lora_targets: all-linear, optimizer: adamw, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}", 4 * 2048, attn + 6*dff + 4*heads + 16*h},
	} {
		e := estimate(t, gemma+"training: "+c.training+"\n")
		if got, want := e.Term(TermActivations), c.tokens*L*c.want; math.Abs(got-want) > 1 {
			t.Errorf("%s: activations %.0f, want %.0f", c.name, got, want)
		}
		if c.name == "LoRA" && e.Term(TermAdapters) != 13045760*16 {
			t.Errorf("LoRA: adapters %.0f bytes, want PEFT's 13,045,760 parameters × 16", e.Term(TermAdapters))
		}
	}
	// At 512 tokens no windowed layer needs a mask: k and v stay grouped, and no mask is kept.
	e := estimate(t, gemma+"training: {method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 8, sequence_length: 512, flash_attention: true}\n")
	if got, want := e.Term(TermActivations), 8*512*L*(2*(2*1024+2*256)+8*dff+8*heads+36*h); math.Abs(got-want) > 1 {
		t.Errorf("512 tokens: activations %.0f, want %.0f", got, want)
	}
}

// Z.ai's GLM-4.5 README lists the fewest GPUs each fine-tuning method ran on at a batch of one:
// LoRA (LLaMA-Factory) on 4 H100s for GLM-4.5-Air and 16 for GLM-4.5; full fine-tuning (Swift)
// on 32 and 128 H20s of 96 GiB. The sequence length is not given; 2,048 tokens (LLaMA-Factory's
// default cutoff_len) is assumed, with ZeRO-3 and activation checkpointing, as both tools
// shard a model this size. The estimate fits each (66.5, 57.9, 69.0 and 60.9 GiB a GPU) and
// none on half the GPUs (126.2, 107.2, 128.7 and 110.2 GiB): the publisher's counts are the
// fewest that fit by the estimate too.
func TestGLMFineTuningOnZaisConfigurations(t *testing.T) {
	const h100, h20 = 81559 * MiB, 96 * GiB
	for _, c := range []struct {
		preset, method string
		gpus           int
		budget         float64
		fits           bool
	}{
		{"glm-4.5-air", "lora", 4, h100, true},
		{"glm-4.5-air", "lora", 2, h100, false},
		{"glm-4.5", "lora", 16, h100, true},
		{"glm-4.5", "lora", 8, h100, false},
		{"glm-4.5-air", "full", 32, h20, true},
		{"glm-4.5-air", "full", 16, h20, false},
		{"glm-4.5", "full", 128, h20, true},
		{"glm-4.5", "full", 64, h20, false},
	} {
		e := estimate(t, fmt.Sprintf("workload: {type: training}\nmodel: {preset: %s, precision: bf16}\ntraining: {method: %s, lora_rank: 8, optimizer: adamw, micro_batch_size: 1, sequence_length: 2048, activation_checkpointing: true, flash_attention: true, data_parallel: %d, zero_stage: 3}\n", c.preset, c.method, c.gpus))
		if got := e.PerGPUBytes <= c.budget; got != c.fits {
			t.Errorf("%s %s on %d GPUs: %.1f GiB a GPU of %.1f, fits %v, want %v", c.preset, c.method, c.gpus, e.PerGPUBytes/GiB, c.budget/GiB, got, c.fits)
		}
	}
}
