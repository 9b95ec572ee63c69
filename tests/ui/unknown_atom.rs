fn main() {
    let _ = cute::cute! { make_tiled_mma(MMA_Atom<SM80_16x8x32_F32F16F16F32_TN>, (_2,_2,_1):(_1,_2,_0)) };
}
