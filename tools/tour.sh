#!/usr/bin/env bash
# tour.sh WxH tag  -- run tour.py under Xvfb at that size (UI_LANG=ko PRESENT=0 ... pass through)
size=$1; tag=$2; disp=:${DISP:-43}
Xvfb $disp -screen 0 ${size}x24 -nolisten tcp >/dev/null 2>&1 & xpid=$!
sleep 2
cd ${REPO:-$(dirname "$0")/..} && DISPLAY=$disp ATTENTION_EXPLORER_SETTINGS_DIR=$(mktemp -d) timeout 300 ${PYTHON:-/work/main/.venv/bin/python} tools/tour.py ${OUT:-/work/notes/shots} $tag
kill $xpid; wait $xpid 2>/dev/null
