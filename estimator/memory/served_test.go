package memory

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/profiles"
)

func source(e *Estimate, term string) string {
	for _, t := range e.Terms {
		if t.Name == term {
			return t.Source
		}
	}
	return ""
}

// gpt-oss keeps its experts' projections in MXFP4 and the rest in bf16. Its model card
// (arXiv:2508.10925, Table 1) gives the checkpoints as 12.8 GiB (20b) and 60.8 GiB (120b); the
// count from the presets' configuration must land there, not at the 39 and 218 GiB of bf16.
func TestServedWeightsOfMXFP4Experts(t *testing.T) {
	for _, c := range []struct {
		preset string
		tp     int
		gib    float64
	}{
		{"gpt-oss-20b", 1, 12.8},
		{"gpt-oss-120b", 1, 60.8},
		{"gpt-oss-120b", 2, 30.4},
	} {
		e := estimate(t, fmt.Sprintf("workload: {type: inference}\nmodel: {preset: %s}\ninference: {batch_size: 1, max_sequence_length: 4096, tensor_parallel: %d}\n", c.preset, c.tp))
		within(t, c.preset, e.Term(TermWeights)/gib, c.gib, 0.002)
		if src := source(e, TermWeights); !strings.Contains(src, "in mxfp4") || !strings.Contains(src, "in bf16") {
			t.Errorf("%s: the weights' source does not say how they were counted: %q", c.preset, src)
		}
	}
	// Hand count for gpt-oss-20b: 32 experts × 24 layers × 3 projections × 2880 × 2880 =
	// 19,110,297,600 parameters at 4.25 bits, and the other 1,804,459,584 at 2 bytes.
	e := estimate(t, "workload: {type: inference}\nmodel: {preset: gpt-oss-20b}\ninference: {batch_size: 1, max_sequence_length: 4096}\n")
	if got, want := e.Term(TermWeights), 19110297600*4.25/8+1804459584*2; got != want {
		t.Errorf("gpt-oss-20b weights %.0f bytes, want %.0f", got, want)
	}
	// Declared without expert_precision, the same model is every parameter in bf16.
	e = estimate(t, "workload: {type: inference}\nmodel: {parameters: 20914757184, layers: 24, hidden_size: 2880, attention_heads: 64, kv_heads: 8, head_dim: 64, vocab_size: 201088, intermediate_size: 2880, mlp: swiglu, experts: 32, experts_per_token: 4}\ninference: {batch_size: 1, max_sequence_length: 4096}\n")
	if got := e.Term(TermWeights); got != 20914757184*2 {
		t.Errorf("without expert_precision: %.0f bytes, want every parameter in bf16", got)
	}
	// A GELU mixture (up and down per expert) quantized to int8 with int4 experts: the experts'
	// 4 × 2 layers × 2 × 1024 × 4096 = 67,108,864 parameters at 4.5 bits, the untied
	// embeddings' 2,048,000 and the routers' 2 × 4 × 1024 = 8,192 in 16-bit, the rest at 1 byte.
	const gelu = "workload: {type: inference}\nmodel: {parameters: %d, layers: 2, hidden_size: 1024, attention_heads: 8, vocab_size: 1000, intermediate_size: 4096, mlp: gelu, experts: 4, experts_per_token: 1, precision: int8, expert_precision: int4}\ninference: {batch_size: 1, max_sequence_length: 128}\n"
	e = estimate(t, fmt.Sprintf(gelu, 1000000000))
	if got, want := e.Term(TermWeights), 67108864*4.5/8+2048000*2+8192*2+(1e9-67108864-2048000-8192); got != want {
		t.Errorf("int4 GELU experts: %.0f bytes, want %.0f", got, want)
	}
	// A declared count smaller than its parts is never taken below zero: the experts' share
	// first, then what is left as embeddings.
	e = estimate(t, fmt.Sprintf(gelu, 67108864+1000))
	if got, want := e.Term(TermWeights), 67108864*4.5/8+1000*2; got != want {
		t.Errorf("a count smaller than its parts: %.0f bytes, want %.0f", got, want)
	}
	// Training counts every weight in the model's precision: the gpt-oss fine-tuning recipe
	// dequantizes the experts first.
	e = estimate(t, "workload: {type: training}\nmodel: {preset: gpt-oss-20b}\ntraining: {method: lora, micro_batch_size: 1, sequence_length: 1024}\n")
	if got := e.Term(TermWeights); got != 20914757184*2 {
		t.Errorf("LoRA over gpt-oss-20b: base weights %.0f bytes, want every parameter in bf16", got)
	}
}

// A layer with a sliding window keeps the last window tokens of KV cache; the others keep the
// whole sequence. SGLang's pools count every layer at full length.
func TestKVCacheOfSlidingWindowLayers(t *testing.T) {
	const oss = "workload: {type: inference}\nmodel: {preset: gpt-oss-120b}\n"
	// gpt-oss-120b: 8 KV heads × 64 × 2 (K and V) × 2 bytes = 2,048 bytes per layer and token;
	// 18 full layers hold 131,072 tokens, 18 windowed ones 128.
	e := estimate(t, oss+"inference: {batch_size: 1, max_sequence_length: 131072, gpu_memory_utilization: 0.9, kv_cache_precision: bf16}\n")
	if got, want := e.Term(TermKVCache), 2048.0*(18*131072+18*128); got != want {
		t.Errorf("gpt-oss-120b at 131,072 tokens: KV %.0f bytes, want %.0f", got, want)
	}
	if e.KVTokens != 131072 {
		t.Errorf("KVTokens %d, want the sequence's 131,072", e.KVTokens)
	}
	// Batch 4, tensor parallel 2: each GPU holds 4 of the 8 KV heads of 4 sequences.
	e = estimate(t, oss+"inference: {batch_size: 4, max_sequence_length: 8192, tensor_parallel: 2, kv_cache_precision: bf16}\n")
	if got, want := e.Term(TermKVCache), 4*1024.0*(18*8192+18*128); got != want {
		t.Errorf("gpt-oss-120b, 4 × 8,192 on 2 GPUs: KV %.0f bytes, want %.0f", got, want)
	}
	// A sequence within the window is whole in every layer.
	e = estimate(t, oss+"inference: {batch_size: 1, max_sequence_length: 100, kv_cache_precision: bf16}\n")
	if got, want := e.Term(TermKVCache), 2048.0*36*100; got != want {
		t.Errorf("gpt-oss-120b at 100 tokens: KV %.0f bytes, want %.0f", got, want)
	}
	// Gemma 2 9B: 8 KV heads of 256, 8,192 bytes per layer and token; 21 of its 42 layers
	// see 4,096 tokens.
	e = estimate(t, "workload: {type: inference}\nmodel: {preset: gemma-2-9b}\ninference: {batch_size: 1, max_sequence_length: 8192, kv_cache_precision: bf16}\n")
	if got, want := e.Term(TermKVCache), 8192.0*(21*8192+21*4096); got != want {
		t.Errorf("gemma-2-9b at 8,192 tokens: KV %.0f bytes, want %.0f", got, want)
	}
	// Every layer windowed (sliding_window_layers left out).
	e = estimate(t, "workload: {type: inference}\n"+strings.Replace(llama1B, "precision: bf16}", "precision: bf16, sliding_window: 1024}", 1)+"inference: {batch_size: 2, max_sequence_length: 4096, kv_cache_precision: bf16}\n")
	if got, want := e.Term(TermKVCache), 2*8*64*2*2*16*1024.0; got != want {
		t.Errorf("every layer windowed: KV %.0f bytes, want %.0f", got, want)
	}
	if src := source(e, TermKVCache); !strings.HasSuffix(src, "× 16 layers·their 1024-token window") {
		t.Errorf("every layer windowed: source %q", src)
	}
	// SGLang: whole length in every layer.
	p := parse(t, oss+"inference: {batch_size: 1, max_sequence_length: 131072, kv_cache_precision: bf16}\n")
	p.Inference.SGLang = &profiles.SGLangServer{}
	s, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Term(TermKVCache), 2048.0*36*131072; got != want {
		t.Errorf("SGLang gpt-oss-120b: KV %.0f bytes, want every layer whole, %.0f", got, want)
	}
}

// The longest sequence whose KV cache fits a budget: full layers grow with it, windowed layers
// stop at their window.
func TestKVTokensWithin(t *testing.T) {
	const oss = "workload: {type: inference}\nmodel: {preset: gpt-oss-120b}\n"
	p := parse(t, oss+"inference: {batch_size: 1, max_sequence_length: 131072, kv_cache_precision: bf16}\n")
	e, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	kv := e.Term(TermKVCache)
	// gpt-oss-120b, 2,048 bytes per layer and token: 10 GiB holds the 18 windowed layers' 128
	// tokens and (10 GiB/2,048 − 18·128)/18 tokens in each full layer.
	budget := 10.0 * GiB
	if got, want := KVTokensWithin(p.Model, p.Inference, kv, budget), int((budget/2048-18*128)/18); got != want {
		t.Errorf("gpt-oss-120b in 10 GiB: %d tokens, want %d", got, want)
	}
	// Within the window every layer holds the whole sequence.
	if got, want := KVTokensWithin(p.Model, p.Inference, kv, 2048*36*100), 100; got != want {
		t.Errorf("gpt-oss-120b in 100 tokens' bytes: %d, want %d", got, want)
	}
	// The same budget without windows (SGLang counts every layer whole) holds less.
	p.Inference.SGLang = &profiles.SGLangServer{}
	if got, want := KVTokensWithin(p.Model, p.Inference, 2048.0*36*131072, budget), int(budget/2048/36); got != want {
		t.Errorf("SGLang gpt-oss-120b in 10 GiB: %d tokens, want %d", got, want)
	}
	// Every layer windowed: once the window fits, any context does; short of it, the budget's
	// tokens in every layer.
	w := parse(t, "workload: {type: inference}\nmodel: {preset: mistral-7b}\ninference: {batch_size: 1, max_sequence_length: 32768, kv_cache_precision: bf16}\n")
	we, err := Of(w)
	if err != nil {
		t.Fatal(err)
	}
	// Mistral 7B v0.1: 32 layers × 8 KV heads × 128 × 2 × 2 bytes = 131,072 bytes a token, of
	// which 4,096 are kept.
	if got, want := we.Term(TermKVCache), 131072.0*4096; got != want {
		t.Fatalf("mistral-7b at 32,768 tokens: KV %.0f bytes, want its window's %.0f", got, want)
	}
	if got := KVTokensWithin(w.Model, w.Inference, we.Term(TermKVCache), 131072*4096); got != math.MaxInt {
		t.Errorf("mistral-7b with its window's bytes: %d tokens, want any (math.MaxInt)", got)
	}
	if got, want := KVTokensWithin(w.Model, w.Inference, we.Term(TermKVCache), 131072*1000), 1000; got != want {
		t.Errorf("mistral-7b with 1,000 tokens' bytes: %d, want %d", got, want)
	}
	if got := KVTokensWithin(w.Model, w.Inference, we.Term(TermKVCache), -1); got != 0 {
		t.Errorf("no budget: %d tokens, want 0", got)
	}
}

// Multi-head latent attention (DeepSeek V3) caches one latent of kv_lora_rank values and one
// rotary key per token and layer: 61 × (512 + 64) values, whole on every GPU whatever the
// tensor parallelism, where grouped-query attention's K and V for 128 heads would be 61 × 2 ×
// 128 × 128 values split between them. The FP8 checkpoint's weights are 1 byte each but for
// the untied embeddings' 2 × 129,280 × 7,168 in bf16.
// DeepSeek V3's latent cache is one latent and one rotary key a token and layer, whole on
// every GPU; its FP8 weights split over tensor parallelism but for what every GPU keeps whole:
// the latent down-projections, 61 × 7,168 × (1,536 + 512 + 64) in FP8, and the routers, 58 ×
// 256 × 7,168 in bf16 as the checkpoint stores them (with the embeddings).
func TestKVCacheOfLatentAttention(t *testing.T) {
	const ctx = 163840
	const emb = 2 * 129280 * 7168
	const latent, routers = 61 * 7168 * 2112, 58 * 256 * 7168
	const all = 671026419200 + emb + routers // FP8, the embeddings and routers twice over in bf16
	const whole = latent + 2*routers
	for _, tp := range []int{8, 16} {
		e := estimate(t, fmt.Sprintf("workload: {type: inference}\nmodel: {preset: deepseek-v3}\ninference: {batch_size: 1, max_sequence_length: %d, tensor_parallel: %d, kv_cache_precision: bf16}\n", ctx, tp))
		if got, want := e.Term(TermKVCache), 61.0*576*ctx*2; got != want {
			t.Errorf("tp %d: KV %.0f bytes, want %.0f (61 layers × 576 values × %d tokens × 2 bytes)", tp, got, want, ctx)
		}
		if src := source(e, TermKVCache); !strings.Contains(src, "kv_lora_rank + qk_rope_head_dim") {
			t.Errorf("tp %d: the KV cache's source does not name latent attention: %q", tp, src)
		}
		if got, want := e.Term(TermWeights), (all-whole)/float64(tp)+whole; math.Abs(got-want) > 1 {
			t.Errorf("tp %d: weights %.0f bytes, want %.0f (FP8 but the embeddings and routers; projections and routers whole)", tp, got, want)
		}
		if src := source(e, TermWeights); !strings.Contains(src, "the routers and latent down-projections (1.14 GB) whole on every GPU") {
			t.Errorf("tp %d: the weights' source does not say what stays whole: %q", tp, src)
		}
	}
	// The preset's FP8 is the default only: a profile may say how its weights are stored.
	e := estimate(t, "workload: {type: inference}\nmodel: {preset: deepseek-v3, precision: bf16}\ninference: {batch_size: 2, max_sequence_length: 4096, tensor_parallel: 16, kv_cache_precision: fp8}\n")
	if got, want := e.Term(TermWeights), (671026419200-latent-routers)*2/16.0+(latent+routers)*2; math.Abs(got-want) > 1 {
		t.Errorf("bf16 DeepSeek V3 over 16 GPUs: weights %.0f bytes, want %.0f", got, want)
	}
	if got, want := e.Term(TermKVCache), 61.0*576*4096*2; got != want {
		t.Errorf("fp8 KV for 2 × 4,096 tokens: %.0f bytes, want %.0f", got, want)
	}
	// The longest context a budget holds follows from the latent's size per token.
	p := parse(t, "workload: {type: inference}\nmodel: {preset: deepseek-v3}\ninference: {batch_size: 1, max_sequence_length: 163840, tensor_parallel: 8, kv_cache_precision: bf16}\n")
	kv := 61.0 * 576 * ctx * 2
	if got, want := KVTokensWithin(p.Model, p.Inference, kv, 4*GiB), int(4*GiB/(61*576*2)); got != want {
		t.Errorf("4 GiB of latent cache: %d tokens, want %d", got, want)
	}
}

// vLLM's data-parallel engines of a mixture of experts split the routed experts over all their
// GPUs and keep the rest whole on each engine's: DeepSeek V3 over eight engines of one GPU
// holds 256 experts × 58 MoE layers (the first 3 are dense) × 3 × 7,168 × 2,048 parameters in
// FP8 split eight ways, and the other 18.97 GB (attention, dense layers, shared experts, bf16
// embeddings) on every GPU.
func TestRoutedExpertsSplitOverDataParallelEngines(t *testing.T) {
	const experts = 256 * 58 * 3 * 7168 * 2048
	const routers = 58 * 256 * 7168
	const all = 671026419200 + 2*129280*7168 + routers // FP8, the untied embeddings' and routers' parameters twice over in bf16
	const whole = 61*7168*2112 + 2*routers             // on every GPU whatever the split (TestKVCacheOfLatentAttention)
	p := parse(t, "workload: {type: inference}\nmodel: {preset: deepseek-v3}\ninference: {batch_size: 1, max_sequence_length: 8192, kv_cache_precision: bf16}\n")
	p.Inference.ExpertParallel = 8
	e, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Term(TermWeights), float64(all-experts)+experts/8.0; got != want {
		t.Errorf("DeepSeek V3 over 8 engines: weights %.0f bytes a GPU, want %.0f", got, want)
	}
	if src := source(e, TermWeights); !strings.Contains(src, "÷ 8 GPUs (data × tensor parallel)") {
		t.Errorf("the weights' source does not say how the experts were split: %q", src)
	}
	// Two engines of four GPUs: the rest ÷ 4, the experts ÷ 8.
	p.Inference.TensorParallel, p.Inference.ExpertParallel = 4, 8
	if e, err = Of(p); err != nil {
		t.Fatal(err)
	}
	if got, want := e.Term(TermWeights), float64(all-experts-whole)/4+experts/8.0+whole; math.Abs(got-want) > 1 {
		t.Errorf("two engines of four: weights %.0f bytes a GPU, want %.0f", got, want)
	}
	// A dense model's engines each hold it whole.
	d := parse(t, "workload: {type: inference}\nmodel: {preset: llama-3.1-8b}\ninference: {batch_size: 1, max_sequence_length: 8192}\n")
	d.Inference.ExpertParallel = 4
	if e, err = Of(d); err != nil {
		t.Fatal(err)
	}
	if got, want := e.Term(TermWeights), 8030261248*2.0; got != want {
		t.Errorf("dense engines: weights %.0f bytes, want the whole model's %.0f", got, want)
	}
	// gpt-oss's MXFP4 experts are split in their own precision.
	g := parse(t, "workload: {type: inference}\nmodel: {preset: gpt-oss-120b}\ninference: {batch_size: 1, max_sequence_length: 8192}\n")
	g.Inference.ExpertParallel = 2
	if e, err = Of(g); err != nil {
		t.Fatal(err)
	}
	const ossExperts = 128 * 36 * 3 * 2880 * 2880
	if got, want := e.Term(TermWeights), (116829156672-ossExperts)*2+ossExperts*4.25/8/2; math.Abs(got-want) > 1 {
		t.Errorf("gpt-oss-120b over 2 engines: weights %.0f bytes a GPU, want %.0f", got, want)
	}
}

// A mixture of experts' attention layers are what its parameters leave once embeddings, MLPs
// and routers are counted off; from each model's config.json directly, with the layer norms
// (two a layer, one at the end), DeepSeek V3's latent projections with their norms and its
// routers' bias, and Qwen 3's per-head q and k norms.
func TestAttentionParamsFollowFromTheConfiguration(t *testing.T) {
	// DeepSeek V3: q_lora_rank 1536, qk_nope_head_dim 128, v_head_dim 128, 128 heads.
	const h, q, heads, nope, rope, kv, v = 7168, 1536, 128, 128, 64, 512, 128
	mla := h*q + q + q*heads*(nope+rope) + h*(kv+rope) + kv + kv*heads*(nope+v) + heads*v*h
	// Qwen3-30B-A3B: 32 heads and 4 KV heads of 128, width 2048; Mixtral 8x7B: 32 and 8, 4096.
	gqa := func(h, heads, kvHeads, d, norms int) int {
		return h*heads*d + 2*h*kvHeads*d + heads*d*h + norms
	}
	for _, c := range []struct {
		preset string
		want   int
	}{
		{"deepseek-v3", 61*(mla+2*h) + h + 58*256},
		{"qwen3-30b-a3b", 48*(gqa(2048, 32, 4, 128, 2*128)+2*2048) + 2048},
		{"mixtral-8x7b", 32*(gqa(4096, 32, 8, 128, 0)+2*4096) + 4096},
	} {
		pr, _ := profiles.LookupPreset(c.preset)
		if got := attentionParams(pr.Model); got != float64(c.want) {
			t.Errorf("%s: %.0f attention parameters, its configuration gives %d", c.preset, got, c.want)
		}
	}
}

// SGLang's data-parallel attention keeps the input embeddings whole on every GPU and splits
// attention over tp/dp GPUs, the rest over all tp: over tensor parallelism alone, each GPU
// holds 7/8 more of the embeddings and of attention at --tp 8 --dp 8. Its KV heads are split
// over the attention group only.
func TestDataParallelAttentionWeightsAndKVCache(t *testing.T) {
	const emb = 129280 * 7168 * 2           // bf16 in an FP8 checkpoint
	const attn = 11414443520 - 61*7168*2112 // FP8 (TestAttentionParamsFollowFromTheConfiguration), less the latent down-projections every GPU holds whole anyway
	p := parse(t, "workload: {type: inference}\nmodel: {preset: deepseek-v3}\ninference: {batch_size: 1, max_sequence_length: 8192, kv_cache_precision: bf16, tensor_parallel: 8}\n")
	tp, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dp   int
		more float64
	}{{1, 0}, {2, (emb + attn/4.0) - (emb+attn)/8.0}, {8, (emb + attn) * 7 / 8.0}} {
		p.Inference.AttentionDataParallel = c.dp
		e, err := Of(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Term(TermWeights) - tp.Term(TermWeights); math.Abs(got-c.more) > 1 {
			t.Errorf("DeepSeek V3, --tp 8 --dp %d: %.0f bytes of weights a GPU more than tensor parallel alone, want %.0f", c.dp, got, c.more)
		}
		if e.GPUs != 8 || e.Term(TermKVCache) != tp.Term(TermKVCache) {
			t.Errorf("--dp %d: %d GPUs and %.0f bytes of latent KV cache, want 8 and %.0f", c.dp, e.GPUs, e.Term(TermKVCache), tp.Term(TermKVCache))
		}
	}
	// The last case, --dp 8, says how it split them.
	e, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	if src := source(e, TermWeights); !strings.Contains(src, "the embeddings whole, attention whole on each of 8 data-parallel ranks, the rest ÷ 8 tensor parallel") {
		t.Errorf("the weights' source does not say how attention was split: %q", src)
	}
	// Qwen3-235B's 4 KV heads: one a GPU over tensor parallelism of 8 (replicated), all four
	// on each GPU of an attention group of one.
	q := parse(t, "workload: {type: inference}\nmodel: {preset: qwen3-235b-a22b}\ninference: {batch_size: 1, max_sequence_length: 8192, tensor_parallel: 8}\n")
	plain, err := Of(q)
	if err != nil {
		t.Fatal(err)
	}
	if src := source(plain, TermWeights); !strings.HasSuffix(src, "; the routers (0.0986 GB) whole on every GPU") {
		t.Errorf("Qwen3-235B has routers and no latent attention: %q", src)
	}
	q.Inference.AttentionDataParallel = 8
	dp, err := Of(q)
	if err != nil {
		t.Fatal(err)
	}
	if got := dp.Term(TermKVCache) / plain.Term(TermKVCache); got != 4 {
		t.Errorf("Qwen3-235B at --tp 8 --dp 8: %g× the KV cache of --tp 8, want 4", got)
	}
}

// Llama 4 Maverick's FP8 checkpoint served by vLLM on eight GPUs: its routed experts (24 MoE
// layers × 128 × 3 × 5120 × 8192 = 386,547,056,640 parameters) at one byte, the other
// 15,036,724,736 (attention, shared experts, dense layers, embeddings, image encoder) at two;
// the routers' 24 × 128 × 5120 whole on every GPU, the rest split eight ways. The KV cache is
// every layer's at full length (2 · 48 layers · 1 KV head a GPU · 128 · 2 bytes a token): the
// chunked-attention layers are not windowed.
func TestServedLlama4Maverick(t *testing.T) {
	p, why := profiles.FromVLLM([]string{"vllm", "serve", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "-tp", "8", "--max-model-len", "430000"})
	if p == nil {
		t.Fatal(why)
	}
	e, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	const routed, rest, routers = 386547056640.0, 15036724736.0, 15728640.0
	if got, want := e.Term(TermWeights), (routed*1+rest*2-routers*2)/8+routers*2; got != want {
		t.Errorf("weights %.0f bytes a GPU, want %.0f", got, want)
	}
	if got, want := e.Term(TermKVCache), 2*48*1*128*2*430000.0; got != want {
		t.Errorf("KV cache %.0f bytes a GPU, want %.0f (every layer at full length)", got, want)
	}
	// The BF16 checkpoint on one GPU is every parameter at two bytes.
	p, why = profiles.FromVLLM([]string{"vllm", "serve", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "--max-model-len", "8192"})
	if p == nil {
		t.Fatal(why)
	}
	if e, err = Of(p); err != nil {
		t.Fatal(err)
	}
	if got := e.Term(TermWeights); got != 108641793536*2 {
		t.Errorf("Scout in bf16: %.0f bytes, want every parameter at two", got)
	}
}

// GLM-4.6's FP8 checkpoint served by vLLM on eight GPUs: every linear layer at one byte but
// the untied embeddings (2 × 151,552 × 5,120) and the routers (89 MoE layers × 160 × 5,120),
// which stay 16-bit, the routers whole on every GPU; the KV cache of GLM-4.6's 202,752 tokens,
// 2 · 92 layers · 1 KV head a GPU · 128 · 2 bytes a token. GLM-4.5 in BF16 is every parameter
// at two bytes. MiniMax-M2's FP8 checkpoint served by SGLang on four GPUs: the same rule with
// its embeddings (2 × 200,064 × 3,072) and routers (62 × 256 × 3,072), and 2 of its 8 KV heads
// on each GPU.
func TestServedGLMAndMiniMax(t *testing.T) {
	serve := func(p *profiles.Profile, why string) *Estimate {
		t.Helper()
		return estimateInferred(t, p, why)
	}
	const glm, glmEmb, glmRouters = 352797829024.0, 1551892480.0, 72908800.0
	e := serve(profiles.FromVLLM([]string{"vllm", "serve", "zai-org/GLM-4.6-FP8", "-tp", "8"}))
	total := (glm - glmEmb - glmRouters) + (glmEmb+glmRouters)*2
	if got, want := e.Term(TermWeights), (total-glmRouters*2)/8+glmRouters*2; got != want {
		t.Errorf("GLM-4.6-FP8 at -tp 8: weights %.0f bytes a GPU, want %.0f", got, want)
	}
	if got, want := e.Term(TermKVCache), 2*92*1*128*2*202752.0; got != want {
		t.Errorf("GLM-4.6-FP8 at -tp 8: KV cache %.0f bytes a GPU, want %.0f", got, want)
	}
	e = serve(profiles.FromVLLM([]string{"vllm", "serve", "zai-org/GLM-4.5", "-tp", "8", "--max-model-len", "8192"}))
	if got, want := e.Term(TermWeights), (glm*2-glmRouters*2)/8+glmRouters*2; got != want {
		t.Errorf("GLM-4.5 in bf16 at -tp 8: weights %.0f bytes a GPU, want %.0f", got, want)
	}
	const mm, mmEmb, mmRouters = 228689764864.0, 1229193216.0, 48758784.0
	e = serve(profiles.FromSGLang(strings.Fields("python -m sglang.launch_server --model-path MiniMaxAI/MiniMax-M2 --tp-size 4")))
	total = (mm - mmEmb - mmRouters) + (mmEmb+mmRouters)*2
	if got, want := e.Term(TermWeights), (total-mmRouters*2)/4+mmRouters*2; got != want {
		t.Errorf("MiniMax-M2 at --tp-size 4: weights %.0f bytes a GPU, want %.0f", got, want)
	}
	if got, want := e.Term(TermKVCache), 2*62*2*128*2*196608.0; got != want {
		t.Errorf("MiniMax-M2 at --tp-size 4: KV cache %.0f bytes a GPU, want %.0f", got, want)
	}
}

// TestServedMTPDraft: multi-token prediction speculative decoding loads the checkpoint's MTP
// layer as the draft, counted by hand from config.json: a decoder layer of the model's kind
// split as the others are, eh_proj (2h × h) whole in 16 bits, an output head (vocab × h) split
// in 16 bits; and the KV cache gains the draft's layer.
func TestServedMTPDraft(t *testing.T) {
	serve := func(argv ...string) *Estimate {
		t.Helper()
		p, why := profiles.FromVLLM(argv)
		return estimateInferred(t, p, why)
	}
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol*want }

	// DeepSeek-V3's MTP layer (model.layers.61): MLA attention, 256 routed experts and one
	// shared of width 2,048, a router with its correction bias, two norms.
	const h = 7168.0
	latentDown := h*1536 + h*(512+64)                                                 // q_a_proj, kv_a_proj_with_mqa
	attention := 1536*128*(128+64) + 512*128*(128+128) + 128*128*h + 1536 + 512 + 2*h // q_b, kv_b, o, norms
	experts := (256 + 1) * 3 * h * 2048
	router := 256*h + 256
	// FP8 at -tp 8: the latent down-projections whole in FP8, the router whole in bf16.
	layer := (attention+experts)/8 + latentDown + router*2
	proj, head := 2*h*h*2, 129280*h*2/8
	argv := []string{"vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "--max-model-len", "32768"}
	plain := serve(argv...)
	e := serve(append(argv, "--speculative-config", `{"method": "deepseek_mtp", "num_speculative_tokens": 1}`)...)
	if got, want := e.Term(TermDraft), layer+proj+head; !near(got, want, 1e-6) {
		t.Errorf("DeepSeek-R1 at -tp 8: MTP draft %.0f bytes a GPU, want %.0f", got, want)
	}
	if got, want := e.Term(TermWeights), plain.Term(TermWeights); got != want {
		t.Errorf("the draft moved the target's weights: %.0f, want %.0f", got, want)
	}
	if got, want := e.Term(TermKVCache), 62*(512+64)*32768*2.0; got != want {
		t.Errorf("DeepSeek-R1 with its MTP layer: KV cache %.0f bytes a GPU, want %.0f (62 layers of latent)", got, want)
	}
	if got, want := e.PerGPUBytes-plain.PerGPUBytes, (layer+proj+head+(512+64)*32768*2)*(1+DefaultFragmentation); !near(got, want, 1e-6) {
		t.Errorf("MTP adds %.0f bytes a GPU, want %.0f", got, want)
	}
	// SGLang's draft worker keeps the layer's KV cache in a pool of its own, outside the static
	// share with the draft's weights: the share holds the target's 61 layers.
	p, why := profiles.FromSGLang(strings.Fields("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 --context-length 32768 --speculative-algorithm NEXTN"))
	sg := estimateInferred(t, p, why)
	if got, want := sg.Term(TermKVCache), 61*(512+64)*32768*2.0; got != want {
		t.Errorf("SGLang's static share: KV cache %.0f bytes a GPU, want %.0f (the target's 61 layers)", got, want)
	}
	if got, want := sg.Term(TermDraft), layer+proj+head+(512+64)*32768*2; !near(got, want, 1e-6) {
		t.Errorf("SGLang's MTP draft %.0f bytes a GPU, want %.0f (with its layer's KV cache)", got, want)
	}
	if got, want := sg.StaticBytes(), sg.Term(TermWeights)+sg.Term(TermKVCache); got != want {
		t.Errorf("SGLang's static share holds %.0f bytes, want the target's %.0f", got, want)
	}

	// GLM-4.5-Air's (model.layers.46): grouped-query attention with q, k, v biases, 128 routed
	// experts and one shared of width 1,408; bf16 at -tp 4, key by key as Z.ai's README gives it.
	const ha = 4096.0
	attention = ha*96*128 + 96*128 + 2*(ha*8*128+8*128) + 96*128*ha + 2*ha
	experts = (128 + 1) * 3 * ha * 1408
	router = 128*ha + 128
	layer = (attention+experts)*2/4 + router*2
	proj, head = 2*ha*ha*2, 151552*ha*2/4
	e = serve(strings.Fields("vllm serve zai-org/GLM-4.5-Air --tensor-parallel-size 4 --max-model-len 65536 --speculative-config.method mtp --speculative-config.num_speculative_tokens 1")...)
	// The preset's attention is what its parameters leave, so GLM's narrower dense layer
	// shifts a little into it (docs/memory-model.md): 0.1%.
	if got, want := e.Term(TermDraft), layer+proj+head; !near(got, want, 1e-3) {
		t.Errorf("GLM-4.5-Air at -tp 4: MTP draft %.0f bytes a GPU, want %.0f", got, want)
	}
	if got, want := e.Term(TermKVCache), 2*47*2*128*65536*2.0; got != want {
		t.Errorf("GLM-4.5-Air with its MTP layer: KV cache %.0f bytes a GPU, want %.0f (47 layers, 2 KV heads a GPU)", got, want)
	}
}

// TestServedDeepSeekV32: DeepSeek V3.2 is V3 with a lightning indexer in every layer, whose
// projections vLLM keeps whole on every GPU (wq_b and wk in FP8, weights_proj in bf16) and whose
// keys it caches in FP8 with an fp32 scale, 132 bytes a token and layer, beside the latent cache:
// 1,152 bytes in bf16, or 656 in sparse MLA's FP8 layout (fp8_ds_mla).
func TestServedDeepSeekV32(t *testing.T) {
	serve := func(line string) *Estimate {
		t.Helper()
		p, why := profiles.FromVLLM(strings.Fields(line))
		return estimateInferred(t, p, why)
	}
	v3 := serve("vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --max-model-len 32768")
	v32 := serve("vllm serve deepseek-ai/DeepSeek-V3.2-Exp -tp 8 --max-model-len 32768")
	const h = 7168.0
	wqbWk, weightsProj := 61*(1536*64*128+h*128+2*128.0), 61*h*64
	if got, want := v32.Term(TermWeights)-v3.Term(TermWeights), wqbWk+weightsProj*2; math.Abs(got-want) > 1 {
		t.Errorf("the indexer adds %.0f bytes a GPU, want %.0f: wq_b, wk and k_norm in FP8 and weights_proj in bf16, whole", got, want)
	}
	if got, want := v32.Term(TermKVCache), 61*(576*2+132)*32768.0; got != want {
		t.Errorf("V3.2's KV cache in bf16: %.0f bytes a GPU, want %.0f", got, want)
	}
	fp8 := serve("vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 --max-model-len 32768 --kv-cache-dtype fp8")
	if got, want := fp8.Term(TermKVCache), 61*(512+16+128+132)*32768.0; got != want {
		t.Errorf("V3.2's KV cache in fp8_ds_mla: %.0f bytes a GPU, want %.0f", got, want)
	}
	// V3's own FP8 cache stays plain: 576 bytes.
	if got, want := serve("vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --max-model-len 32768 --kv-cache-dtype fp8").Term(TermKVCache), 61*576*32768.0; got != want {
		t.Errorf("V3's KV cache in fp8: %.0f bytes a GPU, want %.0f", got, want)
	}
	// With MTP the draft's layer has an indexer too: one more layer of both caches.
	mtp := serve(`vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 --max-model-len 32768 --speculative-config {"method":"mtp","num_speculative_tokens":1}`)
	if got, want := mtp.Term(TermKVCache), 62*(576*2+132)*32768.0; got != want {
		t.Errorf("V3.2 with its MTP layer: KV cache %.0f bytes a GPU, want %.0f", got, want)
	}
	if p, why := profiles.FromSGLang(strings.Fields("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2-Exp --tp 8")); p != nil || !strings.Contains(why, "NSA") {
		t.Errorf("SGLang's V3.2: profile %v, why %q; want none", p != nil, why)
	}
	if p, err := profiles.Parse([]byte("apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata: {name: t}\nworkload: {type: training}\nmodel: {preset: deepseek-v3.2}\ntraining: {method: lora, micro_batch_size: 1, sequence_length: 2048}\n"), "v32.yaml"); err == nil || !strings.Contains(err.Error(), "sparse attention") {
		t.Errorf("training V3.2: %v, %v; want it refused", p, err)
	}
}

// estimateInferred estimates a profile a server reader inferred, failing the test with the
// reader's reason when it inferred none.
func estimateInferred(t *testing.T, p *profiles.Profile, why string) *Estimate {
	t.Helper()
	if p == nil {
		t.Fatal(why)
	}
	e, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
