fn main() {
    let m: i64 = 4096;
    let _ = cute::layout!(({m * 2}, _3):(_1));
}
