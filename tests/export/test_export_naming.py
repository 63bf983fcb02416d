"""What to export, default file names that carry the settings, the title line."""

import pytest

from explorer.core import AttentionConfig, ConfigError, get_preset
from explorer.export.naming import FigureSpec, default_name, parse_what, settings_title

LAB3 = get_preset("course-lab3").config


def test_default_names_carry_the_settings():
    assert default_name(FigureSpec("heads"), LAB3, "png") == "heads_d8_h2_seed1.png"
    assert default_name(FigureSpec("head", 1), LAB3, "svg") == "head1_d8_h2_seed1.svg"
    assert default_name(FigureSpec("kv", 3), LAB3, "csv") == "kv_step3_d8_h2_seed1.csv"
    other = LAB3.replace(scaled=False, causal=True, padding=frozenset({3, 2}), positional=True)
    assert default_name(FigureSpec("pe"), other, "png") == "pe_d8_h2_seed1_unscaled_causal_pad2-3_posenc.png"


def test_names_differ_when_settings_differ():
    names = {default_name(FigureSpec("heads"), LAB3.replace(seed=s), "png") for s in (1, 2)}
    assert len(names) == 2


def test_parse_what():
    assert parse_what("heads", LAB3) == [FigureSpec("heads")]
    assert parse_what("head:1", LAB3) == [FigureSpec("head", 1)]
    assert parse_what("kv:2", LAB3) == [FigureSpec("kv", 2)]
    assert parse_what("kv", LAB3) == [FigureSpec("kv", 3)]
    assert [str(s) for s in parse_what("all", LAB3)] == ["heads", "head:0", "head:1", "pe", "kv:3"]


@pytest.mark.parametrize("what", ["head:2", "head:-1", "head:x", "kv:4", "bogus", "heads:1", ""])
def test_parse_what_rejects(what):
    with pytest.raises(ConfigError):
        parse_what(what, LAB3)


def test_title_line_lists_the_settings():
    title = settings_title(LAB3)
    for part in ("d_model 8", "2 heads", "d_head 4", "seed 1", "scaled ÷√4", "mask: none"):
        assert part in title
    masked = settings_title(AttentionConfig(causal=True, padding=frozenset({3}), scaled=False),
                            FigureSpec("head", 0))
    assert masked.startswith("head 0 — ")
    assert "not scaled" in masked and "causal + padding 3" in masked
