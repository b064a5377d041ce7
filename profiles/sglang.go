package profiles

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SGLangServer is what SGLang's memory rules read from a server's arguments. SGLang keeps the
// weights and a pool of KV cache tokens within a static share of each GPU, --mem-fraction-static
// of the memory free when it starts, and leaves the rest for the activations of a prefill chunk
// and CUDA graphs (ServerArgs and ModelRunner in sgl-project/sglang, python/sglang/srt). It
// starts whenever the weights leave the pool room for a token, and refuses a prompt longer than
// the pool, so a context the pool cannot hold does not stop it.
type SGLangServer struct {
	// MemFractionStatic is --mem-fraction-static; 0 when SGLang derives it from the GPU
	// (StaticFraction).
	MemFractionStatic float64
	// ChunkedPrefill is --chunked-prefill-size: 0 when SGLang picks it for the GPU, -1 when
	// chunked prefill is off (a prefill then runs MaxPrefillTokens at most).
	ChunkedPrefill   int
	MaxPrefillTokens int
	// CUDAGraphMaxBS is --cuda-graph-max-bs; 0 when SGLang picks it for the GPU.
	CUDAGraphMaxBS int
	// MaxTotalTokens is --max-total-tokens, a cap on the pool of KV cache tokens (0: none);
	// SGLang takes the smaller of it and what its share holds.
	MaxTotalTokens int
	// DPAttention is --dp-size when --enable-dp-attention is on (0 otherwise): SGLang reserves
	// more of each GPU for the padding its data-parallel attention needs.
	DPAttention int
	// Speculative is --speculative-algorithm when it loads a draft on the GPU (EAGLE, NEXTN;
	// "" otherwise): SGLang's default share leaves 2 GiB more for the draft's weights, its KV
	// cache pool and its CUDA graphs.
	Speculative string
}

// nextnOf is the draft model SGLang is given, as the served model where it is the served
// model's MTP layer published apart (lmsys/DeepSeek-V3-0324-NextN for DeepSeek-V3-0324, as
// SGLang's DeepSeek documentation serves it): "" where none is given.
func nextnOf(model, draft string) string {
	d, _ := servedName(draft)
	if m, _ := servedName(model); draft != "" && d == m+"-nextn" {
		return model
	}
	return draft
}

// sglangMaxPrefillTokens is SGLang's default --max-prefill-tokens.
const sglangMaxPrefillTokens = 16384

// StaticFraction is the share of a GPU of gpuMiB MiB (as nvidia-smi reports its total) that
// SGLang takes for weights and KV cache at tensor-parallel size tp: --mem-fraction-static when
// given, else SGLang's own rule (v0.5, ServerArgs._handle_gpu_memory_settings): it reserves 512
// MiB, 1.5 MiB per token of the prefill chunk (2,048 at least), 2 MiB per CUDA graph batch size
// and 1 GiB per eight GPUs of the model, at least 10 GiB on a GPU over 60 GiB, and takes the
// rest, rounded to three decimals (0 when the reserve takes it all); a draft on the GPU
// (Speculative) adds 2 GiB after that floor. Data-parallel attention adds 3 MiB per CUDA graph
// batch size and data-parallel rank, and 1.5 MiB more over 300 batch sizes, before the floor;
// the chunk reserved for is the whole server's, before SGLang divides it between the ranks
// (ServerArgs._handle_data_parallelism runs after the memory settings).
func (s *SGLangServer) StaticFraction(gpuMiB float64, tp int) float64 {
	if s.MemFractionStatic > 0 {
		return s.MemFractionStatic
	}
	reserved := 512.0
	if chunk := s.Chunk(gpuMiB); chunk > 0 {
		reserved += float64(max(chunk, 2048)) * 1.5
	} else {
		reserved += float64(max(s.MaxPrefillTokens, 2048)) * 1.5
	}
	graphs := float64(s.graphMaxBS(gpuMiB, tp))
	reserved += graphs * 2
	reserved += float64(max(1, tp)) / 8 * 1024
	if dp := float64(s.DPAttention); dp > 1 {
		reserved += graphs * dp * 3
		if graphs > 300 {
			reserved += graphs * dp * 1.5
		}
	}
	if gpuMiB > 60*1024 {
		reserved = math.Max(reserved, 10*1024)
	}
	if s.Speculative != "" {
		// EAGLE's draft and its CUDA graphs (the same rule), after the floor.
		reserved += 2 * 1024
	}
	// A reserve over the whole GPU leaves no share: SGLang then stops at start.
	return math.Max(0, math.Round((gpuMiB-reserved)/gpuMiB*1000)/1000)
}

// Chunk is the prefill chunk SGLang runs on a GPU of gpuMiB MiB: --chunked-prefill-size, else
// 2,048 tokens under 35 GiB, 4,096 under 60 GiB, 8,192 under 160 GiB and 16,384 above (v0.5,
// ServerArgs._handle_gpu_memory_settings); -1 when chunked prefill is off.
func (s *SGLangServer) Chunk(gpuMiB float64) int {
	switch {
	case s.ChunkedPrefill != 0:
		return s.ChunkedPrefill
	case gpuMiB < 35*1024:
		return 2048
	case gpuMiB < 60*1024:
		return 4096
	case gpuMiB < 160*1024:
		return 8192
	}
	return 16384
}

// graphMaxBS is the largest batch SGLang captures a CUDA graph for: --cuda-graph-max-bs, else
// by the GPU's memory and the tensor-parallel size (v0.5, as Chunk).
func (s *SGLangServer) graphMaxBS(gpuMiB float64, tp int) int {
	small := tp < 4
	switch {
	case s.CUDAGraphMaxBS > 0:
		return s.CUDAGraphMaxBS
	case gpuMiB < 20*1024:
		return 8
	case gpuMiB < 35*1024 && small:
		return 24
	case gpuMiB < 35*1024:
		return 80
	case gpuMiB < 60*1024 && small:
		return 32
	case gpuMiB < 60*1024:
		return 160
	case gpuMiB < 160*1024 && small:
		return 256
	}
	return 512
}

// FromSGLang infers an inference profile from an SGLang server's command line (`python -m
// sglang.launch_server --model-path MODEL ...` or `sglang serve ...`), for a GPU workload that
// has none attached, as FromVLLM does for vLLM. What it sizes is the weights (split by --tp-size)
// and the KV cache of one sequence of --context-length tokens (the model's own context when not
// given), which SGLang keeps within its static share of each GPU; the activations of a prefill
// chunk are in the breakdown but outside that share. It returns the profile, with Inferred
// describing it, or nil and why none could be inferred: a model that is not a preset, more than
// one node, pipeline parallelism, data-parallel attention on a dense model or with the output
// layer or dense MLPs placed by hand, LoRA adapters, speculative decoding, offloading, a model
// configuration set by hand, or a quantization or dtype it does not model.
func FromSGLang(argv []string) (*Profile, string) {
	flags := sglangFlags(argv)
	model := flags["model-path"]
	if model == "" {
		return nil, "the SGLang command names no model (--model-path)"
	}
	name, quantized := servedName(model)
	pr, ok := servedPreset(model, name)
	if !ok {
		return nil, fmt.Sprintf("SGLang serves %s, which is not one of gpuguard's model presets", model)
	}
	if pr.Model.IndexHeads > 0 {
		return nil, fmt.Sprintf("SGLang serves %s's sparse attention with KV cache pools of its own (its NSA backend), which the inferred profile does not model", pr.Name)
	}
	srv := &SGLangServer{MaxPrefillTokens: sglangMaxPrefillTokens}
	p := &Profile{APIVersion: APIVersion, Kind: Kind,
		Metadata:    Metadata{Name: "inferred from SGLang arguments"},
		Workload:    Workload{Type: TypeInference},
		Model:       Model{Preset: pr.Name},
		Inference:   &Inference{BatchSize: 1, TensorParallel: 1, SGLang: srv},
		ContextFlag: "--context-length",
	}
	desc := []string{"model " + model + " (preset " + pr.Name + ")"}
	for _, u := range []struct{ flag, why string }{
		{"enable-lora", "loads LoRA adapters into a memory pool of its own"},
		{"lora-paths", "loads LoRA adapters into a memory pool of its own"},
		{"cpu-offload-gb", "keeps part of the weights in CPU memory"},
		{"enable-dp-lm-head", "splits the output layer over the data-parallel attention groups"},
		{"moe-dense-tp-size", "keeps the dense layers' MLPs on fewer GPUs than the tensor-parallel size"},
		{"json-model-override-args", "changes the model's configuration"},
	} {
		if sglangOn(flags, u.flag) {
			return nil, fmt.Sprintf("SGLang's --%s %s, which the inferred profile does not model", u.flag, u.why)
		}
	}
	if alg := strings.ToUpper(flags["speculative-algorithm"]); sglangOn(flags, "speculative-algorithm") {
		switch {
		case alg == "NGRAM" || alg == "LOOKAHEAD":
			// N-gram speculation (NGRAM, named LOOKAHEAD before) drafts from the tokens
			// already seen, in a cache on the CPU: no draft model, and SGLang reserves no
			// memory beyond the static share for it (ServerArgs' mem_fraction_static default).
			desc = append(desc, "speculative decoding by "+alg+" (drafts from the tokens already seen, on the CPU: no draft weights)")
		case alg == "NEXTN" || alg == "EAGLE" && pr.MTPLayers > 0:
			// NEXTN is EAGLE over the checkpoint's own MTP layers; for DeepSeek V3 and GLM
			// SGLang's EAGLE takes them when no draft model is named (ServerArgs), and SGLang's
			// own DeepSeek commands name the layer extracted as ORG/NAME-NextN. The draft and
			// its KV cache pool live outside the static share, in 2 GiB more that SGLang's
			// default share leaves for them (SGLangServer.Speculative).
			d, why := mtpDraft("SGLang's speculative decoding by "+alg, pr, model, nextnOf(model, flags["speculative-draft-model-path"]))
			if why != "" {
				return nil, why
			}
			p.Inference.MTPLayers, srv.Speculative = pr.MTPLayers, alg
			desc = append(desc, "speculative decoding by "+alg+d)
		default:
			return nil, fmt.Sprintf("SGLang's speculative decoding by %s loads a draft model or speculative heads, which the inferred profile does not model", flags["speculative-algorithm"])
		}
	}
	counts := map[string]int{}
	for _, f := range []string{"context-length", "tp-size", "pp-size", "nnodes", "dp-size", "chunked-prefill-size", "max-prefill-tokens", "cuda-graph-max-bs", "max-total-tokens"} {
		n, err := sglangInt(flags, f)
		if err != nil {
			return nil, err.Error()
		}
		counts[f] = n
	}
	switch {
	case counts["nnodes"] > 1:
		return nil, "SGLang spans several nodes (--nnodes), which the inferred profile does not model"
	case counts["pp-size"] > 1:
		return nil, "SGLang runs with pipeline parallelism, which the inferred profile does not model"
	}
	if n := counts["context-length"]; n > 0 {
		p.Inference.MaxSequenceLength = n
		desc = append(desc, fmt.Sprintf("--context-length %d", n))
	} else {
		// SGLang takes the context from the checkpoint's config.json; it keeps full KV cache
		// for every token of a sliding-window model, which is what is sized here.
		p.Inference.MaxSequenceLength = servedContext(name, pr).tokens
		desc = append(desc, fmt.Sprintf("no --context-length, so the model's %d-token context (its config.json)", p.Inference.MaxSequenceLength))
	}
	if tp := counts["tp-size"]; tp > 0 {
		p.Inference.TensorParallel = tp
		desc = append(desc, fmt.Sprintf("--tp-size %d", tp))
	}
	dpAttention := 0
	switch dp := counts["dp-size"]; {
	case dp > 1 && sglangOn(flags, "enable-dp-attention"):
		// Data-parallel attention runs one engine of --tp-size GPUs whose attention is --dp-size
		// groups of tp/dp GPUs (ServerArgs._handle_data_parallelism asserts tp % dp == 0).
		tp := p.Inference.TensorParallel // --tp-size, 1 when not given
		if pr.Model.Experts == 0 {
			return nil, fmt.Sprintf("SGLang's --enable-dp-attention is modelled for mixtures of experts (DeepSeek, Qwen 3's), not %s", pr.Name)
		}
		if tp%dp != 0 {
			return nil, fmt.Sprintf("SGLang's --enable-dp-attention needs --dp-size %d to divide --tp-size %d", dp, tp)
		}
		dpAttention = dp
		p.Inference.AttentionDataParallel = dp
		srv.DPAttention = dp
		group := fmt.Sprintf("%d groups of %d GPUs", dp, tp/dp)
		if tp == dp {
			group = fmt.Sprintf("%d ranks of one GPU", dp)
		}
		desc = append(desc, fmt.Sprintf("--enable-dp-attention with --dp-size %d: attention in %s, the embeddings whole on every GPU, the MLPs split over all %d", dp, group, tp))
	case dp > 1:
		// SGLang's --dp-size runs that many engines of --tp-size GPUs each, each with its own
		// copy of the model, experts included (DataParallelController.launch_dp_schedulers).
		p.Inference.DataParallel = dp
		desc = append(desc, fmt.Sprintf("--dp-size %d", dp))
	}
	if v, ok := flags["mem-fraction-static"]; ok {
		u, err := strconv.ParseFloat(v, 64)
		if err != nil || u <= 0 || u >= 1 {
			return nil, fmt.Sprintf("SGLang's --mem-fraction-static %q is not a fraction of the GPU", v)
		}
		srv.MemFractionStatic = u
		desc = append(desc, "--mem-fraction-static "+v)
	}
	if c := counts["chunked-prefill-size"]; c != 0 || flags["chunked-prefill-size"] != "" {
		srv.ChunkedPrefill = c
		if c <= 0 {
			srv.ChunkedPrefill = -1
		}
		desc = append(desc, "--chunked-prefill-size "+flags["chunked-prefill-size"])
	}
	if n := counts["max-prefill-tokens"]; n > 0 {
		srv.MaxPrefillTokens = n
	}
	srv.CUDAGraphMaxBS = counts["cuda-graph-max-bs"]
	if n := counts["max-total-tokens"]; n > 0 {
		srv.MaxTotalTokens = n
		desc = append(desc, fmt.Sprintf("--max-total-tokens %d", n))
	}
	// The activations sized are those of one prefill chunk; where SGLang picks the chunk by the
	// GPU, the 8,192 tokens it runs on an 80 GB one (they lie outside the static share).
	switch {
	case srv.ChunkedPrefill > 0:
		p.Inference.MaxBatchedTokens = srv.ChunkedPrefill
	case srv.ChunkedPrefill < 0:
		p.Inference.MaxBatchedTokens = srv.MaxPrefillTokens
	default:
		p.Inference.MaxBatchedTokens = 8192
	}
	if dpAttention > 1 {
		// Each data-parallel attention rank prefills its share of the chunk.
		p.Inference.MaxBatchedTokens = max(1, p.Inference.MaxBatchedTokens/dpAttention)
	}
	return finishServed("SGLang", p, flags, quantized, desc)
}

// sglangNames are the SGLang flags FromSGLang reads, with the other names its argument parser
// takes for them (ServerArgs.add_cli_args).
var sglangNames = map[string][]string{
	"model-path":                   {"model"},
	"tp-size":                      {"tp", "tensor-parallel-size"},
	"dp-size":                      {"dp", "data-parallel-size"},
	"pp-size":                      {"pipeline-parallel-size"},
	"nnodes":                       nil,
	"context-length":               nil,
	"mem-fraction-static":          nil,
	"chunked-prefill-size":         nil,
	"max-prefill-tokens":           nil,
	"cuda-graph-max-bs":            nil,
	"quantization":                 nil,
	"dtype":                        nil,
	"kv-cache-dtype":               nil,
	"enable-lora":                  nil,
	"lora-paths":                   nil,
	"speculative-algorithm":        nil,
	"speculative-draft-model-path": {"speculative-draft-model"},
	"cpu-offload-gb":               nil,
	"enable-dp-attention":          nil,
	"enable-dp-lm-head":            nil,
	"moe-dense-tp-size":            nil,
	"max-total-tokens":             nil,
	"json-model-override-args":     nil,
}

// sglangFlags reads an SGLang command line: --name=value and --name value pairs, bare flags
// ("true"), by the names in sglangNames. Like Python's argparse, which SGLang's parser is, it
// takes a name's unambiguous prefix for it (--mem-frac for --mem-fraction-static), and a value
// that starts with a dash when it is a number (--chunked-prefill-size -1).
func sglangFlags(argv []string) map[string]string {
	var words []string
	for _, a := range argv {
		// A shell line (sh -c "python -m sglang.launch_server ...") is one argument.
		words = append(words, strings.Fields(a)...)
	}
	flags := map[string]string{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") {
			continue
		}
		name, value, hasValue := strings.Cut(w[2:], "=")
		if !hasValue {
			value = "true"
			if i+1 < len(words) && (!strings.HasPrefix(words[i+1], "-") || isNumber(words[i+1])) {
				value = words[i+1]
				i++
			}
		}
		if c, ok := sglangCanonical[name]; ok {
			flags[c] = strings.Trim(value, `"'`)
		} else if c := sglangPrefix(name); c != "" {
			flags[c] = strings.Trim(value, `"'`)
		}
	}
	return flags
}

// sglangCanonical maps every name sglangNames lists, aliases included, to the flag it names;
// built once.
var sglangCanonical = func() map[string]string {
	m := map[string]string{}
	for name, aliases := range sglangNames {
		m[name] = name
		for _, a := range aliases {
			m[a] = name
		}
	}
	return m
}()

// sglangPrefix is the flag an abbreviated name stands for, "" when it starts none of them or
// more than one.
func sglangPrefix(name string) string {
	found := ""
	for n, c := range sglangCanonical {
		if name == "" || !strings.HasPrefix(n, name) {
			continue
		}
		if found != "" && found != c {
			return ""
		}
		found = c
	}
	return found
}

// sglangOn says whether a flag is given and not turned off (0 or false).
func sglangOn(flags map[string]string, name string) bool {
	v, ok := flags[name]
	return ok && v != "0" && !strings.EqualFold(v, "false")
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// sglangInt reads a count SGLang's parser takes as a Python int; 0 when the flag is absent.
// Only --chunked-prefill-size may be negative (-1 turns chunked prefill off).
func sglangInt(flags map[string]string, name string) (int, error) {
	v, ok := flags[name]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
	if err != nil || n > maxCount || n < 0 && name != "chunked-prefill-size" {
		return 0, fmt.Errorf("SGLang's --%s %q is not a count", name, v)
	}
	return n, nil
}
