package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// APIVersion and Kind identify a workload profile document.
const (
	APIVersion = "gpuguard.dev/v1"
	Kind       = "WorkloadProfile"
)

// Workload types.
const (
	TypeTraining  = "training"
	TypeInference = "inference"
	TypeBatch     = "batch"
)

// Profile is a WorkloadProfile.
type Profile struct {
	APIVersion string     `yaml:"apiVersion" json:"apiVersion"`
	Kind       string     `yaml:"kind" json:"kind"`
	Metadata   Metadata   `yaml:"metadata" json:"metadata"`
	Workload   Workload   `yaml:"workload" json:"workload"`
	Model      Model      `yaml:"model" json:"model"`
	Training   *Training  `yaml:"training,omitempty" json:"training,omitempty"`
	Inference  *Inference `yaml:"inference,omitempty" json:"inference,omitempty"`
	Runtime    *Runtime   `yaml:"runtime,omitempty" json:"runtime,omitempty"`
	Measured   *Measured  `yaml:"measured,omitempty" json:"measured,omitempty"`

	// Path is the file the profile was read from.
	Path string `yaml:"-" json:"-"`
	// Inferred, on a profile gpuguard inferred rather than read (FromVLLM), says from what.
	Inferred string `yaml:"-" json:"-"`
	// ContextFlag, on an inferred serving profile whose KV cache grows with the context it is
	// sized for, is the engine's flag that limits that context ("--max-model-len"): a server
	// whose context does not fit is told the longest one that does.
	ContextFlag string `yaml:"-" json:"-"`
}

// Metadata names the profile.
type Metadata struct {
	Name        string            `yaml:"name" json:"name"`
	Description string            `yaml:"description,omitempty" json:"description,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
}

// Workload says what kind of job it is and how it may be run.
type Workload struct {
	Type string `yaml:"type" json:"type"`
	// Interruptible: it checkpoints and can resume, so spot capacity is fine.
	Interruptible bool `yaml:"interruptible" json:"interruptible"`
	// LatencySensitive: it serves traffic that must not be preempted.
	LatencySensitive bool `yaml:"latency_sensitive" json:"latency_sensitive"`
}

// Model is the network, declared or filled from a preset.
type Model struct {
	Preset           string  `yaml:"preset,omitempty" json:"preset,omitempty"`
	Parameters       float64 `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	Layers           int     `yaml:"layers,omitempty" json:"layers,omitempty"`
	HiddenSize       int     `yaml:"hidden_size,omitempty" json:"hidden_size,omitempty"`
	AttentionHeads   int     `yaml:"attention_heads,omitempty" json:"attention_heads,omitempty"`
	KVHeads          int     `yaml:"kv_heads,omitempty" json:"kv_heads,omitempty"`
	HeadDim          int     `yaml:"head_dim,omitempty" json:"head_dim,omitempty"`
	VocabSize        int     `yaml:"vocab_size,omitempty" json:"vocab_size,omitempty"`
	IntermediateSize int     `yaml:"intermediate_size,omitempty" json:"intermediate_size,omitempty"`
	// MLP is gelu (a 4h GELU MLP whose GELU is one kernel: BERT, GPT-NeoX, and Transformers'
	// gelu_pytorch_tanh), gelu_new (the same MLP with Transformers' gelu_new, the tanh form
	// written as tensor operations, which keep far more for backward: GPT-2, GPT-J, CodeGen,
	// Phi-2; their configs say activation_function or hidden_act gelu_new) or swiglu (Llama
	// and most recent models).
	MLP string `yaml:"mlp,omitempty" json:"mlp,omitempty"`
	// FusedProjections says q, k and v are one linear layer, and a gated MLP's gate and up one
	// too: GPT-2's c_attn, GPT-NeoX's and Falcon's query_key_value, Phi-3's and Phi-4's qkv_proj
	// and gate_up_proj. A LoRA adapter there is one adapter over the fused matrix, reading the
	// layer's input once, and training keeps what the fused output holds.
	FusedProjections bool `yaml:"fused_projections,omitempty" json:"fused_projections,omitempty"`
	// Experts and ExpertsPerToken describe a mixture of experts (Mixtral: 8 and 2), and
	// SharedExperts the experts every token also runs through (DeepSeek V3: 256, 8 and 1).
	// IntermediateSize is then one expert's width.
	Experts         int `yaml:"experts,omitempty" json:"experts,omitempty"`
	ExpertsPerToken int `yaml:"experts_per_token,omitempty" json:"experts_per_token,omitempty"`
	SharedExperts   int `yaml:"shared_experts,omitempty" json:"shared_experts,omitempty"`
	// DenseLayers is how many of the first layers of a mixture of experts have a dense MLP in
	// place of experts (config.json's first_k_dense_replace: DeepSeek V3 3, Kimi K2 1).
	DenseLayers int `yaml:"dense_layers,omitempty" json:"dense_layers,omitempty"`
	// KVLoRARank and QKRopeHeadDim describe multi-head latent attention (DeepSeek-V2 and V3,
	// config.json's kv_lora_rank and qk_rope_head_dim): each layer caches, for every token, one
	// latent vector of KVLoRARank values and one rotary key of QKRopeHeadDim shared by all
	// heads, in place of every KV head's keys and values (DeepSeek-AI, arXiv:2405.04434, §2.1).
	KVLoRARank    int `yaml:"kv_lora_rank,omitempty" json:"kv_lora_rank,omitempty"`
	QKRopeHeadDim int `yaml:"qk_rope_head_dim,omitempty" json:"qk_rope_head_dim,omitempty"`
	// QLoRARank is the width queries are compressed to in multi-head latent attention
	// (config.json's q_lora_rank; 0 where queries are projected directly, DeepSeek-V2-Lite).
	// Serving engines keep the down-projections to it and to the KV latent whole on every GPU.
	QLoRARank int `yaml:"q_lora_rank,omitempty" json:"q_lora_rank,omitempty"`
	// IndexHeads and IndexHeadDim describe DeepSeek sparse attention's lightning indexer
	// (DeepSeek-V3.2, config.json's index_n_heads and index_head_dim): every layer scores the
	// past tokens with IndexHeads query heads of IndexHeadDim over one cached key per token,
	// and attends to the best index_topk of them. The engines keep the indexer's projections
	// whole on every GPU and its keys in FP8 with one fp32 scale per 128 values beside the
	// latent cache (vLLM's DeepseekV32IndexerCache).
	IndexHeads   int `yaml:"index_n_heads,omitempty" json:"index_n_heads,omitempty"`
	IndexHeadDim int `yaml:"index_head_dim,omitempty" json:"index_head_dim,omitempty"`
	// QKNorm says every layer normalizes each head's query and key before attention
	// (an RMSNorm over head_dim: Qwen 3, Gemma 3). Training keeps what those norms save for
	// backward, for every query and KV head.
	QKNorm bool `yaml:"qk_norm,omitempty" json:"qk_norm,omitempty"`
	// SandwichNorms says every layer also normalizes its attention's and its MLP's output
	// before adding it to the residual stream (Gemma 2 and 3: four RMSNorms a layer, which
	// scale in fp32), which training keeps.
	SandwichNorms bool `yaml:"sandwich_norms,omitempty" json:"sandwich_norms,omitempty"`
	// ExpertPrecision is how a mixture of experts' checkpoint stores the experts' projection
	// matrices where it differs from Precision (gpt-oss: mxfp4, the rest in bf16). Serving
	// sizes those weights in it; training counts every weight in Precision, as the gpt-oss
	// fine-tuning recipe dequantizes the experts to bf16 first.
	ExpertPrecision string `yaml:"expert_precision,omitempty" json:"expert_precision,omitempty"`
	// SlidingWindow and SlidingWindowLayers describe attention layers that see only the last
	// SlidingWindow tokens (config.json's sliding_window and layer_types): SlidingWindowLayers
	// of them, interleaved with full-attention layers (Gemma 2: 21 of 42; gpt-oss: 18 of 36),
	// or every layer when it is 0. A served sequence keeps no more KV cache in those layers.
	SlidingWindow       int `yaml:"sliding_window,omitempty" json:"sliding_window,omitempty"`
	SlidingWindowLayers int `yaml:"sliding_window_layers,omitempty" json:"sliding_window_layers,omitempty"`
	// TiedEmbeddings: the output projection shares the input embedding.
	TiedEmbeddings bool   `yaml:"tied_embeddings,omitempty" json:"tied_embeddings,omitempty"`
	Precision      string `yaml:"precision,omitempty" json:"precision,omitempty"`
	// LargestLayerParameters is the largest single layer (usually the embedding), gathered whole
	// under ZeRO-3; derived from vocab and hidden size when not given.
	LargestLayerParameters float64 `yaml:"largest_layer_parameters,omitempty" json:"largest_layer_parameters,omitempty"`
	Source                 string  `yaml:"source,omitempty" json:"source,omitempty"`
}

// Training describes a training or fine-tuning run.
type Training struct {
	Method    string `yaml:"method,omitempty" json:"method,omitempty"`       // full | lora | qlora
	Optimizer string `yaml:"optimizer,omitempty" json:"optimizer,omitempty"` // adamw | adam | adamw8bit | sgd
	// PureBF16 trains in bf16 without fp32 master weights (optimizer state in bf16 too).
	PureBF16 bool `yaml:"pure_bf16,omitempty" json:"pure_bf16,omitempty"`
	// FP32Gradients keeps gradients in fp32 (Megatron-style gradient accumulation).
	FP32Gradients  bool `yaml:"fp32_gradients,omitempty" json:"fp32_gradients,omitempty"`
	MicroBatchSize int  `yaml:"micro_batch_size,omitempty" json:"micro_batch_size,omitempty"`
	SequenceLength int  `yaml:"sequence_length,omitempty" json:"sequence_length,omitempty"`
	// ActivationCheckpointing: true or "full" recomputes whole layers; "selective" recomputes
	// attention only (Korthikanti et al.).
	ActivationCheckpointing Checkpointing `yaml:"activation_checkpointing,omitempty" json:"activation_checkpointing,omitempty"`
	FlashAttention          *bool         `yaml:"flash_attention,omitempty" json:"flash_attention,omitempty"`
	// PaddedBatches says the micro-batches are padded to a common length (Hugging Face Trainer's
	// and TRL's default collators without packing), so every layer's attention takes a mask: SDPA
	// then keeps k and v repeated to every query head and the mask. Packed or padding-free
	// batches have none.
	PaddedBatches bool `yaml:"padded_batches,omitempty" json:"padded_batches,omitempty"`
	ZeroStage     int  `yaml:"zero_stage,omitempty" json:"zero_stage,omitempty"`
	// FSDP FULL_SHARD is ZeRO-3, SHARD_GRAD_OP is ZeRO-2.
	FSDP             string `yaml:"fsdp,omitempty" json:"fsdp,omitempty"`
	DataParallel     int    `yaml:"data_parallel,omitempty" json:"data_parallel,omitempty"`
	TensorParallel   int    `yaml:"tensor_parallel,omitempty" json:"tensor_parallel,omitempty"`
	PipelineParallel int    `yaml:"pipeline_parallel,omitempty" json:"pipeline_parallel,omitempty"`
	SequenceParallel bool   `yaml:"sequence_parallel,omitempty" json:"sequence_parallel,omitempty"`
	LoRARank         int    `yaml:"lora_rank,omitempty" json:"lora_rank,omitempty"`
	// LoRATargets is which projections carry adapters: attention (q, k, v, o; the default) or
	// all-linear (the MLP's too, PEFT's target_modules="all-linear").
	LoRATargets string `yaml:"lora_targets,omitempty" json:"lora_targets,omitempty"`
	// LoRAParameters overrides the adapter size gpuguard derives from the rank.
	LoRAParameters float64 `yaml:"lora_parameters,omitempty" json:"lora_parameters,omitempty"`
	// MemoryAccounting chooses how ZeRO model states are counted: zero_paper (Rajbhandari et
	// al.) or deepspeed (DeepSpeed's own estimator functions).
	MemoryAccounting string `yaml:"memory_accounting,omitempty" json:"memory_accounting,omitempty"`
}

// FrozenBase says the base model's weights are frozen and adapters train instead (lora, qlora).
func (t *Training) FrozenBase() bool { return t.Method != "full" }

// LoRA adapter targets.
const (
	LoRAAttention = "attention"
	LoRAAllLinear = "all-linear"
)

// Checkpointing is activation checkpointing: none, full or selective.
type Checkpointing string

// Checkpointing modes.
const (
	CheckpointNone      Checkpointing = ""
	CheckpointFull      Checkpointing = "full"
	CheckpointSelective Checkpointing = "selective"
)

// UnmarshalYAML accepts true/false as well as "full", "selective", "none".
func (c *Checkpointing) UnmarshalYAML(n *yaml.Node) error {
	switch strings.ToLower(strings.TrimSpace(n.Value)) {
	case "true", "full", "yes":
		*c = CheckpointFull
	case "false", "none", "no", "":
		*c = CheckpointNone
	case "selective":
		*c = CheckpointSelective
	default:
		return fmt.Errorf("line %d: activation_checkpointing must be true, false, full or selective, got %q", n.Line, n.Value)
	}
	return nil
}

// MarshalYAML writes the mode back as a bool where it is one.
func (c Checkpointing) MarshalYAML() (any, error) {
	switch c {
	case CheckpointFull:
		return true, nil
	case CheckpointNone:
		return false, nil
	}
	return string(c), nil
}

// Inference describes serving.
type Inference struct {
	BatchSize         int    `yaml:"batch_size,omitempty" json:"batch_size,omitempty"`
	MaxSequenceLength int    `yaml:"max_sequence_length,omitempty" json:"max_sequence_length,omitempty"`
	KVCachePrecision  string `yaml:"kv_cache_precision,omitempty" json:"kv_cache_precision,omitempty"`
	// GPUMemoryUtilization is the share of the card a pre-allocating engine (vLLM) takes.
	GPUMemoryUtilization float64 `yaml:"gpu_memory_utilization,omitempty" json:"gpu_memory_utilization,omitempty"`
	TensorParallel       int     `yaml:"tensor_parallel,omitempty" json:"tensor_parallel,omitempty"`
	// MaxBatchedTokens bounds the tokens of one forward pass (vLLM max_num_batched_tokens).
	MaxBatchedTokens int `yaml:"max_batched_tokens,omitempty" json:"max_batched_tokens,omitempty"`
	// LoRASlots is how many LoRA adapters a multi-LoRA server holds on each GPU at once (vLLM
	// --max-loras with --enable-lora), each sized for LoRARank (vLLM --max-lora-rank); 0 for a
	// server without adapters.
	LoRASlots int `yaml:"lora_slots,omitempty" json:"lora_slots,omitempty"`
	LoRARank  int `yaml:"lora_rank,omitempty" json:"lora_rank,omitempty"`
	// DataParallel, on a profile inferred from a server's command line, is how many engines
	// the replica runs side by side (vLLM --data-parallel-size, SGLang --dp-size), each on
	// TensorParallel GPUs of its own with its own copy of the model; 0 or 1 for one.
	DataParallel int `yaml:"-" json:"-"`
	// ExpertParallel, on a profile inferred from vLLM's command line, is how many GPUs a
	// mixture of experts' routed experts are split over when more than TensorParallel: vLLM's
	// data-parallel engines share the expert layers over data-parallel × tensor-parallel GPUs
	// (as expert parallelism with --enable-expert-parallel, as tensor parallelism without),
	// while each engine keeps the other weights on its own TensorParallel GPUs.
	ExpertParallel int `yaml:"-" json:"-"`
	// AttentionDataParallel, on a profile inferred from SGLang's command line with
	// --enable-dp-attention, is its --dp-size: one engine of TensorParallel GPUs runs attention
	// as that many data-parallel groups of TensorParallel/AttentionDataParallel GPUs each, with
	// the embeddings whole on every GPU, while the MLPs and experts stay split over all
	// TensorParallel (SGLang's dp_attention and DeepseekV2Model). 0 or 1 for none.
	AttentionDataParallel int `yaml:"-" json:"-"`
	// SGLang, on a profile inferred from an SGLang server's command line (FromSGLang), holds
	// the arguments its memory rules read; nil for vLLM's rules and a declared profile.
	SGLang *SGLangServer `yaml:"-" json:"-"`
	// MTPLayers, on a profile inferred from a server's command line that runs multi-token
	// prediction speculative decoding (vLLM's mtp method, SGLang's EAGLE or NEXTN over a
	// checkpoint's own MTP layers), is how many of the checkpoint's MTP layers (its preset's
	// MTPLayers) the engine loads as the draft: each one more decoder layer of the model's kind
	// with its KV cache, and the draft's projection and output head. 0 for none.
	MTPLayers int `yaml:"-" json:"-"`
	// VLLMServer marks a profile inferred from vLLM's OpenAI-compatible server (FromVLLM),
	// whose batched-token limit, when MaxBatchedTokens does not give one, depends on the GPU
	// it starts on.
	VLLMServer bool `yaml:"-" json:"-"`
}

// Engine says a serving engine runs the model: a server inferred from vLLM's or SGLang's
// command line, or a declared profile with gpu_memory_utilization (a pre-allocating engine).
// Otherwise the model runs as Transformers writes it (generate()).
func (in *Inference) Engine() bool {
	return in.GPUMemoryUtilization > 0 || in.SGLang != nil || in.VLLMServer
}

// Runtime tunes the fixed costs.
type Runtime struct {
	// CUDAModuleLoading is lazy (CUDA 11.7+ default with PyTorch) or eager.
	CUDAModuleLoading string `yaml:"cuda_module_loading,omitempty" json:"cuda_module_loading,omitempty"`
	// Fragmentation is the allocator margin over the formula (default 0.10).
	Fragmentation *float64 `yaml:"fragmentation,omitempty" json:"fragmentation,omitempty"`
	// PyTorchAllocConf is PyTorch's caching-allocator settings, as the PYTORCH_ALLOC_CONF
	// environment variable (PYTORCH_CUDA_ALLOC_CONF before PyTorch 2.9) gives them:
	// "expandable_segments:True" changes the fragmentation margin (ExpandableSegments).
	PyTorchAllocConf string `yaml:"pytorch_alloc_conf,omitempty" json:"pytorch_alloc_conf,omitempty"`
}

// AllocConfProblem says what in PyTorch allocator settings PyTorch refuses, or "": it stops at
// its first CUDA allocation on an expandable_segments value other than True or False.
func AllocConfProblem(conf string) string {
	for _, v := range expandableValues(conf) {
		if v != "True" && v != "False" {
			return fmt.Sprintf("expandable_segments must be True or False, as PyTorch requires; got %q", v)
		}
	}
	return ""
}

// ExpandableSegments reports whether the allocator settings turn on expandable segments: the
// last expandable_segments value is True.
func (r *Runtime) ExpandableSegments() bool {
	if r == nil {
		return false
	}
	v := expandableValues(r.PyTorchAllocConf)
	return len(v) > 0 && v[len(v)-1] == "True"
}

// expandableValues are the values PyTorch allocator settings give expandable_segments, in
// order. PyTorch reads comma-separated option:value pairs and drops spaces (c10
// AllocatorConfig::parseArgs).
func expandableValues(conf string) []string {
	var out []string
	for _, opt := range strings.Split(conf, ",") {
		if name, value, _ := strings.Cut(opt, ":"); strings.TrimSpace(name) == "expandable_segments" {
			out = append(out, strings.TrimSpace(value))
		}
	}
	return out
}

// Measured is what `gpuguard profile capture` recorded with NVML.
type Measured struct {
	GPUName          string    `yaml:"gpu_name" json:"gpu_name"`
	GPUCount         int       `yaml:"gpu_count" json:"gpu_count"`
	MemoryTotalMiB   int64     `yaml:"memory_total_mib" json:"memory_total_mib"`
	PeakMemoryMiB    int64     `yaml:"peak_memory_used_mib" json:"peak_memory_used_mib"`
	GPUUtilization   *Stats    `yaml:"gpu_utilization,omitempty" json:"gpu_utilization,omitempty"`
	PowerWatts       *Power    `yaml:"power_watts,omitempty" json:"power_watts,omitempty"`
	DurationSeconds  float64   `yaml:"duration_seconds" json:"duration_seconds"`
	Samples          int       `yaml:"samples" json:"samples"`
	CapturedAt       string    `yaml:"captured_at" json:"captured_at"`
	PerGPU           []GPUPeak `yaml:"per_gpu,omitempty" json:"per_gpu,omitempty"`
	Notes            []string  `yaml:"notes,omitempty" json:"notes,omitempty"`
	CommandExitCode  *int      `yaml:"command_exit_code,omitempty" json:"command_exit_code,omitempty"`
	ProcessMemoryMiB *int64    `yaml:"process_peak_memory_mib,omitempty" json:"process_peak_memory_mib,omitempty"`
}

// Stats are percent utilization figures (nil on MIG devices, where NVML has none).
type Stats struct {
	Mean float64 `yaml:"mean" json:"mean"`
	P50  float64 `yaml:"p50" json:"p50"`
	P95  float64 `yaml:"p95" json:"p95"`
}

// Power is board power in watts.
type Power struct {
	Mean float64 `yaml:"mean" json:"mean"`
	Max  float64 `yaml:"max" json:"max"`
}

// GPUPeak is one GPU's peak in a capture.
type GPUPeak struct {
	Index         int    `yaml:"index" json:"index"`
	UUID          string `yaml:"uuid,omitempty" json:"uuid,omitempty"`
	Name          string `yaml:"name" json:"name"`
	PeakMemoryMiB int64  `yaml:"peak_memory_used_mib" json:"peak_memory_used_mib"`
	MIG           bool   `yaml:"mig,omitempty" json:"mig,omitempty"`
}

// Error is a profile problem with its place.
type Error struct {
	File string
	Line int
	Msg  string
	// Err is why the file could not be opened (fs.ErrNotExist when there is none), else nil.
	Err error
}

// Unwrap lets errors.Is tell a missing file from a bad one.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// MaxFileSize bounds a profile file.
const MaxFileSize = 1 << 20

// Load reads and validates a profile file.
func Load(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read profile: %v", err), Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read profile: %v", err)}
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("profile is over %d bytes", MaxFileSize)}
	}
	p, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	p.Path = path
	return p, nil
}

// Parse decodes profile YAML strictly (an unknown field is an error), fills the model from its
// preset and validates what the workload type needs. Errors carry the file and line.
func Parse(data []byte, name string) (*Profile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		e := yamlErr(name, err)
		var note string
		e.Line, note = yamlpos.Relocate(data, e.Line, 0)
		e.Msg += note
		return nil, e
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Profile
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Msg: "empty profile"}
		}
		return nil, yamlErr(name, err)
	}
	lines := yamlpos.Index(&root)
	if err := p.applyPreset(); err != nil {
		return nil, &Error{File: name, Line: lines.At("model.preset"), Msg: err.Error()}
	}
	if err := p.validate(); err != nil {
		var ve *validationError
		if errors.As(err, &ve) {
			return nil, &Error{File: name, Line: lines.At(ve.path), Msg: ve.msg}
		}
		return nil, &Error{File: name, Msg: err.Error()}
	}
	return &p, nil
}

func yamlErr(name string, err error) *Error {
	line, msg := yamlpos.Split(err)
	msg = strings.ReplaceAll(msg, " in type profiles.", " in ")
	if strings.HasPrefix(msg, "field ") && strings.Contains(msg, " not found") {
		msg = "unknown field " + strings.TrimPrefix(msg, "field ")
		msg = msg[:strings.Index(msg, " not found")] + " (see the WorkloadProfile schema in README.md)"
	}
	return &Error{File: name, Line: line, Msg: msg}
}
