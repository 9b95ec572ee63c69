//! What the passes ask of a symbolic integer: which names it reads, and whether it is a
//! multiple of a vector width (and under which launch conditions).

use std::collections::BTreeSet;

use cute_layout::symbolic::{BinOp, Dyn, SymExpr};
use cute_layout::Int;

/// The names (parameters and indices) an integer reads.
pub fn names(i: &Int) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Int::Dynamic(d) = i {
        collect(d, &mut out);
    }
    out
}

/// The parameter an integer is, when it is exactly one (`ldA`).
pub fn single_symbol(i: &Int) -> Option<String> {
    match i {
        Int::Dynamic(d) => match d.expr()? {
            SymExpr::Var(n) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn collect(d: &Dyn, out: &mut BTreeSet<String>) {
    let Some(e) = d.expr() else { return };
    match e {
        SymExpr::Var(n) | SymExpr::Index(n) => {
            out.insert(n.clone());
        }
        SymExpr::Sum(terms, _) => terms.iter().for_each(|(_, t)| collect(t, out)),
        SymExpr::Prod(f) => f.iter().for_each(|t| collect(t, out)),
        SymExpr::Bin(_, a, b) => {
            collect(a, out);
            collect(b, out);
        }
        SymExpr::Abs(x) | SymExpr::Signum(x) => collect(x, out),
    }
}

/// Whether `i` is a multiple of `by` for every value of its symbols, given that the parameters
/// `is_param` names satisfy the conditions returned (`ldA % 4 == 0`). `Err` names the part that
/// cannot be shown to divide (an index such as `tid`, a quotient).
pub fn divisible(
    i: &Int,
    by: i64,
    is_param: &dyn Fn(&str) -> bool,
) -> Result<Vec<(String, i64)>, String> {
    if by <= 1 {
        return Ok(Vec::new());
    }
    match i {
        Int::Static(v) => lit(*v, by),
        Int::Dynamic(d) => dyn_divisible(d, by, is_param),
        Int::Basis(..) => Err(format!("the basis stride {i} is not an offset")),
    }
}

fn lit(v: i64, by: i64) -> Result<Vec<(String, i64)>, String> {
    if v % by == 0 {
        Ok(Vec::new())
    } else {
        Err(format!("{v} is not a multiple of {by}"))
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

fn dyn_divisible(
    d: &Dyn,
    by: i64,
    is_param: &dyn Fn(&str) -> bool,
) -> Result<Vec<(String, i64)>, String> {
    if by <= 1 {
        return Ok(Vec::new());
    }
    let Some(e) = d.expr() else {
        return lit(d.value().unwrap_or(1), by);
    };
    match e {
        SymExpr::Var(n) if is_param(n) => Ok(vec![(n.clone(), by)]),
        SymExpr::Var(n) | SymExpr::Index(n) => {
            Err(format!("{n} (an index) need not be a multiple of {by}"))
        }
        SymExpr::Sum(terms, c0) => {
            let mut out = lit(*c0, by)?;
            for (k, t) in terms {
                let need = by / gcd(*k, by);
                out.extend(dyn_divisible(t, need, is_param).map_err(|m| format!("in {d}: {m}"))?);
            }
            Ok(out)
        }
        SymExpr::Prod(factors) => {
            // the first factor that divides on its own wins; else the first that divides with
            // launch conditions
            let tries: Vec<_> = factors
                .iter()
                .map(|f| dyn_divisible(f, by, is_param))
                .collect();
            if let Some(Ok(_)) = tries.iter().find(|t| matches!(t, Ok(v) if v.is_empty())) {
                return Ok(Vec::new());
            }
            tries
                .into_iter()
                .find_map(|t| t.ok())
                .ok_or_else(|| format!("no factor of {d} is a multiple of {by}"))
        }
        SymExpr::Bin(BinOp::Mod | BinOp::Min | BinOp::Max | BinOp::Gcd, a, b) => {
            let mut out = dyn_divisible(a, by, is_param)?;
            out.extend(dyn_divisible(b, by, is_param)?);
            Ok(out)
        }
        SymExpr::Bin(BinOp::Lcm, a, _) => dyn_divisible(a, by, is_param),
        SymExpr::Abs(x) => dyn_divisible(x, by, is_param),
        _ => Err(format!("{d} need not be a multiple of {by}")),
    }
}

/// The bits `i` may have set, for every value of its symbols (an index `n` at most `max(n)`,
/// parameters and indices without a maximum unbounded): an over-approximation, `None` when it
/// may be negative or unbounded. Terms with disjoint bits add as an OR; `x % m` is below `m`,
/// `x / 2^p` shifts.
pub fn may_bits(i: &Int, threads: &dyn Fn(&str) -> Option<i64>) -> Option<u64> {
    match i {
        Int::Static(v) => u64::try_from(*v).ok(),
        Int::Dynamic(d) => dyn_bits(d, threads),
        Int::Basis(..) => None,
    }
}

/// The bits a sum of terms may have, from the bits each may have: each group of terms whose
/// bits overlap (transitively) merges into one (their sum is at most the sum of their masks and
/// a multiple of the lowest power of two they all are multiples of), until the groups are
/// disjoint, and disjoint terms add as an OR.
fn sum_bits(mut parts: Vec<u64>) -> Option<u64> {
    parts.retain(|&p| p != 0);
    loop {
        // the groups of transitively overlapping terms
        let mut group: Vec<usize> = (0..parts.len()).collect();
        let mut merged = false;
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                if parts[i] & parts[j] != 0 && group[j] != group[i] {
                    let (from, to) = (group[j], group[i]);
                    group
                        .iter_mut()
                        .filter(|g| **g == from)
                        .for_each(|g| *g = to);
                    merged = true;
                }
            }
        }
        if !merged {
            return Some(parts.iter().fold(0, |a, b| a | b));
        }
        let mut next = Vec::new();
        for g in 0..parts.len() {
            let members: Vec<u64> = (0..parts.len())
                .filter(|&i| group[i] == g)
                .map(|i| parts[i])
                .collect();
            if members.is_empty() {
                continue;
            }
            let sum = members.iter().try_fold(0u64, |a, b| a.checked_add(*b))?;
            let low = members
                .iter()
                .map(|m| m.trailing_zeros())
                .min()
                .unwrap_or(0);
            next.push(ones(sum) & (u64::MAX << low));
        }
        parts = next;
    }
}

/// All bits up to the highest of `v` (the mask of every value `0..=v`).
fn ones(v: u64) -> u64 {
    if v == 0 {
        0
    } else {
        u64::MAX >> v.leading_zeros()
    }
}

fn dyn_bits(d: &Dyn, threads: &dyn Fn(&str) -> Option<i64>) -> Option<u64> {
    let Some(e) = d.expr() else {
        return u64::try_from(d.value()?).ok();
    };
    let pow2 = |k: i64| k > 0 && k & (k - 1) == 0;
    match e {
        SymExpr::Index(n) => Some(ones(u64::try_from(threads(n)?).ok()?)),
        SymExpr::Var(_) => None,
        SymExpr::Sum(terms, c0) => {
            // the constant's bits as addends of their own, so one that no term overlaps stays exact
            let c0 = u64::try_from(*c0).ok()?;
            let mut parts: Vec<u64> = (0..64).map(|b| c0 & (1 << b)).collect();
            for (k, t) in terms {
                let m = dyn_bits(t, threads)?;
                parts.push(if pow2(*k) {
                    m.checked_shl(k.trailing_zeros())?
                } else {
                    ones(m.checked_mul(u64::try_from(*k).ok()?)?)
                });
            }
            sum_bits(parts)
        }
        SymExpr::Prod(fs) => fs
            .iter()
            .try_fold(1u64, |a, f| a.checked_mul(dyn_bits(f, threads)?))
            .map(ones),
        SymExpr::Bin(op, a, b) => {
            let m = b.value().filter(|&m| m > 0)?;
            let non_negative = a.bounds().0.is_some_and(|lo| lo >= 0);
            match op {
                BinOp::Mod if non_negative => {
                    let below = ones(u64::try_from(m - 1).ok()?);
                    Some(dyn_bits(a, threads).map_or(below, |x| x & below))
                }
                BinOp::Div if non_negative => {
                    let x = dyn_bits(a, threads)?;
                    Some(if pow2(m) {
                        x >> m.trailing_zeros()
                    } else {
                        ones(x / u64::try_from(m).ok()?)
                    })
                }
                _ => None,
            }
        }
        SymExpr::Abs(_) | SymExpr::Signum(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_layout::s;

    #[test]
    fn offsets_divide_under_launch_conditions() {
        let lda = Int::symbol("ldA");
        let tid = Int::index("tid");
        let param = |n: &str| n == "ldA";
        // tid%16*4 + (tid/16)*ldA: the first term divides, the second needs ldA % 4 == 0
        let o = tid
            .rem(&s(16))
            .unwrap()
            .mul(&s(4))
            .unwrap()
            .add(&tid.div(&s(16)).unwrap().mul(&lda).unwrap())
            .unwrap();
        assert_eq!(divisible(&o, 4, &param), Ok(vec![("ldA".to_string(), 4)]));
        assert!(
            divisible(&tid.add(&s(4)).unwrap(), 4, &param).is_err(),
            "tid alone need not divide"
        );
        assert_eq!(divisible(&tid.mul(&s(8)).unwrap(), 4, &param), Ok(vec![]));
        assert_eq!(names(&o).into_iter().collect::<Vec<_>>(), ["ldA", "tid"]);
    }

    #[test]
    fn bits_of_thread_offsets() {
        let tid = Int::index("tid");
        let kt = Int::index("kt");
        // 4 * ((tid / 16) % 16) + 4096 * ((kt + 2) % 3): bits [2, 6) and [12, 14)
        let o = tid
            .div(&s(16))
            .and_then(|x| x.rem(&s(16)))
            .and_then(|x| x.mul(&s(4)))
            .and_then(|x| x.add(&kt.add(&s(2))?.rem(&s(3))?.mul(&s(4096))?))
            .unwrap();
        let max = |n: &str| (n == "tid").then_some(255);
        assert_eq!(may_bits(&o, &max), Some(0b11_0000_0011_1100));
        assert_eq!(may_bits(&kt, &max), None, "a loop index is unbounded");
        assert_eq!(may_bits(&tid.add(&s(3)).unwrap(), &max), Some(511));
        // 4 * (tid % 16) + 1024 * kb0 + 1088 with kb0 <= 2: the constant's bit 6 overlaps
        // nothing, its bit 10 merges with 1024 * kb0 into bits [10, 13)
        let kb0 = Int::index("kb0");
        let o = tid
            .rem(&s(16))
            .and_then(|x| x.mul(&s(4)))
            .and_then(|x| x.add(&kb0.mul(&s(1024))?))
            .and_then(|x| x.add(&s(1088)))
            .unwrap();
        let max2 = |n: &str| match n {
            "tid" => Some(255),
            "kb0" => Some(2),
            _ => None,
        };
        assert_eq!(may_bits(&o, &max2), Some(0b1_1100_0111_1100));
    }
}
