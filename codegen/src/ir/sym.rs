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
}
