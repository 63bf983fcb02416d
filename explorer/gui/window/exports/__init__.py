"""The window's figures and exports: the Export dialog and Copy figure (export_dialog,
export_actions), views rendered offscreen (figures, from_window), and the pretrained-model and
Train-tab exports (learned_export, training_export). Imported on first use, after the first paint."""
