package profiles

import (
	"fmt"
	"sort"
	"strings"
)

// Preset is a public model configuration. Parameter counts are the models' published totals
// (the safetensors index or the model card); the architecture fields come from each model's
// config.json on the Hugging Face Hub, named in Source.
type Preset struct {
	Name string
	// Context is the longest sequence the checkpoint takes, in tokens: max_position_embeddings
	// (n_positions for GPT-2) in the same config.json. A serving engine given no limit of its
	// own (vLLM without --max-model-len) takes this one.
	Context int
	// Vision is the part of Model.Parameters that is an image encoder and its projector into
	// the language model (Gemma 3's SigLIP tower): weights a serving engine loads with the
	// rest, which no text token's KV cache or activations depend on.
	Vision int
	// Precision is how the published checkpoint stores its weights where that is not 16-bit
	// (DeepSeek V3's linear layers in FP8, config.json's quantization_config): a serving engine
	// loads them so whatever --dtype says, and a profile naming the preset without a precision
	// takes it.
	Precision string
	// ServedOnly, when set, is why the preset holds only for a serving engine (vLLM, SGLang, a
	// profile with gpu_memory_utilization): a profile that trains the model or runs it as
	// Transformers writes it is refused with this reason instead of estimated low.
	ServedOnly string
	// QuantizedExperts says the model's quantized checkpoints are counted as quantizing the
	// routed experts only, the rest kept in 16 bits, as Meta's FP8 Llama 4 Maverick does:
	// where a publisher quantized more, the estimate errs high.
	QuantizedExperts bool
	// MTPLayers is how many multi-token prediction layers the checkpoint holds beside
	// Model.Layers (config.json's num_nextn_predict_layers), which Model.Parameters leaves out:
	// vLLM and SGLang load them only as the draft of MTP speculative decoding
	// (Inference.MTPLayers).
	MTPLayers int
	Model     Model
}

// deepseekSparseAttention is why the DeepSeek V3.2 preset holds for serving engines only.
const deepseekSparseAttention = "DeepSeek V3.2's sparse attention is estimated as vLLM serves it (its indexer's projections whole on every GPU, its keys cached in FP8); training it, or running it as Transformers writes it, is not modelled"

// llama4Experts is why the Llama 4 presets hold for serving engines only.
const llama4Experts = "Transformers' Llama 4 (Llama4TextMoe) runs every routed expert over every token, which the estimate does not count; it holds for a serving engine (vLLM, SGLang, or a profile with gpu_memory_utilization), whose fused MoE kernels run each token through its own experts only"

func hf(repo string) string {
	return "https://huggingface.co/" + repo + "/blob/main/config.json"
}

// presets are the embedded model configurations.
var presets = []Preset{
	{Name: "llama-2-7b", Context: 4096, Model: Model{Parameters: 6738415616, Layers: 32, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 32, VocabSize: 32000, IntermediateSize: 11008, MLP: "swiglu", Source: hf("meta-llama/Llama-2-7b-hf")}},
	{Name: "llama-2-13b", Context: 4096, Model: Model{Parameters: 13015864320, Layers: 40, HiddenSize: 5120, AttentionHeads: 40, KVHeads: 40, VocabSize: 32000, IntermediateSize: 13824, MLP: "swiglu", Source: hf("meta-llama/Llama-2-13b-hf")}},
	{Name: "llama-2-70b", Context: 4096, Model: Model{Parameters: 68976648192, Layers: 80, HiddenSize: 8192, AttentionHeads: 64, KVHeads: 8, VocabSize: 32000, IntermediateSize: 28672, MLP: "swiglu", Source: hf("meta-llama/Llama-2-70b-hf")}},
	{Name: "llama-3-8b", Context: 8192, Model: Model{Parameters: 8030261248, Layers: 32, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 8, VocabSize: 128256, IntermediateSize: 14336, MLP: "swiglu", Source: hf("meta-llama/Meta-Llama-3-8B")}},
	{Name: "llama-3-70b", Context: 8192, Model: Model{Parameters: 70553706496, Layers: 80, HiddenSize: 8192, AttentionHeads: 64, KVHeads: 8, VocabSize: 128256, IntermediateSize: 28672, MLP: "swiglu", Source: hf("meta-llama/Meta-Llama-3-70B")}},
	{Name: "llama-3.1-8b", Context: 131072, Model: Model{Parameters: 8030261248, Layers: 32, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 8, VocabSize: 128256, IntermediateSize: 14336, MLP: "swiglu", Source: hf("meta-llama/Llama-3.1-8B")}},
	{Name: "llama-3.1-70b", Context: 131072, Model: Model{Parameters: 70553706496, Layers: 80, HiddenSize: 8192, AttentionHeads: 64, KVHeads: 8, VocabSize: 128256, IntermediateSize: 28672, MLP: "swiglu", Source: hf("meta-llama/Llama-3.1-70B")}},
	{Name: "llama-3.1-405b", Context: 131072, Model: Model{Parameters: 405853388800, Layers: 126, HiddenSize: 16384, AttentionHeads: 128, KVHeads: 8, VocabSize: 128256, IntermediateSize: 53248, MLP: "swiglu", Source: hf("meta-llama/Llama-3.1-405B")}},
	{Name: "llama-3.2-1b", Context: 131072, Model: Model{Parameters: 1235814400, Layers: 16, HiddenSize: 2048, AttentionHeads: 32, KVHeads: 8, HeadDim: 64, VocabSize: 128256, IntermediateSize: 8192, MLP: "swiglu", TiedEmbeddings: true, Source: hf("meta-llama/Llama-3.2-1B")}},
	{Name: "llama-3.2-3b", Context: 131072, Model: Model{Parameters: 3212749824, Layers: 28, HiddenSize: 3072, AttentionHeads: 24, KVHeads: 8, VocabSize: 128256, IntermediateSize: 8192, MLP: "swiglu", TiedEmbeddings: true, Source: hf("meta-llama/Llama-3.2-3B")}},
	// Mistral 7B v0.1 attends to a 4,096-token window in every layer; v0.2 dropped the window,
	// and v0.3 added 768 tokens to the vocabulary.
	{Name: "mistral-7b", Context: 32768, Model: Model{Parameters: 7241732096, Layers: 32, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 8, VocabSize: 32000, IntermediateSize: 14336, MLP: "swiglu", SlidingWindow: 4096, Source: hf("mistralai/Mistral-7B-v0.1")}},
	{Name: "mistral-7b-v0.2", Context: 32768, Model: Model{Parameters: 7241732096, Layers: 32, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 8, VocabSize: 32000, IntermediateSize: 14336, MLP: "swiglu", Source: hf("mistralai/Mistral-7B-Instruct-v0.2")}},
	{Name: "mistral-7b-v0.3", Context: 32768, Model: Model{Parameters: 7248023552, Layers: 32, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 8, VocabSize: 32768, IntermediateSize: 14336, MLP: "swiglu", Source: hf("mistralai/Mistral-7B-v0.3")}},
	{Name: "mixtral-8x7b", Context: 32768, Model: Model{Parameters: 46702792704, Layers: 32, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 8, VocabSize: 32000, IntermediateSize: 14336, MLP: "swiglu", Experts: 8, ExpertsPerToken: 2, Source: hf("mistralai/Mixtral-8x7B-v0.1")}},
	// Mixtral 8x22B: the Instruct model's config.json (vocabulary 32,768), a 65,536-token context.
	{Name: "mixtral-8x22b", Context: 65536, Model: Model{Parameters: 140630071296, Layers: 56, HiddenSize: 6144, AttentionHeads: 48, KVHeads: 8, VocabSize: 32768, IntermediateSize: 16384, MLP: "swiglu", Experts: 8, ExpertsPerToken: 2, Source: hf("mistralai/Mixtral-8x22B-Instruct-v0.1")}},
	// Mistral NeMo's config.json takes 1,024,000 tokens: a server given no --max-model-len sizes
	// its KV cache for that.
	{Name: "mistral-nemo-12b", Context: 1024000, Model: Model{Parameters: 12247782400, Layers: 40, HiddenSize: 5120, AttentionHeads: 32, KVHeads: 8, HeadDim: 128, VocabSize: 131072, IntermediateSize: 14336, MLP: "swiglu", Source: hf("mistralai/Mistral-Nemo-Instruct-2407")}},
	{Name: "mistral-small-24b", Context: 32768, Model: Model{Parameters: 23572403200, Layers: 40, HiddenSize: 5120, AttentionHeads: 32, KVHeads: 8, HeadDim: 128, VocabSize: 131072, IntermediateSize: 32768, MLP: "swiglu", Source: hf("mistralai/Mistral-Small-24B-Base-2501")}},
	{Name: "phi-4", Context: 16384, Model: Model{Parameters: 14659507200, Layers: 40, HiddenSize: 5120, AttentionHeads: 40, KVHeads: 10, VocabSize: 100352, IntermediateSize: 17920, MLP: "swiglu", FusedProjections: true, Source: hf("microsoft/phi-4")}},
	// Qwen 2.5's small models tie their embeddings.
	{Name: "qwen2.5-0.5b", Context: 32768, Model: Model{Parameters: 494032768, Layers: 24, HiddenSize: 896, AttentionHeads: 14, KVHeads: 2, VocabSize: 151936, IntermediateSize: 4864, MLP: "swiglu", TiedEmbeddings: true, Source: hf("Qwen/Qwen2.5-0.5B")}},
	{Name: "qwen2.5-1.5b", Context: 32768, Model: Model{Parameters: 1543714304, Layers: 28, HiddenSize: 1536, AttentionHeads: 12, KVHeads: 2, VocabSize: 151936, IntermediateSize: 8960, MLP: "swiglu", TiedEmbeddings: true, Source: hf("Qwen/Qwen2.5-1.5B")}},
	{Name: "qwen2.5-3b", Context: 32768, Model: Model{Parameters: 3085938688, Layers: 36, HiddenSize: 2048, AttentionHeads: 16, KVHeads: 2, VocabSize: 151936, IntermediateSize: 11008, MLP: "swiglu", TiedEmbeddings: true, Source: hf("Qwen/Qwen2.5-3B")}},
	// DeepSeek's 1.5B R1 distillation is Qwen2.5-Math-1.5B: Qwen 2.5 1.5B's shape with untied
	// embeddings and a 131,072-token context.
	{Name: "deepseek-r1-distill-qwen-1.5b", Context: 131072, Model: Model{Parameters: 1777088000, Layers: 28, HiddenSize: 1536, AttentionHeads: 12, KVHeads: 2, VocabSize: 151936, IntermediateSize: 8960, MLP: "swiglu", Source: hf("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B")}},
	{Name: "qwen2.5-7b", Context: 131072, Model: Model{Parameters: 7615616512, Layers: 28, HiddenSize: 3584, AttentionHeads: 28, KVHeads: 4, VocabSize: 152064, IntermediateSize: 18944, MLP: "swiglu", Source: hf("Qwen/Qwen2.5-7B")}},
	{Name: "qwen2.5-14b", Context: 131072, Model: Model{Parameters: 14770033664, Layers: 48, HiddenSize: 5120, AttentionHeads: 40, KVHeads: 8, VocabSize: 152064, IntermediateSize: 13824, MLP: "swiglu", Source: hf("Qwen/Qwen2.5-14B")}},
	{Name: "qwen2.5-32b", Context: 131072, Model: Model{Parameters: 32763876352, Layers: 64, HiddenSize: 5120, AttentionHeads: 40, KVHeads: 8, VocabSize: 152064, IntermediateSize: 27648, MLP: "swiglu", Source: hf("Qwen/Qwen2.5-32B")}},
	{Name: "qwen2.5-72b", Context: 131072, Model: Model{Parameters: 72706203648, Layers: 80, HiddenSize: 8192, AttentionHeads: 64, KVHeads: 8, VocabSize: 152064, IntermediateSize: 29568, MLP: "swiglu", Source: hf("Qwen/Qwen2.5-72B")}},
	{Name: "qwen3-0.6b", Context: 40960, Model: Model{Parameters: 596049920, Layers: 28, HiddenSize: 1024, AttentionHeads: 16, KVHeads: 8, HeadDim: 128, VocabSize: 151936, IntermediateSize: 3072, MLP: "swiglu", QKNorm: true, TiedEmbeddings: true, Source: hf("Qwen/Qwen3-0.6B")}},
	{Name: "qwen3-1.7b", Context: 40960, Model: Model{Parameters: 1720574976, Layers: 28, HiddenSize: 2048, AttentionHeads: 16, KVHeads: 8, HeadDim: 128, VocabSize: 151936, IntermediateSize: 6144, MLP: "swiglu", QKNorm: true, TiedEmbeddings: true, Source: hf("Qwen/Qwen3-1.7B")}},
	{Name: "qwen3-4b", Context: 40960, Model: Model{Parameters: 4022468096, Layers: 36, HiddenSize: 2560, AttentionHeads: 32, KVHeads: 8, HeadDim: 128, VocabSize: 151936, IntermediateSize: 9728, MLP: "swiglu", QKNorm: true, TiedEmbeddings: true, Source: hf("Qwen/Qwen3-4B")}},
	{Name: "qwen3-8b", Context: 40960, Model: Model{Parameters: 8190735360, Layers: 36, HiddenSize: 4096, AttentionHeads: 32, KVHeads: 8, HeadDim: 128, VocabSize: 151936, IntermediateSize: 12288, MLP: "swiglu", QKNorm: true, Source: hf("Qwen/Qwen3-8B")}},
	{Name: "qwen3-14b", Context: 40960, Model: Model{Parameters: 14768307200, Layers: 40, HiddenSize: 5120, AttentionHeads: 40, KVHeads: 8, HeadDim: 128, VocabSize: 151936, IntermediateSize: 17408, MLP: "swiglu", QKNorm: true, Source: hf("Qwen/Qwen3-14B")}},
	{Name: "qwen3-32b", Context: 40960, Model: Model{Parameters: 32762123264, Layers: 64, HiddenSize: 5120, AttentionHeads: 64, KVHeads: 8, HeadDim: 128, VocabSize: 151936, IntermediateSize: 25600, MLP: "swiglu", QKNorm: true, Source: hf("Qwen/Qwen3-32B")}},
	// Qwen 3's mixtures of experts: every layer's MLP is 128 experts of width 768 (1,536 for
	// 235B), 8 per token. The counts follow from the configuration and are the model cards'
	// 30.5B and 235B.
	{Name: "qwen3-30b-a3b", Context: 40960, Model: Model{Parameters: 30532122624, Layers: 48, HiddenSize: 2048, AttentionHeads: 32, KVHeads: 4, HeadDim: 128, VocabSize: 151936, IntermediateSize: 768, MLP: "swiglu", QKNorm: true, Experts: 128, ExpertsPerToken: 8, Source: hf("Qwen/Qwen3-30B-A3B")}},
	{Name: "qwen3-235b-a22b", Context: 40960, Model: Model{Parameters: 235093634560, Layers: 94, HiddenSize: 4096, AttentionHeads: 64, KVHeads: 4, HeadDim: 128, VocabSize: 151936, IntermediateSize: 1536, MLP: "swiglu", QKNorm: true, Experts: 128, ExpertsPerToken: 8, Source: hf("Qwen/Qwen3-235B-A22B")}},
	// Qwen3-Coder-480B-A35B: 160 experts of width 2,560, 8 per token, a 262,144-token context
	// (480.15B parameters, the model card's 480B).
	{Name: "qwen3-coder-480b-a35b", Context: 262144, Model: Model{Parameters: 480154875392, Layers: 62, HiddenSize: 6144, AttentionHeads: 96, KVHeads: 8, HeadDim: 128, VocabSize: 151936, IntermediateSize: 2560, MLP: "swiglu", QKNorm: true, Experts: 160, ExpertsPerToken: 8, Source: hf("Qwen/Qwen3-Coder-480B-A35B-Instruct")}},
	// Gemma 2 alternates a 4,096-token window (the even layers) with full attention.
	{Name: "gemma-2-9b", Context: 8192, Model: Model{Parameters: 9241705984, Layers: 42, HiddenSize: 3584, AttentionHeads: 16, KVHeads: 8, HeadDim: 256, VocabSize: 256000, IntermediateSize: 14336, MLP: "swiglu", SandwichNorms: true, TiedEmbeddings: true, SlidingWindow: 4096, SlidingWindowLayers: 21, Source: hf("google/gemma-2-9b")}},
	{Name: "gemma-2-27b", Context: 8192, Model: Model{Parameters: 27227128320, Layers: 46, HiddenSize: 4608, AttentionHeads: 32, KVHeads: 16, HeadDim: 128, VocabSize: 256000, IntermediateSize: 36864, MLP: "swiglu", SandwichNorms: true, TiedEmbeddings: true, SlidingWindow: 4096, SlidingWindowLayers: 23, Source: hf("google/gemma-2-27b")}},
	// Gemma 3 keeps five windowed layers to every full one (sliding_window_pattern 6): a 512-token
	// window in 1B, 1,024 in the others. 4B, 12B and 27B read images: their SigLIP encoder
	// (27 layers of width 1152 over 896-pixel images in 14-pixel patches) and its projection
	// into the text model are Vision.
	{Name: "gemma-3-1b", Context: 32768, Model: Model{Parameters: 999885952, Layers: 26, HiddenSize: 1152, AttentionHeads: 4, KVHeads: 1, HeadDim: 256, VocabSize: 262144, IntermediateSize: 6912, MLP: "swiglu", SandwichNorms: true, QKNorm: true, TiedEmbeddings: true, SlidingWindow: 512, SlidingWindowLayers: 22, Source: hf("google/gemma-3-1b-pt")}},
	{Name: "gemma-3-4b", Context: 131072, Vision: 419816304, Model: Model{Parameters: 4300079472, Layers: 34, HiddenSize: 2560, AttentionHeads: 8, KVHeads: 4, HeadDim: 256, VocabSize: 262208, IntermediateSize: 10240, MLP: "swiglu", SandwichNorms: true, QKNorm: true, TiedEmbeddings: true, SlidingWindow: 1024, SlidingWindowLayers: 29, Source: hf("google/gemma-3-4b-pt")}},
	{Name: "gemma-3-12b", Context: 131072, Vision: 421290864, Model: Model{Parameters: 12187325040, Layers: 48, HiddenSize: 3840, AttentionHeads: 16, KVHeads: 8, HeadDim: 256, VocabSize: 262208, IntermediateSize: 15360, MLP: "swiglu", SandwichNorms: true, QKNorm: true, TiedEmbeddings: true, SlidingWindow: 1024, SlidingWindowLayers: 40, Source: hf("google/gemma-3-12b-pt")}},
	{Name: "gemma-3-27b", Context: 131072, Vision: 423060336, Model: Model{Parameters: 27432406640, Layers: 62, HiddenSize: 5376, AttentionHeads: 32, KVHeads: 16, HeadDim: 128, VocabSize: 262208, IntermediateSize: 21504, MLP: "swiglu", SandwichNorms: true, QKNorm: true, TiedEmbeddings: true, SlidingWindow: 1024, SlidingWindowLayers: 52, Source: hf("google/gemma-3-27b-pt")}},
	// gpt-oss stores the experts' projections in MXFP4 and everything else in bf16, and
	// alternates a 128-token window with full attention (config.json's layer_types). The
	// parameter counts follow from the configuration (TestPresetParametersFollowFromTheirConfiguration)
	// and are the model card's 20.91B and 116.83B (arXiv:2508.10925, Table 1).
	{Name: "gpt-oss-20b", Context: 131072, Model: Model{Parameters: 20914757184, Layers: 24, HiddenSize: 2880, AttentionHeads: 64, KVHeads: 8, HeadDim: 64, VocabSize: 201088, IntermediateSize: 2880, MLP: "swiglu", Experts: 32, ExpertsPerToken: 4, ExpertPrecision: "mxfp4", SlidingWindow: 128, SlidingWindowLayers: 12, Source: hf("openai/gpt-oss-20b")}},
	{Name: "gpt-oss-120b", Context: 131072, Model: Model{Parameters: 116829156672, Layers: 36, HiddenSize: 2880, AttentionHeads: 64, KVHeads: 8, HeadDim: 64, VocabSize: 201088, IntermediateSize: 2880, MLP: "swiglu", Experts: 128, ExpertsPerToken: 4, ExpertPrecision: "mxfp4", SlidingWindow: 128, SlidingWindowLayers: 18, Source: hf("openai/gpt-oss-120b")}},
	// DeepSeek V3 (and R1, trained from its base) is a mixture of 256 experts of width 2,048,
	// 8 routed and 1 shared per token, after three dense layers whose MLP (18,432) is as wide as
	// the nine; its attention is multi-head latent attention (arXiv:2412.19437, §2.1). The
	// parameters follow from the configuration (TestMLAPresetParametersFollowFromTheirConfiguration)
	// and leave out the multi-token prediction module (num_nextn_predict_layers), which vLLM
	// and SGLang load only for speculative decoding: the model card's 671B of its 685B. The
	// checkpoint stores the linear layers in FP8 with one fp32 scale per 128×128 block (0.02%
	// more, not counted).
	{Name: "deepseek-v3", Context: 163840, Precision: "fp8", MTPLayers: 1, Model: Model{Parameters: 671026419200, Layers: 61, HiddenSize: 7168, AttentionHeads: 128, KVHeads: 128, HeadDim: 128, VocabSize: 129280, IntermediateSize: 2048, MLP: "swiglu", Experts: 256, ExpertsPerToken: 8, SharedExperts: 1, DenseLayers: 3, KVLoRARank: 512, QKRopeHeadDim: 64, QLoRARank: 1536, Source: hf("deepseek-ai/DeepSeek-V3")}},
	// DeepSeek V3.2 (DeepseekV32ForCausalLM) is V3 with DeepSeek sparse attention: a lightning
	// indexer in every layer (64 heads of 128 over the query latent, one 128-wide key a token,
	// a LayerNorm on it and a projection to the heads' weights) picks the 2,048 past tokens
	// each query attends to (vLLM's Indexer in deepseek_v2.py). Those 851.5M parameters come on top of
	// V3's (TestMLAPresetParametersFollowFromTheirConfiguration): 671.88B, the Hub's 685B with
	// the MTP module. The serving estimate holds for vLLM's way of serving it only.
	{Name: "deepseek-v3.2", Context: 163840, Precision: "fp8", MTPLayers: 1, ServedOnly: deepseekSparseAttention, Model: Model{Parameters: 671877944064, Layers: 61, HiddenSize: 7168, AttentionHeads: 128, KVHeads: 128, HeadDim: 128, VocabSize: 129280, IntermediateSize: 2048, MLP: "swiglu", Experts: 256, ExpertsPerToken: 8, SharedExperts: 1, DenseLayers: 3, KVLoRARank: 512, QKRopeHeadDim: 64, QLoRARank: 1536, IndexHeads: 64, IndexHeadDim: 128, Source: hf("deepseek-ai/DeepSeek-V3.2-Exp")}},
	// Kimi K2 is DeepSeek V3's architecture with 384 experts, 64 heads and one dense layer, its
	// checkpoint in FP8 as V3's (1.026T parameters; the model card's 1T).
	{Name: "kimi-k2", Context: 131072, Precision: "fp8", Model: Model{Parameters: 1026408232448, Layers: 61, HiddenSize: 7168, AttentionHeads: 64, KVHeads: 64, HeadDim: 128, VocabSize: 163840, IntermediateSize: 2048, MLP: "swiglu", Experts: 384, ExpertsPerToken: 8, SharedExperts: 1, DenseLayers: 1, KVLoRARank: 512, QKRopeHeadDim: 64, QLoRARank: 1536, Source: hf("moonshotai/Kimi-K2-Instruct")}},
	// GLM-4.5 and GLM-4.5-Air (Glm4MoeForCausalLM) are mixtures of 160 experts of width 1,536
	// (128 of 1,408 for Air), 8 routed and 1 shared per token, after three dense layers (one for
	// Air) whose MLP of 12,288 (10,944) is narrower than the nine experts a token runs through;
	// grouped-query attention with biases on q, k and v, 96 heads over 8 KV heads of 128, with
	// per-head query and key norms in GLM-4.5 only (use_qk_norm). The parameters follow from the
	// configuration (TestPresetParametersFollowFromTheirConfiguration) and leave out the
	// multi-token prediction layer, which vLLM and SGLang load only for speculative decoding:
	// 352.80B and 106.85B, where the model cards say 355B and 106B and the Hub, counting that
	// layer, 358B and 110B.
	{Name: "glm-4.5", Context: 131072, MTPLayers: 1, Model: Model{Parameters: 352797829024, Layers: 92, HiddenSize: 5120, AttentionHeads: 96, KVHeads: 8, HeadDim: 128, VocabSize: 151552, IntermediateSize: 1536, MLP: "swiglu", QKNorm: true, Experts: 160, ExpertsPerToken: 8, SharedExperts: 1, DenseLayers: 3, Source: hf("zai-org/GLM-4.5")}},
	{Name: "glm-4.5-air", Context: 131072, MTPLayers: 1, Model: Model{Parameters: 106852251264, Layers: 46, HiddenSize: 4096, AttentionHeads: 96, KVHeads: 8, HeadDim: 128, VocabSize: 151552, IntermediateSize: 1408, MLP: "swiglu", Experts: 128, ExpertsPerToken: 8, SharedExperts: 1, DenseLayers: 1, Source: hf("zai-org/GLM-4.5-Air")}},
	// MiniMax-M2 (MiniMaxM2ForCausalLM): 62 layers of full grouped-query attention, 48 heads
	// over 8 KV heads of 128, with query and key norms over all the heads at once; 256 experts of
	// width 1,536, 8 per token, none shared; a 196,608-token context. Its checkpoint stores the
	// attention and expert projections in FP8 (128×128 blocks) and the routers in fp32, which
	// the estimate counts in 16 bits (0.1 GB less in all). The parameters follow from the
	// configuration: 228.69B, the model card's 230B and the Hub's 229B.
	{Name: "minimax-m2", Context: 196608, Precision: "fp8", Model: Model{Parameters: 228689764864, Layers: 62, HiddenSize: 3072, AttentionHeads: 48, KVHeads: 8, HeadDim: 128, VocabSize: 200064, IntermediateSize: 1536, MLP: "swiglu", QKNorm: true, Experts: 256, ExpertsPerToken: 8, Source: hf("MiniMaxAI/MiniMax-M2")}},
	// Llama 4 (the model cards and config.json's text_config): 48 layers of
	// grouped-query attention, a shared expert beside 16 (Scout) or 128 (Maverick) routed
	// experts of width 8,192, one routed per token. Maverick alternates them with dense layers
	// (interleave_moe_layer_step 2) whose MLP of 16,384 (intermediate_size_mlp) is as wide as
	// the two experts a token runs through; only their count matters to memory, so they are
	// DenseLayers. The image encoder (34 layers of width 1,408) and its projector are Vision.
	// Three layers in four attend within 8,192-token chunks (attention_chunk_size); vLLM keeps
	// their KV cache for the chunk only when its hybrid KV cache manager runs them, which
	// depends on its version and VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE, so the
	// cache is counted whole for every layer, erring high. The parameters follow from the
	// configuration (TestPresetParametersFollowFromTheirConfiguration, and
	// TestVisionParametersFollowFromTheEncodersConfiguration for the encoder): 108.64B and
	// 401.58B, the model cards' 109B and 400B.
	{Name: "llama-4-scout-17b-16e", Context: 10485760, Vision: 871932416, ServedOnly: llama4Experts, QuantizedExperts: true, Model: Model{Parameters: 108641793536, Layers: 48, HiddenSize: 5120, AttentionHeads: 40, KVHeads: 8, HeadDim: 128, VocabSize: 202048, IntermediateSize: 8192, MLP: "swiglu", Experts: 16, ExpertsPerToken: 1, SharedExperts: 1, Source: hf("meta-llama/Llama-4-Scout-17B-16E")}},
	{Name: "llama-4-maverick-17b-128e", Context: 1048576, Vision: 871932416, ServedOnly: llama4Experts, QuantizedExperts: true, Model: Model{Parameters: 401583781376, Layers: 48, HiddenSize: 5120, AttentionHeads: 40, KVHeads: 8, HeadDim: 128, VocabSize: 202048, IntermediateSize: 8192, MLP: "swiglu", Experts: 128, ExpertsPerToken: 1, SharedExperts: 1, DenseLayers: 24, Source: hf("meta-llama/Llama-4-Maverick-17B-128E")}},
	{Name: "bert-base", Context: 512, Model: Model{Parameters: 109482240, Layers: 12, HiddenSize: 768, AttentionHeads: 12, KVHeads: 12, VocabSize: 30522, IntermediateSize: 3072, MLP: "gelu", TiedEmbeddings: true, Source: hf("google-bert/bert-base-uncased")}},
	{Name: "bert-large", Context: 512, Model: Model{Parameters: 335141888, Layers: 24, HiddenSize: 1024, AttentionHeads: 16, KVHeads: 16, VocabSize: 30522, IntermediateSize: 4096, MLP: "gelu", TiedEmbeddings: true, Source: hf("google-bert/bert-large-uncased")}},
	{Name: "gpt2", Context: 1024, Model: Model{Parameters: 124439808, Layers: 12, HiddenSize: 768, AttentionHeads: 12, KVHeads: 12, VocabSize: 50257, IntermediateSize: 3072, MLP: "gelu_new", TiedEmbeddings: true, FusedProjections: true, Source: hf("openai-community/gpt2")}},
	{Name: "gpt2-xl", Context: 1024, Model: Model{Parameters: 1557611200, Layers: 48, HiddenSize: 1600, AttentionHeads: 25, KVHeads: 25, VocabSize: 50257, IntermediateSize: 6400, MLP: "gelu_new", TiedEmbeddings: true, FusedProjections: true, Source: hf("openai-community/gpt2-xl")}},
}

// presetAliases maps Hub names and common spellings to preset names.
var presetAliases = map[string]string{
	"meta-llama/llama-2-7b-hf": "llama-2-7b", "llama2-7b": "llama-2-7b",
	"meta-llama/llama-2-13b-hf": "llama-2-13b", "llama2-13b": "llama-2-13b",
	"meta-llama/llama-2-70b-hf": "llama-2-70b", "llama2-70b": "llama-2-70b",
	"meta-llama/llama-3.1-8b": "llama-3.1-8b", "meta-llama/meta-llama-3.1-8b": "llama-3.1-8b", "llama3.1-8b": "llama-3.1-8b",
	"meta-llama/meta-llama-3-8b": "llama-3-8b", "llama3-8b": "llama-3-8b",
	"meta-llama/meta-llama-3-70b": "llama-3-70b", "llama3-70b": "llama-3-70b",
	"meta-llama/llama-3.2-1b": "llama-3.2-1b", "meta-llama/llama-3.2-3b": "llama-3.2-3b",
	// Llama 3.3 70B and DeepSeek's R1 distillations keep their base model's architecture and
	// context.
	"llama-3.3-70b": "llama-3.1-70b", "deepseek-r1-distill-llama-70b": "llama-3.1-70b", "deepseek-r1-distill-llama-8b": "llama-3.1-8b",
	"deepseek-r1-distill-qwen-7b": "qwen2.5-7b", "deepseek-r1-distill-qwen-14b": "qwen2.5-14b", "deepseek-r1-distill-qwen-32b": "qwen2.5-32b",
	"meta-llama/llama-3.1-70b": "llama-3.1-70b", "meta-llama/meta-llama-3.1-70b": "llama-3.1-70b", "llama3.1-70b": "llama-3.1-70b",
	"mistralai/mistral-7b-v0.1": "mistral-7b", "mistral-7b-v0.1": "mistral-7b",
	"mistral-7b-instruct-v0.1":           "mistral-7b",
	"mistralai/mistral-7b-instruct-v0.2": "mistral-7b-v0.2", "mistral-7b-instruct-v0.2": "mistral-7b-v0.2",
	"mistralai/mistral-7b-v0.3": "mistral-7b-v0.3", "mistralai/mistral-7b-instruct-v0.3": "mistral-7b-v0.3", "mistral-7b-instruct-v0.3": "mistral-7b-v0.3",
	"mistralai/mixtral-8x7b-v0.1": "mixtral-8x7b", "mixtral-8x7b-instruct-v0.1": "mixtral-8x7b",
	"mistralai/mixtral-8x22b-v0.1": "mixtral-8x22b", "mistralai/mixtral-8x22b-instruct-v0.1": "mixtral-8x22b", "mixtral-8x22b-instruct-v0.1": "mixtral-8x22b",
	"qwen/qwen2.5-7b": "qwen2.5-7b", "qwen/qwen2.5-72b": "qwen2.5-72b", "qwen/qwen2.5-14b": "qwen2.5-14b", "qwen/qwen2.5-32b": "qwen2.5-32b",
	"qwen/qwen3-8b": "qwen3-8b", "qwen/qwen3-14b": "qwen3-14b", "qwen/qwen3-32b": "qwen3-32b",
	"qwen/qwen3-30b-a3b": "qwen3-30b-a3b", "qwen/qwen3-235b-a22b": "qwen3-235b-a22b",
	// Qwen's July 2025 updates keep the architecture and take a longer context (servedContext).
	"qwen3-30b-a3b-instruct-2507": "qwen3-30b-a3b", "qwen3-30b-a3b-thinking-2507": "qwen3-30b-a3b",
	"qwen3-235b-a22b-instruct-2507": "qwen3-235b-a22b", "qwen3-235b-a22b-thinking-2507": "qwen3-235b-a22b",
	// Qwen3-Coder 30B-A3B is Qwen3-30B-A3B's architecture at 262,144 tokens (its BF16
	// checkpoint is 61.07 GB, 2 bytes for each of 30.53B parameters).
	"qwen3-coder-30b-a3b-instruct": "qwen3-30b-a3b", "qwen/qwen3-coder-30b-a3b-instruct": "qwen3-30b-a3b",
	"qwen/qwen3-coder-480b-a35b-instruct": "qwen3-coder-480b-a35b", "qwen3-coder-480b-a35b-instruct": "qwen3-coder-480b-a35b",
	"google/gemma-2-9b": "gemma-2-9b", "google/gemma-2-27b": "gemma-2-27b",
	"google/gemma-3-1b-pt": "gemma-3-1b", "google/gemma-3-1b-it": "gemma-3-1b",
	"google/gemma-3-4b-pt": "gemma-3-4b", "google/gemma-3-4b-it": "gemma-3-4b",
	"google/gemma-3-12b-pt": "gemma-3-12b", "google/gemma-3-12b-it": "gemma-3-12b",
	"google/gemma-3-27b-pt": "gemma-3-27b", "google/gemma-3-27b-it": "gemma-3-27b",
	"meta-llama/llama-3.1-405b": "llama-3.1-405b", "meta-llama/meta-llama-3.1-405b": "llama-3.1-405b", "llama3.1-405b": "llama-3.1-405b",
	"mistralai/mistral-nemo-instruct-2407": "mistral-nemo-12b", "mistral-nemo-instruct-2407": "mistral-nemo-12b", "mistral-nemo": "mistral-nemo-12b",
	"mistralai/mistral-small-24b-base-2501": "mistral-small-24b", "mistral-small-24b-base-2501": "mistral-small-24b",
	"mistralai/mistral-small-24b-instruct-2501": "mistral-small-24b", "mistral-small-24b-instruct-2501": "mistral-small-24b",
	"microsoft/phi-4":   "phi-4",
	"qwen/qwen2.5-0.5b": "qwen2.5-0.5b", "qwen/qwen2.5-1.5b": "qwen2.5-1.5b", "qwen/qwen2.5-3b": "qwen2.5-3b",
	"deepseek-ai/deepseek-r1-distill-qwen-1.5b": "deepseek-r1-distill-qwen-1.5b",
	"qwen/qwen3-0.6b": "qwen3-0.6b", "qwen/qwen3-1.7b": "qwen3-1.7b", "qwen/qwen3-4b": "qwen3-4b",
	"qwen3-4b-instruct-2507": "qwen3-4b", "qwen3-4b-thinking-2507": "qwen3-4b",
	"openai/gpt-oss-20b": "gpt-oss-20b", "openai/gpt-oss-120b": "gpt-oss-120b",
	// DeepSeek's March 2025 V3 update and R1 (both releases) keep V3's configuration.
	"deepseek-ai/deepseek-v3": "deepseek-v3", "deepseek-ai/deepseek-v3-base": "deepseek-v3", "deepseek-v3-base": "deepseek-v3",
	"deepseek-ai/deepseek-v3-0324": "deepseek-v3", "deepseek-v3-0324": "deepseek-v3",
	"deepseek-ai/deepseek-r1": "deepseek-v3", "deepseek-r1": "deepseek-v3",
	"deepseek-ai/deepseek-r1-0528": "deepseek-v3", "deepseek-r1-0528": "deepseek-v3",
	// DeepSeek V3.1 (base, hybrid thinking model, and its Terminus update) is post-trained from
	// the original V3 base checkpoint, so it keeps V3's configuration and FP8 linear layers; it
	// stores their scales as UE8M0 (powers of two), the same bytes (model card, 671B total,
	// 37B active). V3.2 adds a sparse-attention indexer and is not an alias.
	"deepseek-ai/deepseek-v3.1": "deepseek-v3", "deepseek-v3.1": "deepseek-v3",
	"deepseek-ai/deepseek-v3.1-base": "deepseek-v3", "deepseek-v3.1-base": "deepseek-v3",
	"deepseek-ai/deepseek-v3.1-terminus": "deepseek-v3", "deepseek-v3.1-terminus": "deepseek-v3",
	"deepseek-ai/deepseek-v3.2-exp": "deepseek-v3.2", "deepseek-v3.2-exp": "deepseek-v3.2",
	"deepseek-ai/deepseek-v3.2-exp-base": "deepseek-v3.2", "deepseek-v3.2-exp-base": "deepseek-v3.2",
	"deepseek-ai/deepseek-v3.2": "deepseek-v3.2", "deepseek-ai/deepseek-v3.2-speciale": "deepseek-v3.2", "deepseek-v3.2-speciale": "deepseek-v3.2",
	// Llama 4's base and instruct models share their configuration.
	"meta-llama/llama-4-scout-17b-16e": "llama-4-scout-17b-16e", "meta-llama/llama-4-scout-17b-16e-instruct": "llama-4-scout-17b-16e",
	"llama-4-scout-17b-16e-instruct": "llama-4-scout-17b-16e", "llama-4-scout": "llama-4-scout-17b-16e",
	"meta-llama/llama-4-maverick-17b-128e": "llama-4-maverick-17b-128e", "meta-llama/llama-4-maverick-17b-128e-instruct": "llama-4-maverick-17b-128e",
	"llama-4-maverick-17b-128e-instruct": "llama-4-maverick-17b-128e", "llama-4-maverick": "llama-4-maverick-17b-128e",
	// Kimi K2's base and instruct models; the September update (0905) takes 262,144 tokens
	// (fineTuneContexts). K2 Thinking ships INT4 weights and is not an alias.
	"moonshotai/kimi-k2-instruct": "kimi-k2", "moonshotai/kimi-k2-base": "kimi-k2",
	"moonshotai/kimi-k2-instruct-0905": "kimi-k2", "kimi-k2-instruct": "kimi-k2", "kimi-k2-instruct-0905": "kimi-k2", "kimi-k2-base": "kimi-k2",
	// GLM-4.6 and GLM-4.7 keep GLM-4.5's architecture at 202,752 tokens (fineTuneContexts).
	"zai-org/glm-4.5": "glm-4.5", "zai-org/glm-4.5-base": "glm-4.5", "glm-4.5-base": "glm-4.5",
	"zai-org/glm-4.5-air": "glm-4.5-air", "zai-org/glm-4.5-air-base": "glm-4.5-air", "glm-4.5-air-base": "glm-4.5-air",
	"zai-org/glm-4.6": "glm-4.5", "glm-4.6": "glm-4.5", "zai-org/glm-4.7": "glm-4.5", "glm-4.7": "glm-4.5",
	// MiniMax-M2.1 keeps M2's architecture and context.
	"minimaxai/minimax-m2": "minimax-m2", "minimaxai/minimax-m2.1": "minimax-m2", "minimax-m2.1": "minimax-m2",
	"bert-base-uncased": "bert-base", "google-bert/bert-base-uncased": "bert-base",
	"bert-large-uncased": "bert-large", "google-bert/bert-large-uncased": "bert-large",
	"openai-community/gpt2": "gpt2", "gpt-2": "gpt2", "openai-community/gpt2-xl": "gpt2-xl",
}

// LookupPreset finds a preset by name or alias (case-insensitive).
func LookupPreset(name string) (Preset, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := presetAliases[n]; ok {
		n = a
	}
	for _, p := range presets {
		if p.Name == n {
			return p, true
		}
	}
	return Preset{}, false
}

// Presets lists the embedded presets by name.
func Presets() []Preset {
	out := append([]Preset(nil), presets...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// applyPreset fills the model fields the profile leaves empty from its preset.
func (p *Profile) applyPreset() error {
	if p.Model.Preset == "" {
		return nil
	}
	pr, ok := LookupPreset(p.Model.Preset)
	if !ok {
		names := make([]string, 0, len(presets))
		for _, x := range Presets() {
			names = append(names, x.Name)
		}
		return fmt.Errorf("unknown model.preset %q (known: %s)", p.Model.Preset, strings.Join(names, ", "))
	}
	if pr.ServedOnly != "" && (p.Inference == nil || !p.Inference.Engine()) {
		return fmt.Errorf("model.preset %s: %s", pr.Name, pr.ServedOnly)
	}
	m, src := &p.Model, pr.Model
	if m.Parameters == 0 {
		m.Parameters = src.Parameters
	}
	setInt := func(dst *int, v int) {
		if *dst == 0 {
			*dst = v
		}
	}
	setInt(&m.Layers, src.Layers)
	setInt(&m.HiddenSize, src.HiddenSize)
	setInt(&m.AttentionHeads, src.AttentionHeads)
	setInt(&m.KVHeads, src.KVHeads)
	setInt(&m.HeadDim, src.HeadDim)
	setInt(&m.VocabSize, src.VocabSize)
	setInt(&m.IntermediateSize, src.IntermediateSize)
	setInt(&m.Experts, src.Experts)
	setInt(&m.ExpertsPerToken, src.ExpertsPerToken)
	setInt(&m.SharedExperts, src.SharedExperts)
	setInt(&m.DenseLayers, src.DenseLayers)
	setInt(&m.KVLoRARank, src.KVLoRARank)
	setInt(&m.QKRopeHeadDim, src.QKRopeHeadDim)
	setInt(&m.QLoRARank, src.QLoRARank)
	setInt(&m.IndexHeads, src.IndexHeads)
	setInt(&m.IndexHeadDim, src.IndexHeadDim)
	setInt(&m.SlidingWindow, src.SlidingWindow)
	setInt(&m.SlidingWindowLayers, src.SlidingWindowLayers)
	if m.ExpertPrecision == "" {
		m.ExpertPrecision = src.ExpertPrecision
	}
	if m.Precision == "" {
		m.Precision = pr.Precision
	}
	if m.MLP == "" {
		m.MLP = src.MLP
	}
	if !m.QKNorm {
		m.QKNorm = src.QKNorm
	}
	if !m.FusedProjections {
		m.FusedProjections = src.FusedProjections
	}
	if !m.SandwichNorms {
		m.SandwichNorms = src.SandwichNorms
	}
	if !m.TiedEmbeddings {
		m.TiedEmbeddings = src.TiedEmbeddings
	}
	if m.Source == "" {
		m.Source = src.Source
	}
	return nil
}
