"""Generation's compact step (issue 26): a decoder's matrices packed in 4 or 8 bits, read once a token.

    packing.py   Packed, pack(weight, bias): the kinds and the one CPU kernel; packed_is_faster()
    stepping.py  compact_model(weights) (made at the first compact generation, then kept),
                 step(model, cache, token, head_mask): SmolLM2's and every own native decoder's

core/learned/generation.run_generation(..., precision="compact" | "auto") is where they are used.
"""
