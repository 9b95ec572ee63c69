fn main() {
    let _ = cute::cute! {
        make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_2,_1):(_1,_0))
    };
}
