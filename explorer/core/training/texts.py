"""What the training curves show, in Korean and English (Qt-free, for the Train view and the CLI).

Written like the topic texts (explorer/gui/topics/texts.py): a few sentences each, the two
languages saying the same thing, numbers and formulas written the same way in both.
"""

from __future__ import annotations

from dataclasses import dataclass

from .scores import SWITCH_THRESHOLD


@dataclass(frozen=True)
class TrainingText:
    key: str
    title_en: str
    title_ko: str
    body_en: str
    body_ko: str

    def both(self) -> str:
        return f"{self.title_en}: {self.body_en}\n{self.title_ko}: {self.body_ko}"


_T = f"{SWITCH_THRESHOLD:g}"

TEXTS: dict[str, TrainingText] = {t.key: t for t in (
    TrainingText(
        "curves", "Loss and accuracy", "손실과 정확도",
        "The model is a 2-layer transformer made of attention heads only (no MLP, no LayerNorm), "
        "trained to copy: each sequence holds a random segment of 5–15 tokens and, later at a random "
        "place, the same segment again. The loss counts only the repeated part. Train loss is the "
        "batch just trained on; held-out loss and accuracy come from a fixed batch the model never "
        "trains on. Within a few dozen steps the loss falls to about ln(vocab) (ln 64 ≈ 4.16: no "
        "better than guessing), stays on that plateau, then falls steeply within a few dozen steps "
        "while the accuracy jumps: the model has found a way to copy.",
        "모델은 어텐션 헤드만으로 된 2층 트랜스포머(MLP, LayerNorm 없음)이고, 복사를 배웁니다: 각 "
        "시퀀스에는 5–15개 토큰의 무작위 구간이 있고, 뒤의 무작위 위치에 같은 구간이 한 번 더 "
        "나옵니다. 손실은 반복된 부분만 셉니다. 학습 손실은 방금 학습한 배치의 손실이고, 검증 손실과 "
        "정확도는 학습에 쓰지 않는 고정 배치에서 잽니다. 손실은 수십 스텝 안에 ln(vocab) 근처"
        "(ln 64 ≈ 4.16: 찍기와 다를 바 없음)로 내려와 한동안 평평하게 머물다가, 수십 스텝 만에 "
        "가파르게 떨어지며 정확도가 뛰어오릅니다: 모델이 복사하는 방법을 찾은 것입니다."),
    TrainingText(
        "heads", "Heads on the probe", "탐침 시퀀스 위의 헤드",
        "Every head's attention is drawn on one fixed probe: L = 3/8 · seq_len distinct random "
        "tokens (12 for 32), then the same L tokens again. The probe never changes, so frames from "
        "different steps can be compared. A previous-token head shows a line just below the diagonal (each token looks one "
        "back). An induction head shows, in the second half, a line L − 1 below the diagonal: token i "
        "looks at the token right after the earlier copy of itself — the token it must predict.",
        "모든 헤드의 어텐션을 하나의 고정 탐침 시퀀스 위에 그립니다: 서로 다른 무작위 토큰 "
        "L = 3/8 · seq_len개(32이면 12개), 그리고 같은 L개 토큰을 한 번 더. 탐침은 바뀌지 않으므로 서로 다른 "
        "스텝의 그림을 비교할 수 있습니다. 이전 토큰 헤드는 대각선 바로 아래에 선이 보입니다 (각 "
        "토큰이 한 칸 앞을 봅니다). 유도(induction) 헤드는 뒤쪽 절반에서 대각선보다 L − 1 아래에 "
        "선이 보입니다: 토큰 i가 자기 자신의 앞선 복사본 바로 다음 토큰, 즉 예측해야 할 토큰을 봅니다."),
    TrainingText(
        "scores", "Role scores and switch steps", "역할 점수와 켜진 스텝",
        "Previous-token score = mean over i ≥ 1 of A[i, i − 1]; induction score = mean over the "
        "second-half positions i of A[i, i − L + 1]. A perfect head scores 1; a fresh model's "
        "nearly uniform attention scores about 0.1 and 0.05. A head's switch step (the mark on its "
        f"curve) is the first logged step from which its score stays ≥ {_T} at every later logged "
        "step, so a blip that falls back does not count.",
        "이전 토큰 점수 = i ≥ 1에 대한 A[i, i − 1]의 평균, 유도 점수 = 뒤쪽 절반 위치 i에 대한 "
        "A[i, i − L + 1]의 평균입니다. 완벽한 헤드는 1점이고, 갓 초기화된 모델의 거의 균일한 "
        "어텐션은 약 0.1과 0.05점입니다. 헤드가 켜진 스텝(곡선 위의 표시)은 점수가 그 뒤로 기록된 "
        f"모든 스텝에서 {_T} 이상을 유지하기 시작한 첫 기록 스텝입니다. 잠깐 올랐다 떨어진 것은 "
        "세지 않습니다."),
    TrainingText(
        "phase_change", "The phase change", "상전이 (phase change)",
        "Copying needs two heads working together: in layer 0 a previous-token head writes into each "
        "position \"the token before me was t\"; in layer 1 an induction head matches the current "
        "token against that information and attends to the position after the earlier t. Neither "
        "head helps the loss alone, so for a while nothing happens; then both form together within "
        "a few dozen steps and the loss drops at the same moment. That abrupt, joint change is the "
        "phase change (Olsson et al. 2022, \"In-context learning and induction heads\").",
        "복사에는 두 헤드의 협력이 필요합니다: 0층의 이전 토큰 헤드가 각 위치에 \"내 앞 토큰은 "
        "t였다\"를 적고, 1층의 유도 헤드가 현재 토큰을 그 정보와 맞춰 앞선 t의 다음 위치를 봅니다. "
        "어느 헤드도 혼자서는 손실을 줄이지 못하므로 한동안 아무 일도 없다가, 수십 스텝 안에 둘이 "
        "함께 생기고 바로 그때 손실이 떨어집니다. 이 갑작스럽고 동시적인 변화가 상전이입니다 "
        "(Olsson et al. 2022, \"In-context learning and induction heads\")."),
    TrainingText(
        "fixed_offset", "Pitfall: a fixed offset", "함정: 고정된 간격",
        "If the copy always starts at the same place (here: the segment at 0, its copy at "
        "seq_len / 2), the model needs no induction head: \"look seq_len / 2 − 1 positions back\" "
        "is a purely positional rule one head learns from the position embeddings. The loss falls "
        "just as well, but no previous-token or induction head forms, and the model fails on "
        "copies anywhere else. A random offset leaves matching tokens as the only way to solve it.",
        "복사본이 항상 같은 위치에서 시작하면(여기서는 구간이 0에, 복사본이 seq_len / 2에) 모델에 "
        "유도 헤드가 필요 없습니다: \"seq_len / 2 − 1칸 앞을 보라\"는 위치 임베딩만으로 한 헤드가 "
        "배우는 순수한 위치 규칙입니다. 손실은 똑같이 떨어지지만 이전 토큰 헤드도 유도 헤드도 생기지 "
        "않고, 다른 위치의 복사본에서는 실패합니다. 간격이 무작위여야 토큰을 맞춰 보는 것만이 "
        "유일한 해법이 됩니다."),
)}

# What each task asks, for a task menu: key -> (English, 한국어).
TASK_TITLES: dict[str, tuple[str, str]] = {
    "induction": ("Copy a repeated segment (random offset: induction)",
                  "반복된 구간 복사 (무작위 위치: 유도 헤드)"),
    "induction-fixed": ("Copy a repeated segment at a fixed offset (pitfall: a positional head)",
                        "고정 위치의 반복 구간 복사 (함정: 위치 헤드)"),
    "previous-token": ("Output the previous token", "이전 토큰 출력"),
    "reverse": ("Reverse a list of 10 tokens", "토큰 10개 목록 뒤집기"),
    "sort": ("Sort a list of 10 tokens", "토큰 10개 목록 정렬"),
}
