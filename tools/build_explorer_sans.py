"""Build resources/fonts/ExplorerSans-{Regular,Bold}.ttf (run: python tools/build_explorer_sans.py resources/fonts, after `apt-get install fonts-noto-core`): Debian's Noto Sans (fonts-noto-core 20201225-1)
with the complex scripts Qt checks for OpenType tables (Syriac, the ten Indic scripts, Khmer) merged in
from the Noto Sans <Script> fonts of the same package, each subset to its script's Unicode blocks
(layout features kept, hinting dropped), Noto Sans's own vertical metrics and names kept."""
import os
import sys
from fontTools import subset
from fontTools.merge import Merger, Options as MergeOptions
from fontTools.ttLib import TTFont

NOTO = "/usr/share/fonts/truetype/noto"
SCRIPTS = {  # font name -> Unicode ranges (the script's blocks)
    "Devanagari": [(0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF)],
    "Bengali": [(0x0980, 0x09FF)], "Gurmukhi": [(0x0A00, 0x0A7F)], "Gujarati": [(0x0A80, 0x0AFF)],
    "Oriya": [(0x0B00, 0x0B7F)], "Tamil": [(0x0B80, 0x0BFF), (0x11FC0, 0x11FFF)],
    "Telugu": [(0x0C00, 0x0C7F)], "Kannada": [(0x0C80, 0x0CFF)], "Malayalam": [(0x0D00, 0x0D7F)],
    "Sinhala": [(0x0D80, 0x0DFF), (0x111E0, 0x111FF)], "Khmer": [(0x1780, 0x17FF), (0x19E0, 0x19FF)],
    "Syriac": [(0x0700, 0x074F), (0x0860, 0x086F)],
}
SHARED = [0x200C, 0x200D, 0x25CC]  # ZWNJ, ZWJ, dotted circle: each script's shaping uses its own

def subset_font(path, unicodes, out):
    options = subset.Options()
    options.layout_features = ["*"]
    options.hinting = False
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.glyph_names = False
    font = TTFont(path)
    sub = subset.Subsetter(options)
    sub.populate(unicodes=unicodes)
    sub.subset(font)
    font.save(out)
    return out

FAMILY = "Explorer Sans"  # not "Noto Sans": a system Noto Sans (Debian, Ubuntu) would shadow it


def rename(font, family):
    """Family `family` in every name record that names the family (1, 3, 4, 6, 16)."""
    name = font["name"]
    sub = name.getDebugName(2)
    compact = family.replace(" ", "")
    for rec in list(name.names):
        if rec.nameID in (1, 16):
            rec.string = family
        elif rec.nameID == 4:
            rec.string = family if sub == "Regular" else f"{family} {sub}"
        elif rec.nameID in (3, 6):
            rec.string = f"{compact}-{sub}"
    name.setName("Noto Sans, with the Syriac, Indic and Khmer scripts of the Noto Sans <Script> "
                 "fonts merged in (fonts-noto-core 20201225-1), for Attention Explorer", 10, 3, 1, 0x409)


def build(weight, out):
    base_path = f"{NOTO}/NotoSans-{weight}.ttf"
    base = TTFont(base_path)
    parts = [base_path]
    for name, ranges in SCRIPTS.items():
        path = f"{NOTO}/NotoSans{name}-{weight}.ttf"
        if not os.path.exists(path):
            path = f"{NOTO}/NotoSans{name}-Regular.ttf"  # Syriac has no bold
        cmap = set(TTFont(path).getBestCmap())
        wanted = {u for lo, hi in ranges for u in range(lo, hi + 1)} & cmap
        wanted |= {u for u in SHARED if u in cmap}
        wanted |= {0x0964, 0x0965} & cmap if name in ("Bengali", "Gurmukhi", "Gujarati", "Oriya", "Devanagari") else set()
        parts.append(subset_font(path, sorted(wanted), f"/tmp/fx/build/{name}-{weight}.ttf"))
    merger = Merger(options=MergeOptions(drop_tables=["vmtx", "vhea", "MATH"]))
    merged = merger.merge(parts)
    # Noto Sans's own vertical metrics and names: Latin text lays out exactly as before
    for tag in ("hhea",):
        for attr in ("ascent", "descent", "lineGap"):
            setattr(merged[tag], attr, getattr(base[tag], attr))
    for attr in ("sTypoAscender", "sTypoDescender", "sTypoLineGap", "usWinAscent", "usWinDescent", "fsSelection", "usWeightClass", "achVendID"):
        setattr(merged["OS/2"], attr, getattr(base["OS/2"], attr))
    merged["name"] = base["name"]
    rename(merged, FAMILY)
    merged.save(out)
    print(out, os.path.getsize(out), "glyphs", len(merged.getGlyphOrder()))

if __name__ == "__main__":
    for weight in ("Regular", "Bold"):
        build(weight, f"{sys.argv[1]}/ExplorerSans-{weight}.ttf")
