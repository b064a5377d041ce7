"""A real GPU workload for checking gpuguard on hardware: it trains (or serves) a randomly
initialised model on random tokens, in one of three shapes from the models' public Hub configs:
llama1b (meta-llama/Llama-3.2-1B: hidden 2048, 16 layers, 32 heads, 8 KV heads, MLP 8192,
vocabulary 128,256, tied embeddings), llama3b (meta-llama/Llama-3.2-3B: hidden 3072, 28 layers,
24 heads, 8 KV heads, MLP 8192, the same vocabulary, tied) or gpt2xl (openai-community/gpt2-xl:
hidden 1600, 48 layers, 25 heads, vocabulary 50,257, GELU MLP, dropout 0.1), or qwen1.5b
(Qwen/Qwen2.5-1.5B: hidden 1536, 28 layers, 12 heads, 2 KV heads, MLP 8960, vocabulary 151,936,
biases on q, k and v, tied embeddings), or two mixtures of experts: qwen3moe (Qwen/Qwen3-30B-A3B's
layer: hidden 2048, 32 heads of 128, 4 KV heads, experts of 768, 8 per token, vocabulary 151,936,
untied; with 24 of its 48 layers and 32 of its 128 experts, so that full training fits one GPU)
or deepseek-lite (deepseek-ai/DeepSeek-V2-Lite through Transformers' DeepSeek-V3 model:
hidden 2048, 27 layers, 16 heads, multi-head latent attention with kv_lora_rank 512, rotary
keys of 64, 64 experts of 1408, 6 per token, 2 shared, the first layer dense), or mixtral-mini
(mistralai/Mixtral-8x7B-v0.1's layer: hidden 4096, 32 heads, 8 KV heads, 8 experts of 14,336, 2
per token, vocabulary 32,000; 4 of its 32 layers), or qwen3-1.7b (Qwen/Qwen3-1.7B: hidden 2048,
28 layers, 16 heads of 128, 8 KV heads, q and k norms, MLP 6144, vocabulary 151,936, tied), or
gemma3-1b (google/gemma-3-1b-pt: hidden 1152, 26 layers, 4 heads of 256, 1 KV head, q and k
norms, four norms a layer, gated GELU MLP 6912, vocabulary 262,144, tied, five in six layers
windowed at 512), and writes PyTorch's own memory statistics as JSON so
that they can be set beside what `gpuguard profile capture` measured through NVML and what
`gpuguard fit` estimated. No weights are downloaded: nothing is fetched.

Run by scripts/gpu-check/run.sh on a GPU machine; it needs torch and transformers (and peft for
--method lora)."""
import argparse
import contextlib
import json
import os
import time

import torch
from transformers import (DeepseekV3Config, DeepseekV3ForCausalLM, Gemma3ForCausalLM, Gemma3TextConfig, GPT2Config,
                          GPT2LMHeadModel, LlamaConfig,
                          LlamaForCausalLM, MixtralConfig, MixtralForCausalLM, Qwen2Config, Qwen2ForCausalLM,
                          Qwen3Config, Qwen3ForCausalLM, Qwen3MoeConfig, Qwen3MoeForCausalLM)

SHAPES = {
    "llama1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32),
    "llama3b": dict(hidden_size=3072, intermediate_size=8192, num_hidden_layers=28, num_attention_heads=24),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=["llama1b", "llama3b", "gpt2xl", "qwen1.5b", "qwen3moe", "deepseek-lite", "mixtral-mini",
                                        "qwen3-1.7b", "gemma3-1b"], default="llama1b")
    ap.add_argument("--mode", choices=["train", "generate"], default="train")
    ap.add_argument("--method", choices=["full", "lora"], default="full")
    ap.add_argument("--pure-bf16", action="store_true", help="bf16 weights and Adam state, no fp32 master copy")
    ap.add_argument("--checkpointing", action="store_true")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--hold", type=float, default=0, help="seconds to stay alive after the work, memory still held")
    ap.add_argument("--lora-targets", choices=["attention", "all-linear"], default="all-linear")
    ap.add_argument("--sdpa", choices=["auto", "flash", "efficient", "math", "cudnn"], default="auto",
                    help="the only scaled-dot-product-attention kernel PyTorch may pick (auto: its own choice)")
    ap.add_argument("--saved", action="store_true",
                    help="in the last step, before backward, sum what the autograd graph saved, by the node that saved it")
    ap.add_argument("--gelu", choices=["config", "fused"], default="config",
                    help="gpt2xl's activation: the config's gelu_new (eight tensor operations) or one fused kernel "
                         "(gelu_pytorch_tanh, as many later GELU models use)")
    ap.add_argument("--no-cache", action="store_true",
                    help="use_cache off: no KV cache in training (Transformers fills one where the config turns it on)")
    ap.add_argument("--pad", type=int, default=0,
                    help="pad the last N positions of every sequence but the first (attention_mask 0, labels -100), "
                         "as a padding collator leaves a batch: every layer's attention then takes a mask")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.saved and a.checkpointing:  # reading a checkpointed node's saved tensors recomputes them
        ap.error("--saved cannot count a checkpointed run")
    if not 0 <= a.pad < a.seq or (a.pad and a.batch < 2):
        ap.error("--pad needs 0 <= N < --seq and a batch of two or more")

    if a.shape == "gpt2xl":
        cfg, build = GPT2Config(n_embd=1600, n_layer=48, n_head=25, vocab_size=50257, n_positions=1024), GPT2LMHeadModel
        if a.gelu == "fused":
            cfg.activation_function = "gelu_pytorch_tanh"
    elif a.shape == "qwen1.5b":
        cfg, build = Qwen2Config(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
                                 num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True,
                                 max_position_embeddings=32768, rope_theta=1000000.0), Qwen2ForCausalLM
    elif a.shape == "qwen3moe":
        cfg, build = Qwen3MoeConfig(hidden_size=2048, num_hidden_layers=24, num_attention_heads=32, num_key_value_heads=4,
                                    head_dim=128, moe_intermediate_size=768, num_experts=32, num_experts_per_tok=8,
                                    vocab_size=151936, tie_word_embeddings=False, max_position_embeddings=32768), Qwen3MoeForCausalLM
    elif a.shape == "mixtral-mini":
        cfg, build = MixtralConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=4, num_attention_heads=32,
                                   num_key_value_heads=8, num_local_experts=8, num_experts_per_tok=2, vocab_size=32000,
                                   tie_word_embeddings=False, max_position_embeddings=32768), MixtralForCausalLM
    elif a.shape == "qwen3-1.7b":
        cfg, build = Qwen3Config(hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16,
                                 num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True,
                                 max_position_embeddings=40960), Qwen3ForCausalLM
    elif a.shape == "gemma3-1b":
        cfg, build = Gemma3TextConfig(hidden_size=1152, intermediate_size=6912, num_hidden_layers=26, num_attention_heads=4,
                                      num_key_value_heads=1, head_dim=256, vocab_size=262144, sliding_window=512,
                                      query_pre_attn_scalar=256, tie_word_embeddings=True,
                                      max_position_embeddings=32768), Gemma3ForCausalLM
    elif a.shape == "deepseek-lite":
        cfg, build = DeepseekV3Config(hidden_size=2048, intermediate_size=10944, moe_intermediate_size=1408,
                                      num_hidden_layers=27, num_attention_heads=16, num_key_value_heads=16,
                                      n_shared_experts=2, n_routed_experts=64, num_experts_per_tok=6, n_group=1,
                                      topk_group=1, first_k_dense_replace=1, kv_lora_rank=512, q_lora_rank=None,
                                      qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128, vocab_size=102400,
                                      tie_word_embeddings=False, max_position_embeddings=32768), DeepseekV3ForCausalLM
    else:
        cfg, build = LlamaConfig(num_key_value_heads=8, vocab_size=128256, tie_word_embeddings=True,
                                 max_position_embeddings=131072, **SHAPES[a.shape]), LlamaForCausalLM
    cfg._attn_implementation = "sdpa"
    if a.no_cache:
        cfg.use_cache = False
    torch.manual_seed(0)
    dev = torch.device("cuda")
    t0 = time.time()
    bf16 = a.mode == "generate" or a.pure_bf16 or a.method == "lora"
    if bf16:  # built in place on the GPU, in its final dtype, so no larger copy passes through
        torch.set_default_dtype(torch.bfloat16)
    with dev:
        model = build(cfg)  # full: fp32 master weights; autocast computes in bf16
    torch.set_default_dtype(torch.float32)
    model = model.to(torch.bfloat16 if bf16 else torch.float32)
    result_dtype = str(next(model.parameters()).dtype)
    params = sum(p.numel() for p in model.parameters())
    result = {"shape": a.shape, "parameters": params, "mode": a.mode, "method": a.method, "pure_bf16": a.pure_bf16,
              "checkpointing": a.checkpointing, "batch": a.batch, "seq": a.seq,
              "gpu": torch.cuda.get_device_name(0), "dtype": result_dtype, "torch": torch.__version__,
              "experts_implementation": str(getattr(model.config, "_experts_implementation", None))}

    if a.mode == "generate":
        model.eval()
        ids = torch.randint(0, cfg.vocab_size, (a.batch, a.seq - a.new_tokens), device=dev)
        with torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=a.new_tokens,
                                 min_new_tokens=a.new_tokens, do_sample=False, return_dict_in_generate=True)
        result["generated_tokens"] = int(out.sequences.shape[1] - ids.shape[1])
        # What the cache kept: every tensor its layers hold, and the first layer's shapes.
        seen, cache_bytes, shapes = set(), 0, []
        for i, layer in enumerate(getattr(out.past_key_values, "layers", [])):
            for name, v in vars(layer).items():
                if torch.is_tensor(v) and v.data_ptr() not in seen:
                    seen.add(v.data_ptr())
                    cache_bytes += v.numel() * v.element_size()
                    if i == 0:
                        shapes.append([name, list(v.shape), str(v.dtype)])
        result["cache_bytes"], result["cache_layer0"] = cache_bytes, shapes
    else:
        if a.method == "lora":
            from peft import LoraConfig, get_peft_model
            targets = ["q_proj", "k_proj", "v_proj", "o_proj"]
            if a.lora_targets == "all-linear":
                targets += ["gate_proj", "up_proj", "down_proj"]
            if a.shape == "gpt2xl":  # GPT-2's fused QKV (c_attn) and output projection; its MLP's c_fc and c_proj
                targets = r".*\.attn\.(c_attn|c_proj)" if a.lora_targets == "attention" else ["c_attn", "c_proj", "c_fc"]
            model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=targets))
            result["trainable_parameters"] = sum(p.numel() for p in model.parameters() if p.requires_grad)
        if a.checkpointing:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if a.method == "lora":
                model.enable_input_require_grads()
        model.train()
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5, fused=True)
        for step in range(a.steps):
            ids = torch.randint(0, cfg.vocab_size, (a.batch, a.seq), device=dev)
            mask, labels = None, ids
            if a.pad:
                mask = torch.ones_like(ids)
                mask[1:, -a.pad:] = 0
                labels = ids.masked_fill(mask == 0, -100)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not a.pure_bf16 and a.method == "full"), \
                    attention_kernel(a.sdpa):
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            if step == a.steps - 1:  # weights, optimizer state and what the forward pass kept
                result["allocated_before_backward_mib"] = torch.cuda.memory_allocated() // 2**20
                if a.saved:
                    result["saved_mib_by_node"], result["saved_tensors"] = saved_by_node(loss, model.parameters())
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        result["loss"] = float(loss.detach())
    torch.cuda.synchronize()
    result["seconds"] = round(time.time() - t0, 2)
    result["max_allocated_mib"] = torch.cuda.max_memory_allocated() // 2**20
    result["max_reserved_mib"] = torch.cuda.max_memory_reserved() // 2**20
    # expandable_segments:True maps memory into one growing segment instead of caching blocks
    # (PyTorch 2.9 and later read PYTORCH_ALLOC_CONF first, then the older name)
    result["alloc_conf"] = os.environ.get("PYTORCH_ALLOC_CONF") or os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    result["sdpa"] = a.sdpa
    result["pad"] = a.pad
    result["use_cache"] = getattr(cfg, "use_cache", None)
    result["activation"] = getattr(cfg, "activation_function", getattr(cfg, "hidden_act", None))
    free, total = torch.cuda.mem_get_info()
    result["device_used_mib_at_end"] = (total - free) // 2**20
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))
    if a.hold:
        time.sleep(a.hold)


def attention_kernel(name):
    """The context that limits scaled_dot_product_attention to one kernel, or none for auto."""
    if name == "auto":
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel({"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
                        "math": SDPBackend.MATH, "cudnn": SDPBackend.CUDNN_ATTENTION}[name])


def saved_by_node(loss, params):
    """MiB the autograd graph behind loss saved for backward, by the type of the node that saved
    each tensor (ScaledDotProductFlashAttentionForCudaBackward0 names the attention kernel that
    ran). A storage is counted once, at the first node met that holds it; parameters' storages
    are left out (autocast's 16-bit copies of them are not, and count under the matmuls).
    Also returns the sixty largest groups of the tensors saved, by node, attribute, dtype and
    shape ("view of N MiB" where the tensor is part of a larger storage, "shared" where its
    storage was counted at another node), with how many and their MiB."""
    seen = {p.untyped_storage().data_ptr() for p in params}
    by, detail, visited, stack = {}, {}, set(), [loss.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in visited:
            continue
        visited.add(fn)
        for name in dir(fn):
            if not name.startswith("_saved_"):
                continue
            try:
                v = getattr(fn, name)
            except RuntimeError:  # freed or not a tensor this node kept
                continue
            for t in v if isinstance(v, (tuple, list)) else (v,):
                if torch.is_tensor(t) and t.device.type == "cuda":
                    st = t.untyped_storage()
                    key = f"{type(fn).__name__}.{name[len('_saved_'):]} {str(t.dtype)[6:]} {list(t.shape)}"
                    if st.data_ptr() in seen:  # a storage counted already: shown with no MiB
                        n, b = detail.get(key + " shared", (0, 0))
                        detail[key + " shared"] = (n + 1, b)
                    else:
                        seen.add(st.data_ptr())
                        by[type(fn).__name__] = by.get(type(fn).__name__, 0) + st.nbytes()
                        own = t.numel() * t.element_size()
                        if st.nbytes() != own:
                            key += f" view of {st.nbytes() / 2**20:.1f} MiB"
                        n, b = detail.get(key, (0, 0))
                        detail[key] = (n + 1, b + st.nbytes())
        stack.extend(f for f, _ in fn.next_functions)
    top = sorted(detail.items(), key=lambda kv: (-kv[1][1], -kv[1][0]))[:60]
    return ({k: round(b / 2**20, 1) for k, b in sorted(by.items(), key=lambda kv: -kv[1])},
            [[k, n, round(b / 2**20, 1)] for k, (n, b) in top])


if __name__ == "__main__":
    main()
