#!/usr/bin/env bash
# lesson_tour.sh WxH tag  -- run lesson_tour.py under Xvfb at that size (UI_LANG, PRESENT, LESSONS pass through)
size=$1; tag=$2; disp=:${DISP:-47}
out=${OUT:-/work/notes/shots/lessons}; mkdir -p "$out"
Xvfb $disp -screen 0 ${size}x24 -nolisten tcp >/dev/null 2>&1 & xpid=$!
sleep 1
cd ${REPO:-$(dirname "$0")/..} && DISPLAY=$disp ATTENTION_EXPLORER_SETTINGS_DIR=$(mktemp -d) timeout 600 ${PYTHON:-/work/main/.venv/bin/python} tools/lesson_tour.py "$out" $tag
kill $xpid; wait $xpid 2>/dev/null
