//! Shared by the facade's integration tests.

/// A small deterministic generator (xorshift64) for the randomized tests: the same seed gives
/// the same cases on every machine.
pub struct Rng(pub u64);

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
