#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Export graphs of real model work for tas-bench (bench/graphs/*.tasg).

The tracing, costing, fusing and layouts are the tas Python module's
(userspace/tas-py/python/tas/capture.py, which says how operations are
costed and fused); the .tasg format is tas.dag's. This program builds the
models from their configurations on PyTorch's meta device and writes:

  gpt2-dp-train     GPT-2 small, a training step on two data-parallel
                    replicas (one compute ring each), the gradients
                    all-reduced in DDP's 25 MB buckets on the comm ring as the
                    backward pass produces them, then Adam on each replica.
  resnet18-dp-train ResNet-18 the same way.
  gpt2-tp-fwd       GPT-2 small forward, tensor parallel over two compute
                    rings (Megatron: attention heads and MLP columns split,
                    an all-reduce after each row-parallel projection).
  inception-fwd     Inception v3 forward (a branchy CNN) on two compute
                    rings, each node on the ring where it can finish first,
                    as a framework with two streams would place it.
  mixtral-ep-fwd    A Mixtral forward pass (4 decoder layers of 8 experts,
                    top-2) on two devices, expert parallel: each compute ring
                    runs attention for its own tokens and holds 4 experts;
                    the tokens go to their experts and back in all-to-alls on
                    the comm ring. Two micro-batches per device, so that one
                    micro-batch's attention overlaps the other's all-to-all.

Rings: 0 and 1 compute, 2 copy (host to device), 3 communication.

Needs PyTorch, torchvision, transformers and the tas module
(tools/export-graphs.sh installs them in a virtual environment of its own
for make export-graphs, and for make check, which exports the graphs again
and compares them with bench/graphs); tas-bench does not.

  tools/export-graphs.py OUTDIR
"""

import os
import sys

import torch

from tas import capture


def write(g, path):
    g.save(path, f"{g.name}: exported by tools/export-graphs.py (torch "
           f"{torch.__version__.split('+')[0]}); see its header.")
    print(f"{path}: {len(g)} nodes, {len(g.edges())} edges, "
          f"{g.work_ns() / 1e6:.1f} ms of work")


def main(out):
    from transformers import (GPT2Config, GPT2LMHeadModel, MixtralConfig,
                              MixtralForCausalLM, masking_utils)
    import torchvision

    # Without an attention mask, transformers looks for packed sequences in
    # the position ids, which reads their values; ours are one sequence per
    # row, and meta tensors have no values.
    masking_utils.find_packed_sequence_indices = lambda *args, **kw: None

    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    with torch.device("meta"):
        gpt2 = GPT2LMHeadModel(GPT2Config(attn_implementation="sdpa"))
        gpt2.config.use_cache = False
        ids = torch.zeros(4, 512, dtype=torch.long)
        resnet = torchvision.models.resnet18(num_classes=1000)
        images = torch.zeros(32, 3, 224, 224)
        inception = torchvision.models.inception_v3(
            weights=None, aux_logits=False, init_weights=False).eval()
        image = torch.zeros(16, 3, 299, 299)
        mixtral = MixtralForCausalLM(MixtralConfig(
            vocab_size=32000, hidden_size=1024, intermediate_size=3584,
            num_hidden_layers=4, num_attention_heads=16,
            num_key_value_heads=8, num_local_experts=8,
            num_experts_per_tok=2, attn_implementation="sdpa")).eval()
        mixtral.config.use_cache = False
        tokens = torch.zeros(2, 512, dtype=torch.long)

    def lm_loss(m, x):
        return m(input_ids=x, labels=x).loss

    def cls_loss(m, x):
        return m(x).sum()

    gpt2.train()
    write(capture.data_parallel("gpt2-dp-train", gpt2, ids, lm_loss),
          f"{out}/gpt2-dp-train.tasg")
    resnet.train()
    write(capture.data_parallel("resnet18-dp-train", resnet, images, cls_loss),
          f"{out}/resnet18-dp-train.tasg")
    gpt2.eval()
    write(capture.tensor_parallel("gpt2-tp-fwd", gpt2, ids), f"{out}/gpt2-tp-fwd.tasg")
    write(capture.streams("inception-fwd", inception, image),
          f"{out}/inception-fwd.tasg")
    write(capture.expert_parallel("mixtral-ep-fwd", mixtral, tokens),
          f"{out}/mixtral-ep-fwd.tasg")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
