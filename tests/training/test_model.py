"""The tiny transformer's attention against torch's own scaled-dot-product attention (the oracle)."""

import pytest

torch = pytest.importorskip("torch")

from explorer.core.training import TrainConfig, build_model  # noqa: E402

from numeric import assert_close  # noqa: E402


def test_each_layer_matches_sdpa_and_returns_causal_row_stochastic_weights():
    config = TrainConfig(n_layers=2, n_heads=4, d_model=32, vocab=16, seq_len=12, seed=3)
    model = build_model(config).eval()
    tokens = torch.randint(0, 16, (3, 12), generator=torch.Generator().manual_seed(0))  # (B, T)
    with torch.no_grad():
        logits, attentions = model(tokens)
        assert logits.shape == (3, 12, 16)
        x = model.embed.weight[tokens] + model.pos.weight[:12]  # (B, T, d) the plain lookup
        for layer, attn in zip(model.layers, attentions):
            assert attn.shape == (3, 4, 12, 12)
            # the softmax's normaliser and this sum: T = 12 terms each
            assert_close(attn.sum(-1), torch.ones(3, 4, 12), reduction=2 * 12, scale=1.0)
            assert attn.triu(diagonal=1).abs().max() == 0  # causal: no look ahead
            q, k, v = (m.view(3, 12, 4, 8).transpose(1, 2) for m in layer.qkv(x).split(32, -1))
            expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            # the same q, k, v: q·k (d_head 8), the softmax and weights @ V (T = 12 each); the
            # error scales with the scores' size times the values'
            scores = (q @ k.transpose(-2, -1)).abs().max().item() / 8 ** 0.5
            assert_close(attn @ v, expected, reduction=8 + 2 * 12,
                         scale=max(1.0, scores) * max(1.0, expected.abs().max().item()))
            update, _ = layer(x)
            x = x + update
        assert_close(model.unembed(x), logits, reduction=32)  # the same x: one d_model-term product


def test_the_same_seed_builds_the_same_weights_whatever_torch_drew_before():
    a = build_model(TrainConfig(seed=11)).state_dict()
    torch.manual_seed(123)
    torch.rand(1000)  # the global generator moves; the model's own does not
    b = build_model(TrainConfig(seed=11)).state_dict()
    c = build_model(TrainConfig(seed=12)).state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["embed.weight"], c["embed.weight"])
