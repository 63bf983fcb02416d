#!/bin/bash
# cli_exports.sh CODE_ROOT OUT: the course preset's CLI exports (PNG ×2 with title, SVG, CSV, the
# live window, PNG dark) rendered by the code in CODE_ROOT; compare two with tools/compare_exports.py.
set -e
cd "$1"; R="$2"; P=${PYTHON:-python}
export QT_QPA_PLATFORM=offscreen PYTHONDONTWRITEBYTECODE=1
mkdir -p $R/png $R/svg $R/csv $R/window $R/pngdark
$P -m explorer export --preset course-lab3 --what all --scale 2 --title --out $R/png >/dev/null
$P -m explorer export --preset course-lab3 --what all --format svg --title --out $R/svg >/dev/null
$P -m explorer export --preset course-lab3 --what all --format csv --out $R/csv >/dev/null
$P -m explorer export --preset course-lab3 --what window --scale 2 --out $R/window >/dev/null
$P -m explorer export --preset course-lab3 --what all --scale 1 --background dark --out $R/pngdark >/dev/null
