#!/usr/bin/env python3
"""Interleaved NVRTC A/B of CUDA sources: `ab.py BEFORE_DIR AFTER_DIR [NAME.cu ...]`.

Compiles each file of BEFORE_DIR and its namesake in AFTER_DIR alternately through NVRTC's C API
(the runtime's options, for `--arch`, default sm_90a), ROUNDS rounds after a warm-up, and prints
the median of each, the change, and whether the two cubins are the same byte for byte: a change
meant to cost the compiler less without changing the kernel shows `same cubin`. The development
VM's speed drifts within the hour, so only the interleaved medians of one run compare.

Sources: `cute emit NAME --layout L --arch A > DIR/NAME.L.cu` from two builds. NVRTC comes from
CUTE_NVRTC_LIB or the loader path (`pip install nvidia-cuda-nvrtc==13.0.88`).
"""
import ctypes
import hashlib
import os
import statistics
import sys
import time


def load():
    folder = os.environ.get("CUTE_NVRTC_LIB")
    if not folder:
        return ctypes.CDLL("libnvrtc.so.13")
    # NVRTC opens its builtins library by name at compile time: load it first, globally
    for f in sorted(os.listdir(folder)):
        if f.startswith("libnvrtc-builtins.so"):  # not the .alt build
            ctypes.CDLL(os.path.join(folder, f), mode=ctypes.RTLD_GLOBAL)
            break
    return ctypes.CDLL(os.path.join(folder, "libnvrtc.so.13"))


def compile_once(lib, src, arch):
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None):
        raise RuntimeError("nvrtcCreateProgram failed")
    opts = [f"--gpu-architecture={arch}", "--std=c++17", "--ptxas-options=-v", "-default-device"]
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    t = time.perf_counter()
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    ms = (time.perf_counter() - t) * 1e3
    cubin = b""
    if rc == 0:
        n = ctypes.c_size_t()
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        lib.nvrtcGetCUBIN(prog, buf)
        cubin = buf.raw
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    if rc:
        raise RuntimeError(f"NVRTC failed ({rc})")
    return ms, hashlib.sha256(cubin).hexdigest()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--arch=")]
    arch = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--arch=")), "sm_90a")
    if len(args) < 2:
        sys.exit(__doc__)
    before, after, names = args[0], args[1], args[2:]
    names = names or sorted(f for f in os.listdir(before) if f.endswith(".cu"))
    rounds = int(os.environ.get("ROUNDS", "7"))
    lib = load()
    print(f"| source | before (ms) | after (ms) | change | cubin |")
    print("|---|---:|---:|---:|---|")
    for name in names:
        a = open(os.path.join(before, name)).read()
        b = open(os.path.join(after, name)).read()
        (_, ha), (_, hb) = compile_once(lib, a, arch), compile_once(lib, b, arch)
        ta, tb = [], []
        for _ in range(rounds):
            ta.append(compile_once(lib, a, arch)[0])
            tb.append(compile_once(lib, b, arch)[0])
        ma, mb = statistics.median(ta), statistics.median(tb)
        same = "same" if ha == hb else "DIFFERS"
        print(f"| {name} | {ma:.0f} | {mb:.0f} | {100 * (mb - ma) / ma:+.1f}% | {same} |", flush=True)


if __name__ == "__main__":
    main()
