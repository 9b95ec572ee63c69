fn main() {
    let _ = cute::shape!(({ "x" }, _4));
}
