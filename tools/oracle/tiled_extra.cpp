// Prints C++ CuTe's output for the TiledCopy / TiledMMA cases of tests/oracle/cute-tiled-extra.txt
// that the expression translator (gen.py) does not handle: multi-line prints, thread partitions
// of tensors (offsets from the tensor's base instead of raw addresses), retile, fragments.
// Build: g++ -std=c++17 -I$CUTLASS/include -I$CUDA/include -I$CUDA/include/cccl tiled_extra.cpp
#include <cute/tensor.hpp>
#include <cstdio>
using namespace cute;

template <class T, class P>
long offset(T const& t, P base) { return long(raw_pointer_cast(t.data()) - base); }

#define CASE(name) printf("@@ %s\n", name)

int main() {
  float* A = nullptr;
  auto tc = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
                            Layout<Shape<_32,_8>>{}, Layout<Shape<_4,_1>>{});
  CASE("print tiled_copy"); print(tc);
  CASE("print copy_atom"); print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{});
  auto mma = make_tiled_mma(UniversalFMA<float,float,float,float>{}, Layout<Shape<_16,_16>>{},
                            Tile<Layout<Shape<_16,_4,_2>,Stride<_4,_1,_64>>,_128,_32>{});
  CASE("print tiled_mma"); print(mma); printf("\n");
  auto mma80 = make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{}, Layout<Shape<_2,_2,_1>>{});
  CASE("print tiled_mma sm80"); print(mma80); printf("\n");
  CASE("print mma_atom"); print(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>{});

  auto sA = make_tensor(make_smem_ptr(A), make_layout(make_shape(_128{},_32{},_3{})));
  for (int tid : {0, 33, 255}) {
    auto p = tc.get_slice(tid).partition_D(sA);
    printf("@@ partition_D %d\n", tid); print(p.layout()); printf(" +%ld\n", offset(p, A));
  }
  auto gA = make_tensor(make_gmem_ptr(A), make_layout(make_shape(4096, 1024)));
  auto gt = local_tile(gA, make_shape(_128{},_32{}), make_coord(3, _));
  auto ps = tc.get_slice(37).partition_S(gt);
  CASE("partition_S 37 gA"); print(ps.layout()); printf(" +%ld\n", offset(ps, A));

  auto sB = make_tensor(make_smem_ptr(A), composition(Swizzle<1,2,3>{}, make_layout(make_shape(_128{},_32{},_3{}), make_stride(_32{},_1{},_4096{}))));
  auto tcB = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
                             Layout<Shape<_32,_8>,Stride<_8,_1>>{}, Layout<Shape<_1,_4>>{});
  for (int tid : {0, 9, 200}) {
    auto p = tcB.get_slice(tid).partition_D(sB);
    printf("@@ partition_D swizzled %d\n", tid); print(p.layout()); printf(" +%ld\n", offset(p, A));
  }

  auto sC = make_tensor(make_smem_ptr(A), make_layout(make_shape(_128{},_128{})));
  for (int tid : {0, 17, 255}) {
    auto thr = mma.get_slice(tid);
    auto pc = thr.partition_C(sC);
    printf("@@ partition_C %d\n", tid); print(pc.layout()); printf(" +%ld\n", offset(pc, A));
    auto pa = thr.partition_A(sA);
    printf("@@ partition_A %d\n", tid); print(pa.layout()); printf(" +%ld\n", offset(pa, A));
    auto fa = thr.partition_fragment_A(sA);
    printf("@@ partition_fragment_A %d\n", tid); print(fa.layout()); printf("\n");
    auto fc = thr.partition_fragment_C(sC);
    printf("@@ partition_fragment_C %d\n", tid); print(fc.layout()); printf("\n");
  }
  CASE("partition_shape_C"); print(partition_shape_C(mma, make_shape(_128{},_128{}))); printf("\n");
  CASE("partition_shape_A 80"); print(partition_shape_A(mma80, make_shape(_64{},_32{}))); printf("\n");

  auto sA16 = make_tensor(make_smem_ptr((half_t*)nullptr), make_layout(make_shape(_32{},_16{}), make_stride(_16{},_1{})));
  auto mmah = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<_32,_32,_16>{});
  auto ldsm = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mmah);
  auto thr_mma = mmah.get_slice(5);
  auto frag = thr_mma.partition_fragment_A(sA16);
  CASE("fragment_A 16x8x16 thread 5"); print(frag.layout()); printf("\n");
  auto rt = ldsm.get_slice(5).retile_D(frag);
  CASE("retile_D ldsm thread 5"); print(rt.layout()); printf("\n");
  auto pS = ldsm.get_slice(5).partition_S(sA16);
  CASE("ldsm partition_S 5"); print(pS.layout()); printf(" +%ld\n", long(raw_pointer_cast(pS.data()) - (half_t*)nullptr));
  auto tcC = make_tiled_copy_C(Copy_Atom<UniversalCopy<uint64_t>, float>{}, mma80);
  auto fragC = mma80.get_slice(3).partition_fragment_C(sC);
  CASE("fragment_C sm80 3"); print(fragC.layout()); printf("\n");
  CASE("retile_S copy_C 3"); print(tcC.get_slice(3).retile_S(fragC).layout()); printf("\n");
  return 0;
}
