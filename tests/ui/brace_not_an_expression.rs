fn main() {
    let m: i64 = 4096;
    let _ = cute::layout!(({m +}, _32):(_1, m));
}
