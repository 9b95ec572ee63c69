# A/B timing of hand-made variants of an emitted TN 16-bit GEMM (cupy: NVRTC + events).
# usage: python3 ab.py SIZE file.cu[:name] ...   (grid M/128 x N/256, 256 threads, 147456 B smem)
import sys, cupy as cp, numpy as np
size = int(sys.argv[1])
M = N = K = size
rng = cp.random.default_rng(1)
A = rng.standard_normal((M, K), dtype=cp.float32).astype(cp.float16)
B = rng.standard_normal((N, K), dtype=cp.float32).astype(cp.float16)
ref = (A.astype(cp.float32) @ B.astype(cp.float32).T).T  # C column-major: C[n, m] row-major
C = cp.empty((N, M), dtype=cp.float32)
for arg in sys.argv[2:]:
    path, _, label = arg.partition(":")
    src = open(path).read()
    import re; name = re.search(r"__global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(", src).group(1)
    mod = cp.RawModule(code=src, options=("--gpu-architecture=sm_90a",), name_expressions=None)
    k = mod.get_function(name)
    smem = int(src.split("shared memory: ")[1].split()[0])
    bm, bn = (128, 256)
    k.max_dynamic_shared_size_bytes = smem
    grid = ((M + bm - 1) // bm, (N + bn - 1) // bn)
    args = (np.int32(M), np.int32(N), np.int32(K), np.float32(1), A.view(cp.uint16), np.int32(K),
            B.view(cp.uint16), np.int32(K), np.float32(0), C, np.int32(M))
    C.fill(float("nan"))
    for _ in range(3):
        k(grid, (256,), args, shared_mem=smem)
    cp.cuda.Device().synchronize()
    err = float(cp.max(cp.abs(C - ref)))
    ts = []
    for _ in range(20):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record(); k(grid, (256,), args, shared_mem=smem); e1.record(); e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1))
    ms = sorted(ts)[10]
    print(f"{label or path:28s} {size}^3: {ms:.4f} ms {2*M*N*K/ms/1e9:8.1f} TFLOP/s  max|err| {err:.3g}", flush=True)
