package memory

import (
	"math"
	"testing"

	"github.com/gpuguard/gpuguard/profiles"
)

// Any profile that validates gets an estimate or an error: never a panic, a NaN, an infinity or
// a negative term.
func FuzzEstimate(f *testing.F) {
	const head = "apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata: {name: x}\n"
	f.Add([]byte(head + "workload: {type: training}\n" + llama1B + "training: {method: lora, lora_targets: all-linear, activation_checkpointing: true, micro_batch_size: 2, sequence_length: 64}\n"))
	f.Add([]byte(head + "workload: {type: training}\nmodel: {preset: mixtral-8x7b, precision: bf16}\ntraining: {method: full, zero_stage: 3, data_parallel: 8, tensor_parallel: 2, sequence_parallel: true, micro_batch_size: 1, sequence_length: 4096}\n"))
	f.Add([]byte(head + "workload: {type: inference}\nmodel: {preset: llama-3.1-8b, precision: int4}\ninference: {batch_size: 8, max_sequence_length: 8192, max_batched_tokens: 2048}\n"))
	f.Add([]byte(head + "workload: {type: inference}\nmodel: {parameters: 1.5e10, layers: 27, hidden_size: 2048, attention_heads: 16, vocab_size: 102400, intermediate_size: 1408, mlp: swiglu, experts: 64, experts_per_token: 6, shared_experts: 2, kv_lora_rank: 512, qk_rope_head_dim: 64}\ninference: {batch_size: 4, max_sequence_length: 32768, tensor_parallel: 2, gpu_memory_utilization: 0.9}\n"))
	f.Add([]byte(head + "workload: {type: inference}\nmodel: {preset: deepseek-v3, precision: int4, q_lora_rank: 3072, dense_layers: 60}\ninference: {batch_size: 1, max_sequence_length: 4096, tensor_parallel: 8}\n"))
	f.Add([]byte(head + "workload: {type: inference}\nmodel: {preset: deepseek-v3.2, index_head_dim: 3}\ninference: {batch_size: 2, max_sequence_length: 4096, tensor_parallel: 8, gpu_memory_utilization: 0.9, kv_cache_precision: fp8}\n"))
	f.Add([]byte(head + "workload: {type: inference}\nmodel: {preset: qwen3-30b-a3b, qk_norm: true, dense_layers: 99}\ninference: {batch_size: 3, max_sequence_length: 5000, tensor_parallel: 2}\nruntime: {fragmentation: 0}\n"))
	f.Add([]byte(head + "workload: {type: training}\nmodel: {preset: qwen3-8b, head_dim: 7}\ntraining: {method: lora, lora_targets: attention, micro_batch_size: 2, sequence_length: 128}\n"))
	f.Add([]byte(head + "workload: {type: training}\nmodel: {preset: gpt2, mlp: gelu_new, intermediate_size: 0, precision: fp16}\ntraining: {method: full, optimizer: adamw, micro_batch_size: 4, sequence_length: 1024, activation_checkpointing: true}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := profiles.Parse(data, "fuzz.yaml")
		if err != nil {
			return
		}
		e, err := Of(p)
		if err != nil {
			return
		}
		for _, term := range e.Terms {
			if math.IsNaN(term.Bytes) || math.IsInf(term.Bytes, 0) || term.Bytes < 0 {
				t.Fatalf("term %q is %v for %q", term.Name, term.Bytes, data)
			}
		}
		if math.IsNaN(e.PerGPUBytes) || e.PerGPUBytes <= 0 {
			t.Fatalf("per-GPU %v for %q", e.PerGPUBytes, data)
		}
	})
}
