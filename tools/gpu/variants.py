# The hand-made variants of an emitted TN 16-bit GEMM that ab.py times, from `cute emit`:
#   python3 variants.py kernel.cu   ->  v_base.cu v_nocopy.cu v_nomma.cu v_raster{4,8,16}.cu
# nocopy: the mainloop issues no cp.async (the smem -> ldmatrix -> mma loop alone; wrong result);
# nomma: no mma.sync (the copies and ldmatrix alone; wrong result); rasterG: a grouped raster,
# G consecutive M-blocks walk every N-block before the next group (same result).
import sys
s = open(sys.argv[1]).read()
v = {"base": s, "nocopy": s.replace("if ((kt + 2) < ((K + 63) / 64)) {", "if (false) {")}
i = s.index('asm volatile("mma.sync')
v["nomma"] = s[: i] + s[s.index("\n", i):]
old = "  const int bx = blockIdx.x;\n  const int by = blockIdx.y;\n"
for g in (4, 8, 16):
    v[f"raster{g}"] = s.replace(old, f"""  const int cute_lin = blockIdx.x + gridDim.x * blockIdx.y;
  const int cute_grp = cute_lin / ({g} * gridDim.y);
  const int cute_w = min({g}, (int)gridDim.x - cute_grp * {g});
  const int bx = cute_grp * {g} + (cute_lin % ({g} * gridDim.y)) % cute_w;
  const int by = (cute_lin % ({g} * gridDim.y)) / cute_w;
""")
for name, text in v.items():
    assert name == "base" or text != s, name
    open(f"v_{name}.cu", "w").write(text)
