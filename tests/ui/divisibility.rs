fn main() {
    let _ = cute::cute! { logical_product(_4:_2, _3:_1) };
}
