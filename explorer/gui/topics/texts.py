"""What to look at in each topic (shown in the view, above the plots), and the views' notes.

The English is written here, marked for the catalogue (context "topics.texts"); the Korean is
its translation in resources/i18n/attention_explorer_ko.ts, shown through Qt's translator like
every other text. Each text is a few sentences; keep the two languages saying the same thing.
Numbers and formulas are written the same way in both so a student can match them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

CONTEXT = "topics.texts"


@dataclass(frozen=True)
class TopicText:
    key: str
    tab: str       # the tab's name (context "topics")
    title_en: str  # the English sources; shown translated (title, body, ...)
    body_en: str

    @property
    def menu_title(self) -> str:
        return self.title.replace("&", "&&")  # & is a Qt mnemonic

    @property
    def title(self) -> str:
        """The title in the UI language."""
        return translate(CONTEXT, self.title_en)

    @property
    def body(self) -> str:
        """The explanation in the UI language."""
        return translate(CONTEXT, self.body_en)

    @property
    def summary(self) -> str:
        """The explanation's first sentence in the UI language (status tips)."""
        return self.body.split(". ")[0] + "."


TEXTS: dict[str, TopicText] = {t.key: t for t in (

    TopicText(
        "qkv", "Q, K, V", QT_TRANSLATE_NOOP("topics.texts", "Q, K, V projections"),
        QT_TRANSLATE_NOOP("topics.texts",
                          "Each token's vector (a row of X) is multiplied by three learned matrices: Q = X·W_Q (what "
                          "the token is looking for), K = X·W_K (what it can be found by) and V = X·W_V (what it passes "
                          "on). All three are (n, d_model). There are no separate matrices per head: head i simply "
                          "takes columns i·d_head … (i+1)·d_head − 1 of Q, K and V (the outlined band, which comes from "
                          "the same columns of W_Q, W_K, W_V). Pick a head and compare its slices with the band.")),
    TopicText(
        "scaling", "√d_head", QT_TRANSLATE_NOOP("topics.texts", "Why √d_head"),
        QT_TRANSLATE_NOOP("topics.texts",
                          "A score q·k adds up d_head products, so its variance grows with d_head: Var(q·k) ≈ "
                          "d_head·Var(q)·Var(k). Large scores saturate softmax: one key takes almost all the weight "
                          "(max weight → 1, entropy → 0) and gradients vanish. Dividing by √d_head brings the variance "
                          "back to Var(q)·Var(k). Compare the two histograms and the variances next to d_head, then the "
                          "sweep: with unit-variance weights the scaled curve stays flat while the unscaled one "
                          "saturates. With the course's weights (×0.5 at every size) q itself grows with d_model, so "
                          "even scaled scores saturate; real models keep q and k small with 1/√d_model initialisation "
                          "and LayerNorm.")),
    TopicText(
        "cross", QT_TRANSLATE_NOOP("topics", "Cross-attention"), QT_TRANSLATE_NOOP("topics.texts", "Cross-attention (encoder–decoder)"),
        QT_TRANSLATE_NOOP("topics.texts",
                          "In an encoder–decoder Transformer (e.g. translation) the decoder asks the source sentence: "
                          "queries come from the decoder tokens (rows), keys and values from the encoder tokens "
                          "(columns), so every weight matrix is rectangular, decoder × encoder. Each row still sums to "
                          "1 over the encoder tokens. Encoder <pad> columns are masked for every query; there is no "
                          "causal mask here, because the whole source sentence is known. The encoder's X is drawn from "
                          "seed + 1 (np.random.RandomState(seed + 1).randn(m, d_model)); W_Q, W_K, W_V, W_O are the "
                          "seed's course weights.")),
    TopicText(
        "masks", QT_TRANSLATE_NOOP("topics", "Masks"), QT_TRANSLATE_NOOP("topics.texts", "Padding and combined masks"),
        QT_TRANSLATE_NOOP("topics.texts",
                          "Two masks combine into the one softmax sees. Padding closes the columns of <pad> keys for "
                          "every query; causal closes the upper triangle (query i sees keys 0 … i). The combination is "
                          "their AND: a cell is open only if both allow it. Masked cells get weight exactly 0 and each "
                          "row's open cells still sum to 1. A row with no open key left (here: a leading <pad> with the "
                          "causal mask) would give softmax 0/0 = NaN; the app defines its weights as all 0, so that "
                          "token's attention output is the zero vector (outlined in red).")),
    TopicText(
        "pruning", QT_TRANSLATE_NOOP("topics", "Head pruning"), QT_TRANSLATE_NOOP("topics.texts", "Head pruning"),
        QT_TRANSLATE_NOOP("topics.texts",
                          "The output is a sum over heads: output = Σ_h head_out_h · W_O[rows of head h]. A head's "
                          "importance here is the size of its contribution, ‖head_out_h · W_O[rows of h]‖: exactly how "
                          "far the output moves if that head alone is removed. Its mean entropy (low = sharp pattern) "
                          "is shown too. Switch heads off and watch ‖Δoutput‖ = ‖pruned − full‖: heads with a small "
                          "contribution can often go with little change. With every head off the attention output is "
                          "all zeros (inside a block the residual connection still passes X through).")),
    TopicText(
        "encoder", QT_TRANSLATE_NOOP("topics", "Encoder block"), QT_TRANSLATE_NOOP("topics.texts", "Encoder block (Add & Norm, FFN)"),
        QT_TRANSLATE_NOOP("topics.texts",
                          "An encoder block wraps attention in two sub-layers, each with a residual connection (Add) "
                          "and LayerNorm (Norm). Post-LN (the 2017 paper): h = LN(x + MHA(x)), out = LN(h + FFN(h)). "
                          "Pre-LN (GPT-2 and later): h = x + MHA(LN(x)), out = h + FFN(LN(h)). The position-wise FFN "
                          "applies the same two-layer network to every token: FFN(z) = act(z·W_1 + b_1)·W_2 + b_2 with "
                          "d_ff = 4·d_model. The bars show each stage's size: Post-LN brings every token back to norm "
                          "√d_model, Pre-LN lets the residual stream grow. The FFN weights are drawn from seed + 2 with "
                          "a 1/√fan_in scale.")),
    TopicText(
        "peft", "PEFT", QT_TRANSLATE_NOOP("topics.texts", "PEFT: LoRA, IA³, prefix and prompt tuning"),
        QT_TRANSLATE_NOOP("topics.texts",
                          "Parameter-efficient fine-tuning freezes the model's weights and trains a few new "
                          "numbers. LoRA adds ΔW = (α/r)·B·A to one matrix (rsLoRA: α/√r); B starts at 0, so "
                          "training starts exactly at the base model (the course multiplies row vectors, x·W, so "
                          "ΔW shows here transposed: Aᵀ·Bᵀ). IA³ scales the columns of K and V by learned vectors "
                          "l_k, l_v. Prefix tuning adds v virtual keys and values every query can attend to; "
                          "prompt tuning puts v virtual tokens before the sentence. The table counts what each "
                          "method trains (heads split d_model: their number changes no count).")),
)}

# Short notes the views show when something needs saying (English sources; shown in the UI language).
NOTES: dict[str, str] = {
    "all_pruned": QT_TRANSLATE_NOOP("topics.texts", "All heads are pruned: the attention output is all zeros; in a block "
                               "the residual connection still passes X through."),
    "empty_row": QT_TRANSLATE_NOOP("topics.texts", "Row {row} ({token}) has no open key: its weights are all 0 (not NaN) "
                               "and its output is the zero vector."),
    "no_empty_row": QT_TRANSLATE_NOOP("topics.texts", "Every row has at least one open key."),
    "computing": QT_TRANSLATE_NOOP("topics.texts", "computing…"),
    "sweep_course": QT_TRANSLATE_NOOP("topics.texts", "course weights (randn × 0.5)"),
    "sweep_unit": QT_TRANSLATE_NOOP("topics.texts", "unit-variance weights (randn / √d_model)"),
}


def note(key: str, **fields) -> str:
    """The note in the UI language, with {fields} filled in."""
    return translate(CONTEXT, NOTES[key]).format(**fields)
