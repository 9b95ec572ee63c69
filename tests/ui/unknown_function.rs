fn main() {
    let _ = cute::cute! { frobnicate((_4,_4):(_1,_4)) };
}
