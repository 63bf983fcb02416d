"""Texts the window shows that are defined outside explorer/gui (presets in core, export
backgrounds, show-values modes), marked here so pyside6-lupdate puts them in the catalogue.
Shown through ``translate(context, text)`` where they are used; this module is never imported.
"""

from ..plotting.i18n import QT_TRANSLATE_NOOP

MARKS = (
    # explorer/core/learned/registry.py: each pretrained model's description (Model source tooltips)
    QT_TRANSLATE_NOOP("models", "BERT encoder, fp32 safetensors, WordPiece (uncased, English)"),
    QT_TRANSLATE_NOOP("models", "multilingual BERT encoder, 4-bit (Q4_0), SentencePiece Unigram (splits Korean well)"),
    QT_TRANSLATE_NOOP("models", "Llama decoder (SmolLM2-135M-Instruct), 4-bit GGUF (Q4_1), byte-level BPE, English"),
    # explorer/core/presets.py: titles and descriptions (Presets menu, status bar)
    QT_TRANSLATE_NOOP("presets", "Course Lab 3 (나는 학교에 버스로 갔다)"),
    QT_TRANSLATE_NOOP("presets", "d_model 8, 2 heads, seed 1, scaled: the numbers printed in the course."),
    QT_TRANSLATE_NOOP("presets", "No scaling at d_model 512 (saturated softmax)"),
    QT_TRANSLATE_NOOP("presets", "Weights start at 1/√d_model, as in real models, so q·k has variance "
                      "d_head = 256. Without ÷√d_head, softmax puts almost all weight on one key."),
    QT_TRANSLATE_NOOP("presets", "Scaled at d_model 512 (compare with the one above)"),
    QT_TRANSLATE_NOOP("presets", "The same weights with ÷√d_head: score variance is back to 1 and the "
                      "weights spread out. (With the course's ×0.5 weights scores grow with d_model "
                      "too, and even scaled softmax saturates: switch the weight init to see it.)"),
    QT_TRANSLATE_NOOP("presets", "Causal decoder (GPT-style mask)"),
    QT_TRANSLATE_NOOP("presets", "Each token attends only to itself and earlier tokens: the upper "
                      "triangle is masked."),
    QT_TRANSLATE_NOOP("presets", "Padding mask"),
    QT_TRANSLATE_NOOP("presets", "The last two tokens are padding: no query may attend to them."),
    QT_TRANSLATE_NOOP("presets", "Eight heads, one sentence"),
    QT_TRANSLATE_NOOP("presets", "d_model 64 split into 8 heads of 8: each head finds its own pattern."),
    # explorer/core/topics/encoder.py stage names (the encoder view's bars and rows)
    QT_TRANSLATE_NOOP("topics.encoder_view", "attention"),
    QT_TRANSLATE_NOOP("topics.encoder_view", "x + attention"),
    QT_TRANSLATE_NOOP("topics.encoder_view", "h = x + attention"),
    QT_TRANSLATE_NOOP("topics.encoder_view", "h = LN(x + attention)"),
    QT_TRANSLATE_NOOP("topics.encoder_view", "output = h + FFN"),
    QT_TRANSLATE_NOOP("topics.encoder_view", "output = LN(h + FFN)"),
    # gui/topics/texts.py tab names (the explanations themselves are bilingual in that file)
    QT_TRANSLATE_NOOP("topics", "Cross-attention"),
    QT_TRANSLATE_NOOP("topics", "Masks"),
    QT_TRANSLATE_NOOP("topics", "Head pruning"),
    QT_TRANSLATE_NOOP("topics", "Encoder block"),
    # explorer/export/theme.py BACKGROUNDS and app.state SHOW_VALUES_MODES (combo items)
    QT_TRANSLATE_NOOP("window.export_dialog", "white"),
    QT_TRANSLATE_NOOP("window.export_dialog", "dark"),
    QT_TRANSLATE_NOOP("controls.options", "auto"),
    QT_TRANSLATE_NOOP("controls.options", "on"),
    QT_TRANSLATE_NOOP("controls.options", "off"),
)
