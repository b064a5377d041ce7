"""Checks on a GPU what Transformers' generate() keeps of the KV cache in the layers of a model
that interleaves sliding-window and full attention, which gpuguard sizes as the window's tokens
in those layers and the whole sequence in the others (docs/memory-model.md, KV cache). Builds
small randomly initialised Gemma 2 and gpt-oss models (nothing is downloaded), generates, and
prints, per layer, the cache's class and the tokens its keys hold, and the cache's bytes against
gpuguard's formula: 2 · kv_heads · head_dim · batch · 2 bytes · Σ over layers of
min(window, sequence) for windowed layers and the sequence for the others.

Run on a GPU machine, `python3 scripts/gpu-check/window.py OUT.json`; needs torch and
transformers."""
import json
import sys

import torch
import transformers


def check(name, cfg, build, batch, prompt, new):
    torch.manual_seed(0)
    dev = torch.device("cuda")
    torch.set_default_dtype(torch.bfloat16)
    with dev:
        model = build(cfg).eval()
    torch.set_default_dtype(torch.float32)
    ids = torch.randint(0, cfg.vocab_size, (batch, prompt), device=dev)
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new, min_new_tokens=new,
                             do_sample=False, return_dict_in_generate=True)
    cache = out.past_key_values
    layers = []
    held = 0
    for i, layer in enumerate(cache.layers):
        k, v = layer.keys, layer.values
        held += k.numel() * k.element_size() + v.numel() * v.element_size()
        layers.append({"layer": i, "class": type(layer).__name__, "tokens": int(k.shape[-2]), "type": cfg.layer_types[i]})
    seq = prompt + new - 1  # the last token generated is never fed back
    hd = cfg.head_dim
    windowed = sum(1 for t in cfg.layer_types if t == "sliding_attention")
    full = cfg.num_hidden_layers - windowed
    formula = 2 * cfg.num_key_value_heads * hd * batch * 2 * (full * seq + windowed * min(cfg.sliding_window, seq))
    whole = 2 * cfg.num_key_value_heads * hd * batch * 2 * cfg.num_hidden_layers * seq
    r = {"model": name, "transformers": transformers.__version__, "batch": batch, "sequence": seq,
         "sliding_window": cfg.sliding_window, "windowed_layers": windowed, "cache_bytes": held,
         "formula_bytes": formula, "every_layer_whole_bytes": whole, "layers": layers}
    print(json.dumps(r))
    del model, out, cache
    torch.cuda.empty_cache()
    return r


def main():
    results = []
    for name, make in [
        ("gemma2", lambda: (transformers.Gemma2Config(hidden_size=512, intermediate_size=1024, num_hidden_layers=6,
                                                      num_attention_heads=4, num_key_value_heads=2, head_dim=128,
                                                      vocab_size=1024, sliding_window=256, max_position_embeddings=8192),
                            transformers.Gemma2ForCausalLM)),
        ("gpt-oss", lambda: (transformers.GptOssConfig(hidden_size=256, intermediate_size=256, num_hidden_layers=6,
                                                       num_attention_heads=4, num_key_value_heads=2, head_dim=64,
                                                       num_local_experts=4, num_experts_per_tok=2, vocab_size=1024,
                                                       sliding_window=128, max_position_embeddings=8192),
                             transformers.GptOssForCausalLM)),
    ]:
        try:
            cfg, build = make()
            cfg._attn_implementation = "sdpa" if name == "gemma2" else "eager"
            results.append(check(name, cfg, build, batch=4, prompt=1000, new=25))
        except Exception as e:  # report and go on to the next model
            results.append({"model": name, "error": repr(e)})
            print(json.dumps(results[-1]))
    with open(sys.argv[1], "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
