package memory

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuguard/gpuguard/profiles"
)

// Byte units. GPU datasheets and the ZeRO paper use GB = 10^9 bytes; nvidia-smi, PyTorch and
// DeepSpeed print GiB while calling it GB (FORMULAS.md, "Units").
const (
	GiB = 1 << 30
	MiB = 1 << 20
)

// CUDA context and library memory per GPU, measured in pytorch/pytorch PR #86509: 287,047,680
// bytes with lazy module loading (the default since CUDA 11.7 with PyTorch 1.13), 666,632,192
// bytes with eager loading.
const (
	ContextLazy  = 287047680
	ContextEager = 666632192
)

// LibraryBytes is the device memory CUDA's libraries and the kernels a job loads take beyond the
// context and PyTorch's allocator: cuBLAS and cuDNN workspaces and handles, and the modules lazy
// loading brings in as kernels first run. Measured on an NVIDIA H100 80GB HBM3 (driver
// 580.159.04, PyTorch 2.11.0 with CUDA 13.0; docs/memory-model.md): NVML's used memory minus
// torch.cuda.max_memory_reserved() was 766 MiB after each training run and 700 MiB after
// generation, of which the context (ContextLazy) is 274 MiB. The training figure is kept.
const LibraryBytes = (766 - 274) * MiB

// DefaultFragmentation is the allocator margin over the formulas: measured cases run 5-15%
// above them (FORMULAS.md, "Per-GPU peak"); gpuguard adds 10% to what the allocator holds.
const DefaultFragmentation = 0.10

// CheckpointingFragmentation is the margin with full activation checkpointing, whose
// recomputation frees and reallocates a layer's tensors at every layer of the backward pass: on
// an H100 (docs/memory-model.md) PyTorch reserved 12% to 22% more than it allocated in the four
// checkpointed runs, against 3% to 14% in the others.
const CheckpointingFragmentation = 0.20

// ExpandableCheckpointingFragmentation is the margin with full activation checkpointing under
// PyTorch's expandable segments (runtime.pytorch_alloc_conf "expandable_segments:True"). On an
// H100 (docs/memory-model.md) six checkpointed runs reserved 15.0-30.6% over what they
// allocated with them, where the same six runs without them reserved 11.4-21.7%: expandable
// segments do not help recomputation's churn, and one LoRA run grew from 19.9% to 30.6% (why
// was not investigated). Without checkpointing, fourteen runs reserved 0.8-9.5% over what they
// allocated, within the default margin, generate()'s prefill included.
const ExpandableCheckpointingFragmentation = 0.25

// SplitBlockSlack is what the caching allocator reserves over what a training step allocates,
// beside a block of the step's largest tensor that it cannot reuse: training runs without
// activation checkpointing reserved 3-10% over what they allocated on an H100
// (docs/memory-model.md).
const SplitBlockSlack = 0.05

// DefaultMaxBatchedTokens bounds the tokens of one forward pass of a pre-allocating serving
// engine (gpu_memory_utilization set) when the profile does not say: vLLM's chunked-prefill
// default for max_num_batched_tokens.
const DefaultMaxBatchedTokens = 8192

// SmallGPUMaxBatchedTokens is vLLM's API server's max_num_batched_tokens on a GPU of under 70
// GiB or an A100 (vLLM engine arguments, EngineArgs default batch sizes: 8,192 only on larger
// GPUs other than the A100, whose throughput it lowered, PR #17885).
const SmallGPUMaxBatchedTokens = 2048

// Term is one component of the estimate.
type Term struct {
	Name   string
	Bytes  float64
	Source string
}

// Estimate is the per-GPU peak memory of a workload.
type Estimate struct {
	Terms []Term
	// PerGPUBytes is the peak on the busiest GPU (the first pipeline stage).
	PerGPUBytes float64
	// GPUs is how many GPUs one copy of the workload spans: tp × pp × dp for training, tp for an
	// inference replica.
	GPUs int
	// TensorParallel is the tensor-parallel degree: those GPUs must sit in one machine.
	TensorParallel int
	// Measured is set when the peak comes from an NVML capture, not the formulas.
	Measured bool
	// PreallocateFraction is a serving engine's gpu_memory_utilization (0 when none): the engine
	// takes that share of the card whatever the need.
	PreallocateFraction float64
	// SGLang, for a server inferred from SGLang's arguments, is what its rules read: it keeps
	// the weights and KV cache within a static share of the GPU (StaticBytes), activations and
	// CUDA graphs outside it.
	SGLang *profiles.SGLangServer
	// KVTokens is how many tokens the KV cache term holds (sequence length × batch).
	KVTokens int
	Notes    []string
	// largestTransient, when set, is the largest tensor one pass allocates and frees again
	// (a Transformers prefill): the fragmentation margin is at least twice it (finish).
	largestTransient float64
	transientWhat    string
	// splitBlock, when set, is the largest tensor each training step allocates and frees
	// again (the loss's fp32 logits): the fragmentation margin is at least it plus
	// SplitBlockSlack of the allocator memory (finish).
	splitBlock float64
	splitWhat  string
}

// StaticBytes is what an SGLang server keeps within its static share of each GPU: the weights,
// LoRA slots and KV cache. The CUDA context is already taken when SGLang measures the memory it
// shares out; the activations, libraries and CUDA graphs come after, outside the share.
func (e *Estimate) StaticBytes() float64 {
	return e.Term(TermWeights) + e.Term(TermLoRASlots) + e.Term(TermKVCache)
}

// GiBPerGPU is the peak in GiB.
func (e *Estimate) GiBPerGPU() float64 { return e.PerGPUBytes / GiB }

func (e *Estimate) add(name string, bytes float64, source string) {
	if bytes <= 0 {
		return
	}
	e.Terms = append(e.Terms, Term{Name: name, Bytes: bytes, Source: source})
}

func (e *Estimate) note(format string, args ...any) {
	e.Notes = append(e.Notes, fmt.Sprintf(format, args...))
}

// Term returns the bytes of a named term (0 when absent).
func (e *Estimate) Term(name string) float64 {
	for _, t := range e.Terms {
		if t.Name == name {
			return t.Bytes
		}
	}
	return 0
}

// Term names, shared with tests and reports.
const (
	TermWeights       = "weights"
	TermGradients     = "gradients"
	TermOptimizer     = "optimizer states"
	TermModelStates   = "model states (DeepSpeed estimator)"
	TermGathered      = "gathered layer (ZeRO-3)"
	TermAdapters      = "LoRA adapters (weights, gradients, optimizer)"
	TermActivations   = "activations"
	TermLogits        = "fp32 logits"
	TermAdapterInputs = "LoRA adapter inputs (fp32 copies)"
	TermKVCache       = "KV cache"
	TermDraft         = "speculative decoding draft (MTP)"
	TermLoRASlots     = "LoRA adapter slots"
	TermContext       = "CUDA context"
	TermLibraries     = "CUDA libraries and kernels"
	TermFragment      = "fragmentation margin"
	TermMeasuredPeak  = "measured peak (NVML)"
)

// Of estimates a profile. A measured peak, when present, is the requirement; the declared fields
// still give the breakdown when they are complete.
func Of(p *profiles.Profile) (*Estimate, error) {
	var e *Estimate
	var err error
	declared := p.Model.Parameters > 0 && (p.Training != nil || p.Inference != nil)
	if declared {
		if p.Training != nil && (p.Workload.Type == profiles.TypeTraining || p.Inference == nil) {
			e, err = training(p)
		} else {
			e, err = inference(p)
		}
		if err != nil {
			return nil, err
		}
	}
	if m := p.Measured; m != nil {
		measured := &Estimate{Measured: true, GPUs: max(1, m.GPUCount)}
		measured.add(TermMeasuredPeak, float64(m.PeakMemoryMiB)*MiB, "NVML memory used, maximum over GPUs and samples (gpuguard profile capture)")
		measured.PerGPUBytes = float64(m.PeakMemoryMiB) * MiB
		if e != nil {
			measured.PreallocateFraction = e.PreallocateFraction
			measured.note("declared estimate %.1f GiB per GPU; the measured peak is used", e.GiBPerGPU())
			if e.PreallocateFraction > 0 {
				measured.note("a pre-allocating engine's NVML peak is its reservation, not its need (FORMULAS.md)")
			}
			measured.GPUs, measured.TensorParallel = e.GPUs, e.TensorParallel
		}
		return measured, nil
	}
	if e == nil {
		return nil, fmt.Errorf("the profile declares no model to estimate and has no measurement")
	}
	return e, nil
}

func bytesOf(precision string) float64 {
	b, ok := profiles.BytesPer(precision)
	if !ok {
		return 2
	}
	return b
}

func headDim(m profiles.Model) float64 {
	if m.HeadDim > 0 {
		return float64(m.HeadDim)
	}
	if m.AttentionHeads > 0 {
		return float64(m.HiddenSize) / float64(m.AttentionHeads)
	}
	return 0
}

// embeddingParams is the input embedding plus, unless tied, the output projection: the layers
// that stay 16-bit when the rest is quantized.
func embeddingParams(m profiles.Model) float64 {
	e := float64(m.VocabSize) * float64(m.HiddenSize)
	if !m.TiedEmbeddings {
		e *= 2
	}
	return math.Min(e, m.Parameters)
}

func largestLayer(m profiles.Model) float64 {
	if m.LargestLayerParameters > 0 {
		return m.LargestLayerParameters
	}
	emb := float64(m.VocabSize) * float64(m.HiddenSize)
	mlp := 3 * float64(m.HiddenSize) * float64(m.IntermediateSize)
	return math.Max(emb, mlp)
}

func contextBytes(p *profiles.Profile) (float64, string) {
	if p.Runtime != nil && p.Runtime.CUDAModuleLoading == "eager" {
		return ContextEager, "eager CUDA module loading, measured in pytorch/pytorch PR #86509"
	}
	return ContextLazy, "lazy CUDA module loading (default since CUDA 11.7), measured in pytorch/pytorch PR #86509"
}

// fragmentation is the allocator margin and where it comes from.
func fragmentation(p *profiles.Profile) (float64, string) {
	switch {
	case p.Runtime != nil && p.Runtime.Fragmentation != nil:
		return *p.Runtime.Fragmentation, "the profile's runtime.fragmentation"
	case p.Training != nil && p.Training.ActivationCheckpointing == profiles.CheckpointFull && p.Runtime.ExpandableSegments():
		return ExpandableCheckpointingFragmentation, "activation checkpointing with expandable segments: PyTorch reserved 15-31% over what it allocated on an H100 (docs/memory-model.md)"
	case p.Training != nil && p.Training.ActivationCheckpointing == profiles.CheckpointFull:
		return CheckpointingFragmentation, "activation checkpointing: PyTorch reserved 12-22% over what it allocated on an H100 (docs/memory-model.md)"
	case p.Runtime.ExpandableSegments():
		return DefaultFragmentation, "expandable segments: PyTorch reserved 1-10% over what it allocated on an H100, in training and generate() (docs/memory-model.md)"
	}
	return DefaultFragmentation, "measured cases run 5-15% above the formulas (FORMULAS.md)"
}

// finish adds the fixed costs and totals the terms.
func finish(e *Estimate, p *profiles.Profile) {
	var allocated float64
	for _, t := range e.Terms {
		allocated += t.Bytes
	}
	frag, src := fragmentation(p)
	margin, src := allocated*frag, fmt.Sprintf("%.0f%% of allocator memory: %s", frag*100, src)
	declared := p.Runtime != nil && p.Runtime.Fragmentation != nil
	cached := !declared && !p.Runtime.ExpandableSegments()
	if split := 2 * e.largestTransient; cached && split > margin {
		// PyTorch's caching allocator splits a freed block to serve smaller requests, and the
		// next layer's tensor of the largest size then needs a new segment. Measured on an H100
		// (docs/memory-model.md), generate()'s prefill reserved 0.4 to 2.3 times its largest
		// transient tensor over what it allocated: 7,455 MiB for four Mixtral-8x7B layers,
		// whose gate-and-up output is 3,584 MiB. With expandable segments the same prefill
		// reserved 355 MiB over it: the allocator maps the next large tensor into the one
		// segment instead of needing a free block of its size.
		margin, src = split, fmt.Sprintf("twice the largest tensor of one pass (%s, %.3g GiB): the caching allocator splits freed blocks for smaller tensors and reserves a new segment for the next large one", e.transientWhat, e.largestTransient/GiB)
	}
	if hole := e.splitBlock + SplitBlockSlack*allocated; cached && hole > margin {
		// A training step frees its largest tensor, the loss's fp32 logits, and allocates it
		// again in the next step. The optimizer state, allocated after the first step, can be
		// placed in part of that cached block, and the next step then reserves a new one.
		// Measured on an H200 (docs/memory-model.md), Gemma-3-1B at 8 × 2048 tokens reserved
		// 113.6 GiB in its first step and 129.6 GiB once AdamW's 7.5 GiB of state was there:
		// 17.8 GiB over what it allocated, one 16 GiB copy of its logits and 1.6%.
		margin, src = hole, fmt.Sprintf("a block of the largest tensor a step frees and allocates again (%s, %.3g GiB), which the optimizer state can split, plus %.0f%% of allocator memory", e.splitWhat, e.splitBlock/GiB, SplitBlockSlack*100)
	}
	e.add(TermFragment, margin, src)
	ctx, ctxSrc := contextBytes(p)
	e.add(TermContext, ctx, ctxSrc)
	e.add(TermLibraries, LibraryBytes, "cuBLAS/cuDNN workspaces and loaded kernels beyond the context: 766 MiB NVML used over PyTorch's reserved memory, less the context, on an H100 (docs/memory-model.md)")
	e.PerGPUBytes = 0
	for _, t := range e.Terms {
		e.PerGPUBytes += t.Bytes
	}
}

func lower(s string) string { return strings.ToLower(s) }
