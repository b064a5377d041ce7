package memory

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuguard/gpuguard/profiles"
)

// layerCoefficients returns what one transformer layer saves for its backward pass, per token
// and in units of h bytes: the part tensor parallelism splits, the part it leaves whole, and the
// attention-score term (which also has a factor a·s/h). fp32Residual says the residual stream is
// fp32 (autocast over fp32 weights); otherwise it is 16-bit. transformers says the layers are
// Hugging Face Transformers' (no tensor or pipeline parallelism), not Megatron's.
//
// GPT-style layers (4h GELU MLP with dropout) are geluLayerKept; Megatron's store 34·s·b·h +
// 5·a·s²·b bytes: 24 split by tensor parallelism, 10 (layer-norm inputs, dropout masks and the
// inputs of the first projections) not (Korthikanti et al., "Reducing Activation Recomputation
// in Large Transformer Models", arXiv:2205.05198, eq. 1-2), and the score term is theirs for
// both kinds of layer.
//
// SwiGLU/GQA layers (Llama and most recent models) are swigluLayerKept.
func layerCoefficients(m profiles.Model, fp32Residual, frozen, transformers bool, repeated float64) (split, whole, score float64) {
	if gatedMLP(m) {
		split, whole = swigluLayerKept(m, fp32Residual, frozen, repeated)
	} else {
		split, whole = geluLayerKept(m, fp32Residual, frozen, transformers)
	}
	return split, whole, 5
}

// swigluLayerKept is what a SwiGLU/GQA layer (Llama and most recent models) saves for its
// backward pass per token, in units of h: the part tensor parallelism splits and the part it
// leaves whole; repeated is the share of layers whose kernel takes k and v repeated to every
// query head (attentionMasks). Counted tensor by tensor over the layer as Hugging Face
// Transformers writes it (modeling_llama.py), the way Korthikanti et al. (arXiv:2205.05198)
// count Megatron's, and measured on an H200 by node and tensor (scripts/gpu-check/workload.py
// --saved; docs/memory-model.md, "Llama's layers, tensor by tensor"); q is heads·head_dim wide
// (h for Llama, 2h for Qwen3-30B-A3B's layer) and k and v kv_heads·head_dim:
//   - split: the attention kernel's q, k and v and its output, which o_proj takes as its input:
//     2·(2q + 2kv) bytes, or 2·(2q + 2q) where k and v are repeated to every query head. The gated
//     MLP keeps its gate, SiLU and up outputs and their product, the down projection's input:
//     4·2·d_ff bytes (× experts_per_token for a mixture of experts);
//   - whole: normsKept, the RMSNorms and the projections' 16-bit inputs.
//
// For the 1.2B Llama shape these give 53h in pure bf16 and 63h under autocast over fp32
// weights, where the H200 runs' layers kept 53.1h and 63.1h
// (TestLlamaActivationsAreWhatAutogradSaved).
//
// Over a frozen base (LoRA, QLoRA) no base projection saves its input, since only its weight's
// gradient would need it, and no RMSNorm its normalized value: a layer keeps the attention
// kernel's tensors as above, the MLP's 6·d_ff (gate, SiLU and up outputs) and the RMSNorms'
// fp32 inputs (8h). The adapters' own fp32 inputs are a separate term (adapters, training.go).
//
// A mixture of experts and per-head query and key norms keep more (routedKept, qkNormKept),
// both measured on an H100 (docs/memory-model.md): a Qwen3-MoE-shaped model kept 95.5h a layer
// in pure bf16, where these counts give 94.5h, and 78.8h under LoRA on q, k, v and o, where
// they give 80h with the adapters' inputs.
func swigluLayerKept(m profiles.Model, fp32Residual, frozen bool, repeated float64) (split, whole float64) {
	h := float64(m.HiddenSize)
	dff := float64(m.IntermediateSize)
	q := float64(m.AttentionHeads) * headDim(m)
	if q == 0 {
		q = h
	}
	kv := q
	if m.KVHeads > 0 {
		kv = float64(m.KVHeads) * headDim(m)
	}
	kv += (q - kv) * repeated
	attn := 2 * (2*q + 2*kv)
	extra := routedKept(m, frozen) + qkNormKept(m, frozen)
	mlp := 8 * dff
	if frozen {
		mlp = 6 * dff
	}
	return (attn + experts(m)*mlp + extra) / h, normsKept(m, fp32Residual, frozen)
}

// geluLayerKept is what a GELU layer (GPT-2, BERT: LayerNorm, a 4h MLP, dropout) saves for its
// backward pass per token, in units of h: the part tensor parallelism splits and the part it
// leaves whole. Counted tensor by tensor over Transformers' GPT-2 layer, where Korthikanti et
// al. (arXiv:2205.05198, eq. 1) count Megatron's, and measured on an H200 by node and tensor
// (scripts/gpu-check/workload.py --saved; docs/memory-model.md, "GPT-2's layers, tensor by
// tensor"):
//   - whole: the two LayerNorms' inputs (2h each; 4h on an fp32 residual stream), the two
//     residual dropouts' masks (a byte an element: 2h) and the inputs of the fused QKV and of
//     the MLP's up projection (2h each, autocast's 16-bit copies on an fp32 stream);
//   - split: q, k and v (the kernel's query is a view of the fused QKV output, which keeps all
//     three: 6h), the kernel's output, which the projection takes as input (2h), the MLP's down
//     input (2·d_ff) and what the activation keeps: one fused GELU kernel (mlp: gelu) its
//     input, 2·d_ff;
//     Transformers' gelu_new (mlp: gelu_new: GPT-2, GPT-J, CodeGen, Phi-2), the tanh form
//     written as eight tensor operations, the inputs of its pow, tanh and product, 8·d_ff in
//     16 bits, and 14·d_ff under autocast, which runs pow in fp32 and so the rest after it;
//   - Transformers' layers (transformers: no tensor or pipeline parallelism) also fill a KV
//     cache in training, since GPT-2's config turns use_cache on: its copies of k and v are 4h
//     more (split), where Megatron's layers keep none. A run with use_cache off kept exactly
//     those 4h less. They are copies because the fused QKV output stays alive as the query's
//     view (model.fused_projections); separate q, k and v projections (BERT, GPT-J) leave
//     nothing alive beside what the kernel saves, and under autocast each of them saves its
//     own 16-bit cast of the LayerNorm's output (6h, not 2h).
//
// These give 34h for Megatron's layer with FlashAttention, as Korthikanti et al. count it, and
// for GPT-2 XL's 38h (fused GELU) and 62h (gelu_new) in pure bf16 and 42h and 90h under
// autocast, where the H200 runs kept 38.1h, 62.1h, 42.2h and 90.2h.
//
// Over a frozen base (LoRA) no projection saves its input: the layer keeps the kernel's q, k, v
// (and the cache's copies) and output, what the activation keeps, the LayerNorms' inputs and
// the dropout masks: 50h for GPT-2 XL with gelu_new, where a LoRA run on the H200 kept 50.1h
// besides the adapters' fp32 inputs (TermAdapterInputs).
func geluLayerKept(m profiles.Model, fp32Residual, frozen, transformers bool) (split, whole float64) {
	h := float64(m.HiddenSize)
	dff := float64(m.IntermediateSize)
	if dff <= 0 {
		dff = 4 * h
	}
	norms := 2.0 * 2
	if fp32Residual {
		norms = 2 * 4
	}
	const masks = 2
	act := 2 * dff
	if m.MLP == "gelu_new" {
		act = 8 * dff
		if fp32Residual {
			act = 14 * dff
		}
	}
	attn := 6 * h
	if transformers && m.FusedProjections {
		attn += 4 * h
	}
	if frozen {
		return (attn + 2*h + act) / h, norms + masks
	}
	qkvIn := 2.0
	if fp32Residual && !m.FusedProjections {
		qkvIn = 3 * 2 // autocast casts the fp32 LayerNorm output once for each of q, k and v
	}
	return (attn + 2*h + act + 2*dff) / h, norms + masks + qkvIn + 2
}

// geluNewMore is what gelu_new keeps beyond one GELU kernel over L layers of s·b tokens (L may
// be a fraction: one layer split by tensor parallelism):
// 6·d_ff bytes a token and layer in 16 bits, 12·d_ff under autocast (geluLayerKept).
func geluNewMore(m profiles.Model, fp32Residual, frozen bool, sbh, L float64) float64 {
	n := m
	n.MLP = "gelu_new"
	split, _ := geluLayerKept(n, fp32Residual, frozen, false)
	n.MLP = "gelu"
	fused, _ := geluLayerKept(n, fp32Residual, frozen, false)
	return (split - fused) * sbh * L
}

// attentionMasks says how the attention of Hugging Face Transformers' SwiGLU layers runs in
// training on seq-token sequences: the share of layers whose kernel takes k and v repeated to
// every query head, and the bytes per token, averaged over the layers, of the additive masks
// the kernels save.
//
// Eager attention (flash_attention false, or not declared) repeats k and v in every layer
// (repeat_kv). SDPA takes the grouped k and v (enable_gqa) only where a layer has no explicit
// mask (Transformers' integrations/sdpa_attention.py, use_gqa_in_sdpa): a full causal layer
// has none (is_causal), a sliding-window layer shorter than the sequence has one. There k and v
// are repeated, and PyTorch turns the boolean mask into a 16-bit additive one for each call
// (convert_boolean_attn_mask), which the kernel saves: s·b·s elements, 2·s bytes a token. For
// Gemma-3-1B at 2 × 2048 in pure bf16 (22 of 26 layers windowed to 512 tokens) that gives
// 102.6h a layer, where the H100 run kept 102.5h (docs/memory-model.md). Padded batches
// (training.padded_batches) give every layer a mask. Megatron's layers (transformers false)
// and GELU layers repeat nothing.
func attentionMasks(m profiles.Model, t *profiles.Training, transformers bool) (repeated, bias float64) {
	if !transformers || !gatedMLP(m) {
		return 0, 0
	}
	if t.FlashAttention == nil || !*t.FlashAttention {
		return 1, 0
	}
	seq := t.SequenceLength
	switch {
	case t.PaddedBatches:
		repeated = 1
	case seq <= m.SlidingWindow || m.Layers <= 0:
		return 0, 0
	default:
		repeated = slidingWindowLayers(m) / float64(m.Layers)
	}
	return repeated, repeated * 2 * float64(seq)
}

// normsKept is what a SwiGLU layer's RMSNorms and the 16-bit inputs of its projections keep
// for backward, per token in units of h. Each of the two sublayer input norms upcasts its input
// to fp32 and saves it (4h) and saves the normalized value it multiplies by its weight, 16-bit
// (2h; Gemma's norms, model.sandwich_norms, scale in fp32: 4h); its 16-bit output is the input
// q, k and v (or gate and up) share and save (2h): 16h for two, 20h for Gemma's. On an fp32
// residual stream (autocast over fp32 weights) the input is fp32 already (4h) and so are the
// normalized value (4h) and the output, which autocast casts to 16 bits once for each
// projection that reads it, each cast saved: q, k, v, gate and up, 5 × 2h. That is 26h, Gemma's
// too; 20h with fused projections (model.fused_projections: Phi-3's qkv_proj and gate_up_proj),
// which take one cast each. Over a frozen base the norms keep only their fp32 inputs (8h). Gemma's two more norms on
// the sublayers' outputs keep their fp32 inputs and normalized values (16h; 8h over a frozen
// base).
func normsKept(m profiles.Model, fp32Residual, frozen bool) float64 {
	kept := 16.0
	switch {
	case frozen:
		kept = 8
	case fp32Residual && m.FusedProjections:
		kept = 2*(4+4) + 2*2 // one cast for the fused qkv, one for the fused gate and up
	case fp32Residual:
		kept = 2*(4+4) + 5*2
	case m.SandwichNorms:
		kept = 2 * (4 + 4 + 2)
	}
	if m.SandwichNorms {
		post := 16.0
		if frozen {
			post = 8
		}
		kept += post
	}
	return kept
}

// routedKept is what a mixture of experts' layer keeps for backward beyond its experts' MLPs,
// in bytes per token averaged over the layers: Transformers' grouped-matmul experts
// (integrations/moe.py, grouped_mm_experts_forward, the default on a GPU since Transformers 5)
// gather a 16-bit copy of each token's hidden state for each of its k experts, which the
// grouped matmul saves for the experts' weight gradients (2·k·h; not over a frozen base), and
// keep the k expert outputs the routing weights multiply, for the router's gradient (2·k·h).
// The first dense_layers layers have no experts.
func routedKept(m profiles.Model, frozen bool) float64 {
	if m.Experts <= 0 || m.ExpertsPerToken <= 0 || m.Layers <= 0 {
		return 0
	}
	copies := 4.0
	if frozen {
		copies = 2
	}
	moe := float64(m.Layers-min(m.DenseLayers, m.Layers)) / float64(m.Layers)
	return copies * float64(m.ExpertsPerToken) * float64(m.HiddenSize) * moe
}

// qkNormKept is what per-head query and key norms (model.qk_norm: Qwen 3, Gemma 3) save for
// backward, in bytes per token: each is an RMSNorm over head_dim that, as Transformers writes
// it, saves its fp32 upcast input (4 bytes an element) and, where its weight is trained, the
// normalized value it multiplies by that weight: 16-bit in Qwen 3 (2 bytes), fp32 in Gemma's
// norms (4; model.sandwich_norms), over every query head and every KV head.
func qkNormKept(m profiles.Model, frozen bool) float64 {
	if !m.QKNorm {
		return 0
	}
	bytes := 6.0
	switch {
	case frozen:
		bytes = 4
	case m.SandwichNorms:
		bytes = 8
	}
	return bytes * float64(m.AttentionHeads+m.KVHeads) * headDim(m)
}

// forwardCoefficients returns, in the same units, the tensors alive in one layer's forward pass
// when nothing is kept for a backward pass (serving): for SwiGLU/GQA layers s·b·(2·(3h + 2·h_kv)
// + 2·(h + 3·d_ff) + 4h) bytes (FORMULAS.md), q, k, v and the attention output, the gated MLP's
// three inputs and the two RMSNorm inputs; for GELU layers Korthikanti et al.'s 34.
//
// A serving engine's fused experts hold, for each of a token's k experts, its input, the gate
// and up outputs, their product and the expert's output: k·2·(h + 3·d_ff) as above (vLLM's
// fused_moe intermediate caches). Transformers' grouped-matmul experts (transformers=true) do
// not fuse (grouped_mm_experts_forward): the gathered inputs (2kh) are alive while the gate
// and up outputs (4k·d_ff), the activation (2k·d_ff) and its product with up (2k·d_ff) are
// made, and while the expert outputs (2kh) are weighted (w·kh, w the routing weights' bytes)
// and permuted back into a second copy (w·kh): max(2kh + 8k·d_ff, (4 + 2w)·kh) per token. The
// shared experts run after them. Measured on an H100 (docs/memory-model.md), prefill held
// beyond the weights and cache 146 KB a token for a Qwen3-MoE shape (this counts 154 KB),
// 165 KB for a DeepSeek-V2-Lite shape (201 KB) and 276 KB for Mixtral-8x7B layers (291 KB).
func forwardCoefficients(m profiles.Model, transformers bool) (split, whole float64) {
	if !gatedMLP(m) {
		return 24, 10
	}
	h := float64(m.HiddenSize)
	hkv := float64(m.KVHeads) * headDim(m)
	dff := float64(m.IntermediateSize)
	attn := 2 * (3*h + 2*hkv)
	ffn := experts(m) * 2 * (h + 3*dff)
	if transformers && m.Experts > 0 && m.ExpertsPerToken > 0 {
		routed, _, _ := transformersExperts(m)
		ffn = math.Max(ffn, routed+float64(m.SharedExperts)*2*(h+3*dff))
	}
	return (attn + ffn) / h, 4
}

// routingWeightBytes is the size of the weights a mixture of experts' router hands Transformers'
// experts: DeepSeek V3's router (DeepseekV3TopkRouter; Kimi K2 runs as DeepSeek V3) scores in
// fp32 and passes fp32 weights on, which the DeepSeek-V2-Lite run's 165 KB a token needs;
// Mixtral's and Qwen's cast them to the model's 16-bit type. A mixture of experts with dense first layers or latent attention
// is taken to be of the first kind.
func routingWeightBytes(m profiles.Model) float64 {
	if m.DenseLayers > 0 || m.KVLoRARank > 0 {
		return 4
	}
	return 2
}

// largestTransient is the largest tensor a Transformers forward pass of the given tokens
// allocates and frees within a layer, ÷ tp, and what it is: the MLP's gate (or GELU input) in
// 16 bits, for Transformers' experts the gate and up outputs of every token's k experts or
// their weighted outputs.
func largestTransient(m profiles.Model, tokens, tp float64) (float64, string) {
	h, dff := float64(m.HiddenSize), float64(m.IntermediateSize)
	if !gatedMLP(m) {
		return tokens * 4 * h * 2 / tp, "the MLP's 4h activation"
	}
	if m.Experts > 0 && m.ExpertsPerToken > 0 {
		_, largest, what := transformersExperts(m)
		return tokens * largest / tp, what
	}
	return tokens * dff * 2 / tp, "the MLP's gate output"
}

// transformersExperts is, per token, what Transformers' grouped-matmul experts hold at once
// (forwardCoefficients: max(2kh + 8k·d_ff, (4 + 2w)·kh)) and the largest single tensor among
// them, with its name: the gate and up outputs (4k·d_ff) or the weighted outputs (w·kh).
func transformersExperts(m profiles.Model) (held, largest float64, what string) {
	h, dff := float64(m.HiddenSize), float64(m.IntermediateSize)
	k, w := float64(m.ExpertsPerToken), routingWeightBytes(m)
	held = math.Max(2*k*h+8*k*dff, (4+2*w)*k*h)
	largest, what = 4*k*dff, "the experts' gate and up outputs"
	if k*h*w > largest {
		largest, what = k*h*w, "the experts' weighted outputs"
	}
	return held, largest, what
}

// gatedMLP says whether the model's MLP is gated (SwiGLU): declared, or inferred from an
// intermediate size other than 4h.
func gatedMLP(m profiles.Model) bool {
	if m.MLP != "" {
		return m.MLP == "swiglu"
	}
	return m.IntermediateSize != 0 && m.IntermediateSize != 4*m.HiddenSize
}

// experts is how many MLPs each token runs through: experts_per_token and the shared experts
// for a mixture of experts, else one.
func experts(m profiles.Model) float64 {
	if m.Experts > 0 && m.ExpertsPerToken > 0 {
		return float64(m.ExpertsPerToken + m.SharedExperts)
	}
	return 1
}

// fp32Residual says whether training runs under PyTorch autocast over fp32 weights (torch.amp,
// and Hugging Face Trainer's bf16/fp16 flags): full training in mixed precision without ZeRO,
// FSDP, tensor or pipeline parallelism. The embedding's output is then fp32, and so is the
// residual stream it starts. DeepSpeed, FSDP mixed precision and Megatron compute on 16-bit
// weights, and pure bf16 and LoRA's 16-bit base have no fp32 weights to start from.
func fp32Residual(p *profiles.Profile) bool {
	m, t := p.Model, p.Training
	switch lower(m.Precision) {
	case "bf16", "fp16":
	default:
		return false
	}
	return !t.FrozenBase() && !t.PureBF16 && t.ZeroStage == 0 && t.FSDP == "" &&
		t.TensorParallel <= 1 && t.PipelineParallel <= 1
}

// activations adds the activations of one micro-batch on the busiest GPU. With 1F1B pipeline
// schedules the first stage holds L layers' worth whatever the pipeline degree (Korthikanti et
// al. §4.2.3), so pipeline parallelism does not reduce it.
func activations(e *Estimate, p *profiles.Profile) {
	m, t := p.Model, p.Training
	s, b, h := float64(t.SequenceLength), float64(t.MicroBatchSize), float64(m.HiddenSize)
	a, tp, L := float64(m.AttentionHeads), float64(t.TensorParallel), float64(m.Layers)
	residual := fp32Residual(p)
	transformers := t.TensorParallel <= 1 && t.PipelineParallel <= 1
	repeated, bias := attentionMasks(m, t, transformers)
	split, whole, score := layerCoefficients(m, residual, t.FrozenBase(), transformers, repeated)
	whole += bias / h
	flash := t.FlashAttention != nil && *t.FlashAttention
	scoreTerm := score * a * s / h
	if flash || t.ActivationCheckpointing == profiles.CheckpointSelective {
		// FlashAttention never materialises the score matrix; selective recomputation
		// recomputes it: either way the 5·a·s/h term is gone (Korthikanti et al. §5).
		scoreTerm = 0
	}
	sbh := s * b * h
	var perLayer float64
	var how string
	switch {
	case t.SequenceParallel && tp > 1:
		perLayer = sbh / tp * (split + whole + scoreTerm)
		how = "tensor + sequence parallel: s·b·h/t·(c + 5as/h)"
	case tp > 1:
		perLayer = sbh * (whole + split/tp + scoreTerm/tp)
		how = "tensor parallel: s·b·h·(c_whole + c_split/t + 5as/(ht))"
	default:
		perLayer = sbh * (split + whole + scoreTerm)
		how = "s·b·h·(c + 5as/h)"
	}
	src := fmt.Sprintf("Korthikanti et al. arXiv:2205.05198, %s, × %g layers", how, L)
	total := perLayer * L
	if t.ActivationCheckpointing == profiles.CheckpointFull {
		// Full recomputation keeps each layer's input (2·s·b·h in 16 bits, 4·s·b·h for an fp32
		// residual stream; ÷ t with sequence parallelism) plus one layer's full activations
		// while it is recomputed.
		keep := 2 * sbh
		if residual {
			keep = 4 * sbh
		}
		if t.SequenceParallel && tp > 1 {
			keep /= tp
		}
		total = keep*L + perLayer
		src = fmt.Sprintf("full activation checkpointing: %g·s·b·h per layer × %g + one layer recomputed (Korthikanti et al. §4)", keep/sbh, L)
	}
	if flash {
		src += "; FlashAttention drops the 5as/h term"
	}
	// held is how many layers' full activations are held at once (one under full
	// checkpointing): what the notes below weigh an undeclared field by, ÷ tensor parallel.
	held := L
	if t.ActivationCheckpointing == profiles.CheckpointFull {
		held = 1
	}
	held /= math.Max(1, tp)
	if t.FlashAttention == nil && scoreTerm > 0 {
		// The score matrices (softmax, its dropout mask and output: 5·a·s²·b bytes a layer) are
		// what eager attention keeps. PyTorch's scaled_dot_product_attention, Transformers'
		// default, kept none in any of the H100 and H200 runs (cuDNN, flash or efficient
		// kernels; GPT-2 XL at 8 × 1024 and 16 × 512 kept the same). Eager attention also
		// repeats k and v to every query head, which SDPA takes grouped (attentionMasks): the
		// note weighs both by what the layers would keep with flash_attention declared.
		sdpa, yes := *t, true
		sdpa.FlashAttention = &yes
		r, b := attentionMasks(m, &sdpa, transformers)
		s2, w2, _ := layerCoefficients(m, residual, t.FrozenBase(), transformers, r)
		repeat := (split - s2) + (whole - w2 - b/h)
		what := "the attention score matrices"
		if repeat > 0 {
			what = "the attention score matrices and k and v repeated to every query head"
		}
		e.note("training.flash_attention is not declared: %s, %.1f GiB here, are counted, as eager attention keeps them; PyTorch's scaled_dot_product_attention (Transformers' default) keeps neither: declare flash_attention: true for it", what, sbh*(scoreTerm+repeat)*held/GiB)
	}
	if residual {
		src += "; fp32 residual stream (autocast over fp32 weights)"
	}
	if m.MLP == "gelu_new" {
		src += "; gelu_new as tensor operations, each keeping its input"
	}
	if m.MLP == "" && !gatedMLP(m) {
		more := geluNewMore(m, residual, t.FrozenBase(), sbh, held)
		e.note("model.mlp is not declared: the %d-wide MLP is taken for a GELU computed by one kernel; a config that names gelu_new (GPT-2, GPT-J, CodeGen, Phi-2) keeps %.1f GiB more here: declare mlp: gelu_new", m.IntermediateSize, more/GiB)
	}
	e.add(TermActivations, total, src)
}

// inference sizes a serving replica: weights split by tensor parallelism, the KV cache for the
// batch at full length, the activations of one forward pass, and the last position's logits.
func inference(p *profiles.Profile) (*Estimate, error) {
	m, in := p.Model, p.Inference
	tp := float64(in.TensorParallel)
	e := &Estimate{GPUs: in.TensorParallel * max(1, in.DataParallel), TensorParallel: in.TensorParallel, PreallocateFraction: in.GPUMemoryUtilization, SGLang: in.SGLang}
	// Data-parallel attention (SGLang) runs attention on groups of attnTP GPUs; tp otherwise.
	attnTP := tp / float64(max(1, in.AttentionDataParallel))
	wb, src := weightsPerGPU(m, in)
	e.add(TermWeights, wb, src)
	if in.MTPLayers > 0 {
		// Multi-token prediction speculative decoding loads the checkpoint's MTP layers as its
		// draft: each is one more decoder layer of the model's own kind, split as the others
		// are, with a projection of the token's embedding and the last hidden state (eh_proj,
		// 2h × h, a plain 16-bit Linear whole on every GPU) and an output head (shared_head,
		// vocab × h, 16-bit, split by tensor parallelism). The draft takes the target's
		// embeddings; recent vLLM takes its output layer too, which the head counted here errs
		// high by (vLLM's DeepSeekMTP and Glm4MoeMTP; its speculative proposer's load_model).
		served := servedModel(m, in)
		layers, _ := weightsPerGPU(served, in)
		n, h := float64(in.MTPLayers), float64(m.HiddenSize)
		proj, head := n*2*h*h*2, n*float64(m.VocabSize)*h*2/tp
		what := "the checkpoint's multi-token prediction layer"
		if in.MTPLayers > 1 {
			what = fmt.Sprintf("the checkpoint's %d multi-token prediction layers", in.MTPLayers)
		}
		src := fmt.Sprintf("%s as the draft: %.3g GB a GPU of decoder layer split as the model's, %.3g GB of eh_proj (2h×h, 16-bit) whole on every GPU, %.3g GB of output head (vocab×h, 16-bit) ÷ %g tensor parallel (recent vLLM and SGLang share the model's instead: an estimate that errs high by it)", what, (layers-wb)/1e9, proj/1e9, head/1e9, tp)
		draft := layers - wb + proj + head
		if in.SGLang != nil {
			// SGLang's draft worker keeps its layers' KV cache in a pool of its own, outside
			// the static share, as many tokens as the target's pool (ModelRunner's
			// draft_runner_cache_size): one sequence's worth is counted with the draft.
			kv := kvBytes(served, in, attnTP) - kvBytes(m, in, attnTP)
			draft += kv
			src += fmt.Sprintf("; %.3g GB of KV cache for one sequence in the draft's own pool, outside SGLang's static share with the draft's weights", kv/1e9)
			e.note("SGLang's MTP draft keeps its weights and KV cache pool outside the static share, in what the share leaves for activations and CUDA graphs (SGLang's own share leaves 2 GiB more for it; one set by --mem-fraction-static does not): whether that rest holds the draft is not judged")
		}
		e.add(TermDraft, draft, src)
	}
	// KV cache: 2 (K and V) · L · kv_heads · head_dim · seq · batch · bytes (FORMULAS.md;
	// Kwon et al., vLLM, SOSP'23 §3). Tensor parallelism splits the KV heads; with fewer KV
	// heads than GPUs they are replicated. Data-parallel attention splits them over its
	// group's GPUs only, each group caching its own sequences.
	kvm := kvModel(m, in)
	_, windowed := kvLayerTokens(kvm, in)
	kvb := bytesOf(in.KVCachePrecision)
	kv := kvBytes(kvm, in, attnTP)
	e.KVTokens = in.MaxSequenceLength * in.BatchSize
	src = fmt.Sprintf("2·L·kv_heads·head_dim·seq·batch·%g bytes (%s)", kvb, in.KVCachePrecision)
	if windowed != "" {
		src = fmt.Sprintf("2·kv_heads·head_dim·batch·%g bytes (%s) × %s", kvb, in.KVCachePrecision, windowed)
	}
	if m.KVLoRARank > 0 {
		src = fmt.Sprintf("L·(kv_lora_rank + qk_rope_head_dim)·seq·batch·%g bytes (%s): multi-head latent attention, whole on every GPU", kvb, in.KVCachePrecision)
	}
	if m.IndexHeads > 0 {
		src = fmt.Sprintf("L·seq·batch·(the latent and rotary key, %g bytes in %s, + the lightning indexer's FP8 key and scale, %g bytes): sparse multi-head latent attention, whole on every GPU", latentBytes(m, kvb), in.KVCachePrecision, indexerKeyBytes(m))
	}
	if kvm.Layers > m.Layers {
		src += fmt.Sprintf("; L counts the draft's multi-token prediction layers (%d)", in.MTPLayers)
	}
	e.add(TermKVCache, kv, src)
	if in.LoRASlots > 0 {
		e.add(TermLoRASlots, loraSlotBytes(m, in), fmt.Sprintf("%d LoRA slots of rank %d on every linear layer, 16-bit, as vLLM preallocates them", in.LoRASlots, in.LoRARank))
	}
	// One forward pass at a time: one layer's activations for the tokens in flight, bounded by
	// the engine's batched-token limit.
	tokens := float64(in.BatchSize * in.MaxSequenceLength)
	limit := float64(in.MaxBatchedTokens)
	switch {
	case in.GPUMemoryUtilization > 0:
		// A pre-allocating engine (vLLM) sizes its KV cache after a profiling pass of its
		// batched-token limit, spread over as many dummy sequences as that takes, whatever the
		// context (vLLM v1, GPUModelRunner.profile_run: _dummy_run(max_num_tokens)): what it
		// needs to start holds that pass even when one sequence is shorter.
		if limit == 0 {
			limit = DefaultMaxBatchedTokens
		}
		tokens = limit
	case limit > 0:
		// Without a limit, Hugging Face generate() prefills the whole batch in one pass
		// (measured on an H100: docs/memory-model.md).
		tokens = math.Min(tokens, limit)
	}
	// Without a serving engine the model runs as Transformers writes it (generate()).
	transformers := !in.Engine()
	split, whole := forwardCoefficients(m, transformers)
	if transformers {
		e.largestTransient, e.transientWhat = largestTransient(m, tokens, tp)
	}
	e.add(TermActivations, tokens*float64(m.HiddenSize)*(split/tp+whole), fmt.Sprintf("one layer's activations for %g tokens in flight (FORMULAS.md; FlashAttention)", tokens))
	e.add(TermLogits, 4*float64(in.BatchSize)*float64(m.VocabSize), "fp32 logits of the last position for the batch")
	if in.SGLang != nil {
		e.note("SGLang keeps the weights and its KV cache pool within --mem-fraction-static of each GPU (or the share it derives from the GPU's memory) and the activations outside it; fit is judged on the weights and one sequence's KV cache against that share")
	}
	if in.GPUMemoryUtilization > 0 && in.SGLang == nil {
		e.note("a pre-allocating engine takes %.0f%% of the card and fills what weights leave with KV cache; fit is judged on the need, the reservation on the share", in.GPUMemoryUtilization*100)
	}
	finish(e, p)
	return e, nil
}

// servedWeights is what a served model's weights take, and how that was counted: every
// parameter in the model's precision, but a quantized checkpoint's embeddings and output layer
// in 16-bit (FORMULAS.md), and a mixture of experts' projection matrices in their own precision
// where the checkpoint stores them apart (gpt-oss: MXFP4 experts, bf16 otherwise; its model
// card's checkpoints, 12.8 and 60.8 GiB, are what this gives).
func servedWeights(m profiles.Model) (float64, string) {
	wb := bytesOf(m.Precision)
	rest := m.Parameters
	weights := 0.0
	src := fmt.Sprintf("%g bytes/param in %s", wb, m.Precision)
	if m.ExpertPrecision != "" && m.Experts > 0 {
		x := routedExpertParams(m)
		eb := bytesOf(m.ExpertPrecision)
		weights += x * eb
		rest -= x
		src = fmt.Sprintf("the experts' %.4gB projection parameters in %s (%g bits each), the other %.4gB in %s (%g bytes each)", x/1e9, m.ExpertPrecision, eb*8, rest/1e9, m.Precision, wb)
	}
	if wb < 2 && m.VocabSize > 0 && m.HiddenSize > 0 {
		// Quantized checkpoints keep embeddings and the output layer in 16-bit (FORMULAS.md).
		emb := math.Min(embeddingParams(m), rest)
		weights += emb * 2
		rest -= emb
		src += "; embeddings and output layer in 16-bit"
	}
	if _, wp := indexerParams(m); wb < 2 && wp > 0 && wp <= rest {
		// And the lightning indexer's weights_proj, which vLLM builds without quantization.
		weights += wp * 2
		rest -= wp
		src += "; the indexer's weights_proj in 16-bit"
	}
	if r := math.Min(routerParams(m), rest); wb < 2 && r > 0 {
		// And a mixture of experts' routers (DeepSeek V3's FP8 checkpoint stores mlp.gate in
		// bf16; vLLM builds the gate without quantization).
		weights += r * 2
		rest -= r
		src += "; routers in 16-bit"
	}
	return weights + rest*wb, src
}

// dpAttentionWeights is what each GPU of a server with data-parallel attention holds of a
// mixture of experts' weights (total bytes, as servedWeights counts them): SGLang keeps the
// input embeddings whole on every GPU (VocabParallelEmbedding with enable_tp off), splits the
// attention layers over the attention group's attnTP GPUs (q, k, v and o projections; latent
// attention's up-projections), keeps what every GPU holds whole under tensor parallelism too
// (replicatedBytes: routers, latent down-projections), and splits the MLPs, experts and output
// layer over all tp (DeepseekV2Model, DeepseekV2DecoderLayer, Qwen3MoeModel in
// sgl-project/sglang). Attention is what is left of the parameters once the embeddings, MLPs
// and routers are counted off (attentionParams).
func dpAttentionWeights(m profiles.Model, total, tp, attnTP float64) float64 {
	wb := bytesOf(m.Precision)
	emb := float64(m.VocabSize) * float64(m.HiddenSize) * sixteenBitUnder(wb)
	latent := latentProjectionParams(m) * wb
	idx, _ := indexerParams(m)
	attn := (attentionParams(m)-idx)*wb - latent
	rep := replicatedBytes(m)
	rest := math.Max(0, total-emb-attn-rep)
	return emb + attn/attnTP + rep + rest/tp
}

// sixteenBitUnder is what a parameter a quantized checkpoint keeps unquantized takes: 2 bytes
// where the weights' own take less, theirs otherwise.
func sixteenBitUnder(wb float64) float64 {
	return math.Max(wb, 2)
}

// replicatedBytes is what every GPU of a tensor-parallel server holds whole: a mixture of
// experts' routers (vLLM's gate is a ReplicatedLinear without quantization, SGLang's MoEGate a
// plain parameter; 16-bit in a quantized checkpoint, servedWeights) and multi-head latent
// attention's down-projections to the query and KV latents (fused_qkv_a_proj with disable_tp
// and kv_a_proj_with_mqa, a ReplicatedLinear, in vLLM's and SGLang's DeepseekV2 attention), in
// the weights' precision. DeepSeek V3 in FP8: 0.92 GB of projections and 0.21 GB of routers.
func replicatedBytes(m profiles.Model) float64 {
	wb := bytesOf(m.Precision)
	return latentProjectionParams(m)*wb + routerParams(m)*sixteenBitUnder(wb) + indexerBytes(m)
}

// indexerParams is how many parameters DeepSeek sparse attention's lightning indexer takes, and
// how many of them are its projection to the heads' weights: in every layer wq_b (q_lora_rank ×
// heads·head_dim), wk (hidden × head_dim), k_norm (a LayerNorm: 2·head_dim) and weights_proj
// (hidden × heads); 0 without one (vLLM's Indexer in deepseek_v2.py).
func indexerParams(m profiles.Model) (all, weightsProj float64) {
	if m.IndexHeads <= 0 {
		return 0, 0
	}
	L, h := float64(m.Layers), float64(m.HiddenSize)
	heads, dim := float64(m.IndexHeads), float64(m.IndexHeadDim)
	weightsProj = L * h * heads
	return L*(float64(m.QLoRARank)*heads*dim+h*dim+2*dim) + weightsProj, weightsProj
}

// indexerBytes is what the lightning indexer's weights take on every GPU: vLLM keeps its
// projections whole (ReplicatedLinear), wq_b and wk in the weights' precision and weights_proj
// unquantized, in 16 bits under a quantized checkpoint.
func indexerBytes(m profiles.Model) float64 {
	all, wp := indexerParams(m)
	wb := bytesOf(m.Precision)
	return (all-wp)*wb + wp*sixteenBitUnder(wb)
}

// latentProjectionParams is how many parameters multi-head latent attention's down-projections
// take: hidden × (q_lora_rank + kv_lora_rank + qk_rope_head_dim) a layer; 0 without it.
func latentProjectionParams(m profiles.Model) float64 {
	if m.KVLoRARank <= 0 {
		return 0
	}
	return float64(m.Layers) * float64(m.HiddenSize) * float64(m.QLoRARank+m.KVLoRARank+m.QKRopeHeadDim)
}

// routerParams is how many parameters a mixture of experts' routers take: experts × hidden in
// every layer with experts; 0 for a dense model.
func routerParams(m profiles.Model) float64 {
	if m.Experts <= 0 {
		return 0
	}
	return float64(m.Layers-m.DenseLayers) * float64(m.Experts) * float64(m.HiddenSize)
}

// attentionParams is how many of a mixture of experts' parameters are its attention layers
// (with the layer norms, a few thousand a layer): the parameters less the embeddings and
// output layer, the routed and shared experts, the routers (experts × hidden a layer), and
// the dense layers' MLPs, as wide as the experts a token runs through (DeepSeek V3's and Kimi
// K2's 18,432 = 9 × 2,048; TestMLAPresetParametersFollowFromTheirConfiguration). Never less
// than 0.
func attentionParams(m profiles.Model) float64 {
	mats := mlpMatrices(m)
	h, ff := float64(m.HiddenSize), float64(m.IntermediateSize)
	moeLayers := float64(m.Layers - m.DenseLayers)
	shared := moeLayers * float64(m.SharedExperts) * mats * h * ff
	dense := float64(m.DenseLayers) * mats * h * float64(m.ExpertsPerToken+m.SharedExperts) * ff
	return math.Max(0, m.Parameters-embeddingParams(m)-routedExpertParams(m)-shared-routerParams(m)-dense)
}

// mlpMatrices is how many h × d_ff matrices one MLP has: gate, up and down (SwiGLU) or up and
// down (GELU).
func mlpMatrices(m profiles.Model) float64 {
	if gatedMLP(m) {
		return 3
	}
	return 2
}

// routedExpertParams is how many of a mixture of experts' parameters are its routed experts'
// MLPs: gate, up and down (SwiGLU) or up and down (GELU), h × d_ff each, for every expert of
// every layer but the dense ones; never more than the model's parameters.
func routedExpertParams(m profiles.Model) float64 {
	mats := mlpMatrices(m)
	layers := float64(m.Layers - m.DenseLayers)
	return math.Min(float64(m.Experts)*layers*mats*float64(m.HiddenSize)*float64(m.IntermediateSize), m.Parameters)
}

// expertBytes is what one routed expert parameter takes when served: the experts' own
// precision where the checkpoint stores them apart, else the model's.
func expertBytes(m profiles.Model) float64 {
	if m.ExpertPrecision != "" {
		return bytesOf(m.ExpertPrecision)
	}
	return bytesOf(m.Precision)
}

// kvLayerTokens is the tokens the KV cache of one sequence holds, summed over the layers, and
// how a sliding window shortened that ("" where none did). A layer with a sliding window keeps
// the last window tokens only (vLLM's hybrid KV cache manager frees the blocks that fall out of
// the window; Transformers' cache keeps a window's worth for those layers). SGLang gives the
// windowed layers a pool of their own, --swa-full-tokens-ratio (0.8 by default) times the full
// layers' (ServerArgs.swa_full_tokens_ratio), so for SGLang every layer is counted at full
// length: for gpt-oss that counts 11% more per token than SGLang's pools take.
func kvLayerTokens(m profiles.Model, in *profiles.Inference) (float64, string) {
	seq, layers := float64(in.MaxSequenceLength), float64(m.Layers)
	windowed := windowedLayers(m, in)
	if windowed == 0 || m.SlidingWindow >= in.MaxSequenceLength {
		return layers * seq, ""
	}
	how := fmt.Sprintf("(%g full layers·seq + %g layers·their %d-token window)", layers-windowed, windowed, m.SlidingWindow)
	if windowed == layers {
		how = fmt.Sprintf("%g layers·their %d-token window", layers, m.SlidingWindow)
	}
	return (layers-windowed)*seq + windowed*float64(m.SlidingWindow), how
}

// windowedLayers is how many layers keep only a sliding window's tokens of KV cache under the
// profile's engine (kvLayerTokens).
func windowedLayers(m profiles.Model, in *profiles.Inference) float64 {
	if in.SGLang != nil {
		return 0
	}
	return slidingWindowLayers(m)
}

// slidingWindowLayers is how many of the model's layers attend within a sliding window:
// sliding_window_layers of them, every layer when only the window is given, none without one.
func slidingWindowLayers(m profiles.Model) float64 {
	switch {
	case m.SlidingWindow <= 0:
		return 0
	case m.SlidingWindowLayers > 0:
		return float64(m.SlidingWindowLayers)
	default:
		return float64(m.Layers)
	}
}

// KVTokensWithin is the longest sequence whose KV cache fits budget bytes on each GPU, for the
// profile's batch (with the layers of a vLLM draft's multi-token prediction, servedModel), given
// kv, the KV cache the estimate holds for the profile's own sequence.
// Windowed layers stop growing at their window, so the budget holds (budget/per layer-token −
// windowed·window) / full layers tokens beyond it; with every layer windowed, any context fits
// once the window does (math.MaxInt). 0 when nothing fits.
func KVTokensWithin(m profiles.Model, in *profiles.Inference, kv, budget float64) int {
	m = kvModel(m, in)
	layerTokens, _ := kvLayerTokens(m, in)
	if kv <= 0 || layerTokens <= 0 || budget <= 0 {
		return 0
	}
	capacity := budget / (kv / layerTokens) // layer·tokens the budget holds
	layers, windowed, window := float64(m.Layers), windowedLayers(m, in), float64(m.SlidingWindow)
	if n := capacity / layers; windowed == 0 || n < window {
		return int(n)
	}
	if windowed == layers {
		return math.MaxInt
	}
	return int((capacity - windowed*window) / (layers - windowed))
}

// loraSlotBytes is what a multi-LoRA server preallocates on each GPU for its adapter slots: for
// every slot, layer and linear projection, A (rank × d_in) and B (d_out × rank) of the largest
// rank (Hu et al., LoRA, arXiv:2106.09685), in the activations' 16-bit type. vLLM keeps a
// separate A for each of the packed q, k, v and gate, up projections, and under tensor
// parallelism splits B of the column-parallel projections (q, k, v, gate, up) and A of the
// row-parallel ones (o, down), keeping the other whole on every GPU (vllm/lora/layers). A
// mixture of experts counts the adapters of every expert's MLP.
func loraSlotBytes(m profiles.Model, in *profiles.Inference) float64 {
	h, dff := float64(m.HiddenSize), float64(m.IntermediateSize)
	kv := float64(m.KVHeads) * headDim(m)
	tp, x := float64(in.TensorParallel), experts(m)
	whole := 3*h + h + x*(2*h+h)            // q, k, v's A; o's B; gate, up's A and down's B
	split := (h + 2*kv) + h + x*(2*dff+dff) // q, k, v's B; o's A; gate, up's B and down's A
	bytes := 2.0
	if lower(m.Precision) == "fp32" {
		bytes = 4
	}
	return float64(in.LoRASlots) * float64(m.Layers) * float64(in.LoRARank) * (whole + split/tp) * bytes
}

// weightsPerGPU is what one GPU of a serving replica holds of the model's weights, and how that
// was counted: servedWeights split by tensor parallelism, with what every GPU keeps whole
// (replicatedBytes); the routed experts of data-parallel engines split over all their GPUs; and
// under SGLang's data-parallel attention, attention split over its groups only.
func weightsPerGPU(m profiles.Model, in *profiles.Inference) (float64, string) {
	tp := float64(in.TensorParallel)
	adp := float64(max(1, in.AttentionDataParallel))
	attnTP := tp / adp
	weights, src := servedWeights(m)
	rep := replicatedBytes(m)
	wholeNote := ""
	if rep > 0 && tp > 1 {
		var parts []string
		if routerParams(m) > 0 {
			parts = append(parts, "routers")
		}
		if latentProjectionParams(m) > 0 {
			parts = append(parts, "latent down-projections")
		}
		if m.IndexHeads > 0 {
			parts = append(parts, "lightning indexer")
		}
		what := strings.Join(parts, ", ")
		if i := strings.LastIndex(what, ", "); i >= 0 {
			what = what[:i] + " and " + what[i+2:]
		}
		wholeNote = fmt.Sprintf("; the %s (%.3g GB) whole on every GPU", what, rep/1e9)
	}
	if ep := float64(in.ExpertParallel); ep > tp && m.Experts > 0 {
		// Data-parallel engines of a mixture of experts share its routed experts over all
		// their GPUs and keep the rest on each engine's own (vLLM, "Data Parallel Deployment";
		// FusedMoE's parallel configuration).
		x := routedExpertParams(m) * expertBytes(m)
		return (weights-x-rep)/tp + x/ep + rep, src + fmt.Sprintf("; the routed experts' %.4g GB ÷ %g GPUs (data × tensor parallel), the other %.4g GB ÷ %g tensor parallel%s", x/1e9, ep, (weights-x-rep)/1e9, tp, wholeNote)
	}
	if adp > 1 && m.Experts > 0 {
		attn := fmt.Sprintf("attention whole on each of %g data-parallel ranks", adp)
		if attnTP > 1 {
			attn = fmt.Sprintf("attention ÷ %g (%g data-parallel groups of %g GPUs)", attnTP, adp, attnTP)
		}
		return dpAttentionWeights(m, weights, tp, attnTP), src + fmt.Sprintf("; data-parallel attention: the embeddings whole, %s, the rest ÷ %g tensor parallel%s", attn, tp, wholeNote)
	}
	return (weights-rep)/tp + rep, src + fmt.Sprintf(" ÷ %g tensor parallel%s", tp, wholeNote)
}

// servedModel is the model a serving engine runs for the profile: with multi-token prediction
// speculative decoding (Inference.MTPLayers), the checkpoint's MTP layers as that many more
// decoder layers of the model's own kind, each with its KV cache (DeepSeek-V3's MTP module holds
// a whole Transformer block, arXiv:2412.19437 §2.2; vLLM's and SGLang's drafts keep their
// attention layers' KV cache beside the target's). Their embedding, projection and head are not
// in it (inference counts them with the draft).
func servedModel(m profiles.Model, in *profiles.Inference) profiles.Model {
	if in == nil || in.MTPLayers <= 0 || m.Layers <= 0 {
		return m
	}
	n := float64(in.MTPLayers)
	m.Parameters += n * lastLayerParams(m)
	m.Layers += in.MTPLayers
	return m
}

// kvModel is the model whose layers the KV cache term holds: vLLM keeps a draft's layers' KV
// cache in the same blocks as the model's (servedModel); SGLang's draft keeps its own pool,
// counted with the draft, so its term holds the model's layers only.
func kvModel(m profiles.Model, in *profiles.Inference) profiles.Model {
	if in.SGLang != nil {
		return m
	}
	return servedModel(m, in)
}

// lastLayerParams is how many parameters one decoder layer of the model's last kind holds: for
// a mixture of experts, a layer's share of its attention (attentionParams) with its routed and
// shared experts and its router; for a dense model, the layers' share of what the embeddings
// and output layer leave.
func lastLayerParams(m profiles.Model) float64 {
	L := float64(m.Layers)
	if m.Experts <= 0 {
		return math.Max(0, m.Parameters-embeddingParams(m)) / L
	}
	h, ff := float64(m.HiddenSize), float64(m.IntermediateSize)
	return attentionParams(m)/L + float64(m.Experts+m.SharedExperts)*mlpMatrices(m)*h*ff + float64(m.Experts)*h
}

// kvBytes is the KV cache one GPU holds for the profile's batch at its full length, with
// attention's KV heads split over attnTP GPUs.
func kvBytes(m profiles.Model, in *profiles.Inference, attnTP float64) float64 {
	layerTokens, _ := kvLayerTokens(m, in)
	kvb := bytesOf(in.KVCachePrecision)
	if m.KVLoRARank > 0 {
		// Multi-head latent attention caches one latent of kv_lora_rank values and one rotary
		// key of qk_rope_head_dim per token and layer, for all heads (arXiv:2405.04434, §2.1).
		// vLLM and SGLang keep it as a single KV head that tensor parallelism cannot split, so
		// every GPU holds all of it (vLLM's ModelConfig: one KV head of kv_lora_rank +
		// qk_rope_head_dim for MLA; SGLang's MLATokenToKVPool).
		return layerTokens * (latentBytes(m, kvb) + indexerKeyBytes(m)) * float64(in.BatchSize)
	}
	kvHeads := math.Ceil(float64(m.KVHeads) / attnTP)
	return 2 * layerTokens * kvHeads * headDim(m) * float64(in.BatchSize) * kvb
}

// latentBytes is what multi-head latent attention caches for a token in each layer, at kvb
// bytes a value: the latent and the rotary key; sparse MLA's FP8 cache (vLLM's fp8_ds_mla, for
// DeepSeek V3.2) keeps one fp32 scale per 128 latent values and the rotary key in 16 bits, 656
// bytes where plain FP8 would take 576.
func latentBytes(m profiles.Model, kvb float64) float64 {
	if m.IndexHeads > 0 && kvb == 1 {
		return float64(m.KVLoRARank) + float64(m.KVLoRARank)/128*4 + float64(m.QKRopeHeadDim)*2
	}
	return float64(m.KVLoRARank+m.QKRopeHeadDim) * kvb
}

// indexerKeyBytes is what the lightning indexer caches for a token in each layer: its key in
// FP8 with one fp32 scale per 128 values, whatever the KV cache's type (vLLM's
// DeepseekV32IndexerCache: head_dim + head_dim/128·4 bytes, 132 for DeepSeek V3.2).
func indexerKeyBytes(m profiles.Model) float64 {
	return float64(m.IndexHeadDim) + float64(m.IndexHeadDim)/128*4
}
