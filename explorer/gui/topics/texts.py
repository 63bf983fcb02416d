"""What to look at in each topic, in Korean and English (shown in the view, above the plots).

Each text is a few sentences; keep the two languages saying the same thing. Numbers and
formulas are written the same way in both so a student can match them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..plotting.i18n import bilingual


@dataclass(frozen=True)
class TopicText:
    key: str
    tab: str
    title_en: str
    title_ko: str
    body_en: str
    body_ko: str

    @property
    def menu_title(self) -> str:
        return bilingual(self.title_en.replace("&", "&&"), self.title_ko.replace("&", "&&"))  # & is a Qt mnemonic

    @property
    def title(self) -> str:
        """The title in the UI language."""
        return bilingual(self.title_en, self.title_ko)

    @property
    def summary(self) -> str:
        """The explanation's first sentence in the UI language (status tips)."""
        return bilingual(self.body_en.split(". ")[0] + ".", self.body_ko.split(". ")[0] + ".")


TEXTS: dict[str, TopicText] = {t.key: t for t in (
    TopicText(
        "qkv", "Q, K, V", "Q, K, V projections", "Q, K, V 투영",
        "Each token's vector (a row of X) is multiplied by three learned matrices: Q = X·W_Q (what "
        "the token is looking for), K = X·W_K (what it can be found by) and V = X·W_V (what it "
        "passes on). All three are (n, d_model). There are no separate matrices per head: head i "
        "simply takes columns i·d_head … (i+1)·d_head − 1 of Q, K and V (the outlined band, which "
        "comes from the same columns of W_Q, W_K, W_V). Pick a head and compare its slices with "
        "the band.",
        "각 토큰의 벡터(X의 한 행)에 학습된 세 행렬을 곱합니다: Q = X·W_Q (토큰이 찾는 것), "
        "K = X·W_K (다른 토큰이 찾아올 단서), V = X·W_V (전달할 내용). 셋 다 (n, d_model) 모양입니다. "
        "헤드마다 따로 행렬이 있는 것이 아닙니다: 헤드 i는 Q, K, V의 열 i·d_head … (i+1)·d_head − 1 "
        "(테두리 띠)만 가져가며, 이 띠는 W_Q, W_K, W_V의 같은 열에서 나옵니다. 헤드를 골라 "
        "그 조각과 띠를 비교해 보세요."),
    TopicText(
        "scaling", "√d_head", "Why √d_head", "왜 √d_head로 나누나",
        "A score q·k adds up d_head products, so its variance grows with d_head: "
        "Var(q·k) ≈ d_head·Var(q)·Var(k). Large scores saturate softmax: one key takes almost all "
        "the weight (max weight → 1, entropy → 0) and gradients vanish. Dividing by √d_head "
        "brings the variance back to Var(q)·Var(k). Compare the two histograms and the variances "
        "next to d_head, then the sweep: with unit-variance weights the scaled curve stays flat "
        "while the unscaled one saturates. With the course's weights (×0.5 at every size) q "
        "itself grows with d_model, so even scaled scores saturate; real models keep q and k "
        "small with 1/√d_model initialisation and LayerNorm.",
        "점수 q·k는 d_head개의 곱을 더한 값이라 분산이 d_head에 비례해 커집니다: "
        "Var(q·k) ≈ d_head·Var(q)·Var(k). 점수가 크면 softmax가 포화됩니다: 한 키가 가중치를 거의 "
        "다 가져가고 (최대 가중치 → 1, 엔트로피 → 0) 기울기가 사라집니다. √d_head로 나누면 분산이 "
        "Var(q)·Var(k)로 돌아옵니다. 두 히스토그램과 d_head 옆의 분산을 비교한 뒤 아래 스윕을 보세요: "
        "분산 1로 초기화한 가중치에서는 스케일링한 곡선이 평평하고 스케일링하지 않은 곡선은 "
        "포화됩니다. 강의의 가중치(크기와 상관없이 ×0.5)에서는 q 자체가 d_model과 함께 커져서 "
        "스케일링해도 포화됩니다. 실제 모델은 1/√d_model 초기화와 LayerNorm으로 q, k를 작게 "
        "유지합니다."),
    TopicText(
        "cross", "Cross-attention", "Cross-attention (encoder–decoder)", "교차 어텐션 (인코더–디코더)",
        "In an encoder–decoder Transformer (e.g. translation) the decoder asks the source "
        "sentence: queries come from the decoder tokens (rows), keys and values from the encoder "
        "tokens (columns), so every weight matrix is rectangular, decoder × encoder. Each row "
        "still sums to 1 over the encoder tokens. Encoder <pad> columns are masked for every "
        "query; there is no causal mask here, because the whole source sentence is known. The "
        "encoder's X is drawn from seed + 1 (np.random.RandomState(seed + 1).randn(m, d_model)); "
        "W_Q, W_K, W_V, W_O are the seed's course weights.",
        "인코더–디코더 트랜스포머(예: 번역)에서 디코더는 원문 문장에 질문합니다: 쿼리는 디코더 "
        "토큰(행)에서, 키와 값은 인코더 토큰(열)에서 나오므로 가중치 행렬은 디코더 × 인코더 "
        "직사각형입니다. 각 행의 합은 인코더 토큰에 대해 여전히 1입니다. 인코더의 <pad> 열은 모든 "
        "쿼리에서 가려집니다. 원문 전체를 이미 알고 있으므로 여기에는 인과 마스크가 없습니다. "
        "인코더의 X는 seed + 1에서 뽑습니다 (np.random.RandomState(seed + 1).randn(m, d_model)). "
        "W_Q, W_K, W_V, W_O는 그 시드의 강의 가중치입니다."),
    TopicText(
        "masks", "Masks", "Padding and combined masks", "패딩 마스크와 마스크 결합",
        "Two masks combine into the one softmax sees. Padding closes the columns of <pad> keys for "
        "every query; causal closes the upper triangle (query i sees keys 0 … i). The combination "
        "is their AND: a cell is open only if both allow it. Masked cells get weight exactly 0 and "
        "each row's open cells still sum to 1. A row with no open key left (here: a leading <pad> "
        "with the causal mask) would give softmax 0/0 = NaN; the app defines its weights as all 0, "
        "so that token's attention output is the zero vector (outlined in red).",
        "두 마스크가 합쳐져 softmax가 보는 하나의 마스크가 됩니다. 패딩 마스크는 모든 쿼리에서 "
        "<pad> 키의 열을 막고, 인과 마스크는 위쪽 삼각형을 막습니다 (쿼리 i는 키 0 … i만 봅니다). "
        "결합은 두 마스크의 AND입니다: 둘 다 허용해야 칸이 열립니다. 가려진 칸의 가중치는 정확히 "
        "0이고, 각 행의 열린 칸의 합은 여전히 1입니다. 열린 키가 하나도 없는 행(여기서는 인과 "
        "마스크와 맨 앞의 <pad>)은 softmax가 0/0 = NaN이 됩니다. 이 앱은 그 행의 가중치를 모두 "
        "0으로 정의하므로 그 토큰의 어텐션 출력은 영벡터입니다 (빨간 테두리)."),
    TopicText(
        "pruning", "Head pruning", "Head pruning", "헤드 가지치기",
        "The output is a sum over heads: output = Σ_h head_out_h · W_O[rows of head h]. A head's "
        "importance here is the size of its contribution, ‖head_out_h · W_O[rows of h]‖: exactly "
        "how far the output moves if that head alone is removed. Its mean entropy (low = sharp "
        "pattern) is shown too. Switch heads off and watch ‖Δoutput‖ = ‖pruned − full‖: heads "
        "with a small contribution can often go with little change. With every head off the "
        "attention output is all zeros (inside a block the residual connection still passes X "
        "through).",
        "출력은 헤드별 기여의 합입니다: output = Σ_h head_out_h · W_O[헤드 h의 행]. 여기서 헤드의 "
        "중요도는 기여의 크기 ‖head_out_h · W_O[h의 행]‖로, 그 헤드 하나만 뺐을 때 출력이 움직이는 "
        "양과 정확히 같습니다. 평균 엔트로피(낮을수록 뾰족한 패턴)도 함께 보여 줍니다. 헤드를 끄고 "
        "‖Δoutput‖ = ‖가지치기 후 − 전체‖를 보세요: 기여가 작은 헤드는 출력을 거의 바꾸지 않고 뺄 수 "
        "있는 경우가 많습니다. 모든 헤드를 끄면 어텐션 출력은 모두 0입니다 (블록 안에서는 잔차 "
        "연결이 X를 그대로 전달합니다)."),
    TopicText(
        "encoder", "Encoder block", "Encoder block (Add & Norm, FFN)", "인코더 블록 (Add & Norm, FFN)",
        "An encoder block wraps attention in two sub-layers, each with a residual connection (Add) "
        "and LayerNorm (Norm). Post-LN (the 2017 paper): h = LN(x + MHA(x)), out = LN(h + FFN(h)). "
        "Pre-LN (GPT-2 and later): h = x + MHA(LN(x)), out = h + FFN(LN(h)). The position-wise FFN "
        "applies the same two-layer network to every token: FFN(z) = act(z·W_1 + b_1)·W_2 + b_2 "
        "with d_ff = 4·d_model. The bars show each stage's size: Post-LN brings every token back "
        "to norm √d_model, Pre-LN lets the residual stream grow. The FFN weights are drawn from "
        "seed + 2 with a 1/√fan_in scale.",
        "인코더 블록은 어텐션을 두 서브층으로 감싸고, 각 서브층에는 잔차 연결(Add)과 "
        "LayerNorm(Norm)이 있습니다. Post-LN(2017년 논문): h = LN(x + MHA(x)), out = LN(h + FFN(h)). "
        "Pre-LN(GPT-2 이후): h = x + MHA(LN(x)), out = h + FFN(LN(h)). 위치별 FFN은 모든 토큰에 같은 "
        "2층 신경망을 적용합니다: FFN(z) = act(z·W_1 + b_1)·W_2 + b_2, d_ff = 4·d_model. 막대는 각 "
        "단계의 크기입니다: Post-LN은 모든 토큰을 노름 √d_model로 되돌리고, Pre-LN은 잔차 흐름이 "
        "커지게 둡니다. FFN 가중치는 seed + 2에서 1/√fan_in 스케일로 뽑습니다."),
)}

# Short notes the views show when something needs saying (English, Korean; shown in the UI language).
NOTES: dict[str, tuple[str, str]] = {
    "all_pruned": ("All heads are pruned: the attention output is all zeros; in a block the "
                   "residual connection still passes X through.",
                   "모든 헤드를 껐습니다: 어텐션 출력은 모두 0입니다. 블록 안에서는 잔차 연결이 X를 "
                   "그대로 전달합니다."),
    "empty_row": ("Row {row} ({token}) has no open key: its weights are all 0 (not NaN) and its "
                  "output is the zero vector.",
                  "{row}번 행({token})에는 열린 키가 없습니다: 가중치는 모두 0(NaN 아님)이고 출력은 "
                  "영벡터입니다."),
    "no_empty_row": ("Every row has at least one open key.", "모든 행에 열린 키가 하나 이상 있습니다."),
    "computing": ("computing…", "계산 중…"),
    "sweep_course": ("course weights (randn × 0.5)", "강의 가중치 (randn × 0.5)"),
    "sweep_unit": ("unit-variance weights (randn / √d_model)", "분산 1 가중치 (randn / √d_model)"),
}


def note(key: str, **fields) -> str:
    """The note in the UI language, with {fields} filled in."""
    en, ko = NOTES[key]
    return bilingual(en.format(**fields), ko.format(**fields))
