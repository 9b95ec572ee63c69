#!/usr/bin/env python3
"""Writes tests/oracle/cute-sm90-atoms.txt: C++ CuTe's print() of the SM90 GMMA MMA atoms and of
TiledMMAs over them, of the stmatrix copy atoms and TiledCopies of C made from them, one
`@@ EXPRESSION` block each (the expression in the language of
cute-expr.md, then what C++ printed for its C++ translation).

The atoms: every family of mma_traits_sm90_gmma.hpp and _ext.hpp (F16 and F32 accumulate over
FP16, F32 over BF16, TF32, the eight FP8 pairs, the four 8-bit integer pairs and their
_SATURATE forms), SS and RS, every major pair a 16-bit SS atom takes and the K-major A of RS,
at five N each (8, 24, 64, 128, 256; the integer ones 8, 24, 48, 128, 256), and a
ScaleIn::Neg. The TiledMMAs: print and get_layoutA/B/C_TV of 2x1x1 and 1x2x1 warpgroups.

Environment as gen.py: CUTE_INCLUDE (CUTLASS include/), CUDA_INCLUDE (its cccl/ is added), CXX.
Usage, from the repository root: python3 tools/oracle/sm90_atoms.py
"""

import os
import subprocess
import sys
import tempfile

OUTPUT = "tests/oracle/cute-sm90-atoms.txt"
REJECTED = "tests/oracle/cute-sm90-rejected.tsv"

# Spellings C++ CuTe refuses (each compiled alone; the first error line is kept).
BAD = [
    "MMA_Atom<SM90_64x128x16_F32BF16BF16_RS<GMMA::Major::MN,GMMA::Major::K>>",
    "MMA_Atom<SM90_64x36x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>>",
    "MMA_Atom<SM90_64x40x32_S32S8S8_SS_TN>",
    "MMA_Atom<SM90_64x264x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>>",
    "MMA_Atom<SM90_64x64x16_F32TF32TF32_SS_TN<>>",
    "MMA_Atom<SM90_64x64x16_F16BF16BF16_SS<GMMA::Major::K,GMMA::Major::K>>",
    "MMA_Atom<SM90_64x64x8_F32TF32TF32_SS<GMMA::Major::K,GMMA::Major::K>>",
    "MMA_Atom<SM90_64x64x16_F32F16F16_SS_TN<>>",
    "MMA_Atom<SM90_64x64x32_S32S8S8_SS_TN_SATURATE<GMMA::ScaleIn::One>>",
]
# descriptors C++ refuses (static_asserts of make_gmma_desc): the tile in the other major, a K of
# 64 bytes, an SW128 atom read as SW64's canonical form cannot arise, so: a K-major tile of 4 rows
BAD_DESC = [
    ("make_gmma_desc<GMMA::Major::MN>(make_tensor(smem_ptr[16b](sA), tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_64,_64))))",
     "GMMA::make_gmma_desc<GMMA::Major::MN>(make_tensor(make_smem_ptr((half_t*)nullptr), tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_64{},_64{}))))"),
    ("make_gmma_desc<GMMA::Major::K>(make_tensor(smem_ptr[16b](sA), tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_64,_64))))",
     "GMMA::make_gmma_desc<GMMA::Major::K>(make_tensor(make_smem_ptr((half_t*)nullptr), tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_64{},_64{}))))"),
    ("make_gmma_desc<GMMA::Major::K>(make_tensor(smem_ptr[16b](sA), tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_64,_16))))",
     "GMMA::make_gmma_desc<GMMA::Major::K>(make_tensor(make_smem_ptr((half_t*)nullptr), tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(_64{},_16{}))))"),
    ("make_gmma_desc<GMMA::Major::K>(make_tensor(smem_ptr[16b](sA), (_64,_16):(_16,_1)))",
     "GMMA::make_gmma_desc<GMMA::Major::K>(make_tensor(make_smem_ptr((half_t*)nullptr), make_layout(make_shape(_64{},_16{}), make_stride(_16{},_1{}))))"),
]

K, MN = "GMMA::Major::K", "GMMA::Major::MN"
SIXTEEN = ["F16F16F16", "F32F16F16", "F32BF16BF16"]
FP8 = [f"{d}{a}{b}" for d in ("F16", "F32") for a in ("E4M3", "E5M2") for b in ("E4M3", "E5M2")]
INT = [f"S32{a}{b}" for a in ("S8", "U8") for b in ("S8", "U8")]


def atoms():
    """The atom spellings (C++ and the expression language are the same here)."""
    out = []
    for types in SIXTEEN:
        for n in (8, 24, 64, 128, 256):
            for ma, mb in ((K, K), (K, MN), (MN, K), (MN, MN)):
                out.append(f"SM90_64x{n}x16_{types}_SS<{ma},{mb}>")
            for mb in (K, MN):
                out.append(f"SM90_64x{n}x16_{types}_RS<{K},{mb}>")
    for n in (8, 24, 64, 128, 256):
        for src in ("SS", "RS"):
            out.append(f"SM90_64x{n}x8_F32TF32TF32_{src}_TN<>")
            for types in FP8:
                out.append(f"SM90_64x{n}x32_{types}_{src}_TN<>")
    for n in (8, 24, 48, 128, 256):
        for src in ("SS", "RS"):
            for types in INT:
                for sat in ("", "_SATURATE"):
                    out.append(f"SM90_64x{n}x32_{types}_{src}_TN{sat}")
    out.append(f"SM90_64x64x16_F32F16F16_SS<{K},{K},GMMA::ScaleIn::Neg,GMMA::ScaleIn::One>")
    out.append("SM90_64x32x32_F32E4M3E4M3_SS_TN<GMMA::ScaleIn::One,GMMA::ScaleIn::Neg>")
    return out


def cases():
    """(expression, C++ expression) pairs."""
    out = [(f"MMA_Atom<{a}>", f"MMA_Atom<{a}>{{}}") for a in atoms()] + layout_cases()
    tiled = [
        f"SM90_64x128x16_F32BF16BF16_SS<{K},{K}>",
        f"SM90_64x64x16_F16F16F16_RS<{K},{MN}>",
        "SM90_64x256x8_F32TF32TF32_SS_TN<>",
        "SM90_64x96x32_F32E4M3E5M2_RS_TN<>",
        "SM90_64x48x32_S32U8S8_SS_TN",
    ]
    # the stmatrix copy atoms (copy_traits_sm90.hpp) and TiledCopies of C made from them
    for op in ("SM90_U32x1_STSM_N", "SM90_U32x2_STSM_N", "SM90_U32x4_STSM_N",
               "SM90_U16x2_STSM_T", "SM90_U16x4_STSM_T", "SM90_U16x8_STSM_T"):
        for t in ("half_t", "bfloat16_t"):
            out.append((f"Copy_Atom<{op}, {t}>", f"Copy_Atom<{op}, {t}>{{}}"))
    for op, a in (("SM90_U32x4_STSM_N", f"SM90_64x128x16_F32F16F16_SS<{K},{K}>"),
                  ("SM90_U16x8_STSM_T", f"SM90_64x64x16_F16F16F16_SS<{K},{MN}>")):
        mma = f"make_tiled_mma(MMA_Atom<{a}>, make_layout((_2,_1,_1)))"
        cmma = f"make_tiled_mma(MMA_Atom<{a}>{{}}, Layout<Shape<_2,_1,_1>>{{}})"
        out.append((f"make_tiled_copy_C(Copy_Atom<{op}, half_t>, {mma})",
                    f"make_tiled_copy_C(Copy_Atom<{op}, half_t>{{}}, {cmma})"))
    for a in tiled:
        for thr in ("(_2,_1,_1)", "(_1,_2,_1)"):
            cpp_thr = f"Layout<Shape<{thr[1:-1]}>>{{}}"
            expr = f"make_tiled_mma(MMA_Atom<{a}>, make_layout({thr}))"
            cpp = f"make_tiled_mma(MMA_Atom<{a}>{{}}, {cpp_thr})"
            out.append((expr, cpp))
            for m in ("A", "B", "C"):
                out.append((f"{expr}.get_layout{m}_TV()", f"{cpp}.get_layout{m}_TV()"))
    return out


BITS = {"half_t": 16, "bfloat16_t": 16, "float": 32, "tfloat32_t": 32, "uint8_t": 8,
        "float_e4m3_t": 8, "double": 64}


def shape(dims):
    """`(_a,_b)` and `make_shape(_a{},_b{})`."""
    return "(" + ",".join(f"_{d}" for d in dims) + ")", "make_shape(" + ",".join(f"_{d}{{}}" for d in dims) + ")"


def layout_cases():
    """The GMMA layout atoms, their tilings and casts, and descriptors of tiles made from them."""
    out = []
    for major in ("K", "MN"):
        for sw in ("INTER", "SW32", "SW64", "SW128"):
            for t in BITS:
                a = f"GMMA::Layout_{major}_{sw}_Atom<{t}>"
                out.append((a, a + "{}"))
    out.append(("GMMA::Layout_SW128_Atom<half_t, GMMA::Major::MN>", "GMMA::Layout_SW128_Atom<half_t, GMMA::Major::MN>{}"))
    out.append(("GMMA::Layout_SW64_Atom<float, GMMA::Major::K>", "GMMA::Layout_SW64_Atom<float, GMMA::Major::K>{}"))
    k128 = "GMMA::Layout_K_SW128_Atom<half_t>"
    mn64 = "GMMA::Layout_MN_SW64_Atom<float>"
    for a, dims in ((k128, (128, 64, 3)), (k128, (64, 128)), (mn64, (64, 32, 4)), ("GMMA::Layout_K_INTER_Atom<uint8_t>", (64, 64))):
        e, c = shape(dims)
        out.append((f"tile_to_shape({a}, {e})", f"tile_to_shape({a}{{}}, {c})"))
    for f in ("upcast<2>", "downcast<2>", "coalesce", "size", "cosize"):
        out.append((f"{f}({k128})", f"{f}({k128}{{}})"))
    out.append((f"({k128})(1,8)", f"({k128}{{}})(1,8)"))
    # descriptors: (type, major, swizzle, tile (MN,K), k-step block or None, start offsets)
    for t, major, sw, tile, block in (
        ("half_t", "K", "SW128", (64, 64), (64, 16)),
        ("half_t", "K", "SW128", (128, 64), (128, 16)),
        ("half_t", "K", "SW64", (64, 32), (64, 16)),
        ("half_t", "K", "SW32", (64, 16), None),
        ("half_t", "K", "INTER", (64, 16), None),
        ("bfloat16_t", "K", "SW128", (256, 64), (256, 16)),
        ("tfloat32_t", "K", "SW128", (64, 32), (64, 8)),
        ("float_e4m3_t", "K", "SW128", (64, 128), (64, 32)),
        ("half_t", "MN", "SW128", (128, 16), None),
        ("half_t", "MN", "SW128", (64, 16), None),
        ("half_t", "MN", "SW64", (128, 16), None),
        ("half_t", "MN", "SW32", (64, 16), None),
        ("half_t", "MN", "INTER", (64, 16), None),
        ("bfloat16_t", "MN", "SW128", (256, 64), (256, 16)),
    ):
        a = f"GMMA::Layout_{major}_{sw}_Atom<{t}>"
        e, c = shape(tile)
        le, lc = f"tile_to_shape({a}, {e})", f"tile_to_shape({a}{{}}, {c})"
        if block:
            be, bc = shape(block)
            le, lc = f"composition({le}, make_layout({be}))", f"composition({lc}, make_layout({bc}))"
        # the start address is 0: host code has no shared-memory addresses (C++'s
        # cast_smem_ptr_to_uint prints an error and gives 0 on the host)
        pe, pc = f"smem_ptr[{BITS[t]}b](sA)", f"make_smem_ptr(({t}*)nullptr)"
        out.append((f"make_gmma_desc<GMMA::Major::{major}>(make_tensor({pe}, {le}))",
                    f"GMMA::make_gmma_desc<GMMA::Major::{major}>(make_tensor({pc}, {lc}))"))
    return out


def program(pairs):
    lines = [
        "#include <cstdio>",
        "#include <cute/tensor.hpp>",
        "#include <cute/arch/mma_sm90_gmma_ext.hpp>",
        "#include <cute/atom/mma_traits_sm90_gmma_ext.hpp>",
        "using namespace cute;",
        "int main() {",
    ]
    for expr, cpp in pairs:
        lines.append(f'  printf("@@ %s\\n", "{expr}"); print({cpp}); printf("\\n");')
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    cute = os.environ.get("CUTE_INCLUDE", "/tmp/cutlass/include")
    cuda = os.environ.get("CUDA_INCLUDE", "/tmp/cudart/nvidia/cu13/include")
    flags = [f"-I{cute}", f"-I{cuda}"]
    if os.path.isdir(os.path.join(cuda, "cccl")):
        flags.append(f"-I{os.path.join(cuda, 'cccl')}")
    pairs = cases()
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "sm90.cpp"), os.path.join(d, "sm90")
        with open(src, "w") as f:
            f.write(program(pairs))
        cxx = os.environ.get("CXX", "g++")
        cc = subprocess.run([cxx, "-std=c++17", "-O0", "-w", *flags, src, "-o", exe],
                            capture_output=True, text=True)
        if cc.returncode != 0:
            print(cc.stderr[:4000], file=sys.stderr)
            return 1
        text = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    # print() of an atom ends in a newline and the program adds one: one blank line between blocks
    host_only = "ERROR: cast_smem_ptr_to_uint not supported but used.\n"
    blocks = [b.replace(host_only, "").rstrip("\n") for b in text.split("@@ ")[1:]]
    with open(OUTPUT, "w") as f:
        for b in blocks:
            f.write(f"@@ {b}\n")
    print(f"{len(blocks)} blocks -> {OUTPUT}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as d, open(REJECTED, "w") as out:
        out.write("# SM90 GMMA spellings C++ CuTe refuses (tools/oracle/sm90_atoms.py): EXPRESSION<TAB>first g++ error\n")
        for expr, cpp in [(b, b + "{}") for b in BAD] + BAD_DESC:
            src = os.path.join(d, "bad.cpp")
            with open(src, "w") as f:
                f.write(program([(expr, cpp)]))
            cc = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-w", *flags, src],
                                capture_output=True, text=True)
            if cc.returncode == 0:
                print(f"C++ accepts {expr}", file=sys.stderr)
                return 1
            first = next(l for l in cc.stderr.splitlines() if "error" in l)
            out.write(f"{expr}\t{first.split('error: ', 1)[-1]}\n")
    print(f"{len(BAD) + len(BAD_DESC)} rejected -> {REJECTED}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
