"""compare_exports.py REF NEW: every file under REF must exist under NEW; PNG compared pixel by
pixel (decoded), SVG/CSV byte by byte. Prints one line per file; exit 1 if any differs.

Proves a refactor draws the same figures: render REF with the old code and NEW with the new one
(tools/cli_exports.sh CODE_ROOT OUT for the command line, tools/window_exports.py OUT for the
window's export path), then compare. The live window ("window_*") shows the last compute's
time in ms, so it differs in those few pixels between any two runs, even of the same code."""
import os, sys
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtGui import QImage
ref, new = sys.argv[1:3]
bad = 0
for root, _, files in os.walk(ref):
    for f in sorted(files):
        a = os.path.join(root, f); rel = os.path.relpath(a, ref); b = os.path.join(new, rel)
        if not os.path.exists(b):
            print("MISSING ", rel); bad += 1; continue
        if f.endswith(".png"):
            ia, ib = QImage(a), QImage(b)
            same = ia.size() == ib.size() and ia.convertToFormat(QImage.Format.Format_ARGB32) == ib.convertToFormat(QImage.Format.Format_ARGB32)
            status = "same pixels" + (" (same bytes)" if open(a,"rb").read() == open(b,"rb").read() else "")
            if not same:
                status = f"DIFFERENT pixels {ia.width()}x{ia.height()} vs {ib.width()}x{ib.height()}"
                if ia.size() == ib.size():
                    import numpy as np
                    ca, cb = (im.convertToFormat(QImage.Format.Format_RGB32) for im in (ia, ib))
                    na, nb = (np.frombuffer(c.constBits(), np.uint8).reshape(c.height(), -1, 4) for c in (ca, cb))
                    d = np.argwhere((na != nb).any(-1))
                    status += f": {len(d)} px in rows {d[:,0].min()}-{d[:,0].max()}, cols {d[:,1].min()}-{d[:,1].max()}"
        else:
            same = open(a, "rb").read() == open(b, "rb").read()
            status = "same bytes" if same else "DIFFERENT bytes"
        bad += not same
        print(f"{status:40s} {rel}")
print("ALL IDENTICAL" if not bad else f"{bad} DIFFER")
sys.exit(1 if bad else 0)
