package profiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// VLLMDefaultMemoryUtilization is vLLM's default --gpu-memory-utilization: the share of each GPU
// the engine takes (vLLM engine arguments, docs.vllm.ai, "--gpu-memory-utilization", default 0.9).
const VLLMDefaultMemoryUtilization = 0.9

// FromVLLM infers an inference profile from a vLLM server's command line (`vllm serve MODEL
// ...` or `python -m vllm.entrypoints.openai.api_server --model MODEL ...`), for a GPU workload
// that has none attached. What it sizes is what vLLM needs to start: the weights (split by
// --tensor-parallel-size), the KV cache of one sequence of --max-model-len tokens (vLLM refuses
// to start without room for it), one forward pass of --max-num-batched-tokens, within
// --gpu-memory-utilization of each GPU. How many sequences the rest serves at once is the
// deployment's choice, so the inferred profile says whether the model fits, not whether the GPU
// is larger than the traffic needs.
//
// It returns the profile, with Inferred describing it, or nil and why none could be inferred:
// a model that is not a preset (a local path, an unknown checkpoint), --max-model-len auto
// (vLLM then fits the context to the GPU), pipeline parallelism, speculative decoding that loads
// weights other than the checkpoint's own MTP layers (speculationWithoutWeights, mtpDraft), a
// configuration overridden by --hf-overrides, or a quantization or dtype it does not model.
// Without --max-model-len, vLLM serves the model's full context from its config.json, which the
// presets carry: a long-context model on a small GPU then fails to start until the context is
// limited, which is what the fit says.
func FromVLLM(argv []string) (*Profile, string) {
	flags, positional := vllmFlags(argv)
	model := flags["model"]
	if model == "" && len(positional) > 0 {
		model = positional[0]
	}
	if model == "" {
		return nil, "the vLLM command names no model"
	}
	name, quantized := servedName(model)
	pr, ok := servedPreset(model, name)
	preset := pr.Name
	if !ok {
		return nil, fmt.Sprintf("vLLM serves %s, which is not one of gpuguard's model presets", model)
	}
	p := &Profile{APIVersion: APIVersion, Kind: Kind,
		Metadata:  Metadata{Name: "inferred from vLLM arguments"},
		Workload:  Workload{Type: TypeInference},
		Model:     Model{Preset: preset},
		Inference: &Inference{BatchSize: 1, GPUMemoryUtilization: VLLMDefaultMemoryUtilization, TensorParallel: 1, VLLMServer: true},
	}
	desc := []string{"model " + model + " (preset " + preset + ")"}
	ctx := servedContext(name, pr)
	n, err := vllmInt(flags, "max-model-len")
	switch {
	case err != nil && (strings.EqualFold(flags["max-model-len"], "auto") || flags["max-model-len"] == "-1"):
		return nil, "vLLM's --max-model-len " + flags["max-model-len"] + " shortens the context to what the GPU holds, so what it needs to start is not known from its arguments"
	case err != nil:
		return nil, err.Error()
	case n == 0:
		// vLLM derives the limit from the checkpoint's config.json (engine arguments,
		// "--max-model-len": "If unspecified, will be automatically derived from the model
		// config").
		n = ctx.tokens
		desc = append(desc, fmt.Sprintf("no --max-model-len, so the model's %d-token context (its config.json)", n))
	default:
		desc = append(desc, fmt.Sprintf("--max-model-len %d", n))
	}
	// A model whose layers attend to a sliding window keeps no more KV cache in those layers
	// than the window (vLLM's hybrid KV cache manager): the estimate counts it so, and the
	// longest context that fits follows from it.
	p.Inference.MaxSequenceLength = n
	p.ContextFlag = "--max-model-len"
	if pp, err := vllmInt(flags, "pipeline-parallel-size"); err != nil || pp > 1 {
		return nil, "vLLM runs with pipeline parallelism, which the inferred profile does not model"
	}
	if tp, err := vllmInt(flags, "tensor-parallel-size"); err != nil {
		return nil, err.Error()
	} else if tp > 0 {
		p.Inference.TensorParallel = tp
		desc = append(desc, fmt.Sprintf("--tensor-parallel-size %d", tp))
	}
	// Data parallelism runs --data-parallel-size engines, --data-parallel-size-local of them on
	// this node when the ranks span several, each on its own tensor-parallel GPUs (vLLM, "Data
	// Parallel Deployment").
	dp, err := vllmInt(flags, "data-parallel-size")
	if err != nil {
		return nil, err.Error()
	}
	global := dp
	if local, err := vllmInt(flags, "data-parallel-size-local"); err != nil {
		return nil, err.Error()
	} else if _, ok := flags["data-parallel-size-local"]; ok {
		dp = local
	}
	if dp > 1 {
		p.Inference.DataParallel = dp
		desc = append(desc, fmt.Sprintf("%d data-parallel engines", dp))
	}
	if global > 1 {
		// A mixture of experts' expert layers span every engine of the deployment, on this
		// node or not (vLLM's FusedMoE: one expert- or tensor-parallel group of data × tensor
		// parallel GPUs).
		p.Inference.ExpertParallel = global * p.Inference.TensorParallel
	}
	if v, ok := flags["gpu-memory-utilization"]; ok {
		u, err := strconv.ParseFloat(v, 64)
		if err != nil || u <= 0 || u > 1 {
			return nil, fmt.Sprintf("vLLM's --gpu-memory-utilization %q is not a fraction of the GPU", v)
		}
		p.Inference.GPUMemoryUtilization = u
		desc = append(desc, "--gpu-memory-utilization "+v)
	}
	if t, err := vllmInt(flags, "max-num-batched-tokens"); err != nil {
		return nil, err.Error()
	} else if t > 0 {
		p.Inference.MaxBatchedTokens = t
		desc = append(desc, fmt.Sprintf("--max-num-batched-tokens %d", t))
	}
	if v, ok := flags["enable-lora"]; ok && !strings.EqualFold(v, "false") {
		// vLLM preallocates --max-loras adapter slots (default 1) of --max-lora-rank (default
		// 16) on every GPU (engine arguments, docs.vllm.ai).
		slots, err := vllmInt(flags, "max-loras")
		if err != nil {
			return nil, err.Error()
		}
		rank, err := vllmInt(flags, "max-lora-rank")
		if err != nil {
			return nil, err.Error()
		}
		p.Inference.LoRASlots, p.Inference.LoRARank = max(slots, 1), rank
		if rank == 0 {
			p.Inference.LoRARank = 16
		}
		desc = append(desc, fmt.Sprintf("--enable-lora with %d adapter slots of rank %d", p.Inference.LoRASlots, p.Inference.LoRARank))
	}
	spec, draft, why := vllmSpeculation(flags)
	switch {
	case why != "":
	case spec == "mtp" || strings.HasSuffix(spec, "_mtp"):
		// vLLM's MTP methods (mtp; deepseek_mtp, glm4_moe_mtp and the like before it named
		// them all mtp) draft with the served checkpoint's own MTP layers.
		var d string
		if d, why = mtpDraft("vLLM's speculative decoding by "+spec, pr, model, draft); why == "" {
			p.Inference.MTPLayers = pr.MTPLayers
			desc = append(desc, "speculative decoding by "+spec+d)
		}
	case spec != "":
		if why = speculationWithoutWeights(spec); why == "" {
			desc = append(desc, "speculative decoding by "+spec+" (drafts from the tokens already seen, on the CPU: no draft weights)")
		}
	}
	if why != "" {
		return nil, why
	}
	for _, u := range []struct{ flag, why string }{
		{"hf-overrides", "changes the model's configuration"},
		{"cpu-offload-gb", "keeps part of the weights in CPU memory"},
		{"kv-cache-memory", "sizes the KV cache itself, not from --gpu-memory-utilization"},
		{"kv-cache-memory-bytes", "sizes the KV cache itself, not from --gpu-memory-utilization"},
	} {
		if v, ok := flags[u.flag]; ok && v != "0" {
			return nil, fmt.Sprintf("vLLM's --%s %s, which the inferred profile does not model", u.flag, u.why)
		}
	}
	for name := range flags {
		// JSON arguments' keys one by one (--hf-overrides.rope_scaling ...).
		if strings.HasPrefix(name, "hf-overrides.") {
			return nil, "vLLM's --hf-overrides changes the model's configuration, which the inferred profile does not model"
		}
		// Older vLLM's --rope-scaling stretches the context it derives from config.json (YaRN's
		// factor times the trained length): without --max-model-len the context is not the
		// preset's.
		if (name == "rope-scaling" || strings.HasPrefix(name, "rope-scaling.")) && flags["max-model-len"] == "" {
			return nil, "vLLM's --rope-scaling stretches the context it derives from the model's config.json, which the inferred profile does not model: set --max-model-len"
		}
	}
	return finishServed("vLLM", p, flags, quantized, desc)
}

// vllmSpeculation is the speculative decoding a vLLM command line asks for ("" for none) and
// the draft model it names ("" for none), or why it cannot be read: --speculative-config's
// method (a JSON object, or its keys one by one as --speculative-config.method; vLLM takes a
// model of "ngram" or "[ngram]" for the n-gram method), or vLLM 0.6's --speculative-model. A
// draft model without a method is named by its model; a configuration that names neither is
// "an unnamed method".
func vllmSpeculation(flags map[string]string) (spec, draft, why string) {
	var method, model string
	asked := false
	if v, ok := flags["speculative-config"]; ok {
		asked = true
		var cfg struct {
			Method string `json:"method"`
			Model  string `json:"model"`
		}
		if err := json.Unmarshal([]byte(v), &cfg); err != nil {
			return "", "", fmt.Sprintf("vLLM's --speculative-config %q is not a JSON object gpuguard reads", v)
		}
		method, model = cfg.Method, cfg.Model
	}
	if v, ok := flags["speculative-config.method"]; ok {
		method = v
	}
	if v, ok := flags["speculative-config.model"]; ok {
		model = v
	}
	for name := range flags {
		asked = asked || strings.HasPrefix(name, "speculative-config.")
	}
	if v, ok := flags["speculative-model"]; ok {
		asked, model = true, v
	}
	switch {
	case !asked:
		return "", "", ""
	case method != "":
		return method, model, ""
	case model == "ngram" || model == "[ngram]":
		return "ngram", "", ""
	case model != "":
		return "the draft model " + model, model, ""
	}
	return "an unnamed method", "", ""
}

// mtpDraft is how multi-token prediction speculative decoding (what, named as the engine's
// arguments ask for it) drafts for preset pr, served as model: with the checkpoint's own MTP
// layers (Preset.MTPLayers), described for the profile, or why it is not modelled: a checkpoint
// without MTP layers, or a draft model other than the served one (the engines take the served
// checkpoint's MTP layers when no draft model is named).
func mtpDraft(what string, pr Preset, model, draft string) (desc, why string) {
	if draft != "" && !strings.EqualFold(hubCached(draft), hubCached(model)) {
		return "", fmt.Sprintf("%s drafts with %s, a checkpoint other than the served one, which the inferred profile does not model", what, draft)
	}
	if pr.MTPLayers == 0 {
		return "", fmt.Sprintf("%s needs multi-token prediction layers, which the checkpoint of %s does not hold as far as gpuguard knows (config.json's num_nextn_predict_layers)", what, pr.Name)
	}
	layers := "layer"
	if pr.MTPLayers > 1 {
		layers = fmt.Sprintf("layers (%d)", pr.MTPLayers)
	}
	return fmt.Sprintf(" with the checkpoint's multi-token prediction %s as the draft (a decoder layer with its KV cache, a projection and an output head each)", layers), ""
}

// speculationWithoutWeights says why a vLLM speculative decoding method other than MTP
// (mtpDraft) is not modelled, or "" for one that proposes from the tokens already seen on the
// CPU and loads nothing on the GPU: n-gram prompt lookup and suffix decoding, which vLLM's
// SpeculativeConfig runs without a draft model. Their verification pass's extra tokens stay
// within --max-num-batched-tokens, and the few slots they look ahead are a handful of tokens of
// KV cache. A draft model or EAGLE heads load weights with a KV cache of their own, and
// ngram_gpu keeps every sequence's token ids on the GPU: none of that is modelled.
func speculationWithoutWeights(spec string) string {
	switch spec {
	case "ngram", "suffix":
		return ""
	case "ngram_gpu":
		return "vLLM's speculative decoding by ngram_gpu keeps every sequence's token ids on the GPU, which the inferred profile does not model"
	}
	return "vLLM's speculative decoding by " + spec + " loads a draft model or speculative heads, which the inferred profile does not model"
}

// finishServed completes a profile inferred from a serving engine's arguments: the weights'
// precision is --quantization's, else a quantized checkpoint's (the engine reads its
// quantization_config; gpuguard reads the name's suffix, or the preset's Precision for a
// checkpoint published quantized), else --dtype's (auto is the checkpoint's 16-bit type for
// the other presets' models); the KV cache takes the activations' type
// unless --kv-cache-dtype says fp8. The preset fills the model, and the profile is checked; it
// returns the profile, with Inferred saying what was read, or nil and why not.
func finishServed(engine string, p *Profile, flags map[string]string, quantized string, desc []string) (*Profile, string) {
	kv, why := servedDtype(engine, flags["dtype"])
	if why != "" {
		return nil, why
	}
	precision := kv
	q := strings.ToLower(flags["quantization"])
	pr, _ := LookupPreset(p.Model.Preset)
	switch {
	case q == "mxfp4":
		// gpt-oss's own format: the experts' weights in MXFP4 (the preset's expert_precision,
		// checked below), the others in --dtype's type.
		desc = append(desc, "--quantization mxfp4")
	case q != "":
		if precision, why = servedQuantization(engine, flags["quantization"]); why != "" {
			return nil, why
		}
	case quantized != "":
		if pr.QuantizedExperts {
			// The checkpoint's routed experts are quantized; the rest is counted in the
			// activations' 16-bit type (Preset.QuantizedExperts), which errs high where a
			// publisher quantized more.
			p.Model.ExpertPrecision = quantized
			desc = append(desc, quantized+" routed experts (a quantized checkpoint, by its name), the other weights counted in "+precision)
			break
		}
		precision = quantized
		desc = append(desc, quantized+" weights (a quantized checkpoint, by its name)")
	default:
		if pr.Precision != "" {
			// The checkpoint stores its weights quantized (config.json's quantization_config),
			// and the engine loads them so; --dtype is then the activations' type.
			precision = pr.Precision
			desc = append(desc, pr.Precision+" weights (the checkpoint stores them so)")
		}
	}
	p.Model.Precision = precision
	switch d := strings.ToLower(flags["kv-cache-dtype"]); {
	case d == "" || d == "auto" || d == "bf16" || d == "bfloat16":
	case strings.HasPrefix(d, "fp8"):
		kv = "fp8"
		desc = append(desc, "--kv-cache-dtype "+d)
	default:
		return nil, fmt.Sprintf("%s's --kv-cache-dtype %q is not modelled", engine, d)
	}
	p.Inference.KVCachePrecision = kv
	if err := p.applyPreset(); err != nil {
		return nil, err.Error()
	}
	if q == "mxfp4" && p.Model.ExpertPrecision != "mxfp4" {
		return nil, fmt.Sprintf("%s's --quantization mxfp4 is modelled for checkpoints whose experts are stored in MXFP4 (gpt-oss), not %s", engine, p.Model.Preset)
	}
	if in := p.Inference; in.ExpertParallel > in.TensorParallel && p.Model.Experts > 0 {
		desc = append(desc, fmt.Sprintf("the routed experts split over the engines' %d GPUs", in.ExpertParallel))
	}
	if err := p.validate(); err != nil {
		var ve *validationError
		if errors.As(err, &ve) {
			return nil, "the profile inferred from " + engine + "'s arguments is invalid: " + ve.msg
		}
		return nil, err.Error()
	}
	p.Inferred = engine + " arguments: " + strings.Join(desc, ", ")
	return p, ""
}

// vllmFlags reads a vLLM command line: --name=value and --name value pairs (names with
// underscores read as with dashes; -tp, -pp and -q are the short forms vLLM accepts), and the
// words after `serve` that are not flags. Bare flags (--enforce-eager) have the value "true";
// a switch (vllmSwitch) never takes the next word but true or false, so `vllm serve
// --enable-lora MODEL` serves MODEL. A negative number is a value (--max-model-len -1).
func vllmFlags(argv []string) (map[string]string, []string) {
	short := map[string]string{"tp": "tensor-parallel-size", "pp": "pipeline-parallel-size", "dp": "data-parallel-size", "q": "quantization"}
	flags := map[string]string{}
	var positional []string
	var words []string
	for _, a := range argv {
		// A shell line (sh -c "vllm serve ...") is one argument: split it on spaces.
		words = append(words, strings.Fields(a)...)
	}
	served := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "-"):
			name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			name = strings.ReplaceAll(name, "_", "-")
			if s, ok := short[name]; ok {
				name = s
			}
			if !hasValue {
				next := ""
				if i+1 < len(words) {
					next = words[i+1]
				}
				switch {
				case vllmSwitch(name) && !strings.EqualFold(next, "true") && !strings.EqualFold(next, "false"):
					// A switch takes no value: the next word is the model, or another flag.
					value = "true"
				case next != "" && (!strings.HasPrefix(next, "-") || isNumber(next)):
					value = next
					i++
				default:
					value = "true"
				}
			}
			// A JSON value (--speculative-config '{"method": "ngram", ...}') was split on its
			// spaces with the rest: join it again until its braces balance.
			for strings.HasPrefix(strings.TrimLeft(value, `"'`), "{") && braceDepth(value) > 0 && i+1 < len(words) {
				i++
				value += " " + words[i]
			}
			flags[name] = strings.Trim(value, `"'`)
		case w == "serve":
			served = true
		case served:
			positional = append(positional, strings.Trim(w, `"'`))
		}
	}
	return flags, positional
}

// braceDepth is how many more braces s opens than it closes.
func braceDepth(s string) int {
	return strings.Count(s, "{") - strings.Count(s, "}")
}

// vllmSwitch says whether a vLLM flag is a switch, which takes no value: vLLM declares its
// boolean engine and server arguments as argparse's BooleanOptionalAction (--enable-x and
// --no-enable-x; vllm/engine/arg_utils.py), and names them --enable-*, --disable-*, --no-* or one
// of switches. Older vLLM took an optional true or false after some; vllmFlags still reads one.
func vllmSwitch(name string) bool {
	for _, p := range []string{"enable-", "disable-", "no-"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return switches[name]
}

// switches are vLLM's common switches with other names (engine arguments and the OpenAI
// server's, docs.vllm.ai).
var switches = map[string]bool{
	"enforce-eager": true, "trust-remote-code": true, "skip-tokenizer-init": true,
	"fully-sharded-loras": true, "async-scheduling": true, "headless": true,
	"return-tokens-as-token-ids": true, "allow-credentials": true,
}

// vllmInt reads a count as vLLM's argument parser does (human_readable_int in
// vllm/utils/argparse_utils.py): a plain integer, or a number with a decimal suffix (k, m, g, t:
// 25.6k is 25,600) or a whole number with a binary one (K, M, G, T: 1K is 1,024).
func vllmInt(flags map[string]string, name string) (int, error) {
	v, ok := flags[name]
	if !ok {
		return 0, nil
	}
	bad := fmt.Errorf("vLLM's --%s %q is not a count", name, v)
	if m := humanCount.FindStringSubmatch(v); m != nil {
		unit := m[2]
		base := 1000.0
		if strings.ToUpper(unit) == unit {
			base = 1024
			if strings.Contains(m[1], ".") {
				return 0, bad // vLLM takes no fractions of binary units
			}
		}
		f, _ := strconv.ParseFloat(m[1], 64)
		f *= math.Pow(base, float64(strings.Index("kmgt", strings.ToLower(unit))+1))
		if f > maxCount {
			return 0, bad
		}
		return int(f), nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxCount {
		return 0, bad
	}
	return n, nil
}

var humanCount = regexp.MustCompile(`^(\d+(?:\.\d+)?)([kKmMgGtT])$`)

// maxCount bounds the counts read from a command line: no context or batch is near it, and a
// larger one would overflow the memory arithmetic.
const maxCount = 1 << 40

// checkpointContext is the context a checkpoint takes, from its config.json.
type checkpointContext struct {
	tokens int
	source string // the config.json
}

// fineTuneContexts are the fine-tuned checkpoints whose config.json gives another context than
// their base model's preset, by the Hub name's last part in lower case.
var fineTuneContexts = map[string]checkpointContext{
	// Qwen's instruction-tuned models ship a 32,768-token context; longer ones need YaRN
	// rope scaling added to the config.
	"qwen2.5-7b-instruct":  {32768, hf("Qwen/Qwen2.5-7B-Instruct")},
	"qwen2.5-72b-instruct": {32768, hf("Qwen/Qwen2.5-72B-Instruct")},
	"qwen2.5-14b-instruct": {32768, hf("Qwen/Qwen2.5-14B-Instruct")},
	"qwen2.5-32b-instruct": {32768, hf("Qwen/Qwen2.5-32B-Instruct")},
	// Qwen 3's July 2025 updates take 262,144 tokens natively.
	"qwen3-4b-instruct-2507":        {262144, hf("Qwen/Qwen3-4B-Instruct-2507")},
	"qwen3-4b-thinking-2507":        {262144, hf("Qwen/Qwen3-4B-Thinking-2507")},
	"qwen3-30b-a3b-instruct-2507":   {262144, hf("Qwen/Qwen3-30B-A3B-Instruct-2507")},
	"qwen3-30b-a3b-thinking-2507":   {262144, hf("Qwen/Qwen3-30B-A3B-Thinking-2507")},
	"qwen3-235b-a22b-instruct-2507": {262144, hf("Qwen/Qwen3-235B-A22B-Instruct-2507")},
	"qwen3-235b-a22b-thinking-2507": {262144, hf("Qwen/Qwen3-235B-A22B-Thinking-2507")},
	"qwen3-coder-30b-a3b-instruct":  {262144, hf("Qwen/Qwen3-Coder-30B-A3B-Instruct")},
	// Kimi K2's September 2025 update doubled its context.
	"kimi-k2-instruct-0905": {262144, hf("moonshotai/Kimi-K2-Instruct-0905")},
	// GLM-4.6 and GLM-4.7 extend GLM-4.5's context to 202,752 tokens.
	"glm-4.6": {202752, hf("zai-org/GLM-4.6")},
	"glm-4.7": {202752, hf("zai-org/GLM-4.7")},
}

// servedContext is the context a serving engine takes for a checkpoint when not told one.
func servedContext(name string, pr Preset) checkpointContext {
	if c, ok := fineTuneContexts[name]; ok {
		return c
	}
	return checkpointContext{pr.Context, pr.Model.Source}
}

// servedQuantization is the weights' precision a serving engine's --quantization gives them
// (vLLM and SGLang name the methods alike).
func servedQuantization(engine, quantization string) (string, string) {
	switch strings.ToLower(quantization) {
	case "awq", "awq_marlin", "gptq", "gptq_marlin", "marlin":
		// 4-bit group-quantized weights, the common AWQ and GPTQ checkpoints (a GPTQ
		// checkpoint may be 8-bit: attach a profile for that).
		return "int4", ""
	case "bitsandbytes":
		return "nf4", ""
	case "fp8":
		return "fp8", ""
	}
	return "", fmt.Sprintf("%s's --quantization %q is not modelled", engine, quantization)
}

// servedDtype is the precision a serving engine's --dtype gives the weights of an unquantized
// model, and the activations and KV cache of any (vLLM and SGLang take the same names).
func servedDtype(engine, dtype string) (string, string) {
	switch strings.ToLower(dtype) {
	case "", "auto", "bfloat16":
		return "bf16", ""
	case "half", "float16":
		return "fp16", ""
	case "float", "float32":
		return "fp32", ""
	default:
		return "", fmt.Sprintf("%s's --dtype %q is not modelled", engine, dtype)
	}
}

// quantizedSuffixes name the weights' precision of the quantized checkpoints published beside
// a model (Qwen's -AWQ and -GPTQ-Int4, Neural Magic's -FP8-dynamic and -quantized.w4a16,
// Unsloth's -bnb-4bit), longest first where one ends another.
var quantizedSuffixes = []struct{ suffix, precision string }{
	{"-awq-int4", "int4"}, {"-awq", "int4"},
	{"-gptq-int4", "int4"}, {"-gptq-int8", "int8"}, {"-gptq", "int4"},
	{"-fp8-dynamic", "fp8"}, {"-fp8", "fp8"},
	{"-bnb-4bit", "nf4"},
	{"-quantized.w4a16", "int4"}, {"-w4a16", "int4"},
	{"-quantized.w8a8", "int8"}, {"-w8a8", "int8"},
}

// servedName is a Hub model's name without its organisation, in lower case and without the
// suffix of a quantized checkpoint, and that checkpoint's weight precision ("" for none). A
// path into a Hugging Face cache (.../models--ORG--NAME/snapshots/REVISION) is the model it
// caches (hubCached).
func servedName(model string) (string, string) {
	model = hubCached(model)
	n := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	for _, q := range quantizedSuffixes {
		if base, ok := strings.CutSuffix(n, q.suffix); ok {
			return base, q.precision
		}
	}
	return n, ""
}

// hubCached is the Hub name of the model a path into a Hugging Face cache holds: the cache keeps
// ORG/NAME in a directory models--ORG--NAME, with its snapshots below (huggingface_hub, "Manage
// the cache": repo_folder_name). Any other name is returned as it is.
func hubCached(model string) string {
	for _, part := range strings.Split(model, "/") {
		if repo, ok := strings.CutPrefix(part, "models--"); ok {
			if org, name, ok := strings.Cut(repo, "--"); ok && org != "" && name != "" {
				return org + "/" + name
			}
		}
	}
	return model
}

// servedPreset finds the preset of a Hugging Face model name as a serving engine (vLLM, SGLang)
// is given it: the name itself (or the model a Hugging Face cache path holds), then its served name (servedName: no organisation, no quantized checkpoint's suffix)
// without a "Meta-" prefix and a fine-tune suffix (-Instruct, -Chat, -it, -hf), which keep the
// base model's architecture.
func servedPreset(model, name string) (Preset, bool) {
	if p, ok := LookupPreset(hubCached(model)); ok {
		return p, true
	}
	n := strings.TrimPrefix(name, "meta-")
	for _, suffix := range []string{"-instruct", "-chat", "-it", "-hf"} {
		n = strings.TrimSuffix(n, suffix)
	}
	return LookupPreset(n)
}
