"""A seeded monkey: 500 random control actions raise nothing and end in a consistent window."""

import random

from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from explorer.core import PRESETS, SEED_MAX
from window_support import assert_window_shows_state, settle

SENTENCES = ["", "   ", "a", "나는 학교에 버스로 갔다", "the cat sat on the mat",
             "one two three four five six seven eight nine ten eleven twelve",
             "x y", "<pad> <pad> hello"]
MAX_D_MODEL_IN_MONKEY = 256  # keeps 500 actions fast; the sliders themselves go to 2048


def assert_controls_show(window) -> None:
    c, config = window.controls, window.state.config
    assert c.model_size.d_model_value.text() == str(config.d_model)
    assert c.model_size.heads_value.text() == str(config.n_heads)
    assert c.seed.value() == config.seed
    for name, box in c.switches.boxes.items():
        assert box.isChecked() is getattr(config, name)
    assert [chip.text() for chip in c.chips.chips] == list(config.tokens)
    assert {i for i, chip in enumerate(c.chips.chips) if chip.isChecked()} == set(config.padding)
    assert c.backend.currentData() == f"{config.backend}/{config.device}"


class Monkey:
    def __init__(self, window, rng: random.Random):
        self.w, self.rng = window, rng
        self.moves = [self.d_model, self.heads, self.seed, self.seed_step, self.random_seed,
                      self.switch, self.chip, self.sentence, self.typed_sentence, self.preset,
                      self.shortcut, self.display, self.focus, self.tab, self.pump]

    def step(self) -> None:
        self.rng.choice(self.moves)()

    def d_model(self):
        slider = self.w.controls.model_size.d_model_slider
        widths = self.w.controls.model_size._widths
        allowed = [i for i, d in enumerate(widths) if d <= MAX_D_MODEL_IN_MONKEY]
        slider.setValue(self.rng.choice(allowed))

    def heads(self):
        slider = self.w.controls.model_size.heads_slider
        slider.setValue(self.rng.randint(slider.minimum(), slider.maximum()))

    def seed(self):
        self.w.controls.seed.spin.setValue(self.rng.choice([0, SEED_MAX, self.rng.randint(0, SEED_MAX)]))

    def seed_step(self):
        spin = self.w.controls.seed.spin
        spin.stepUp() if self.rng.random() < 0.5 else spin.stepDown()

    def random_seed(self):
        self.w.controls.seed.random_button.click()

    def switch(self):
        self.rng.choice(list(self.w.controls.switches.boxes.values())).click()

    def chip(self):
        chips = self.w.controls.chips.chips
        if chips:
            self.rng.choice(chips).click()

    def sentence(self):
        self.w.controls.sentence.set_text(self.rng.choice(SENTENCES))

    def typed_sentence(self):
        edit = self.w.controls.sentence.edit
        edit.clear()
        QTest.keyClicks(edit, self.rng.choice([t for t in SENTENCES if t.isascii()]))  # QTest: ASCII only
        edit.editingFinished.emit()

    def preset(self):
        self.w.apply_preset(self.rng.choice([n for n, p in PRESETS.items()
                                             if p.config.d_model <= MAX_D_MODEL_IN_MONKEY]))

    def shortcut(self):
        names = ["heads_up", "heads_down", "d_model_down", "seed_up", "seed_down", "random_seed",
                 "toggle_scaling", "toggle_causal", "toggle_positional", "cycle_show_values",
                 "unfocus_head", "focus_head_0", "focus_head_3"]
        if self.w.state.config.d_model < MAX_D_MODEL_IN_MONKEY:
            names.append("d_model_up")
        self.w.shortcut_actions[self.rng.choice(names)].trigger()

    def display(self):
        d = self.w.controls.display
        combo = self.rng.choice([d.colormap_combo, d.values_combo])
        combo.setCurrentIndex(self.rng.randrange(combo.count()))

    def focus(self):
        result = self.w.state.result
        if result is not None:
            self.w.heads_grid.head_clicked.emit(self.rng.randrange(result.config.n_heads))

    def tab(self):
        self.w.tabs.setCurrentIndex(self.rng.randrange(self.w.tabs.count()))

    def pump(self):
        QApplication.processEvents()


def test_500_random_actions_end_consistent(qtbot, make_window):
    window = make_window()
    monkey = Monkey(window, random.Random(20240601))
    configs, errors = [], []
    window.state.config_changed.connect(configs.append)
    window.state.error.connect(errors.append)
    for i in range(500):
        monkey.step()
        if i % 100 == 99:  # now and then let the worker catch up and check mid-way
            settle(qtbot, window)
            assert_window_shows_state(window)
            assert_controls_show(window)
    settle(qtbot, window)
    assert_window_shows_state(window)
    assert_controls_show(window)
    assert len(configs) > 250 and len(set(configs)) > 150  # the monkey really moved things
    assert any("empty" in e for e in errors)  # ... including the empty sentence
    assert window.state.worker.computes < len(configs)  # and bursts were coalesced
    if window.state.kv_enabled:
        assert window.state.kv_trace.config.tokens == window.state.config.tokens
