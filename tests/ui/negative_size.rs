fn main() {
    let _ = cute::shape!((_-4,_3));
}
