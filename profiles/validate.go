package profiles

import (
	"fmt"
	"strings"
)

type validationError struct {
	path string
	msg  string
}

func (e *validationError) Error() string { return e.msg }

func invalid(path, format string, args ...any) error {
	return &validationError{path: path, msg: fmt.Sprintf(format, args...)}
}

// Precisions and their bytes per parameter or element. int4 is 4.5 bits with group scales
// (llama.cpp Q4_0 measured 4.54 bits/param, FORMULAS.md); nf4 is QLoRA's 4.127 bits with double
// quantization (Dettmers et al., arXiv:2305.14314, §2); mxfp4 is 4.25 bits: 32 FP4 (E2M1)
// elements share one 8-bit E8M0 scale (OCP Microscaling Formats (MX) Specification v1.0, §5).
var precisionBytes = map[string]float64{
	"fp32": 4, "bf16": 2, "fp16": 2, "int8": 1, "fp8": 1, "int4": 4.5 / 8, "nf4": 4.127 / 8, "mxfp4": 4.25 / 8,
}

// weightPrecisions names precisionBytes' keys for the messages of the fields that take them.
const weightPrecisions = "fp32, bf16, fp16, fp8, int8, int4, nf4 or mxfp4"

// BytesPer returns the bytes per element of a precision.
func BytesPer(precision string) (float64, bool) {
	b, ok := precisionBytes[strings.ToLower(precision)]
	return b, ok
}

var (
	optimizers = map[string]bool{"adamw": true, "adam": true, "adamw8bit": true, "sgd": true}
	methods    = map[string]bool{"full": true, "lora": true, "qlora": true}
	fsdpModes  = map[string]int{"full_shard": 3, "shard_grad_op": 2, "hybrid_shard": 3, "no_shard": 0}
)

// validate checks the profile and fills defaults. A profile with a measured section needs no
// declared model: the measurement is the requirement.
func (p *Profile) validate() error {
	if p.APIVersion != APIVersion {
		return invalid("apiVersion", "apiVersion must be %q, got %q", APIVersion, p.APIVersion)
	}
	if p.Kind != Kind {
		return invalid("kind", "kind must be %q, got %q", Kind, p.Kind)
	}
	switch p.Workload.Type {
	case TypeTraining, TypeInference, TypeBatch:
	case "":
		return invalid("workload", "workload.type is required: training, inference or batch")
	default:
		return invalid("workload.type", "workload.type must be training, inference or batch, got %q", p.Workload.Type)
	}
	if p.Workload.Interruptible && p.Workload.LatencySensitive {
		return invalid("workload", "a workload cannot be both interruptible and latency_sensitive")
	}
	if m := p.Measured; m != nil {
		if m.PeakMemoryMiB <= 0 {
			return invalid("measured.peak_memory_used_mib", "measured.peak_memory_used_mib must be positive")
		}
		if m.MemoryTotalMiB < 0 || m.GPUCount < 0 {
			return invalid("measured", "measured values must not be negative")
		}
	}
	if r := p.Runtime; r != nil {
		if r.CUDAModuleLoading != "" && r.CUDAModuleLoading != "lazy" && r.CUDAModuleLoading != "eager" {
			return invalid("runtime.cuda_module_loading", "runtime.cuda_module_loading must be lazy or eager")
		}
		if r.Fragmentation != nil && (*r.Fragmentation < 0 || *r.Fragmentation > 1) {
			return invalid("runtime.fragmentation", "runtime.fragmentation must be between 0 and 1")
		}
		if msg := AllocConfProblem(r.PyTorchAllocConf); msg != "" {
			return invalid("runtime.pytorch_alloc_conf", "runtime.pytorch_alloc_conf: %s", msg)
		}
	}
	m := &p.Model
	if m.Precision == "" {
		m.Precision = "bf16"
	}
	m.Precision = strings.ToLower(m.Precision)
	if _, ok := precisionBytes[m.Precision]; !ok {
		return invalid("model.precision", "model.precision must be "+weightPrecisions+", got %q", m.Precision)
	}
	if m.ExpertPrecision != "" {
		m.ExpertPrecision = strings.ToLower(m.ExpertPrecision)
		if _, ok := precisionBytes[m.ExpertPrecision]; !ok {
			return invalid("model.expert_precision", "model.expert_precision must be "+weightPrecisions+", got %q", m.ExpertPrecision)
		}
		if m.Experts <= 0 {
			return invalid("model.expert_precision", "model.expert_precision needs model.experts: only a mixture of experts has experts' weights")
		}
	}
	if m.SlidingWindow < 0 {
		return invalid("model.sliding_window", "model.sliding_window must not be negative, got %d", m.SlidingWindow)
	}
	if m.SlidingWindowLayers < 0 || m.SlidingWindowLayers > m.Layers {
		return invalid("model.sliding_window_layers", "model.sliding_window_layers must be between 0 (every layer) and model.layers (%d), got %d", m.Layers, m.SlidingWindowLayers)
	}
	if m.SlidingWindowLayers > 0 && m.SlidingWindow == 0 {
		return invalid("model.sliding_window_layers", "model.sliding_window_layers needs model.sliding_window, the tokens those layers see")
	}
	for _, f := range []struct {
		path string
		v    int
	}{{"model.shared_experts", m.SharedExperts}, {"model.dense_layers", m.DenseLayers}, {"model.kv_lora_rank", m.KVLoRARank}, {"model.qk_rope_head_dim", m.QKRopeHeadDim}, {"model.q_lora_rank", m.QLoRARank}, {"model.index_n_heads", m.IndexHeads}, {"model.index_head_dim", m.IndexHeadDim}} {
		if f.v < 0 {
			return invalid(f.path, "%s must not be negative, got %d", f.path, f.v)
		}
	}
	if m.SharedExperts > 0 && m.Experts <= 0 {
		return invalid("model.shared_experts", "model.shared_experts needs model.experts: only a mixture of experts shares experts")
	}
	if m.DenseLayers > 0 && (m.Experts <= 0 || m.DenseLayers >= m.Layers) {
		return invalid("model.dense_layers", "model.dense_layers needs model.experts and must be fewer than model.layers (%d), got %d", m.Layers, m.DenseLayers)
	}
	if m.QKRopeHeadDim > 0 && m.KVLoRARank == 0 {
		return invalid("model.qk_rope_head_dim", "model.qk_rope_head_dim needs model.kv_lora_rank: it is part of multi-head latent attention's cache")
	}
	if m.QLoRARank > 0 && m.KVLoRARank == 0 {
		return invalid("model.q_lora_rank", "model.q_lora_rank needs model.kv_lora_rank: it is part of multi-head latent attention")
	}
	if (m.IndexHeads > 0) != (m.IndexHeadDim > 0) || m.IndexHeads > 0 && m.QLoRARank == 0 {
		return invalid("model.index_n_heads", "model.index_n_heads and model.index_head_dim go together, and need model.q_lora_rank: the lightning indexer projects its queries from multi-head latent attention's query latent")
	}
	if m.MLP != "" && m.MLP != "gelu" && m.MLP != "gelu_new" && m.MLP != "swiglu" {
		return invalid("model.mlp", "model.mlp must be gelu, gelu_new or swiglu, got %q", m.MLP)
	}
	if m.KVHeads == 0 {
		m.KVHeads = m.AttentionHeads
	}
	if m.AttentionHeads > 0 && m.KVHeads > m.AttentionHeads {
		return invalid("model.kv_heads", "model.kv_heads (%d) cannot exceed attention_heads (%d)", m.KVHeads, m.AttentionHeads)
	}
	if m.Parameters < 0 || m.Layers < 0 || m.HiddenSize < 0 || m.VocabSize < 0 {
		return invalid("model", "model sizes must not be negative")
	}
	declared := p.Measured == nil
	if declared && m.Parameters == 0 {
		return invalid("model", "model.parameters (or model.preset) is required to estimate memory without a measured section")
	}
	switch p.Workload.Type {
	case TypeTraining:
		if p.Training == nil {
			if declared {
				return invalid("workload.type", "a training workload needs a training section (or a measured one)")
			}
			return nil
		}
		return p.validateTraining(declared)
	default:
		if p.Inference == nil {
			if declared && p.Workload.Type == TypeInference {
				return invalid("workload.type", "an inference workload needs an inference section (or a measured one)")
			}
			if p.Training != nil {
				return p.validateTraining(declared) // a batch job that trains
			}
			return nil
		}
		return p.validateInference(declared)
	}
}

func (p *Profile) validateTraining(declared bool) error {
	t := p.Training
	if t.Method == "" {
		t.Method = "full"
	}
	if !methods[t.Method] {
		return invalid("training.method", "training.method must be full, lora or qlora, got %q", t.Method)
	}
	if t.Optimizer == "" {
		t.Optimizer = "adamw"
	}
	if !optimizers[t.Optimizer] {
		return invalid("training.optimizer", "training.optimizer must be adamw, adam, adamw8bit or sgd, got %q", t.Optimizer)
	}
	if t.FSDP != "" {
		stage, ok := fsdpModes[strings.ToLower(t.FSDP)]
		if !ok {
			return invalid("training.fsdp", "training.fsdp must be full_shard, shard_grad_op, hybrid_shard or no_shard, got %q", t.FSDP)
		}
		if t.ZeroStage != 0 && t.ZeroStage != stage {
			return invalid("training.fsdp", "training.fsdp %s is ZeRO stage %d, but zero_stage is %d", t.FSDP, stage, t.ZeroStage)
		}
		t.ZeroStage = stage
	}
	if t.ZeroStage < 0 || t.ZeroStage > 3 {
		return invalid("training.zero_stage", "training.zero_stage must be 0, 1, 2 or 3, got %d", t.ZeroStage)
	}
	for name, v := range map[string]*int{"data_parallel": &t.DataParallel, "tensor_parallel": &t.TensorParallel, "pipeline_parallel": &t.PipelineParallel} {
		if *v < 0 {
			return invalid("training."+name, "training.%s must be at least 1", name)
		}
		if *v == 0 {
			*v = 1
		}
	}
	if t.MemoryAccounting == "" {
		t.MemoryAccounting = "zero_paper"
	}
	if t.MemoryAccounting != "zero_paper" && t.MemoryAccounting != "deepspeed" {
		return invalid("training.memory_accounting", "training.memory_accounting must be zero_paper or deepspeed")
	}
	if t.FrozenBase() {
		if t.LoRARank == 0 && t.LoRAParameters == 0 {
			t.LoRARank = 16
		}
		switch t.LoRATargets {
		case "":
			t.LoRATargets = LoRAAttention
		case LoRAAttention, LoRAAllLinear:
		default:
			return invalid("training.lora_targets", "training.lora_targets must be attention or all-linear, got %q", t.LoRATargets)
		}
	}
	if t.MicroBatchSize < 0 || t.SequenceLength < 0 {
		return invalid("training", "training sizes must not be negative")
	}
	if !declared {
		return nil
	}
	m := p.Model
	switch {
	case t.MicroBatchSize == 0:
		return invalid("training", "training.micro_batch_size is required to estimate activations")
	case t.SequenceLength == 0:
		return invalid("training", "training.sequence_length is required to estimate activations")
	case m.Layers == 0 || m.HiddenSize == 0 || m.AttentionHeads == 0:
		return invalid("model", "model.layers, hidden_size and attention_heads (or a preset) are required to estimate activations")
	}
	if t.TensorParallel > 1 && m.AttentionHeads%t.TensorParallel != 0 {
		return invalid("training.tensor_parallel", "tensor_parallel %d does not divide the %d attention heads", t.TensorParallel, m.AttentionHeads)
	}
	return nil
}

func (p *Profile) validateInference(declared bool) error {
	in := p.Inference
	if in.KVCachePrecision == "" {
		in.KVCachePrecision = "fp16"
	}
	if _, ok := precisionBytes[strings.ToLower(in.KVCachePrecision)]; !ok {
		return invalid("inference.kv_cache_precision", "inference.kv_cache_precision must be fp32, bf16, fp16, fp8 or int8, got %q", in.KVCachePrecision)
	}
	if in.GPUMemoryUtilization < 0 || in.GPUMemoryUtilization > 1 {
		return invalid("inference.gpu_memory_utilization", "inference.gpu_memory_utilization must be between 0 and 1, got %g", in.GPUMemoryUtilization)
	}
	if in.TensorParallel < 0 || in.BatchSize < 0 || in.MaxSequenceLength < 0 || in.LoRASlots < 0 || in.LoRARank < 0 {
		return invalid("inference", "inference sizes must not be negative")
	}
	if in.TensorParallel == 0 {
		in.TensorParallel = 1
	}
	if !declared {
		return nil
	}
	m := p.Model
	switch {
	case in.BatchSize == 0:
		return invalid("inference", "inference.batch_size is required to size the KV cache")
	case in.MaxSequenceLength == 0:
		return invalid("inference", "inference.max_sequence_length is required to size the KV cache")
	case m.Layers == 0 || m.HiddenSize == 0 || m.AttentionHeads == 0:
		return invalid("model", "model.layers, hidden_size and attention_heads (or a preset) are required to size the KV cache")
	}
	if in.TensorParallel > 1 && m.AttentionHeads%in.TensorParallel != 0 {
		return invalid("inference.tensor_parallel", "tensor_parallel %d does not divide the %d attention heads", in.TensorParallel, m.AttentionHeads)
	}
	switch {
	case in.LoRASlots > 0 && in.LoRARank == 0:
		return invalid("inference.lora_rank", "inference.lora_rank is required with lora_slots: the largest adapter rank the slots hold")
	case in.LoRARank > 0 && in.LoRASlots == 0:
		return invalid("inference.lora_slots", "inference.lora_slots is required with lora_rank: how many adapters the server holds at once")
	case in.LoRASlots > 0 && m.KVLoRARank > 0:
		// The adapter slots' size follows the projections' shapes, which latent attention
		// changes (the estimate counts grouped-query attention's).
		return invalid("inference.lora_slots", "inference.lora_slots on a model whose attention is multi-head latent attention, are not modelled (model.kv_lora_rank)")
	case in.LoRASlots > 0 && m.IntermediateSize == 0:
		return invalid("model", "model.intermediate_size (or a preset) is required to size LoRA slots")
	}
	return nil
}
