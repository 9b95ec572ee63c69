// Prints C++ CuTe's output for tests/oracle/cute-atoms-api.txt: the atoms added in issue 13
// (DefaultCopy and the AutoVectorizingCopy family, SM75 MMAs, the SM80 8-bit integer MMAs), the
// TiledMMAs and TiledCopys built on them, and the values the doc examples of the typed Rust API
// (layout/src/atom/*, tensor.rs, coord.rs) assert. Each case is an `@@ name` line followed by
// what C++ printed. Partitions of pointer tensors print their layout and the offset of their
// pointer from the tensor's base (C++ prints an address where the Rust port prints a name).
// Build and run (from the repository root):
//   g++ -std=c++17 -I$CUTLASS/include -I$CUDA/include -I$CUDA/include/cccl \
//       tools/oracle/atoms_api.cpp -o /tmp/atoms_api && /tmp/atoms_api > tests/oracle/cute-atoms-api.txt
#include <cute/tensor.hpp>
#include <cstdio>
using namespace cute;

#define CASE(name) printf("@@ %s\n", name)
#define LINE(name, x) do { CASE(name); print(x); printf("\n"); } while (0)
#define MMA_ATOM(op) do { CASE("print MMA_Atom<" #op ">"); print(MMA_Atom<op>{}); } while (0)

template <class T, class P>
long offset(T const& t, P base) { return long(raw_pointer_cast(t.data()) - base); }

// `layout +offset` of a pointer tensor.
#define PART(name, t, base) do { CASE(name); print((t).layout()); printf(" +%ld\n", offset(t, base)); } while (0)

// The atom, then its TiledMMA over 2x2x1 atoms: print, TV layouts, partition shapes.
#define INT_MMA(op, M, N, K)                                                                     \
  do {                                                                                           \
    auto mma = make_tiled_mma(op{}, Layout<Shape<_2,_2,_1>>{});                                  \
    CASE("print tiled " #op); print(mma); printf("\n");                                          \
    LINE("get_layoutA_TV " #op, mma.get_layoutA_TV());                                           \
    LINE("get_layoutB_TV " #op, mma.get_layoutB_TV());                                           \
    LINE("get_layoutC_TV " #op, mma.get_layoutC_TV());                                           \
    LINE("partition_shape_A " #op, partition_shape_A(mma, make_shape(Int<4*M>{}, Int<2*K>{})));  \
    LINE("partition_shape_B " #op, partition_shape_B(mma, make_shape(Int<4*N>{}, Int<2*K>{})));  \
    LINE("partition_shape_C " #op, partition_shape_C(mma, make_shape(Int<4*M>{}, Int<4*N>{})));  \
  } while (0)

int main() {
  // ---- Copy atoms ----
  CASE("print Copy_Atom<DefaultCopy, float>"); print(Copy_Atom<DefaultCopy, float>{});
  CASE("print Copy_Atom<DefaultCopy, int8_t>"); print(Copy_Atom<DefaultCopy, int8_t>{});
  CASE("print Copy_Atom<AutoVectorizingCopy, half_t>"); print(Copy_Atom<AutoVectorizingCopy, half_t>{});
  CASE("print Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<64>, float>");
  print(Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<64>, float>{});
  CASE("print Copy_Atom<UniversalCopy<uint32_t>, int8_t>"); print(Copy_Atom<UniversalCopy<uint32_t>, int8_t>{});
  CASE("print Copy_Atom<SM75_U32x4_LDSM_N, uint8_t>"); print(Copy_Atom<SM75_U32x4_LDSM_N, uint8_t>{});
  CASE("print Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, int8_t>");
  print(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, int8_t>{});
  CASE("print Copy_Atom<UniversalCopy<uint64_t>, int32_t>"); print(Copy_Atom<UniversalCopy<uint64_t>, int32_t>{});

  // ---- MMA atoms ----
  MMA_ATOM(SM75_16x8x8_F32F16F16F32_TN);
  MMA_ATOM(SM75_16x8x8_F16F16F16F16_TN);
  MMA_ATOM(SM75_8x8x16_S32S8S8S32_TN);
  MMA_ATOM(SM80_8x8x16_S32S8S8S32_TN);
  MMA_ATOM(SM80_8x8x16_S32S8S8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x16_S32S8S8S32_TN);
  MMA_ATOM(SM80_16x8x16_S32S8S8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x32_S32S8S8S32_TN);
  MMA_ATOM(SM80_16x8x32_S32S8S8S32_TN_SATURATE);
  MMA_ATOM(SM80_8x8x16_S32S8U8S32_TN);
  MMA_ATOM(SM80_8x8x16_S32S8U8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x16_S32S8U8S32_TN);
  MMA_ATOM(SM80_16x8x16_S32S8U8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x32_S32S8U8S32_TN);
  MMA_ATOM(SM80_16x8x32_S32S8U8S32_TN_SATURATE);
  MMA_ATOM(SM80_8x8x16_S32U8S8S32_TN);
  MMA_ATOM(SM80_8x8x16_S32U8S8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x16_S32U8S8S32_TN);
  MMA_ATOM(SM80_16x8x16_S32U8S8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x32_S32U8S8S32_TN);
  MMA_ATOM(SM80_16x8x32_S32U8S8S32_TN_SATURATE);
  MMA_ATOM(SM80_8x8x16_S32U8U8S32_TN);
  MMA_ATOM(SM80_8x8x16_S32U8U8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x16_S32U8U8S32_TN);
  MMA_ATOM(SM80_16x8x16_S32U8U8S32_TN_SATURATE);
  MMA_ATOM(SM80_16x8x32_S32U8U8S32_TN);
  MMA_ATOM(SM80_16x8x32_S32U8U8S32_TN_SATURATE);
  CASE("print MMA_Atom<UniversalFMA<float,half_t,half_t,float>>"); print(MMA_Atom<UniversalFMA<float, half_t, half_t, float>>{});

  // ---- TiledMMAs on the new atoms ----
  INT_MMA(SM75_16x8x8_F32F16F16F32_TN, 16, 8, 8);
  INT_MMA(SM75_8x8x16_S32S8S8S32_TN, 8, 8, 16);
  INT_MMA(SM80_8x8x16_S32S8S8S32_TN, 8, 8, 16);
  INT_MMA(SM80_16x8x16_S32S8S8S32_TN, 16, 8, 16);
  INT_MMA(SM80_16x8x32_S32S8S8S32_TN, 16, 8, 32);
  INT_MMA(SM80_16x8x32_S32U8S8S32_TN_SATURATE, 16, 8, 32);

  // ---- make_tiled_copy_A/B/C ----
  auto mma8 = make_tiled_mma(SM80_16x8x32_S32S8S8S32_TN{}, Layout<Shape<_2,_2,_1>>{});
  auto cpA = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, int8_t>{}, mma8);
  CASE("print make_tiled_copy_A ldsm int8"); print(cpA);
  LINE("tidfrg_S make_tiled_copy_A ldsm int8", cpA.tidfrg_S(make_layout(make_shape(_32{},_32{}), LayoutRight{})));
  auto cpB = make_tiled_copy_B(Copy_Atom<SM75_U32x2_LDSM_N, int8_t>{}, mma8);
  CASE("print make_tiled_copy_B ldsm int8"); print(cpB);
  auto cpC = make_tiled_copy_C(Copy_Atom<UniversalCopy<uint64_t>, int32_t>{}, mma8);
  CASE("print make_tiled_copy_C int32"); print(cpC);
  auto mmah = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<_32,_32,_16>{});
  auto cpAh = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mmah);
  CASE("print make_tiled_copy_A ldsm half"); print(cpAh);
  auto cpBh = make_tiled_copy_B(Copy_Atom<SM75_U16x8_LDSM_T, half_t>{}, mmah);
  CASE("print make_tiled_copy_B ldsm_t half"); print(cpBh);
  auto cpCd = make_tiled_copy_C(Copy_Atom<DefaultCopy, float>{}, mmah);
  LINE("get_layoutS_TV make_tiled_copy_C default", cpCd.get_layoutS_TV());
  {
    float* S = nullptr;
    auto sC = make_tensor(make_smem_ptr(S), make_layout(make_shape(_32{},_32{})));
    PART("make_tiled_copy_C default partition_S 5", cpCd.get_slice(5).partition_S(sC), S);
  }

  // ---- DefaultCopy in a TiledCopy ----
  auto tcd = make_tiled_copy(Copy_Atom<DefaultCopy, float>{}, Layout<Shape<_32,_8>>{}, Layout<Shape<_4,_1>>{});
  CASE("print tiled_copy DefaultCopy"); print(tcd);
  LINE("tidfrg_S tiled_copy DefaultCopy", tcd.tidfrg_S(make_layout(make_shape(_128{},_32{}))));

  // ---- doc values: copy traits ----
  LINE("ThrID SM75_U32x4_LDSM_N", typename Copy_Traits<SM75_U32x4_LDSM_N>::ThrID{});
  LINE("SrcLayout SM75_U32x4_LDSM_N", typename Copy_Traits<SM75_U32x4_LDSM_N>::SrcLayout{});
  LINE("DstLayout SM75_U32x4_LDSM_N", typename Copy_Traits<SM75_U32x4_LDSM_N>::DstLayout{});
  LINE("RefLayout SM75_U32x4_LDSM_N", typename Copy_Traits<SM75_U32x4_LDSM_N>::RefLayout{});
  LINE("SrcLayout SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", typename Copy_Traits<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>>::SrcLayout{});

  // ---- doc values: TiledCopy / ThrCopy ----
  auto tc = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
                            Layout<Shape<_32,_8>>{}, Layout<Shape<_4,_1>>{});
  LINE("size tiled_copy", size(tc));
  {
    auto tv = tc.get_layoutS_TV();
    auto mk = right_inverse(tv).compose(make_layout(typename decltype(tc)::Tiler_MN{}));
    auto thr = make_layout(size(tc));
    LINE("get_layoutS_MN tiled_copy", make_tuple(mk, thr));
  }
  auto tci = make_tiled_copy_impl(Copy_Atom<UniversalCopy<uint128_t>, float>{},
                                  Layout<Shape<_256,_4>,Stride<_4,_1>>{}, Shape<_128,_8>{});
  LINE("tidfrg_D make_tiled_copy_impl", tci.tidfrg_D(make_layout(make_shape(_128{},_32{}))));
  CASE("print ThrCopy 3"); print(tc.get_slice(3));
  {
    auto mma80 = make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{}, Layout<Shape<_2,_2,_1>>{});
    auto tcC = make_tiled_copy_C(Copy_Atom<UniversalCopy<uint64_t>, float>{}, mma80);
    using Frag = Layout<Shape<Shape<_2,_2>,_4,_8>, Stride<Stride<_1,_2>,_4,_16>>;
    LINE("TiledCopy::retile copy_C", decltype(tcC)::retile(Frag{}));
  }

  // ---- doc values: TiledMMA / ThrMMA ----
  auto mma80 = make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{}, Layout<Shape<_2,_2,_1>>{});
  LINE("size tiled_mma sm80", size(mma80));
  LINE("permutation_mnk<0> sm80", mma80.permutation_mnk<0>());
  LINE("permutation_mnk<2> sm80", mma80.permutation_mnk<2>());
  LINE("tile_size<1> sm80", tile_size<1>(mma80));
  LINE("partition_shape_B sm80", partition_shape_B(mma80, make_shape(_64{},_32{})));
  LINE("partition_shape_C sm80", partition_shape_C(mma80, make_shape(_64{},_64{})));
  CASE("print ThrMMA sm80 37"); print(mma80.get_slice(37)); printf("\n");
  LINE("thr_vmnk sm80 37", mma80.get_slice(37).thr_vmnk_);
  {
    float* S = nullptr;
    auto sB = make_tensor(make_smem_ptr(S), make_layout(make_shape(_64{},_32{})));
    PART("partition_B sm80 37", mma80.get_slice(37).partition_B(sB), S);
    LINE("partition_fragment_B sm80 37", mma80.get_slice(37).partition_fragment_B(sB).layout());
  }

  // ---- doc values: pointers and tensors ----
  {
    float* A = nullptr;
    LINE("make_gmem_ptr float", make_gmem_ptr(A));
    LINE("make_smem_ptr half_t", make_smem_ptr((half_t*)nullptr));
    LINE("make_rmem_ptr int8_t", make_rmem_ptr((int8_t*)nullptr));
    auto t = make_tensor(make_gmem_ptr(A), make_layout(make_shape(_4{},_8{})));
    LINE("make_tensor gmem (_4,_8)", t);
    LINE("make_identity_tensor (_4,_8)", make_identity_tensor(make_shape(_4{},_8{})));
    LINE("make_identity_tensor (M=6,N=10)", make_identity_tensor(make_shape(6, 10)));
    PART("tensor slice (_,2)", t(_, 2), A);
    CASE("tensor at (2,3)"); printf("+%ld\n", long(&t(2,3) - A));
    LINE("identity at (2,3)", make_identity_tensor(make_shape(_4{},_8{}))(2,3));
    auto tile = local_tile(make_identity_tensor(make_shape(8, 8)), make_shape(_4{},_4{}), make_coord(1, 1));
    LINE("identity local_tile (1,1)", tile);
    LINE("identity local_tile (1,1) at (1,2)", tile(1,2));
    LINE("coalesce tensor (_4,_8) col-major", coalesce(t.layout()));
    LINE("make_tensor(t.data(), make_layout(_32))", make_tensor(t.data(), make_layout(_32{})));
    auto h = recast<half_t>(t);
    LINE("recast<half_t> layout", h.layout());
    LINE("recast<half_t> data", h.data());
    auto tc2 = make_tensor(make_gmem_ptr(A), make_layout(make_shape(_4{},_8{}), LayoutRight{}));
    LINE("coalesce tensor layout", coalesce(tc2.layout()));
    PART("zipped_divide tensor (_2,_4)", zipped_divide(t, make_shape(_2{},_4{})), A);
    PART("inner_partition tensor (_2,_4) (1,1)", inner_partition(t, make_shape(_2{},_4{}), make_coord(1,1)), A);
    PART("outer_partition tensor (_2,_4) (1,1)", outer_partition(t, make_shape(_2{},_4{}), make_coord(1,1)), A);
    auto gA = make_tensor(make_gmem_ptr(A), make_layout(make_shape(256, 64)));
    PART("local_tile gA Step<_1,X,_1>", local_tile(gA, make_shape(_128{},_128{},_8{}), make_coord(1,0,_), Step<_1,X,_1>{}), A);
    PART("local_tile gA (_128,_8) (1,_)", local_tile(gA, make_shape(_128{},_8{}), make_coord(1,_)), A);
    auto sA = make_tensor(make_smem_ptr(A), make_layout(make_shape(_16{},_8{})));
    PART("local_partition sA (_2,_4) 5", local_partition(sA, Layout<Shape<_2,_4>>{}, 5), A);
    PART("local_partition sA (_2,_4) 5 Step<_1,X>", local_partition(sA, Layout<Shape<_2,_4>>{}, 5, Step<_1,X>{}), A);
  }

  // ---- doc values: coordinates ----
  using Proj = Step<_1,X,_1>;
  LINE("Step<_1,X,_1>", Proj{});
  LINE("repeat<3>(_)", repeat<3>(_));
  CASE("has_underscore (_,2)"); printf("%d\n", int(has_underscore<decltype(make_coord(_, 2))>::value));
  LINE("slice (_,2) (4,8)", slice(make_coord(_, 2), make_shape(4, 8)));
  LINE("dice (_,2) (4,8)", dice(make_coord(_, 2), make_shape(4, 8)));
  {
    auto l = make_layout(make_shape(_4{},_8{}));
    LINE("slice (_,2) (_4,_8)", slice(make_coord(_, 2), l));
    LINE("dice (_,2) (_4,_8)", dice(make_coord(_, 2), l));
    LINE("crd2idx (2,3) (_4,_8)", crd2idx(make_coord(2, 3), l));
    LINE("crd2idx (_2,_3) (_4,_8)", crd2idx(make_coord(_2{}, _3{}), l));
    auto r = make_layout(make_shape(_4{},_8{}), LayoutRight{});
    LINE("(_4,_8):(_8,_1) at 13", r(13));
    using H = Layout<Shape<Shape<_2,_2>,_8>, Stride<Stride<_1,_2>,_4>>;
    auto h = H{};
    LINE("get_hier_coord 13", h.get_hier_coord(13));
    LINE("get_flat_coord 13", h.get_flat_coord(13));
  }
  return 0;
}
