"""Which Qt calls leak in this PySide6? Each probe runs in a loop; the growth of
sys.getrefcount(None) and of live weak references per call is printed.

This is how issue 11's None-reference growth was bisected (benchmarks/soak.py finds the
action, this finds the call). Results with PySide6 6.11.3 / Python 3.11:

    new QPixmap/QImage/QPicture, painted on        +6 None per device  (one per virtual method
                                                    Qt calls first on a new wrapper: devType,
                                                    metric, paintEngine, initPainter, ...)
    the same device painted on again                0
    sendEvent(QEvent.User) to a new QObject         +2 None (event, customEvent)
    connect + disconnect a plain object's method    +1 weakref per connect (never released)
    connect + disconnect a QObject's method         0

So: a new paint device per repaint leaks without bound (cell_text_item shares its label
atlas for this reason); a reused device does not.

    python tools/qt_leak_probe.py
"""

from __future__ import annotations

import gc
import os
import sys
import weakref


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import PySide6
    from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
    from PySide6.QtGui import QImage, QPainter, QPicture, QPixmap
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["qt_leak_probe"])  # noqa: F841

    class Sender(QObject):
        sig = Signal(object)

    class QtReceiver(QObject):
        def slot(self, _value):
            pass

    class PlainReceiver:
        def slot(self, _value):
            pass

    def paint_on(device):
        painter = QPainter(device)
        painter.end()

    kept_pixmap, sender = QPixmap(4, 4), Sender()
    qt_receiver, plain_receiver = QtReceiver(), PlainReceiver()
    probes = {
        "new QPixmap, painted on": lambda: paint_on(QPixmap(4, 4)),
        "new QImage, painted on": lambda: paint_on(QImage(4, 4, QImage.Format.Format_ARGB32)),
        "new QPicture, painted on": lambda: paint_on(QPicture()),
        "the same QPixmap, painted on again": lambda: paint_on(kept_pixmap),
        "new QPixmap, not painted on": lambda: QPixmap(4, 4),
        "sendEvent to a new QObject": lambda: QCoreApplication.sendEvent(
            QObject(), QEvent(QEvent.Type.User)),
        "connect+disconnect a QObject's method": lambda: (
            sender.sig.connect(qt_receiver.slot), sender.sig.disconnect(qt_receiver.slot)),
        "connect+disconnect a plain object's method": lambda: (
            sender.sig.connect(plain_receiver.slot), sender.sig.disconnect(plain_receiver.slot)),
    }
    print(f"PySide6 {PySide6.__version__}, Python {sys.version.split()[0]}")
    print(f"{'call':45s} {'None refs/call':>15s} {'weakrefs/call':>14s}")
    for name, call in probes.items():
        none, weak = measure(call)
        print(f"{name:45s} {none:15.2f} {weak:14.2f}")
    return 0


def measure(call, repeats: int = 200) -> tuple[float, float]:
    for _ in range(5):
        call()
    gc.collect()
    none0, weak0 = sys.getrefcount(None), _weakrefs()
    for _ in range(repeats):
        call()
    gc.collect()
    return (sys.getrefcount(None) - none0) / repeats, (_weakrefs() - weak0) / repeats


def _weakrefs() -> int:
    return sum(1 for obj in gc.get_objects() if type(obj) is weakref.ReferenceType)


if __name__ == "__main__":
    sys.exit(main())
