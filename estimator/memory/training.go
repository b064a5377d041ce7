package memory

import (
	"fmt"

	"github.com/gpuguard/gpuguard/profiles"
)

// stateBytes are bytes per parameter of weights, gradients and optimizer state.
type stateBytes struct {
	weights, grads, optimizer float64
	source                    string
}

// optimizerBytes follows the table in FORMULAS.md.
func optimizerBytes(t *profiles.Training, precision string) stateBytes {
	if lower(precision) == "fp32" {
		// fp32 Adam: 4 + 4 + 8 (m, v); no master copy is needed (HF "model memory anatomy").
		switch t.Optimizer {
		case "sgd":
			return stateBytes{4, 4, 4, "fp32 SGD with momentum: 4 + 4 + 4 bytes/param"}
		case "adamw8bit":
			return stateBytes{4, 4, 2, "fp32 weights with 8-bit Adam state (bitsandbytes): 4 + 4 + 2 bytes/param"}
		}
		return stateBytes{4, 4, 8, "fp32 Adam: 4 + 4 + 8 bytes/param (Hugging Face, model memory anatomy)"}
	}
	s := stateBytes{weights: 2, grads: 2}
	switch {
	case t.PureBF16 && t.Optimizer == "adamw8bit":
		s.optimizer, s.source = 2, "pure bf16 with 8-bit Adam state, no fp32 master weights: 2 + 2 + 2 bytes/param"
	case t.PureBF16 && t.Optimizer == "sgd":
		s.optimizer, s.source = 2, "pure bf16 SGD with bf16 momentum, no fp32 master weights: 2 + 2 + 2 bytes/param"
	case t.PureBF16:
		s.optimizer, s.source = 4, "pure bf16 Adam (m and v in bf16), no fp32 master weights: 2 + 2 + 4 bytes/param"
	case t.Optimizer == "adamw8bit":
		// bitsandbytes 8-bit Adam: m and v one byte each, plus the fp32 master copy.
		s.optimizer, s.source = 6, "8-bit Adam (bitsandbytes docs): 2 + 2 + (2 + 4 master) bytes/param"
	case t.Optimizer == "sgd":
		s.optimizer, s.source = 8, "mixed-precision SGD with momentum (EleutherAI cookbook): 2 + 2 + (4 + 4 master) bytes/param"
	default:
		// Mixed-precision Adam: fp16/bf16 weights and gradients, fp32 master weights, m and v:
		// 2 + 2 + 12 = 16 bytes/param (ZeRO paper §3.1, Rajbhandari et al., arXiv:1910.02054).
		s.optimizer, s.source = 12, "mixed-precision Adam: 2 + 2 + 12 bytes/param (ZeRO paper §3.1, arXiv:1910.02054)"
	}
	if t.FP32Gradients {
		// Megatron-LM and DeepSpeed accumulate gradients in fp32: 2 + 4 + 12 = 18 (FORMULAS.md).
		s.grads = 4
		s.source += "; gradients kept in fp32 (Megatron/DeepSpeed accumulation)"
	}
	return s
}

func training(p *profiles.Profile) (*Estimate, error) {
	m, t := p.Model, p.Training
	tp, pp, dp := float64(t.TensorParallel), float64(t.PipelineParallel), float64(t.DataParallel)
	shard := tp * pp // tensor and pipeline parallelism split the model itself
	e := &Estimate{GPUs: t.TensorParallel * t.PipelineParallel * t.DataParallel, TensorParallel: t.TensorParallel}
	if t.Method == "full" && (m.Precision == "int8" || m.Precision == "int4" || m.Precision == "nf4") {
		return nil, fmt.Errorf("full training needs fp32, bf16 or fp16 weights, not %s: use method lora or qlora", m.Precision)
	}
	switch t.Method {
	case "full":
		if t.MemoryAccounting == "deepspeed" && t.ZeroStage > 0 {
			deepspeedModelStates(e, p, shard, dp)
		} else {
			zeroModelStates(e, p, shard, dp)
		}
	default:
		adapters(e, p, shard, dp)
	}
	activations(e, p)
	// Logits: Hugging Face Transformers' ForCausalLMLoss upcasts the 16-bit logits to fp32 before
	// cross_entropy, which saves its fp32 log-softmax (4·b·s·V bytes); the loss's backward then
	// holds that, the gradient arriving at it and the gradient it returns: 12·b·s·V. FORMULAS.md
	// counts 4·b·s·V twice; the checkpointed H100 runs in docs/memory-model.md, where logits are
	// most of the peak, held 11.8 to 12.1·b·s·V. Split by tensor parallelism over the vocabulary
	// (Megatron's vocab-parallel output layer).
	logits := 12 * float64(t.MicroBatchSize) * float64(t.SequenceLength) * float64(m.VocabSize) / tp
	e.add(TermLogits, logits, "12·b·s·V bytes: the fp32 log-softmax of the logits and the two gradients of the loss's backward (Transformers' causal-LM loss), ÷ tensor parallel")
	e.splitBlock, e.splitWhat = logits/3, "one fp32 copy of the logits"
	finish(e, p)
	return e, nil
}

// zeroModelStates splits weights, gradients and optimizer state over data parallelism by ZeRO
// stage: stage 1 partitions the optimizer state, stage 2 the gradients too, stage 3 the weights
// too (ZeRO paper, arXiv:1910.02054, §5: 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N for K = 12). FSDP
// FULL_SHARD is stage 3.
func zeroModelStates(e *Estimate, p *profiles.Profile, shard, dp float64) {
	t, m := p.Training, p.Model
	sb := optimizerBytes(t, m.Precision)
	w, g, o := sb.weights*m.Parameters/shard, sb.grads*m.Parameters/shard, sb.optimizer*m.Parameters/shard
	src := sb.source
	if t.ZeroStage >= 1 {
		o /= dp
		src += fmt.Sprintf("; ZeRO stage %d over %g data-parallel GPUs", t.ZeroStage, dp)
	}
	if t.ZeroStage >= 2 {
		g /= dp
	}
	if t.ZeroStage >= 3 {
		w /= dp
	}
	if shard > 1 {
		src += fmt.Sprintf("; ÷ %g for tensor × pipeline parallelism", shard)
	}
	e.add(TermWeights, w, src)
	e.add(TermGradients, g, src)
	e.add(TermOptimizer, o, src)
	if t.ZeroStage == 3 && dp > 1 {
		// One layer is gathered whole for compute: its 16-bit weights and gradients
		// (DeepSpeed counts 4 × the largest layer's parameters, FORMULAS.md).
		e.add(TermGathered, 2*sb.weights*largestLayer(m)/shard, "largest layer gathered for compute: 16-bit weights + gradients (DeepSpeed stage3.py)")
	}
}

// deepspeedModelStates reproduces DeepSpeed's own estimators (no offload), for users who plan
// with them: ZeRO-1/2 2Ψ + 18Ψ/N (stage_1_and_2.py, estimate_zero2_model_states_mem_needs, since
// PR #5099); ZeRO-3 18Ψ/N + 4 × largest layer (stage3.py, estimate_zero3_model_states_mem_needs).
func deepspeedModelStates(e *Estimate, p *profiles.Profile, shard, dp float64) {
	m, t := p.Model, p.Training
	psi := m.Parameters / shard
	switch t.ZeroStage {
	case 1, 2:
		e.add(TermModelStates, 2*psi+18*psi/dp, "DeepSpeed ZeRO-2 estimator: 2Ψ + 18Ψ/N (stage_1_and_2.py after PR #5099)")
	case 3:
		e.add(TermModelStates, 18*psi/dp+4*largestLayer(m)/shard, "DeepSpeed ZeRO-3 estimator: 18Ψ/N + 4 × largest layer (stage3.py)")
	}
}

// adapters prices LoRA and QLoRA: the frozen base at its precision (NF4 for QLoRA) and the
// adapters with full training state.
func adapters(e *Estimate, p *profiles.Profile, shard, dp float64) {
	m, t := p.Model, p.Training
	base := m.Parameters * bytesOf(m.Precision)
	src := fmt.Sprintf("frozen base weights in %s", m.Precision)
	if t.Method == "qlora" {
		// QLoRA (Dettmers et al., arXiv:2305.14314): linear layers in NF4 with double
		// quantization, about 4.127 bits/param; embeddings and the output layer stay 16-bit.
		emb := embeddingParams(m)
		base = (m.Parameters-emb)*4.127/8 + emb*2
		src = "QLoRA base: linear layers in NF4 with double quantization, 4.127 bits/param; embeddings and output layer in 16-bit (arXiv:2305.14314 §2)"
		e.note("QLoRA's paged optimizer state lives in unified memory, outside the GPU peak PyTorch reports")
	}
	base /= shard
	if t.ZeroStage >= 3 {
		base /= dp
	}
	e.add(TermWeights, base, src)
	h := float64(m.HiddenSize)
	dff := float64(m.IntermediateSize)
	q := float64(m.AttentionHeads) * headDim(m) // h unless head_dim is declared apart
	if q == 0 {
		q = h
	}
	allLinear := t.LoRATargets == profiles.LoRAAllLinear
	fused, gated := m.FusedProjections, gatedMLP(m)
	a := t.LoRAParameters
	if a == 0 {
		// Rank r adapters on the attention projections of every layer: q is
		// h×(heads·head_dim) and o the reverse, k and v h×(kv_heads·head_dim); an adapter on a
		// d_in×d_out matrix has r·(d_in+d_out) parameters (Hu et al., LoRA, arXiv:2106.09685).
		// Fused q, k and v (model.fused_projections) are one h×(q+2kv) matrix with one adapter.
		// all-linear adds the MLP's: gate and up (h×d_ff; one h×2d_ff matrix where fused) and
		// down (d_ff×h), or a GELU MLP's up and down.
		kv := float64(m.KVHeads) * headDim(m)
		r := float64(t.LoRARank)
		per := 3*h + q + 2*kv + (q + h)
		if fused {
			per = h + q + 2*kv + (q + h)
		}
		if allLinear {
			switch {
			case !gated:
				per += experts(m) * 2 * (h + dff)
			case fused:
				per += experts(m) * (h + 2*dff + dff + h)
			default:
				per += experts(m) * 3 * (h + dff)
			}
		}
		a = float64(m.Layers) * r * per
	}
	sb := optimizerBytes(t, "bf16")
	per := sb.weights + sb.grads + sb.optimizer
	e.add(TermAdapters, a*per/shard, fmt.Sprintf("%.3g adapter parameters × %g bytes (%s)", a, per, sb.source))

	// PEFT keeps adapter weights in fp32 over a 16-bit base (get_peft_model's
	// autocast_adapter_dtype, on by default) and casts each adapted projection's input to fp32
	// for lora_A, which saves that copy for backward: 4·d_in bytes per token per projection,
	// q, k and v each making their own, a fused one one (GPT-2 XL's LoRA run on the H200 saved
	// two fp32 inputs of h a layer, c_attn's and c_proj's: 8h). With full activation
	// checkpointing only the layer being recomputed holds them.
	inputs := 4 * (3*h + q) // q, k and v read h, o the heads' outputs
	targets := "q, k, v, o"
	if fused {
		inputs = 4 * (h + q)
		targets = "fused q, k and v; o"
	}
	if allLinear {
		if gated && !fused {
			inputs += experts(m) * 4 * (2*h + dff) // gate, up (h) and down (d_ff)
		} else {
			inputs += experts(m) * 4 * (h + dff) // up (or fused gate and up) and down
		}
		targets = "every linear layer"
	}
	layers, where := float64(m.Layers), fmt.Sprintf("× %d layers", m.Layers)
	if t.ActivationCheckpointing == profiles.CheckpointFull {
		layers, where = 1, "in the layer being recomputed"
	}
	tokens := float64(t.MicroBatchSize) * float64(t.SequenceLength)
	e.add(TermAdapterInputs, tokens*inputs*layers, fmt.Sprintf("4 bytes × each adapted projection's input width (%s) per token %s (PEFT's fp32 adapters)", targets, where))
}
