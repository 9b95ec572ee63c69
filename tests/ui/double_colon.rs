fn main() {
    let _ = cute::layout!((_4::_3):(_1,_4));
}
