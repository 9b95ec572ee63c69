//! Shared by the facade's integration tests.

#[allow(dead_code)]
/// A small deterministic generator (xorshift64) for the randomized tests: the same seed gives
/// the same cases on every machine.
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// One of `xs`.
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    /// True once in `one_in` draws.
    #[allow(dead_code)]
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

/// The `@@ EXPRESSION` blocks of an oracle file of `tests/oracle`: `(expression, what C++
/// printed)`, the expected text with its line ends.
#[allow(dead_code)]
pub fn oracle_blocks(file: &str) -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/oracle")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("@@ ") {
            Some(expr) => out.push((expr.trim_end().to_string(), String::new())),
            None => out
                .last_mut()
                .expect("file starts with @@")
                .1
                .push_str(line),
        }
    }
    out
}
