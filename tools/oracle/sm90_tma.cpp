// Prints C++ CuTe's make_tma_copy TiledCopies for tests/oracle/cute-sm90-tma.txt: each block is
// "@@ EXPRESSION" (the same TiledCopy in the cute expression language, what tests/sm90_tma.rs
// evaluates) and then what print() of the C++ value wrote. Global extents are runtime ints in
// C++ (M = K = N = 4096) and symbols in the expressions; the printed TiledCopy holds neither.
// Build (host g++, CUTLASS 4.x headers and the CUDA runtime headers from PyPI):
//   g++ -std=c++17 -I$CUTLASS/include -I$CUDA/include -I$CUDA/include/cccl sm90_tma.cpp
//   ./a.out > tests/oracle/cute-sm90-tma.txt
#include <cstdio>
#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
using namespace cute;

#define CASE(expr, value) do { printf("@@ %s\n", expr); print(value); } while (0)

template <class T>
auto kmajor(int m, int k) { return make_tensor(make_gmem_ptr((T*)nullptr), make_shape(m, k), make_stride(k, _1{})); }
template <class T>
auto mnmajor(int m, int k) { return make_tensor(make_gmem_ptr((T*)nullptr), make_shape(m, k), make_stride(_1{}, m)); }

int main() {
  int M = 4096, K = 4096;
  auto gAh = kmajor<half_t>(M, K);
  auto gAt = mnmajor<half_t>(M, K);
  auto gAb = kmajor<bfloat16_t>(M, K);
  auto gAf = kmajor<float>(M, K);
  auto gCf = mnmajor<float>(M, K);
  auto gA8 = kmajor<float_e4m3_t>(M, K);
#define KH "make_tensor(make_gmem_ptr<half_t>(A), (M,K):(K,_1))"
#define MH "make_tensor(make_gmem_ptr<half_t>(A), (M,K):(_1,M))"
#define KB "make_tensor(make_gmem_ptr<bfloat16_t>(A), (M,K):(K,_1))"
#define KF "make_tensor(make_gmem_ptr<float>(A), (M,K):(K,_1))"
#define MF "make_tensor(make_gmem_ptr<float>(C), (M,N):(_1,M))"
#define K8 "make_tensor(make_gmem_ptr<float_e4m3_t>(A), (M,K):(K,_1))"

  CASE("make_tma_copy(SM90_TMA_LOAD, " KH ", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_64)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAh, tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_128{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KH ", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_256,_64)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAh, tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_256{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KH ", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_128)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAh, tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_128{}, _128{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KH ", tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>, (_128,_32)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAh, tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>{}, make_shape(_128{}, _32{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KH ", tile_to_shape(GMMA::Layout_K_SW32_Atom<half_t>, (_64,_16)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAh, tile_to_shape(GMMA::Layout_K_SW32_Atom<half_t>{}, make_shape(_64{}, _16{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KH ", tile_to_shape(GMMA::Layout_K_INTER_Atom<half_t>, (_64,_8)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAh, tile_to_shape(GMMA::Layout_K_INTER_Atom<half_t>{}, make_shape(_64{}, _8{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KH ", tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>, (_64,_64)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAh, tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>{}, make_shape(_64{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " MH ", tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_128,_64)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAt, tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(_128{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " MH ", tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_256,_64)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAt, tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(_256{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " MH ", tile_to_shape(GMMA::Layout_MN_SW64_Atom<half_t>, (_64,_32)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAt, tile_to_shape(GMMA::Layout_MN_SW64_Atom<half_t>{}, make_shape(_64{}, _32{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " MH ", tile_to_shape(GMMA::Layout_MN_INTER_Atom<half_t>, (_64,_32)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAt, tile_to_shape(GMMA::Layout_MN_INTER_Atom<half_t>{}, make_shape(_64{}, _32{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KB ", tile_to_shape(GMMA::Layout_K_SW128_Atom<bfloat16_t>, (_128,_64)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAb, tile_to_shape(GMMA::Layout_K_SW128_Atom<bfloat16_t>{}, make_shape(_128{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KF ", tile_to_shape(GMMA::Layout_K_SW128_Atom<float>, (_128,_32)))",
       make_tma_copy(SM90_TMA_LOAD{}, gAf, tile_to_shape(GMMA::Layout_K_SW128_Atom<float>{}, make_shape(_128{}, _32{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD, " K8 ", tile_to_shape(GMMA::Layout_K_SW128_Atom<float_e4m3_t>, (_128,_128)))",
       make_tma_copy(SM90_TMA_LOAD{}, gA8, tile_to_shape(GMMA::Layout_K_SW128_Atom<float_e4m3_t>{}, make_shape(_128{}, _128{}))));
  CASE("make_tma_copy(SM90_TMA_STORE, " MF ", tile_to_shape(GMMA::Layout_MN_SW128_Atom<float>, (_128,_64)))",
       make_tma_copy(SM90_TMA_STORE{}, gCf, tile_to_shape(GMMA::Layout_MN_SW128_Atom<float>{}, make_shape(_128{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_STORE, " MH ", tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_128,_64)))",
       make_tma_copy(SM90_TMA_STORE{}, gAt, tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(_128{}, _64{}))));
  CASE("make_tma_copy(SM90_TMA_STORE, " KH ", (_64,_32):(_32,_1))",
       make_tma_copy(SM90_TMA_STORE{}, gAh, make_layout(make_shape(_64{}, _32{}), make_stride(_32{}, _1{}))));
  CASE("make_tma_copy(SM90_TMA_LOAD_MULTICAST, " KH ", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_64)), _2)",
       make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, gAh, tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_128{}, _64{})), _2{}));
  CASE("make_tma_copy(SM90_TMA_LOAD_MULTICAST, " KH ", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_256,_64)), _4)",
       make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, gAh, tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_256{}, _64{})), _4{}));
  CASE("make_tma_copy(SM90_TMA_LOAD_MULTICAST, " MH ", tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_128,_64)), _2)",
       make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, gAt, tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(_128{}, _64{})), _2{}));
  CASE("make_tma_copy(SM90_TMA_LOAD_MULTICAST, " KH ", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_128)), _2)",
       make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, gAh, tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(_128{}, _128{})), _2{}));
  CASE("make_tma_copy(SM90_TMA_LOAD, " KF ", (_64,_32):(_32,_1))",
       make_tma_copy(SM90_TMA_LOAD{}, gAf, make_layout(make_shape(_64{}, _32{}), make_stride(_32{}, _1{}))));
  {
    auto g3 = make_tensor(make_gmem_ptr((float*)nullptr), make_shape(1024, 32, 512), make_stride(64, _1{}, 65536));
    CASE("make_tma_copy(SM90_TMA_LOAD, make_tensor(make_gmem_ptr<float>(A), (1024,32,512):(64,_1,65536)), (_16,_8,_2):(_16,_1,_8))",
         make_tma_copy(SM90_TMA_LOAD{}, g3, make_layout(make_shape(_16{}, _8{}, _2{}), make_stride(_16{}, _1{}, _8{}))));
  }
}
