package estimator

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

// An SGLang server is judged by SGLang's rules: the weights and one context's KV cache against
// its static share of the GPU. Worked by hand for Llama 3.1 8B (8,030,261,248 parameters in
// bf16: 16,060,522,496 bytes of weights; 2·32 layers·8 KV heads·128·2 bytes = 131,072 bytes of
// KV cache a token) on an L4 (23,034 MiB = 24,152,899,584 bytes, less the 287,047,680-byte CUDA
// context: 23,865,851,904 bytes free):
//   - SGLang's own share, 0.837: 19,975,718,043 bytes. The weights leave 3,915,195,547 bytes,
//     29,870 tokens: the model's 131,072-token context does not fit, but SGLang starts (tight).
//   - at 8,192 tokens the weights and KV cache take 17,134,264,320 bytes, under 90% of the share
//     (17,978,146,239): fits; at 16,384, 18,208,006,144: within the share, over 90%: tight.
//   - --mem-fraction-static 0.7: 16,706,096,332 bytes, 645,573,836 left by the weights, 4,925
//     tokens, under the 8,192 asked: tight.
//   - --mem-fraction-static 0.6: 14,319,511,142 bytes, less than the weights: SGLang stops.
//   - --mem-fraction-static 0.674: 16,085,584,183 bytes, 25,061,687 left by the weights, 191
//     tokens: too few to serve a prompt, which is no fit.
//   - --max-total-tokens caps the pool: 4,096 under an 8,192 context is tight; 65,536 is more
//     than the 29,870 the share holds, so the share decides.
func TestSGLangVerdicts(t *testing.T) {
	l4 := gpuTarget{name: "NVIDIA L4", usableBytes: 23034 * memory.MiB, gpus: 1}
	two := l4
	two.gpus = 2
	shared := l4
	shared.timeSliced = 2
	const llama = "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
	cases := []struct {
		name, args string
		t          gpuTarget
		verdict    string
		reason     string
	}{
		{"the model's whole context", "", l4, VerdictTight, "the weights leave 3.6 GiB of SGLang's static share of NVIDIA L4 (0.837 of the 22.2 GiB free once the CUDA context is up: 18.6 GiB) for KV cache, about 29870 tokens, fewer than the 131072 of one full context: SGLang starts and refuses longer prompts (an estimate; set --context-length 29696 or less"},
		{"8k", " --context-length 8192", l4, VerdictFits, ""},
		{"16k", " --context-length 16384", l4, VerdictTight, "the weights and one full context's KV cache take 91% of SGLang's static share of NVIDIA L4"},
		{"a smaller share", " --context-length 8192 --mem-fraction-static 0.7", l4, VerdictTight, "about 4925 tokens, fewer than the 8192 of one full context"},
		{"a share the weights overflow", " --context-length 8192 --mem-fraction-static 0.6", l4, VerdictDoesNotFit, "the weights take 15.0 GiB per GPU, all of SGLang's static share of NVIDIA L4 (0.600 of the 22.2 GiB free once the CUDA context is up: 13.3 GiB): no room is left for KV cache, and SGLang stops at start"},
		{"a pool capped under the context", " --context-length 8192 --max-total-tokens 4096", l4, VerdictTight, "--max-total-tokens caps SGLang's KV cache pool at 4096 tokens, fewer than the 8192 of one full context"},
		{"a cap over what the share holds", " --max-total-tokens 65536", l4, VerdictTight, "about 29870 tokens, fewer than the 131072"},
		{"a cap over the context", " --context-length 8192 --max-total-tokens 100000", l4, VerdictFits, ""},
		{"a pool of a few tokens", " --context-length 8192 --mem-fraction-static 0.674", l4, VerdictDoesNotFit, "leaving room for 191 tokens of KV cache: SGLang starts with a pool too small to serve a prompt"},
		{"two GPUs for one", " --context-length 8192", two, VerdictOversized, "uses 1 of the 2 GPUs"},
		{"a time-sliced GPU", " --context-length 8192", shared, VerdictTight, "2 pods time-slice each GPU"},
		{"more GPUs than given", " --context-length 8192 --tp 2", l4, VerdictDoesNotFit, "the workload spans 2 GPUs"},
	}
	for _, c := range cases {
		p, why := profiles.FromSGLang(strings.Fields(llama + c.args))
		if p == nil {
			t.Fatalf("%s: %s", c.name, why)
		}
		mem, err := memory.Of(p)
		if err != nil {
			t.Fatal(err)
		}
		f := judge(mem, c.t, nil, DefaultThresholds)
		if f.Verdict != c.verdict || !strings.Contains(f.Reason, c.reason) {
			t.Errorf("%s: %s, %q; want %s, %q", c.name, f.Verdict, f.Reason, c.verdict, c.reason)
		}
		// The need reported is the whole estimate, activations and margins included.
		if f.RequiredGiBPerGPU == nil || *f.RequiredGiBPerGPU != round2(mem.PerGPUBytes/memory.GiB) {
			t.Errorf("%s: required %v, want %.2f", c.name, f.RequiredGiBPerGPU, mem.PerGPUBytes/memory.GiB)
		}
		// A GPU holds it with headroom exactly when it fits there, but for a pool capped by
		// hand, which no GPU lengthens.
		capped := mem.SGLang.MaxTotalTokens > 0 && mem.SGLang.MaxTotalTokens < mem.KVTokens
		if holds := holdsWithHeadroom(mem, c.t, DefaultThresholds); holds != (f.Verdict == VerdictFits || f.Verdict == VerdictOversized) && c.t.timeSliced == 0 && mem.GPUs <= int(c.t.gpus) && !capped {
			t.Errorf("%s: holds with headroom %v, verdict %s", c.name, holds, f.Verdict)
		}
	}
}

// Assessed on a priced node, an inferred server's verdict says what it was sized from and no
// smaller instance is suggested; where no GPU is known, nothing was judged, and the reason says
// only why (not what it would have been sized for).
func TestInferredServerAssessment(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	node := parser.Resource{Address: "Deployment/ml/chat", Provider: "aws", Region: "us-east-1", InstanceType: "g6.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes}
	unknown := node
	unknown.InstanceType = "x9.nothing"
	sglang, _ := profiles.FromSGLang(strings.Fields("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"))
	vllm, _ := profiles.FromVLLM(strings.Fields("vllm serve meta-llama/Llama-3.1-8B-Instruct"))
	for _, c := range []struct {
		name    string
		prof    *profiles.Profile
		r       parser.Resource
		verdict string
	}{
		{"SGLang on an L4", sglang, node, VerdictTight},
		{"vLLM on an L4", vllm, node, VerdictDoesNotFit},
		{"SGLang on no known GPU", sglang, unknown, VerdictUnknown},
		{"vLLM on no known GPU", vllm, unknown, VerdictUnknown},
	} {
		if c.prof == nil {
			t.Fatalf("%s: no profile", c.name)
		}
		e := p.Estimate(c.r)
		p.Assess(&e, c.r, c.prof, DefaultThresholds)
		f := e.Fit
		sized := strings.Contains(f.Reason, "sized, with no profile attached")
		if f.Verdict != c.verdict || !strings.HasPrefix(f.InferredFrom, c.prof.Inferred) || sized != (c.verdict != VerdictUnknown) {
			t.Errorf("%s: %s, inferred from %q, reason %q", c.name, f.Verdict, f.InferredFrom, f.Reason)
		}
		for _, rec := range e.Recommendations {
			if rec.Kind == RecSmallerInstance || rec.Kind == RecMIG {
				t.Errorf("%s: recommends %s %s", c.name, rec.Kind, rec.InstanceType)
			}
		}
	}
}

// A data-parallel vLLM server needs every engine's GPUs in its pod: four engines of two GPUs do
// not fit a pod of four L4s, and fill a pod of eight (which is then not oversized).
func TestDataParallelServerNeedsEveryEnginesGPUs(t *testing.T) {
	prof, why := profiles.FromVLLM(strings.Fields("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 -dp 4 -tp 2"))
	if prof == nil {
		t.Fatal(why)
	}
	mem, err := memory.Of(prof)
	if err != nil {
		t.Fatal(err)
	}
	if mem.GPUs != 8 || mem.TensorParallel != 2 {
		t.Fatalf("%d GPUs, tensor parallel %d; want 8 and 2", mem.GPUs, mem.TensorParallel)
	}
	for _, c := range []struct {
		gpus    float64
		verdict string
	}{{4, VerdictDoesNotFit}, {8, VerdictFits}} {
		f := judge(mem, gpuTarget{name: "NVIDIA L4", usableBytes: 23034 * memory.MiB, gpus: c.gpus}, nil, DefaultThresholds)
		if f.Verdict != c.verdict {
			t.Errorf("on %g GPUs: %s (%s), want %s", c.gpus, f.Verdict, f.Reason, c.verdict)
		}
	}
}

// SGLang's MiniMax-M2 guide (docs/basic_usage/minimax_m2.md in sgl-project/sglang) serves it at
// --mem-fraction-static 0.85 on 4 GPUs of 96 GB for contexts up to 400K tokens, and with
// --ep-size 8 on 8 GPUs of 144 GB for up to 3M. Read "GB" as 10⁹ bytes or as GiB, the estimate's
// pool brackets each figure (375K and 470K tokens; 2.94M and 3.22M), and the guide's context
// starts on the GiB reading. Weights counted at two bytes, or the KV cache at the whole 8 KV
// heads a GPU, would leave the pool far under the guide's.
func TestSGLangMiniMaxM2Guide(t *testing.T) {
	pooled := regexp.MustCompile(`about (\d+) tokens`)
	const launch = "python -m sglang.launch_server --model-path MiniMaxAI/MiniMax-M2 --trust-remote-code --mem-fraction-static 0.85 "
	for _, c := range []struct {
		args   string
		gpus   float64
		gb     float64
		tokens int
	}{
		{"--tp-size 4", 4, 96, 400000},
		{"--tp-size 8 --ep-size 8", 8, 144, 3000000},
	} {
		judged := func(bytes float64, context int) *Fit {
			t.Helper()
			p, why := profiles.FromSGLang(strings.Fields(launch + c.args + " --context-length " + strconv.Itoa(context)))
			if p == nil {
				t.Fatal(why)
			}
			mem, err := memory.Of(p)
			if err != nil {
				t.Fatal(err)
			}
			return judge(mem, gpuTarget{name: "the guide's GPU", usableBytes: bytes, gpus: c.gpus}, nil, DefaultThresholds)
		}
		pool := func(bytes float64) int {
			t.Helper()
			f := judged(bytes, 10*c.tokens)
			m := pooled.FindStringSubmatch(f.Reason)
			if m == nil {
				t.Fatalf("%s on %.0f bytes: no pool in %q", c.args, bytes, f.Reason)
			}
			n, _ := strconv.Atoi(m[1])
			return n
		}
		low, high := pool(c.gb*1e9), pool(c.gb*memory.GiB)
		if low > c.tokens || high < c.tokens || float64(high) > 1.2*float64(c.tokens) {
			t.Errorf("%s on %g GB GPUs: a pool of %d to %d tokens, the guide's %d not within it or far under it", c.args, c.gb, low, high, c.tokens)
		}
		if f := judged(c.gb*memory.GiB, c.tokens); f.Verdict == VerdictDoesNotFit {
			t.Errorf("%s on %g GiB GPUs at the guide's %d tokens: %s (%s)", c.args, c.gb, c.tokens, f.Verdict, f.Reason)
		}
	}
}

// Z.ai's GLM-4.5 README: in BF16 on eight H100s, vLLM needs --cpu-offload-gb 16 to start, and
// its FP8 checkpoint runs on eight. By the estimate, the BF16 weights alone are 88.3 GB a GPU,
// more than an H100's 85.5 GB, and the FP8 checkpoint with its whole 131,072-token context fits.
func TestGLM45OnEightH100s(t *testing.T) {
	h100 := gpuTarget{name: "8×H100", usableBytes: 81559 * memory.MiB, gpus: 8}
	for _, c := range []struct {
		model, verdict string
	}{
		{"zai-org/GLM-4.5", VerdictDoesNotFit},
		{"zai-org/GLM-4.5-FP8", VerdictFits},
	} {
		p, why := profiles.FromVLLM(strings.Fields("vllm serve " + c.model + " --tensor-parallel-size 8 --tool-call-parser glm45 --reasoning-parser glm45 --enable-auto-tool-choice"))
		if p == nil {
			t.Fatal(why)
		}
		mem, err := memory.Of(p)
		if err != nil {
			t.Fatal(err)
		}
		if f := judge(mem, h100, nil, DefaultThresholds); f.Verdict != c.verdict {
			t.Errorf("%s on 8×H100: %s (%s), want %s", c.model, f.Verdict, f.Reason, c.verdict)
		}
	}
}

// vLLM's GLM-4.5 recipe (recipes.vllm.ai/zai-org/GLM-4.5) serves the FP8 checkpoint with MTP
// speculative decoding at --tensor-parallel-size 4 and asks for 4 to 8 H200s for FP8: with the
// draft's layer, eh_proj and head and the 93rd layer of KV cache, the full context still starts
// on four H200s (143,771 MiB as nvidia-smi reports them), and not on four H100s. The draft makes
// it tighter, not looser.
func TestGLM45FP8RecipeWithMTP(t *testing.T) {
	const line = "vllm serve zai-org/GLM-4.5-FP8 --tensor-parallel-size 4 --speculative-config.method mtp --speculative-config.num_speculative_tokens 1 --tool-call-parser glm45 --reasoning-parser glm45 --enable-auto-tool-choice"
	estimate := func(line string) *memory.Estimate {
		t.Helper()
		p, why := profiles.FromVLLM(strings.Fields(line))
		if p == nil {
			t.Fatal(why)
		}
		mem, err := memory.Of(p)
		if err != nil {
			t.Fatal(err)
		}
		return mem
	}
	mtp, plain := estimate(line), estimate(strings.Replace(line, "--speculative-config.method mtp --speculative-config.num_speculative_tokens 1 ", "", 1))
	if d := (mtp.PerGPUBytes - plain.PerGPUBytes) / memory.GiB; d < 1 || d > 2 {
		t.Errorf("the MTP draft adds %.2f GiB a GPU, want 1-2 (about 1 GB of layer, eh_proj and head, 0.1 GiB of KV cache, the margin)", d)
	}
	h200 := gpuTarget{name: "4×H200", usableBytes: 143771 * memory.MiB, gpus: 4}
	h100 := gpuTarget{name: "4×H100", usableBytes: 81559 * memory.MiB, gpus: 4}
	if f := judge(mtp, h200, nil, DefaultThresholds); f.Verdict != VerdictFits {
		t.Errorf("the recipe's command on 4×H200: %s (%s)", f.Verdict, f.Reason)
	}
	if f := judge(mtp, h100, nil, DefaultThresholds); f.Verdict != VerdictDoesNotFit {
		t.Errorf("the recipe's command on 4×H100: %s (%s)", f.Verdict, f.Reason)
	}
}
