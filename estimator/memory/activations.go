package memory

import (
	"fmt"
	"math"

	"github.com/gpuguard/gpuguard/profiles"
)

// layerCoefficients returns, per transformer layer and in units of s·b·h bytes of 16-bit
// activations, the part that tensor parallelism splits, the part it leaves whole, and the
// attention-score term (which also has a factor a·s/h).
//
// GPT-style layers (4h GELU MLP with dropout) store 34·s·b·h + 5·a·s²·b bytes: 24 split by
// tensor parallelism, 10 (layer-norm inputs and dropout masks) not (Korthikanti et al.,
// "Reducing Activation Recomputation in Large Transformer Models", arXiv:2205.05198, eq. 1-2).
//
// SwiGLU/GQA layers (Llama and most recent models) store s·b·(2·(3h + 2·h_kv) + 2·(h + 3·d_ff) +
// 4h) bytes (FORMULAS.md): q, k, v and the attention output, the gated MLP's three inputs, and
// the two RMSNorm inputs (2·2h, left whole by tensor parallelism; there is no dropout).
func layerCoefficients(m profiles.Model) (split, whole, score float64) {
	h := float64(m.HiddenSize)
	mlp := m.MLP
	if mlp == "" {
		if m.IntermediateSize != 0 && m.IntermediateSize != 4*m.HiddenSize {
			mlp = "swiglu"
		} else {
			mlp = "gelu"
		}
	}
	if mlp == "gelu" {
		return 24, 10, 5
	}
	hkv := float64(m.KVHeads) * headDim(m)
	dff := float64(m.IntermediateSize)
	k := 1.0
	if m.Experts > 0 && m.ExpertsPerToken > 0 {
		// A mixture of experts runs each token through experts_per_token MLPs.
		k = float64(m.ExpertsPerToken)
	}
	attn := 2 * (3*h + 2*hkv)
	ffn := k * 2 * (h + 3*dff)
	return (attn + ffn) / h, 4, 5
}

// activations adds the activations of one micro-batch on the busiest GPU. With 1F1B pipeline
// schedules the first stage holds L layers' worth whatever the pipeline degree (Korthikanti et
// al. §4.2.3), so pipeline parallelism does not reduce it.
func activations(e *Estimate, p *profiles.Profile) {
	m, t := p.Model, p.Training
	s, b, h := float64(t.SequenceLength), float64(t.MicroBatchSize), float64(m.HiddenSize)
	a, tp, L := float64(m.AttentionHeads), float64(t.TensorParallel), float64(m.Layers)
	split, whole, score := layerCoefficients(m)
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
		// Full recomputation keeps each layer's 16-bit input (2·s·b·h, ÷ t with sequence
		// parallelism) plus one layer's full activations while it is recomputed.
		keep := 2 * sbh
		if t.SequenceParallel && tp > 1 {
			keep /= tp
		}
		total = keep*L + perLayer
		src = fmt.Sprintf("full activation checkpointing: 2·s·b·h per layer × %g + one layer recomputed (Korthikanti et al. §4)", L)
	}
	if flash {
		src += "; FlashAttention drops the 5as/h term"
	}
	e.add(TermActivations, total, src)
}

// inference sizes a serving replica: weights split by tensor parallelism, the KV cache for the
// batch at full length, the activations of one forward pass, and the last position's logits.
func inference(p *profiles.Profile) (*Estimate, error) {
	m, in := p.Model, p.Inference
	tp := float64(in.TensorParallel)
	e := &Estimate{GPUs: in.TensorParallel, TensorParallel: in.TensorParallel, PreallocateFraction: in.GPUMemoryUtilization}
	wb := bytesOf(m.Precision)
	weights := m.Parameters * wb
	src := fmt.Sprintf("%g bytes/param in %s", wb, m.Precision)
	if wb < 2 && m.VocabSize > 0 && m.HiddenSize > 0 {
		// Quantized checkpoints keep embeddings and the output layer in 16-bit (FORMULAS.md).
		emb := embeddingParams(m)
		weights = (m.Parameters-emb)*wb + emb*2
		src += "; embeddings and output layer in 16-bit"
	}
	e.add(TermWeights, weights/tp, src+fmt.Sprintf(" ÷ %g tensor parallel", tp))
	// KV cache: 2 (K and V) · L · kv_heads · head_dim · seq · batch · bytes (FORMULAS.md;
	// Kwon et al., vLLM, SOSP'23 §3). Tensor parallelism splits the KV heads; with fewer KV
	// heads than GPUs they are replicated.
	kvHeads := math.Ceil(float64(m.KVHeads) / tp)
	kv := 2 * float64(m.Layers) * kvHeads * headDim(m) * float64(in.MaxSequenceLength) * float64(in.BatchSize) * bytesOf(in.KVCachePrecision)
	e.add(TermKVCache, kv, fmt.Sprintf("2·L·kv_heads·head_dim·seq·batch·%g bytes (%s)", bytesOf(in.KVCachePrecision), in.KVCachePrecision))
	// One forward pass at a time: one layer's activations for the tokens in flight, bounded by
	// the engine's batched-token limit.
	tokens := float64(in.BatchSize * in.MaxSequenceLength)
	limit := float64(in.MaxBatchedTokens)
	if limit == 0 {
		limit = DefaultMaxBatchedTokens
	}
	tokens = math.Min(tokens, limit)
	split, whole, _ := layerCoefficients(m)
	e.add(TermActivations, tokens*float64(m.HiddenSize)*(split/tp+whole), fmt.Sprintf("one layer's activations for %g tokens in flight (Korthikanti et al. coefficients, FlashAttention)", tokens))
	e.add(TermLogits, 4*float64(in.BatchSize)*float64(m.VocabSize), "fp32 logits of the last position for the batch")
	if in.GPUMemoryUtilization > 0 {
		e.note("a pre-allocating engine takes %.0f%% of the card and fills what weights leave with KV cache; fit is judged on the need, the reservation on the share", in.GPUMemoryUtilization*100)
	}
	finish(e, p)
	return e, nil
}
