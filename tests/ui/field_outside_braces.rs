struct Operand {
    ld: i64,
}

fn main() {
    let a = Operand { ld: 4096 };
    let _ = cute::layout!((_32, _4):(_1, a.ld));
}
