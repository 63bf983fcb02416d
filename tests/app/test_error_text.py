"""Core's ConfigErrors stay English (the CLI prints them) and keep their template and parameters,
so the app layer shows them in the UI's language (app.i18n.error_text), without Qt."""

from __future__ import annotations

import pytest

from explorer.app.i18n import catalog, error_text
from explorer.core import AttentionConfig, ConfigError, validate
from explorer.core.config import parse_whole
from explorer.core.topics.cross import CrossConfig, validate_cross
from explorer.core.topics.encoder import EncoderConfig, validate_encoder


def refusal(call) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        call()
    return caught.value


CASES = [  # (the English message, as the CLI prints it; the Korean UI's)
    (lambda: validate(AttentionConfig(d_model=10, n_heads=3)),
     "d_model 10 is not divisible by 3 heads (each head needs d_model / heads columns)",
     "d_model = 10: 헤드 3개로 나누어떨어지지 않습니다 (헤드마다 d_model / 헤드 수만큼의 열이 필요합니다)"),
    (lambda: validate(AttentionConfig(n_heads=300, d_model=600)),
     "heads must be between 1 and 256, got 300",
     "헤드 수 값은 1에서 256 사이여야 합니다 (받은 값: 300)"),
    (lambda: validate(AttentionConfig(tokens=("a", "b"), padding=frozenset({5}))),
     "padding position 5 is outside the sentence (0..1)",
     "패딩 위치 5: 문장의 범위(0..1) 밖입니다"),
    (lambda: validate_cross(CrossConfig(AttentionConfig(), encoder_tokens=())),
     "the encoder sentence is empty: type at least one token",
     "인코더 문장이 비어 있습니다: 토큰을 하나 이상 입력하세요"),
    (lambda: validate(AttentionConfig(tokens=("나는", "a\x07"))),
     "token 2 ('a\\x07') contains the character U+0007, which cannot be shown",
     "토큰 2 ('a\\x07')에 표시할 수 없는 문자(U+0007)가 들어 있습니다"),
    (lambda: validate(AttentionConfig(backend="numpy", device="cuda")),
     "the numpy backend runs on the CPU only; choose torch for CUDA",
     "numpy 백엔드는 CPU에서만 실행됩니다. CUDA를 쓰려면 torch를 선택하세요"),
    (lambda: parse_whole("12a", "--seed"),
     "--seed must be a whole number (digits 0-9), got '12a'",
     "--seed 값은 정수(숫자 0-9)여야 합니다 (받은 값: '12a')"),
    (lambda: validate_encoder(EncoderConfig(AttentionConfig(), d_ff=0)),
     "d_ff must be between 1 and 16384, got 0 (the FFN needs at least one hidden unit)",
     "d_ff는 1에서 16384 사이여야 합니다 (받은 값: 0). FFN에는 은닉 유닛이 하나 이상 필요합니다"),
]


@pytest.mark.parametrize("call, english, korean", CASES)
def test_a_refusal_is_english_for_the_cli_and_korean_in_a_korean_ui(call, english, korean):
    error = refusal(call)
    assert str(error) == english
    assert error_text(error, "en") == english
    assert error_text(error, "ko") == korean


def test_every_core_template_has_a_korean_text():
    """The catalogue's "core" context (tools/update_translations.py collects it from core)."""
    korean = {source: text for (context, source), text in catalog("ko").items() if context == "core"}
    assert len(korean) >= 35
    for source, text in korean.items():
        # names written the same in Korean: a symbol, the methods' names (LoRA, IA³: the paper's)
        assert text and text != source or source in ("d_model", "LoRA", "IA³"), source
        assert sorted(_fields(text)) == sorted(_fields(source)), source


def _fields(text: str) -> set[str]:
    import string
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_a_plain_error_or_message_is_shown_as_it_is():
    assert error_text(ValueError("disk full")) == "disk full"
    assert error_text(ConfigError("an old-style message"), "ko") == "an old-style message"


def test_an_unknown_model_is_refused_in_the_ui_language():
    from explorer.core.learned import get_spec
    error = refusal(lambda: get_spec("gpt-5"))
    assert str(error).startswith("unknown model 'gpt-5' (choose from minilm-l6")
    assert error_text(error, "ko").startswith("알 수 없는 모델 'gpt-5' (minilm-l6")
