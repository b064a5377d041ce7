package memory

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/profiles"
)

func parse(t *testing.T, body string) *profiles.Profile {
	t.Helper()
	p, err := profiles.Parse([]byte("apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata: {name: x}\n"+body), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func estimate(t *testing.T, body string) *Estimate {
	t.Helper()
	e, err := Of(parse(t, body))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The 1.2B Llama shape of the H100 runs.
const llama1B = `model: {parameters: 1235814400, layers: 16, hidden_size: 2048, attention_heads: 32, kv_heads: 8,
  vocab_size: 128256, intermediate_size: 8192, mlp: swiglu, tied_embeddings: true, precision: bf16}
`

// A SwiGLU layer saves 2·(2q + 2kv) + 8·d_ff split (q = h, and k and v a quarter of it, for
// the Llama shape: 5h) and 16h whole per token, 26h with an fp32 residual stream, which autocast
// casts once for each of q, k, v, gate and up: plain full training in mixed precision is
// autocast over fp32 weights; ZeRO, FSDP, tensor parallelism and pure bf16 compute on 16-bit
// weights.
func TestSwiGLUActivationsPerToken(t *testing.T) {
	const tokens = 4 * 2048
	h, dff := 2048.0, 8192.0
	for _, c := range []struct {
		name, training string
		whole          float64
	}{
		{"autocast", "{method: full, optimizer: adamw, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}", 26},
		{"pure bf16", "{method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}", 16},
		{"ZeRO-1", "{method: full, optimizer: adamw, zero_stage: 1, data_parallel: 2, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}", 16},
		{"FSDP", "{method: full, optimizer: adamw, fsdp: full_shard, data_parallel: 2, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}", 16},
		{"FSDP no_shard", "{method: full, optimizer: adamw, fsdp: no_shard, data_parallel: 2, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}", 16},
		{"fp16 autocast", "{method: full, optimizer: adamw, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}", 26},
	} {
		model := llama1B
		if c.name == "fp16 autocast" {
			model = strings.Replace(llama1B, "precision: bf16", "precision: fp16", 1)
		}
		e := estimate(t, "workload: {type: training}\n"+model+"training: "+c.training+"\n")
		want := tokens * 16 * (5*h + 8*dff + c.whole*h)
		if got := e.Term(TermActivations); got != want {
			t.Errorf("%s: activations %.0f, want %.0f", c.name, got, want)
		}
		if logits := e.Term(TermLogits); logits != 12*tokens*128256 {
			t.Errorf("%s: logits %.0f, want 12·b·s·V", c.name, logits)
		}
	}
	// Eager attention repeats k and v to every query head (8h for q, k, v and the output) and
	// keeps the score matrices (Korthikanti et al.'s 5·a·s bytes a token).
	e := estimate(t, "workload: {type: training}\n"+llama1B+"training: {method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 4, sequence_length: 2048, flash_attention: false}\n")
	if got, want := e.Term(TermActivations), tokens*16*(8*h+8*dff+16*h+5*32*2048); got != want {
		t.Errorf("eager attention: activations %.0f, want %.0f", got, want)
	}
	// Padded batches give every layer a mask: SDPA then keeps k and v repeated (8h for q, k, v
	// and the output) and a 16-bit mask of 2·s bytes a token.
	e = estimate(t, "workload: {type: training}\n"+llama1B+"training: {method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 4, sequence_length: 2048, flash_attention: true, padded_batches: true}\n")
	if got, want := e.Term(TermActivations), tokens*16*(8*h+8*dff+16*h+2*2048); got != want {
		t.Errorf("padded batches: activations %.0f, want %.0f", got, want)
	}
	// Megatron-style tensor parallelism computes on 16-bit weights and splits the split part.
	e = estimate(t, "workload: {type: training}\n"+llama1B+"training: {method: full, optimizer: adamw, tensor_parallel: 2, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}\n")
	if got, want := e.Term(TermActivations), tokens*16*(16*h+(5*h+8*dff)/2); got != want {
		t.Errorf("tensor parallel 2: activations %.0f, want %.0f", got, want)
	}
	// So does pipeline parallelism; its first stage holds every layer's activations.
	e = estimate(t, "workload: {type: training}\n"+llama1B+"training: {method: full, optimizer: adamw, pipeline_parallel: 2, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}\n")
	if got, want := e.Term(TermActivations), tokens*16*(16*h+5*h+8*dff); got != want {
		t.Errorf("pipeline parallel 2: activations %.0f, want %.0f", got, want)
	}
	// Full checkpointing keeps each layer's input: 4 bytes per value on an fp32 residual stream,
	// 2 on a 16-bit one, plus one layer recomputed.
	for whole, training := range map[float64]string{
		26: "{method: full, optimizer: adamw, micro_batch_size: 4, sequence_length: 2048, flash_attention: true, activation_checkpointing: true}",
		16: "{method: full, optimizer: adamw, pure_bf16: true, micro_batch_size: 4, sequence_length: 2048, flash_attention: true, activation_checkpointing: true}",
	} {
		e := estimate(t, "workload: {type: training}\n"+llama1B+"training: "+training+"\n")
		keep := 2.0
		if whole == 26 {
			keep = 4
		}
		want := tokens*16*keep*h + tokens*(5*h+8*dff+whole*h)
		if got := e.Term(TermActivations); got != want {
			t.Errorf("checkpointing, %g·h whole: activations %.0f, want %.0f", whole, got, want)
		}
	}
}

// A GELU layer per token, in units of h (geluLayerKept), for GPT-2 XL's shape (d_ff = 4h): one
// fused GELU keeps 2·d_ff, gelu_new 8·d_ff (14·d_ff under autocast); Transformers' layers keep
// the KV cache's copies of k and v (4h) where Megatron's (tensor parallel) keep none and count
// as Korthikanti et al. do (34h: 24 split, 10 whole); a frozen base keeps no projection's input,
// but the kernel keeps its output. The preset's q, k and v are one projection (c_attn), whose
// output stays alive as the query's view, so the cache's k and v are copies; with separate
// projections (BERT, GPT-J; no fused_projections) they are not, and autocast saves a 16-bit
// cast of the LayerNorm's output for each of q, k and v (6h, not 2h).
func TestGELUActivationsPerToken(t *testing.T) {
	const tokens, layers, h = 8 * 1024, 48, 1600.0
	const model = "model: {preset: gpt2-xl, mlp: %s, precision: bf16}\n"
	const separate = "model: {parameters: 1557611200, layers: 48, hidden_size: 1600, attention_heads: 25, vocab_size: 50257, intermediate_size: 6400, mlp: %s, precision: bf16}\n"
	for _, c := range []struct {
		name, mlp, training string
		want                float64 // per token and layer, in h
	}{
		{"separate q, k, v, gelu_new, autocast", "gelu_new", "{method: full, optimizer: adamw}", 90 - 4 + 4},
		{"separate q, k, v, gelu_new, pure bf16", "gelu_new", "{method: full, optimizer: adamw, pure_bf16: true}", 62 - 4},
		{"separate q, k, v, fused, LoRA", "gelu", "{method: lora, lora_rank: 8}", 6 + 2 + 8 + 4 + 2},
		{"gelu_new, autocast", "gelu_new", "{method: full, optimizer: adamw}", 90},
		{"gelu_new, pure bf16", "gelu_new", "{method: full, optimizer: adamw, pure_bf16: true}", 62},
		{"fused, autocast", "gelu", "{method: full, optimizer: adamw}", 42},
		{"fused, pure bf16", "gelu", "{method: full, optimizer: adamw, pure_bf16: true}", 38},
		{"fused, ZeRO-2", "gelu", "{method: full, optimizer: adamw, zero_stage: 2, data_parallel: 2}", 38},
		{"fused, LoRA", "gelu", "{method: lora, lora_rank: 8}", 6 + 4 + 2 + 8 + 4 + 2},
		{"gelu_new, LoRA", "gelu_new", "{method: lora, lora_rank: 8}", 6 + 4 + 2 + 32 + 4 + 2},
		{"fused, Megatron tensor parallel 5", "gelu", "{method: full, optimizer: adamw, tensor_parallel: 5}", 10 + 24.0/5},
		{"gelu_new, Megatron tensor parallel 5", "gelu_new", "{method: full, optimizer: adamw, tensor_parallel: 5}", 10 + (24.0+24)/5},
	} {
		training := strings.Replace(c.training, "}", ", micro_batch_size: 8, sequence_length: 1024, flash_attention: true}", 1)
		m := model
		if strings.HasPrefix(c.name, "separate") {
			m = separate
		}
		e := estimate(t, "workload: {type: training}\n"+fmt.Sprintf(m, c.mlp)+"training: "+training+"\n")
		got := e.Term(TermActivations)
		if want := tokens * layers * c.want * h; math.Abs(got-want) > 1 {
			t.Errorf("%s: activations %.4g h a token and layer, want %g", c.name, got/(tokens*layers*h), c.want)
		}
	}
}

// A 4h MLP with no model.mlp is counted as one fused GELU kernel, and the estimate says what
// gelu_new would keep beyond it: 12·d_ff a token and layer under autocast (28.1 GiB for GPT-2 XL
// at 8 × 1024, which the H200 runs kept: 83,343 MiB against 55,879), over the one layer full
// checkpointing holds at a time. No note where the MLP is declared, or gated.
func TestUndeclaredGELUNote(t *testing.T) {
	const model = "model: {parameters: 1557611200, layers: 48, hidden_size: 1600, attention_heads: 25, vocab_size: 50257, intermediate_size: %d, %sprecision: bf16}\n"
	for _, c := range []struct {
		name, mlp, training string
		dff                 int
		want                string
	}{
		{"undeclared", "", "{method: full, optimizer: adamw}", 6400, "keeps 28.1 GiB more"},
		{"undeclared, checkpointed", "", "{method: full, optimizer: adamw, activation_checkpointing: true}", 6400, "keeps 0.6 GiB more"},
		{"declared gelu", "mlp: gelu, ", "{method: full, optimizer: adamw}", 6400, ""},
		{"declared gelu_new", "mlp: gelu_new, ", "{method: full, optimizer: adamw}", 6400, ""},
		{"gated by its width", "", "{method: full, optimizer: adamw}", 4352, ""},
	} {
		training := strings.Replace(c.training, "}", ", micro_batch_size: 8, sequence_length: 1024, flash_attention: true}", 1)
		e := estimate(t, "workload: {type: training}\n"+fmt.Sprintf(model, c.dff, c.mlp)+"training: "+training+"\n")
		got := noteWith(e, "model.mlp is not declared")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: note %q, want %q", c.name, got, c.want)
		}
	}
}

// noteWith is the estimate's note that contains s, or "".
func noteWith(e *Estimate, s string) string {
	for _, n := range e.Notes {
		if strings.Contains(n, s) {
			return n
		}
	}
	return ""
}

// With training.flash_attention not declared the score matrices are counted (5·a·s²·b bytes a
// layer: 40 GiB over the 1.2B Llama's 16 layers at 4 × 2048, 2.5 GiB for the one layer full
// checkpointing holds), and the estimate says so. Declared either way, or recomputed
// (selective), there is no note.
func TestUndeclaredFlashAttentionNote(t *testing.T) {
	for _, c := range []struct{ name, training, want string }{
		{"undeclared", "{method: full, optimizer: adamw}", "the attention score matrices and k and v repeated to every query head, 40.8 GiB here"},
		{"undeclared, checkpointed", "{method: full, optimizer: adamw, activation_checkpointing: true}", "2.5 GiB here"},
		{"declared", "{method: full, optimizer: adamw, flash_attention: true}", ""},
		{"declared eager", "{method: full, optimizer: adamw, flash_attention: false}", ""},
		{"selective recomputation", "{method: full, optimizer: adamw, activation_checkpointing: selective}", ""},
	} {
		training := strings.Replace(c.training, "}", ", micro_batch_size: 4, sequence_length: 2048}", 1)
		e := estimate(t, "workload: {type: training}\n"+llama1B+"training: "+training+"\n")
		got := noteWith(e, "flash_attention is not declared")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: note %q, want %q", c.name, got, c.want)
		}
	}
}

// PEFT's fp32 copies of the adapted projections' inputs: q, k, v, o by default (16h per token
// per layer), the MLP's too with all-linear (+ 8h + 4·d_ff), one layer under checkpointing.
func TestLoRAAdapterInputs(t *testing.T) {
	const tokens = 8 * 2048
	h, dff := 2048.0, 8192.0
	for _, c := range []struct {
		targets, ckpt string
		want          float64
	}{
		{"", "false", tokens * 16 * 16 * h},
		{"attention", "false", tokens * 16 * 16 * h},
		{"all-linear", "false", tokens * 16 * (24*h + 4*dff)},
		{"all-linear", "true", tokens * (24*h + 4*dff)},
	} {
		train := "training: {method: lora, lora_rank: 16, optimizer: adamw, micro_batch_size: 8, sequence_length: 2048, flash_attention: true, activation_checkpointing: " + c.ckpt
		if c.targets != "" {
			train += ", lora_targets: " + c.targets
		}
		e := estimate(t, "workload: {type: training}\n"+llama1B+train+"}\n")
		// Over a frozen base no projection saves its input: 5h (the attention kernel's q, k, v
		// and output) + 6·d_ff (MLP) + 8h (the RMSNorms' fp32 inputs) per token per layer.
		if c.ckpt == "false" {
			if got, want := e.Term(TermActivations), tokens*16*(13*h+6*dff); got != want {
				t.Errorf("targets %q: activations %.0f, want %.0f", c.targets, got, want)
			}
		}
		if got := e.Term(TermAdapterInputs); got != c.want {
			t.Errorf("targets %q, checkpointing %s: adapter inputs %.0f, want %.0f", c.targets, c.ckpt, got, c.want)
		}
		// all-linear adapters: r·L·(q, k, v, o + gate, up, down), the count PEFT reported on the
		// H100 run (11,272,192 trainable parameters).
		if c.targets == "all-linear" && e.Term(TermAdapters) != 11272192*16 {
			t.Errorf("all-linear adapters: %.0f bytes, want 11,272,192 parameters × 16", e.Term(TermAdapters))
		}
	}
	_, err := profiles.Parse([]byte("apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata: {name: x}\nworkload: {type: training}\n"+llama1B+
		"training: {method: lora, lora_targets: mlp, micro_batch_size: 1, sequence_length: 8}\n"), "x.yaml")
	if err == nil || !strings.Contains(err.Error(), "x.yaml:7") || !strings.Contains(err.Error(), "lora_targets must be attention or all-linear") {
		t.Errorf("an unknown lora_targets: %v", err)
	}
}

// Fused projections (model.fused_projections: Phi-3's and Phi-4's qkv_proj and gate_up_proj,
// GPT-2's c_attn) take one LoRA adapter over the fused matrix, which reads the layer's input
// once, and, under autocast, one 16-bit cast of the norm's output each: 20h whole, not 26h. A
// GELU MLP has two linear layers, not three.
func TestFusedProjections(t *testing.T) {
	const tokens = 4 * 2048
	h, q, kv, dff, L, r := 5120.0, 5120.0, 1280.0, 17920.0, 40.0, 16.0
	lora := "training: {method: lora, lora_rank: 16, lora_targets: %s, optimizer: adamw, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}\n"
	for _, c := range []struct {
		targets        string
		params, inputs float64 // a layer
	}{
		{"attention", r * ((h + q + 2*kv) + (q + h)), 4 * (h + q)},
		{"all-linear", r * ((h + q + 2*kv) + (q + h) + (h + 2*dff) + (dff + h)), 4 * (h + q + h + dff)},
	} {
		e := estimate(t, "workload: {type: training}\nmodel: {preset: phi-4}\n"+fmt.Sprintf(lora, c.targets))
		if got, want := e.Term(TermAdapters), L*c.params*16; got != want {
			t.Errorf("phi-4, %s: adapters %.0f bytes, want %.0f (%.0f parameters)", c.targets, got, want, L*c.params)
		}
		if got, want := e.Term(TermAdapterInputs), tokens*L*c.inputs; got != want {
			t.Errorf("phi-4, %s: adapter inputs %.0f, want %.0f", c.targets, got, want)
		}
	}
	full := "training: {method: full, optimizer: adamw, micro_batch_size: 4, sequence_length: 2048, flash_attention: true}\n"
	e := estimate(t, "workload: {type: training}\nmodel: {preset: phi-4}\n"+full)
	if got, want := e.Term(TermActivations), tokens*L*(2*(2*q+2*kv)+8*dff+20*h); got != want {
		t.Errorf("phi-4 under autocast: activations %.0f, want %.0f (20h whole)", got, want)
	}
	// GPT-2's all-linear adapters: c_attn (h × 3h), the attention's c_proj, c_fc and the MLP's
	// c_proj (h × 4h and back).
	e = estimate(t, "workload: {type: training}\nmodel: {preset: gpt2-xl}\n"+fmt.Sprintf(lora, "all-linear"))
	g := 1600.0
	if got, want := e.Term(TermAdapters), 48*r*(4*g+2*g+2*5*g)*16; got != want {
		t.Errorf("gpt2-xl, all-linear: adapters %.0f bytes, want %.0f", got, want)
	}
}

// Tokens in one serving pass: the profile's max_batched_tokens; vLLM's 8192 when a pre-allocating
// engine is declared without one; else the whole batch, as generate() prefills it.
func TestInferenceTokensInFlight(t *testing.T) {
	h, hkv, dff := 2048.0, 512.0, 8192.0
	perToken := 2*(3*h+2*hkv) + 2*(h+3*dff) + 4*h
	for _, c := range []struct {
		inference string
		tokens    float64
	}{
		{"{batch_size: 16, max_sequence_length: 4096}", 16 * 4096},
		{"{batch_size: 16, max_sequence_length: 4096, gpu_memory_utilization: 0.9}", 8192},
		{"{batch_size: 16, max_sequence_length: 4096, max_batched_tokens: 2048}", 2048},
		// vLLM's profiling pass is its batched-token limit, spread over dummy sequences, however
		// short a sequence is.
		{"{batch_size: 1, max_sequence_length: 4096, gpu_memory_utilization: 0.9}", 8192},
		{"{batch_size: 1, max_sequence_length: 1024, gpu_memory_utilization: 0.9, max_batched_tokens: 2048}", 2048},
		{"{batch_size: 1, max_sequence_length: 1024, max_batched_tokens: 2048}", 1024},
	} {
		e := estimate(t, "workload: {type: inference}\n"+llama1B+"inference: "+c.inference+"\n")
		if got := e.Term(TermActivations); got != c.tokens*perToken {
			t.Errorf("%s: activations %.0f, want %g tokens × %.0f", c.inference, got, c.tokens, perToken)
		}
	}
}

// Every estimate carries the libraries' measured memory beside the context.
func TestLibrariesTerm(t *testing.T) {
	e := estimate(t, "workload: {type: inference}\n"+llama1B+"inference: {batch_size: 1, max_sequence_length: 128}\n")
	if e.Term(TermLibraries) != 492*MiB || e.Term(TermContext) != ContextLazy {
		t.Errorf("libraries %.0f, context %.0f", e.Term(TermLibraries), e.Term(TermContext))
	}
}

// The allocator's margin: 20% with full activation checkpointing, 10% otherwise; 25% with
// checkpointing under PyTorch's expandable segments, which leave freed ranges of their one
// segment mapped; and the profile's runtime.fragmentation over any of them.
func TestFragmentationMargin(t *testing.T) {
	for _, c := range []struct {
		extra string
		want  float64
	}{
		{"activation_checkpointing: false}", 0.10},
		{"activation_checkpointing: selective}", 0.10},
		{"activation_checkpointing: true}", 0.20},
		{"activation_checkpointing: true}\nruntime: {fragmentation: 0.05}", 0.05},
		{"activation_checkpointing: true}\nruntime: {pytorch_alloc_conf: 'expandable_segments:True'}", 0.25},
		{"activation_checkpointing: true}\nruntime: {pytorch_alloc_conf: 'expandable_segments:False'}", 0.20},
		{"activation_checkpointing: selective}\nruntime: {pytorch_alloc_conf: 'expandable_segments:True'}", 0.10},
		{"activation_checkpointing: false}\nruntime: {pytorch_alloc_conf: 'max_split_size_mb:512,expandable_segments:True'}", 0.10},
		{"activation_checkpointing: true}\nruntime: {pytorch_alloc_conf: 'expandable_segments:True', fragmentation: 0.05}", 0.05},
	} {
		e := estimate(t, "workload: {type: training}\n"+llama1B+"training: {method: full, optimizer: adamw, micro_batch_size: 1, sequence_length: 512, "+c.extra+"\n")
		var allocated float64
		for _, term := range e.Terms {
			if term.Name != TermFragment && term.Name != TermContext && term.Name != TermLibraries {
				allocated += term.Bytes
			}
		}
		if got := e.Term(TermFragment) / allocated; got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("%s: margin %.3f, want %.2f", c.extra, got, c.want)
		}
	}
}

// A training step's margin is at least one block of its largest tensor, the loss's fp32 logits
// (4·b·s·V, ÷ tensor parallel), plus 5% of the allocator memory, when that is more than the
// percentage alone: the optimizer state can split the block the logits leave cached. Not with
// expandable segments, which map the next logits into their one segment, nor over a declared
// runtime.fragmentation.
func TestTrainingSplitBlockMargin(t *testing.T) {
	logits := func(b, s, tp float64) float64 { return 4 * b * s * 128256 / tp }
	for _, c := range []struct {
		training string
		want     func(allocated float64) float64
	}{
		{"{method: full, optimizer: adamw, micro_batch_size: 8, sequence_length: 2048}",
			func(a float64) float64 { return logits(8, 2048, 1) + SplitBlockSlack*a }},
		{"{method: full, optimizer: adamw, micro_batch_size: 16, sequence_length: 2048, tensor_parallel: 2}",
			func(a float64) float64 { return logits(16, 2048, 2) + SplitBlockSlack*a }},
		{"{method: lora, optimizer: adamw, micro_batch_size: 8, sequence_length: 2048}",
			func(a float64) float64 { return logits(8, 2048, 1) + SplitBlockSlack*a }},
		{"{method: full, optimizer: adamw, micro_batch_size: 16, sequence_length: 2048, activation_checkpointing: true}",
			func(a float64) float64 { return logits(16, 2048, 1) + SplitBlockSlack*a }},
		{"{method: full, optimizer: adamw, micro_batch_size: 1, sequence_length: 512}",
			func(a float64) float64 { return DefaultFragmentation * a }},
		{"{method: full, optimizer: adamw, micro_batch_size: 2, sequence_length: 2048, activation_checkpointing: true}",
			func(a float64) float64 { return CheckpointingFragmentation * a }},
		{"{method: full, optimizer: adamw, micro_batch_size: 8, sequence_length: 2048}\nruntime: {pytorch_alloc_conf: 'expandable_segments:True'}",
			func(a float64) float64 { return DefaultFragmentation * a }},
		{"{method: full, optimizer: adamw, micro_batch_size: 8, sequence_length: 2048}\nruntime: {fragmentation: 0.05}",
			func(a float64) float64 { return 0.05 * a }},
	} {
		e := estimate(t, "workload: {type: training}\n"+llama1B+"training: "+c.training+"\n")
		if got, want := e.Term(TermFragment), c.want(allocatorBytes(e)); math.Abs(got-want) > 1 {
			t.Errorf("%s: margin %.0f, want %.0f (%s)", c.training, got, want, source(e, TermFragment))
		}
	}
}

// A multi-LoRA server preallocates its slots: Llama 3.1 8B (h 4096, 8 KV heads of 128, d_ff
// 14336, 32 layers) with 16 slots of rank 64. Per layer and rank, A and B of q (h+h), k and v
// (h+1024 each), o (h+h), gate and up (h+d_ff each), down (d_ff+h): 9h + 2·1024 + 3·d_ff =
// 81920; × 32 × 64 × 16 × 2 bytes = 5,368,709,120 B. Over 2 GPUs the column-parallel B and the
// row-parallel A split: 7h whole + (h+2·1024 + h + 3·d_ff)/2 = 28672 + 26624 = 55296, so
// 3,623,878,656 B per GPU. A server without adapters has no such term.
func TestLoRASlots(t *testing.T) {
	const base = "workload: {type: inference}\nmodel: {preset: llama-3.1-8b, precision: bf16}\n"
	for _, c := range []struct {
		inference string
		want      float64
	}{
		{"{batch_size: 1, max_sequence_length: 4096, lora_slots: 16, lora_rank: 64}", 5368709120},
		{"{batch_size: 1, max_sequence_length: 4096, lora_slots: 16, lora_rank: 64, tensor_parallel: 2}", 3623878656},
		{"{batch_size: 1, max_sequence_length: 4096}", 0},
	} {
		e := estimate(t, base+"inference: "+c.inference+"\n")
		if got := e.Term(TermLoRASlots); got != c.want {
			t.Errorf("%s: LoRA slots %.0f B, want %.0f", c.inference, got, c.want)
		}
	}
}
