use cute::layout::{Int, Layout};

fn main() {
    let m: i64 = 4096;
    let a: Layout = cute::layout!((m, _32):(_1, m));
    assert_eq!(a.to_string(), "(4096,_32):(_1,4096)");
    let n = Int::symbol("N");
    let b: Layout = cute::cute! { logical_divide((n,_64):(_1,n), (_128,_32)) }.unwrap();
    assert_eq!(b.to_string(), "((_128,(N+127)/128),(_32,_2)):((_1,_128),(n,32*n))".replace("n", "N"));
}
