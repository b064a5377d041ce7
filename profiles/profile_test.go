package profiles

import (
	"os"
	"strings"
	"testing"
)

const header = "apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata: {name: t}\n"

func TestParseValidAndPresetFill(t *testing.T) {
	p, err := Parse([]byte(header+`workload: {type: training, interruptible: true}
model:
  preset: meta-llama/Llama-2-7b-hf
  precision: BF16
training:
  method: lora
  micro_batch_size: 2
  sequence_length: 2048
  activation_checkpointing: selective
  fsdp: full_shard
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, tr := p.Model, p.Training
	if m.Parameters != 6738415616 || m.Layers != 32 || m.KVHeads != 32 || m.MLP != "swiglu" || m.Precision != "bf16" || !strings.Contains(m.Source, "Llama-2-7b-hf") {
		t.Fatalf("model = %+v", m)
	}
	if tr.ZeroStage != 3 || tr.Optimizer != "adamw" || tr.LoRARank != 16 || tr.DataParallel != 1 || tr.ActivationCheckpointing != CheckpointSelective {
		t.Fatalf("training = %+v", tr)
	}
}

func TestParseErrorsHaveLines(t *testing.T) {
	cases := map[string]struct {
		body string
		line int
		msg  string
	}{
		"unknown field":                    {"workload: {type: training}\nmodel:\n  preset: gpt2\n  paramters: 1\n", 7, "unknown field paramters"},
		"wrong type":                       {"workload: {type: inference}\nmodel: {preset: gpt2}\ninference:\n  batch_size: lots\n", 7, "cannot unmarshal"},
		"missing for mode":                 {"workload: {type: training}\nmodel: {preset: gpt2}\ntraining:\n  sequence_length: 1024\n", 6, "micro_batch_size is required"},
		"bad enum":                         {"workload: {type: training}\nmodel: {preset: gpt2}\ntraining:\n  optimizer: lion\n  micro_batch_size: 1\n  sequence_length: 8\n", 7, "training.optimizer must be"},
		"bad preset":                       {"workload: {type: inference}\nmodel:\n  preset: llama-9-900b\n", 6, "unknown model.preset"},
		"no model":                         {"workload: {type: inference}\ninference: {batch_size: 1, max_sequence_length: 8}\n", 0, "model.parameters"},
		"bad workload":                     {"workload: {type: gaming}\nmodel: {preset: gpt2}\n", 4, "workload.type must be"},
		"lora slots without a rank":        {"workload: {type: inference}\nmodel: {preset: gpt2}\ninference: {batch_size: 1, max_sequence_length: 8, lora_slots: 4}\n", 6, "inference.lora_rank is required"},
		"lora rank without slots":          {"workload: {type: inference}\nmodel: {preset: gpt2}\ninference: {batch_size: 1, max_sequence_length: 8, lora_rank: 8}\n", 6, "inference.lora_slots is required"},
		"tp not dividing":                  {"workload: {type: inference}\nmodel: {preset: gpt2}\ninference: {batch_size: 1, max_sequence_length: 8, tensor_parallel: 5}\n", 6, "does not divide"},
		"bad indent":                       {"workload: {type: training}\nmodel:\n  preset: gpt2\n  parameters: 1e9\n micro_batch_size: 1\n", 8, "(the enclosing block starts on line"},
		"bad checkpoint":                   {"workload: {type: training}\nmodel: {preset: gpt2}\ntraining:\n  activation_checkpointing: sometimes\n", 7, "activation_checkpointing must be"},
		"expert precision, no experts":     {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  expert_precision: mxfp4\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "expert_precision needs model.experts"},
		"unknown expert precision":         {"workload: {type: inference}\nmodel:\n  preset: gpt-oss-20b\n  expert_precision: fp2\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "model.expert_precision must be"},
		"more windowed layers than layers": {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  sliding_window: 256\n  sliding_window_layers: 13\ninference: {batch_size: 1, max_sequence_length: 8}\n", 8, "and model.layers (12), got 13"},
		"negative window":                  {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  sliding_window: -4\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "model.sliding_window must not be negative"},
		"shared experts, no experts":       {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  shared_experts: 1\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "shared_experts needs model.experts"},
		"dense layers, all of them":        {"workload: {type: inference}\nmodel:\n  preset: mixtral-8x7b\n  dense_layers: 32\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "must be fewer than model.layers (32), got 32"},
		"LoRA slots on latent attention":   {"workload: {type: inference}\nmodel: {preset: deepseek-v3}\ninference:\n  batch_size: 1\n  max_sequence_length: 8\n  lora_slots: 2\n  lora_rank: 16\n", 9, "multi-head latent attention, are not modelled"},
		"rotary key, no latent":            {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  qk_rope_head_dim: 64\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "qk_rope_head_dim needs model.kv_lora_rank"},
		"query latent, no KV latent":       {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  q_lora_rank: 1536\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "q_lora_rank needs model.kv_lora_rank"},
		"negative query latent":            {"workload: {type: inference}\nmodel:\n  preset: deepseek-v3\n  q_lora_rank: -1\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "q_lora_rank must not be negative"},
		"negative latent":                  {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  kv_lora_rank: -512\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "model.kv_lora_rank must not be negative"},
		"windowed layers, no window":       {"workload: {type: inference}\nmodel:\n  preset: gpt2\n  sliding_window_layers: 6\ninference: {batch_size: 1, max_sequence_length: 8}\n", 7, "needs model.sliding_window"},
	}
	for name, c := range cases {
		_, err := Parse([]byte(header+c.body), "bad.yaml")
		pe, ok := err.(*Error)
		if !ok || pe.File != "bad.yaml" || pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%s: err = %#v", name, err)
		}
	}
	if _, err := Parse([]byte("apiVersion: v1\nkind: Pod\n"), "pod.yaml"); err == nil || !strings.Contains(err.Error(), "apiVersion must be") {
		t.Errorf("a Pod was accepted as a profile: %v", err)
	}
}

func TestMeasuredOnlyProfileNeedsNoModel(t *testing.T) {
	p, err := Parse([]byte(header+`workload: {type: inference}
measured: {gpu_name: NVIDIA L4, gpu_count: 1, memory_total_mib: 23034, peak_memory_used_mib: 9000}
`), "m.yaml")
	if err != nil || p.Measured.PeakMemoryMiB != 9000 {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestEveryRequiredPresetIsEmbedded(t *testing.T) {
	for _, name := range []string{"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "mixtral-8x7b",
		"qwen2.5-7b", "qwen2.5-72b", "gemma-2-9b", "gemma-2-27b", "bert-base", "bert-large", "gpt2"} {
		if _, ok := LookupPreset(name); !ok {
			t.Errorf("preset %s missing", name)
		}
	}
	for _, p := range Presets() {
		name, m := p.Name, p.Model
		if m.Parameters <= 0 || m.Layers <= 0 || m.HiddenSize <= 0 || m.AttentionHeads <= 0 || m.KVHeads <= 0 || m.VocabSize <= 0 || m.IntermediateSize <= 0 || !strings.HasPrefix(m.Source, "https://huggingface.co/") {
			t.Errorf("preset %s incomplete: %+v", name, m)
		}
		if m.AttentionHeads%m.KVHeads != 0 {
			t.Errorf("preset %s: %d heads not a multiple of %d KV heads", name, m.AttentionHeads, m.KVHeads)
		}
	}
	// Every alias leads to a preset, in the lower case LookupPreset compares.
	for alias, name := range presetAliases {
		if p, ok := LookupPreset(alias); !ok || p.Name != name || alias != strings.ToLower(alias) {
			t.Errorf("alias %q -> %q: found %v", alias, name, ok)
		}
	}
}

// Every preset carries the context a serving engine takes when not told one, and a sliding
// window only where it is shorter than that context.
func TestPresetsCarryTheirContext(t *testing.T) {
	for _, p := range Presets() {
		if w := p.Model.SlidingWindow; p.Context < 512 || w < 0 || w >= p.Context {
			t.Errorf("preset %s: context %d, sliding window %d", p.Name, p.Context, w)
		}
	}
	for name, c := range fineTuneContexts {
		if _, ok := servedPreset(name, name); !ok || c.tokens < 512 || !strings.HasPrefix(c.source, "https://huggingface.co/") {
			t.Errorf("fine-tune %s: %+v, preset found %v", name, c, ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(header + "workload: {type: training}\nmodel: {preset: gpt2}\ntraining: {micro_batch_size: 1, sequence_length: 8}\n"))
	f.Add([]byte(header + "workload: {type: inference}\nmeasured: {peak_memory_used_mib: 1}\n"))
	f.Add([]byte("a: &a [*a, *a, *a]\n"))
	f.Add([]byte(header + "workload: {type: training}\nmodel: {preset: mixtral-8x7b}\ntraining: {method: lora, lora_targets: all-linear, activation_checkpointing: true, micro_batch_size: 1, sequence_length: 8}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "fuzz.yaml")
		if err == nil && (p.APIVersion != APIVersion || p.Kind != Kind) {
			t.Fatalf("accepted a non-profile: %+v", p)
		}
	})
}

func TestWithMeasuredKeepsTheBase(t *testing.T) {
	base := []byte(header + `# what runs on the node
workload:
  type: training
  interruptible: true   # checkpoints every 30 minutes
model:
  preset: llama-2-7b
training: {method: lora, optimizer: adamw, micro_batch_size: 2, sequence_length: 2048}
measured: {gpu_name: old, gpu_count: 1, memory_total_mib: 1, peak_memory_used_mib: 1}
`)
	m := &Measured{GPUName: "NVIDIA L4", GPUCount: 1, MemoryTotalMiB: 23034, PeakMemoryMiB: 17000, Samples: 10, DurationSeconds: 5, CapturedAt: "2026-11-21T12:00:00Z",
		GPUUtilization: &Stats{Mean: 70, P50: 72, P95: 99}}
	out, err := WithMeasured(base, m, "ignored", TypeBatch, "written by capture", "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"# what runs on the node", "interruptible: true # checkpoints every 30 minutes", "preset: llama-2-7b",
		"# written by capture\nmeasured:", "peak_memory_used_mib: 17000", "p95: 99"} {
		if !strings.Contains(s, want) {
			t.Errorf("lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "gpu_name: old") || strings.Count(s, "measured:") != 1 || strings.Contains(s, "ignored") {
		t.Errorf("the old measured section survived or the name leaked:\n%s", s)
	}
	p, err := Parse(out, "x.yaml")
	if err != nil || p.Measured.PeakMemoryMiB != 17000 || p.Training == nil || p.Model.Preset != "llama-2-7b" || p.Model.Parameters == 0 {
		t.Fatalf("%v %+v", err, p)
	}
	if strings.Contains(s, "hidden_size") {
		t.Error("preset-filled fields were written into the user's file")
	}
	fresh, err := WithMeasured(nil, m, "train: v2", TypeTraining, "", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err = Parse(fresh, "new.yaml")
	if err != nil || p.Metadata.Name != "train: v2" || p.Workload.Type != TypeTraining || p.Measured.GPUName != "NVIDIA L4" {
		t.Fatalf("%v\n%s", err, fresh)
	}
	if _, err := WithMeasured([]byte("- a list\n"), m, "x", TypeBatch, "", ""); err == nil {
		t.Error("a base that is not a mapping was accepted")
	}
}

// The allocator settings a command ran with become runtime.pytorch_alloc_conf wherever the base
// leaves it out; a base that declares other settings keeps them, and a note says the run differed.
func TestWithMeasuredRecordsAllocatorSettings(t *testing.T) {
	m := &Measured{GPUName: "NVIDIA H100 80GB HBM3", GPUCount: 1, MemoryTotalMiB: 81559, PeakMemoryMiB: 40000, Samples: 10, DurationSeconds: 5, CapturedAt: "2026-11-28T00:00:00Z"}
	const on = "expandable_segments:True"
	body := header + "workload: {type: inference}\nmodel: {preset: llama-2-7b}\n"
	for _, c := range []struct {
		name, runtime, want, note string
	}{
		{name: "no runtime", want: on},
		{name: "null runtime", runtime: "runtime:\n", want: on},
		{name: "empty runtime", runtime: "runtime: {}\n", want: on},
		{name: "other runtime settings", runtime: "runtime: {cuda_module_loading: eager}\n", want: on},
		{name: "the same settings", runtime: "runtime: {pytorch_alloc_conf: 'expandable_segments:True'}\n", want: on},
		{name: "other settings", runtime: "runtime: {pytorch_alloc_conf: 'expandable_segments:False'}\n", want: "expandable_segments:False",
			note: `the command ran with PyTorch allocator settings "expandable_segments:True"; runtime.pytorch_alloc_conf declares "expandable_segments:False"`},
	} {
		out, err := WithMeasured([]byte(body+c.runtime), m, "x", TypeBatch, "", on)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, err := Parse(out, "x.yaml")
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if p.Runtime == nil || p.Runtime.PyTorchAllocConf != c.want {
			t.Errorf("%s: runtime %+v, want %q\n%s", c.name, p.Runtime, c.want, out)
		}
		if c.name == "other runtime settings" && p.Runtime.CUDAModuleLoading != "eager" {
			t.Errorf("%s: the base's runtime settings were lost:\n%s", c.name, out)
		}
		notes := strings.Join(p.Measured.Notes, "\n")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
	if len(m.Notes) != 0 {
		t.Errorf("the caller's measurement was changed: %q", m.Notes)
	}
}

// PyTorch reads its allocator settings as comma-separated option:value pairs, and stops on an
// expandable_segments value other than True or False (c10 AllocatorConfig::parseArgs).
func TestExpandableSegments(t *testing.T) {
	for conf, want := range map[string]bool{
		"":                             false,
		"expandable_segments:True":     true,
		" expandable_segments : True ": true,
		"max_split_size_mb:512":        false,
		"max_split_size_mb:512,expandable_segments:True":     true,
		"expandable_segments:True,expandable_segments:False": false,
		"expandable_segments:False":                          false,
	} {
		r := &Runtime{PyTorchAllocConf: conf}
		if got := r.ExpandableSegments(); got != want {
			t.Errorf("%q: expandable %v, want %v", conf, got, want)
		}
	}
	if (*Runtime)(nil).ExpandableSegments() {
		t.Error("no runtime section turned expandable segments on")
	}
	_, err := Parse([]byte(header+"workload: {type: training}\nmodel: {preset: llama-2-7b}\nruntime: {pytorch_alloc_conf: 'expandable_segments:true'}\n"), "p.yaml")
	if err == nil || !strings.Contains(err.Error(), `expandable_segments must be True or False, as PyTorch requires; got "true"`) || !strings.Contains(err.Error(), "p.yaml:") {
		t.Errorf("lower-case true: %v", err)
	}
}

// Every SwiGLU decoder preset's parameter count follows from its configuration: the embeddings
// (and an untied output layer), and in every layer the q, k, v and o projections, each expert's
// gate, up and down projections and the router that picks them, two RMSNorm weights, and the
// family's extras (Qwen 2.5's q, k and v biases, Qwen 3's q and k norms, Gemma 2's two more
// norms, gpt-oss's biases on q, k, v, o, the router and every expert's projections, and its
// attention sinks, one per head), then the final norm. A mistyped width or layer count in a new preset fails here.
func TestPresetParametersFollowFromTheirConfiguration(t *testing.T) {
	checked := 0
	for _, p := range Presets() {
		m := p.Model
		if m.MLP != "swiglu" || m.KVLoRARank > 0 {
			continue // multi-head latent attention: TestMLAPresetParametersFollowFromTheirConfiguration
		}
		h, hd := m.HiddenSize, m.HeadDim
		if hd == 0 {
			hd = h / m.AttentionHeads
		}
		q, kv := m.AttentionHeads*hd, m.KVHeads*hd
		layer := h*q + 2*h*kv + q*h + max(m.Experts, 1)*3*h*m.IntermediateSize + 2*h
		if m.Experts > 0 {
			layer += h * m.Experts
		}
		if m.QKNorm {
			layer += 2 * hd // the q and k norms' weights
		}
		if m.SandwichNorms {
			layer += 2 * h // the norms of the attention's and the MLP's outputs
		}
		// The dense layers' MLP is as wide as the experts a token runs through (Llama 4
		// Maverick's intermediate_size_mlp, 16,384 = 2 × 8,192) unless config.json says
		// otherwise; a router's bias per expert (e_score_correction_bias) is in MoE layers only.
		denseMLP, routerBias := (m.ExpertsPerToken+m.SharedExperts)*m.IntermediateSize, 0
		switch {
		case strings.HasPrefix(p.Name, "qwen2.5"), strings.HasPrefix(p.Name, "deepseek-r1-distill-qwen"):
			layer += q + 2*kv
		case strings.HasPrefix(p.Name, "gpt-oss"):
			layer += q + 2*kv + h + m.AttentionHeads + m.Experts + m.Experts*(2*m.IntermediateSize+h)
		case p.Name == "glm-4.5", p.Name == "glm-4.5-air":
			// Biases on q, k and v; intermediate_size 12,288 and 10,944.
			layer += q + 2*kv
			routerBias = m.Experts
			denseMLP = map[string]int{"glm-4.5": 12288, "glm-4.5-air": 10944}[p.Name]
		case p.Name == "minimax-m2":
			// Its query and key norms span all the heads (q_norm over 48 × 128, k_norm over
			// 8 × 128), not one head each.
			layer += q + kv - 2*hd
			routerBias = m.Experts
		}
		// A shared expert beside the routed ones (Llama 4's) is one more MLP of their width;
		// a dense layer has no router.
		moe := layer + m.SharedExperts*3*h*m.IntermediateSize + routerBias
		dense := layer - max(m.Experts, 1)*3*h*m.IntermediateSize - h*m.Experts + 3*h*denseMLP
		emb := m.VocabSize * h
		if !m.TiedEmbeddings {
			emb *= 2
		}
		if want := (m.Layers-m.DenseLayers)*moe + m.DenseLayers*dense + emb + h + p.Vision; float64(want) != float64(m.Parameters) {
			t.Errorf("preset %s: %.0f parameters, its configuration gives %d", p.Name, float64(m.Parameters), want)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d SwiGLU presets checked", checked)
	}
}

// The parameters of the presets with multi-head latent attention follow from their
// config.json (the preset carries what the estimate reads, the rest is here) as DeepSeek V3's
// modeling code builds the layers: queries compressed through q_lora_rank and keys and values
// through kv_lora_rank, each followed by an RMSNorm; the first first_k_dense_replace layers
// with a dense MLP of intermediate_size, the others with the routed and shared experts of
// moe_intermediate_size and a router with a bias per expert. The multi-token prediction layer
// (num_nextn_predict_layers) is left out, as vLLM and SGLang load it only for speculative
// decoding.
func TestMLAPresetParametersFollowFromTheirConfiguration(t *testing.T) {
	for _, c := range []struct {
		hub                                                                string
		qLoRARank, qkNopeHeadDim, vHeadDim, denseLayers, denseIntermediate int
		context                                                            int
		indexHeads, indexHeadDim                                           int // DeepSeek sparse attention's lightning indexer
	}{
		{"deepseek-ai/DeepSeek-V3", 1536, 128, 128, 3, 18432, 163840, 0, 0},
		{"deepseek-ai/DeepSeek-V3.2-Exp", 1536, 128, 128, 3, 18432, 163840, 64, 128},
		{"moonshotai/Kimi-K2-Instruct", 1536, 128, 128, 1, 18432, 131072, 0, 0},
	} {
		p, ok := LookupPreset(c.hub)
		if !ok {
			t.Fatalf("no preset for %s", c.hub)
		}
		m := p.Model
		h, heads, kvRank, rope := m.HiddenSize, m.AttentionHeads, m.KVLoRARank, m.QKRopeHeadDim
		if m.QLoRARank != c.qLoRARank {
			t.Errorf("%s: q_lora_rank %d, config.json's is %d", p.Name, m.QLoRARank, c.qLoRARank)
		}
		attn := h*m.QLoRARank + m.QLoRARank + m.QLoRARank*heads*(c.qkNopeHeadDim+rope) + // q_a, its norm, q_b
			h*(kvRank+rope) + kvRank + kvRank*heads*(c.qkNopeHeadDim+c.vHeadDim) + // kv_a with the rotary key, its norm, kv_b
			heads*c.vHeadDim*h // o_proj
		if m.IndexHeads != c.indexHeads || m.IndexHeadDim != c.indexHeadDim {
			t.Errorf("%s: indexer of %d heads of %d, config.json's index_n_heads and index_head_dim are %d and %d", p.Name, m.IndexHeads, m.IndexHeadDim, c.indexHeads, c.indexHeadDim)
		}
		// The indexer: wq_b from the query latent, wk from the hidden state, k_norm (a
		// LayerNorm: weight and bias), weights_proj to one weight a head.
		attn += m.QLoRARank*c.indexHeads*c.indexHeadDim + h*c.indexHeadDim + 2*c.indexHeadDim + h*c.indexHeads
		dense := attn + 3*h*c.denseIntermediate + 2*h
		moe := attn + (m.Experts+m.SharedExperts)*3*h*m.IntermediateSize + m.Experts*h + m.Experts + 2*h
		if m.DenseLayers != c.denseLayers {
			t.Errorf("%s: %d dense layers, config.json's first_k_dense_replace is %d", p.Name, m.DenseLayers, c.denseLayers)
		}
		want := c.denseLayers*dense + (m.Layers-c.denseLayers)*moe + 2*m.VocabSize*h + h
		if float64(want) != m.Parameters {
			t.Errorf("%s: %.0f parameters, its configuration gives %d", p.Name, m.Parameters, want)
		}
		// The dense layers' MLP is as wide as the experts a token runs through, so the
		// estimate's one-layer activations hold for every layer.
		if c.denseIntermediate != (m.ExpertsPerToken+m.SharedExperts)*m.IntermediateSize {
			t.Errorf("%s: dense MLP %d wide, the experts a token runs through %d", p.Name, c.denseIntermediate, (m.ExpertsPerToken+m.SharedExperts)*m.IntermediateSize)
		}
		if p.Precision != "fp8" || p.Context != c.context || m.TiedEmbeddings || m.HeadDim != c.vHeadDim {
			t.Errorf("%s: precision %q, context %d, tied %v, head_dim %d; its checkpoint is FP8 with a %d-token context, untied embeddings and %d-wide value heads", p.Name, p.Precision, p.Context, m.TiedEmbeddings, m.HeadDim, c.context, c.vHeadDim)
		}
	}
}

// Gemma 3's image encoder is SigLIP at 896 pixels (vision_config: 27 layers, width 1152, MLP
// 4304, 14-pixel patches, no pooling head), with biases and LayerNorms throughout, followed
// by a projection into the text model's width and an RMSNorm over the image tokens.
//
// Llama 4's encoder (vision_config: 34 layers of width 1,408, MLP 5,632, 14-pixel patches of
// 336-pixel images, biases and LayerNorms throughout) unfolds each patch through a linear layer
// without bias, adds a class token and a position embedding for it and each patch, and
// normalizes before and after its layers; its adapter shuffles 2 × 2 patches into one
// (pixel_shuffle_ratio 0.5: 4 × 1,408 channels) through two layers without bias to 4,096
// (projector_input_dim, projector_output_dim), which the projector maps to the text width.
func TestVisionParametersFollowFromTheEncodersConfiguration(t *testing.T) {
	siglip := func(textWidth int) int {
		const layers, w, mlp, patch, image = 27, 1152, 4304, 14, 896
		layer := 4*(w*w+w) + w*mlp + mlp + mlp*w + w + 2*2*w
		encoder := layers*layer + 3*patch*patch*w + w + (image/patch)*(image/patch)*w + 2*w
		return encoder + w*textWidth + w
	}
	llama4 := func(textWidth int) int {
		const layers, w, mlp, patch, image, out = 34, 1408, 5632, 14, 336, 4096
		layer := 4*(w*w+w) + w*mlp + mlp + mlp*w + w + 2*2*w
		patches := (image / patch) * (image / patch)
		encoder := 3*patch*patch*w + w + (patches+1)*w + 2*2*w + layers*layer
		return encoder + 4*w*out + out*out + out*textWidth
	}
	counted := map[string]int{}
	for _, p := range Presets() {
		if p.Vision == 0 {
			continue
		}
		var want int
		family := strings.Join(strings.SplitN(p.Name, "-", 3)[:2], "-")
		switch family {
		case "gemma-3":
			want = siglip(p.Model.HiddenSize)
		case "llama-4":
			want = llama4(p.Model.HiddenSize)
		default:
			t.Errorf("preset %s has an image encoder of no known family", p.Name)
			continue
		}
		if p.Vision != want {
			t.Errorf("preset %s: %d vision parameters, its encoder and projection give %d", p.Name, p.Vision, want)
		}
		counted[family]++
	}
	if counted["gemma-3"] != 3 || counted["llama-4"] != 2 {
		t.Errorf("presets with an image encoder: %v, want Gemma 3's 4B, 12B and 27B and Llama 4's two", counted)
	}
}

// The precision messages name exactly the precisions the profile takes.
func TestWeightPrecisionsNamesEveryPrecision(t *testing.T) {
	for p := range precisionBytes {
		if !strings.Contains(weightPrecisions, p) {
			t.Errorf("weightPrecisions lacks %s", p)
		}
	}
	if n := strings.Count(weightPrecisions, ",") + 2; n != len(precisionBytes) {
		t.Errorf("weightPrecisions names %d precisions, precisionBytes has %d", n, len(precisionBytes))
	}
}

// The README lists every preset, so a model added here is one users can find there.
func TestREADMENamesEveryPreset(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Presets() {
		if !strings.Contains(string(readme), "`"+p.Name+"`") {
			t.Errorf("README.md does not name preset %s", p.Name)
		}
	}
}
