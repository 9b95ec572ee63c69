//! The SM90 warpgroup MMAs (`wgmma.mma_async`, CuTe's GMMA atoms): `SM90_64xNxK_{D}{A}{B}_{SS|RS}`
//! with their `MMA_Traits` (`include/cute/atom/mma_traits_sm90_gmma.hpp` and `_ext.hpp`).
//!
//! A GMMA is issued by a warpgroup (128 threads) for a 64 x N x K tile, K being 32 bytes of A's
//! type (16 values of 16 bits, 8 of TF32, 32 of 8 bits). A and B are read from shared memory
//! through matrix descriptors (`SS`: both; `RS`: A from registers). Their TV layouts say so: a
//! shared-memory operand's layout gives every thread the whole tile with thread stride 0
//! (`ABLayout<M,K>`), a register A the warpgroup's fragment (`ALayout_64x{8,16,32}`).
//!
//! Spelling, as C++ spells the types: 16-bit operands take their majors
//! (`SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>`, optionally the scales
//! `GMMA::ScaleIn::One|Neg` after them); TF32 and FP8 are K-major only (`_TN`) and take the scales
//! alone (`SM90_64x64x8_F32TF32TF32_SS_TN<>`); the integer ones take none
//! (`SM90_64x32x32_S32S8S8_SS_TN`, `_SATURATE` clamping).

use std::fmt;

use super::lit;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::numeric::ElemType::{self, Bf16, Tf32, E4M3, E5M2, F16, F32, I32, I8, U8};

/// `GMMA::Major`: which mode of a shared-memory operand is contiguous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GmmaMajor {
    /// `GMMA::Major::K`.
    K,
    /// `GMMA::Major::MN`.
    MN,
}

/// One SM90 GMMA operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gmma {
    /// N of the 64 x N x K tile (8 to 256).
    pub n: i64,
    /// The accumulator (D and C), A and B types.
    pub d: ElemType,
    pub a: ElemType,
    pub b: ElemType,
    /// `RS`: A from registers; `SS`: from shared memory.
    pub a_in_registers: bool,
    /// The majors of A and B (K for every type but the 16-bit ones).
    pub major_a: GmmaMajor,
    pub major_b: GmmaMajor,
    /// `GMMA::ScaleIn::Neg` of A and B (`ScaleIn::One` when false).
    pub negate_a: bool,
    pub negate_b: bool,
    /// `_SATURATE` (integer MMAs only).
    pub saturate: bool,
}

/// The type token of a name (`BF16`, `E4M3`, `S32`).
fn token(t: ElemType) -> &'static str {
    match t {
        F32 => "F32",
        F16 => "F16",
        Bf16 => "BF16",
        Tf32 => "TF32",
        E4M3 => "E4M3",
        E5M2 => "E5M2",
        I32 => "S32",
        I8 => "S8",
        U8 => "U8",
        _ => "?",
    }
}

const TOKENS: [(&str, ElemType); 9] = [
    ("F32", F32),
    ("F16", F16),
    ("BF16", Bf16),
    ("TF32", Tf32),
    ("E4M3", E4M3),
    ("E5M2", E5M2),
    ("S32", I32),
    ("S8", I8),
    ("U8", U8),
];

/// `"F32BF16BF16"` as (D, A, B).
fn types_of(s: &str) -> Option<(ElemType, ElemType, ElemType)> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let (tok, t) = TOKENS.iter().find(|(tok, _)| rest.starts_with(tok))?;
        out.push(*t);
        rest = &rest[tok.len()..];
    }
    match out.as_slice() {
        [d, a, b] => Some((*d, *a, *b)),
        _ => None,
    }
}

/// The family of a (D, A, B) triple: the types GMMA has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// FP16 or BF16 operands: either major.
    Sixteen,
    /// TF32 or FP8 operands: K-major, scales only.
    KMajor,
    /// 8-bit integers: K-major, no template arguments.
    Integer,
}

fn family(d: ElemType, a: ElemType, b: ElemType) -> Option<Family> {
    let fp8 = |t: ElemType| matches!(t, E4M3 | E5M2);
    match (d, a, b) {
        (F16 | F32, F16, F16) | (F32, Bf16, Bf16) => Some(Family::Sixteen),
        (F32, Tf32, Tf32) => Some(Family::KMajor),
        (F16 | F32, a, b) if fp8(a) && fp8(b) => Some(Family::KMajor),
        (I32, I8 | U8, I8 | U8) => Some(Family::Integer),
        _ => None,
    }
}

/// The N the catalog has: every multiple of 8 up to 256; for the integer MMAs 8, 16, 24 and the
/// multiples of 16 from 32 up.
fn n_exists(n: i64, fam: Family) -> bool {
    let base = (8..=256).contains(&n) && n % 8 == 0;
    match fam {
        Family::Integer => base && (n <= 32 || n % 16 == 0),
        _ => base,
    }
}

fn bad(name: &str, msg: impl fmt::Display) -> Error {
    Error::Eval(format!("{name}: {msg}"))
}

impl Gmma {
    /// The GMMA called `name` with template arguments `args` (C++ spellings:
    /// `GMMA::Major::K`, `GMMA::ScaleIn::Neg`); `None` when `name` is not an SM90 GMMA name,
    /// an error naming the condition when it is one but the catalog has no such operation.
    pub fn from_name(name: &str, args: &[&str]) -> Option<Result<Gmma>> {
        let rest = name.strip_prefix("SM90_64x")?;
        let (n, rest) = rest.split_once('x')?;
        let (k, rest) = rest.split_once('_')?;
        let (n, k) = (n.parse::<i64>().ok()?, k.parse::<i64>().ok()?);
        let (types, rest) = rest.split_once('_')?;
        let (d, a, b) = types_of(types)?;
        let (src, suffix) = rest.split_once('_').unwrap_or((rest, ""));
        let a_in_registers = match src {
            "SS" => false,
            "RS" => true,
            _ => return None,
        };
        Some(Gmma::checked(
            name,
            (n, k),
            (d, a, b),
            a_in_registers,
            suffix,
            args,
        ))
    }

    fn checked(
        name: &str,
        (n, k): (i64, i64),
        (d, a, b): (ElemType, ElemType, ElemType),
        a_in_registers: bool,
        suffix: &str,
        args: &[&str],
    ) -> Result<Gmma> {
        let fam = family(d, a, b).ok_or_else(|| {
            bad(
                name,
                format!("GMMA has no {d} = {a} x {b} (FP16/BF16, TF32, FP8 or 8-bit integers)"),
            )
        })?;
        let want_k = 256 / i64::from(a.bits());
        if k != want_k {
            return Err(bad(
                name,
                format!("K of {a} is {want_k} (32 bytes), not {k}"),
            ));
        }
        if !n_exists(n, fam) {
            return Err(bad(name, format!("no N = {n} for {a} (8 to 256 in steps of 8; 8-bit integers: 8, 16, 24, then steps of 16)")));
        }
        let saturate =
            match (fam, suffix) {
                (Family::Sixteen, "") | (Family::KMajor | Family::Integer, "TN") => false,
                (Family::Integer, "TN_SATURATE") => true,
                _ => return Err(bad(
                    name,
                    match fam {
                        Family::Sixteen => {
                            "16-bit GMMAs end in _SS or _RS (their majors are template arguments)"
                        }
                        Family::KMajor => "TF32 and FP8 GMMAs are K-major only: _SS_TN or _RS_TN",
                        Family::Integer => {
                            "integer GMMAs end in _SS_TN or _RS_TN, optionally _SATURATE"
                        }
                    },
                )),
            };
        let mut g = Gmma {
            n,
            d,
            a,
            b,
            a_in_registers,
            major_a: GmmaMajor::K,
            major_b: GmmaMajor::K,
            negate_a: false,
            negate_b: false,
            saturate,
        };
        g.template_args(name, fam, args)?;
        Ok(g)
    }

    /// The template arguments: the majors (16-bit types, both required), then the scales.
    fn template_args(&mut self, name: &str, fam: Family, args: &[&str]) -> Result<()> {
        let scales = match fam {
            Family::Sixteen => {
                let [ma, mb, rest @ ..] = args else {
                    return Err(bad(
                        name,
                        "expected the majors of A and B, <GMMA::Major::K|MN,GMMA::Major::K|MN>",
                    ));
                };
                self.major_a = major(name, ma)?;
                self.major_b = major(name, mb)?;
                if self.a_in_registers && self.major_a != GmmaMajor::K {
                    return Err(bad(name, "a register-sourced A (RS) must be K-major"));
                }
                rest
            }
            Family::KMajor => args,
            Family::Integer if args.is_empty() => args,
            Family::Integer => return Err(bad(name, "integer GMMAs take no template arguments")),
        };
        if scales.len() > 2 {
            return Err(bad(
                name,
                "at most two scales, <..,GMMA::ScaleIn::One|Neg,GMMA::ScaleIn::One|Neg>",
            ));
        }
        let neg = |s: &&str| match *s {
            "GMMA::ScaleIn::One" => Ok(false),
            "GMMA::ScaleIn::Neg" => Ok(true),
            other => Err(bad(
                name,
                format!("expected GMMA::ScaleIn::One or GMMA::ScaleIn::Neg, found {other}"),
            )),
        };
        let neg: Vec<bool> = scales.iter().map(neg).collect::<Result<_>>()?;
        self.negate_a = neg.first().copied().unwrap_or(false);
        self.negate_b = neg.get(1).copied().unwrap_or(false);
        Ok(())
    }

    /// `Shape_MNK`: (64, N, K).
    pub fn mnk(&self) -> (i64, i64, i64) {
        (64, self.n, 256 / i64::from(self.a.bits()))
    }

    /// `ValTypeD/A/B/C`.
    pub fn types(&self) -> [ElemType; 4] {
        [self.d, self.a, self.b, self.d]
    }

    /// `ThrID`: the warpgroup's 128 threads.
    pub fn thr_id(&self) -> Layout {
        lit("_128:_1")
    }

    /// `ALayout`: `ABLayout<64,K>` from shared memory, `ALayout_64x{8,16,32}` from registers.
    pub fn a_layout(&self) -> Layout {
        let (_, _, k) = self.mnk();
        if !self.a_in_registers {
            return ab_layout(64, k);
        }
        lit(match self.a.bits() {
            32 => "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))",
            16 => "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))",
            _ => "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))",
        })
    }

    /// `BLayout`: `ABLayout<N,K>`.
    pub fn b_layout(&self) -> Layout {
        ab_layout(self.n, self.mnk().2)
    }

    /// `CLayout`: `CLayout_64xN`, four values per 8 columns of each thread's two rows.
    pub fn c_layout(&self) -> Layout {
        lit(&format!(
            "((_4,_8,_4),(_2,_2,_{})):((_128,_1,_16),(_64,_8,_512))",
            self.n / 8
        ))
    }
}

/// `GMMA::ABLayout<M,K>`: every thread sees the whole (M,K) tile (the descriptor's).
fn ab_layout(m: i64, k: i64) -> Layout {
    lit(&format!("(_128,(_{m},_{k})):(_0,(_1,_{m}))"))
}

fn major(name: &str, s: &str) -> Result<GmmaMajor> {
    match s {
        "GMMA::Major::K" => Ok(GmmaMajor::K),
        "GMMA::Major::MN" => Ok(GmmaMajor::MN),
        other => Err(bad(
            name,
            format!("expected GMMA::Major::K or GMMA::Major::MN, found {other}"),
        )),
    }
}

impl fmt::Display for GmmaMajor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GmmaMajor::K => "GMMA::Major::K",
            GmmaMajor::MN => "GMMA::Major::MN",
        })
    }
}

impl fmt::Display for Gmma {
    /// The C++ spelling, template arguments included (the scales only when one is `Neg`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (m, n, k) = self.mnk();
        let src = if self.a_in_registers { "RS" } else { "SS" };
        let (d, a, b) = (token(self.d), token(self.a), token(self.b));
        write!(f, "SM90_{m}x{n}x{k}_{d}{a}{b}_{src}")?;
        let fam = family(self.d, self.a, self.b);
        let scale = |neg: bool| {
            if neg {
                "GMMA::ScaleIn::Neg"
            } else {
                "GMMA::ScaleIn::One"
            }
        };
        let mut args = Vec::new();
        match fam {
            Some(Family::Integer) => {
                return f.write_str(if self.saturate { "_TN_SATURATE" } else { "_TN" })
            }
            Some(Family::Sixteen) => {
                args.push(self.major_a.to_string());
                args.push(self.major_b.to_string());
            }
            _ => f.write_str("_TN")?,
        }
        if self.negate_a || self.negate_b {
            args.push(scale(self.negate_a).to_string());
            args.push(scale(self.negate_b).to_string());
        }
        write!(f, "<{}>", args.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_ones_say_why() {
        for (name, args, shown) in [
            (
                "SM90_64x128x16_F32BF16BF16_SS",
                &["GMMA::Major::K", "GMMA::Major::MN"][..],
                "SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>",
            ),
            (
                "SM90_64x64x8_F32TF32TF32_RS_TN",
                &[][..],
                "SM90_64x64x8_F32TF32TF32_RS_TN<>",
            ),
            (
                "SM90_64x24x32_S32S8U8_SS_TN_SATURATE",
                &[][..],
                "SM90_64x24x32_S32S8U8_SS_TN_SATURATE",
            ),
            (
                "SM90_64x8x32_F16E4M3E5M2_SS_TN",
                &["GMMA::ScaleIn::Neg"][..],
                "SM90_64x8x32_F16E4M3E5M2_SS_TN<GMMA::ScaleIn::Neg,GMMA::ScaleIn::One>",
            ),
        ] {
            let g = Gmma::from_name(name, args).unwrap().unwrap();
            assert_eq!(g.to_string(), shown);
        }
        assert!(Gmma::from_name("SM80_16x8x8_F32TF32TF32F32_TN", &[]).is_none());
        for (name, args, why) in [
            (
                "SM90_64x128x16_F32BF16BF16_SS",
                &[][..],
                "expected the majors",
            ),
            (
                "SM90_64x128x16_F32BF16BF16_RS",
                &["GMMA::Major::MN", "GMMA::Major::K"][..],
                "must be K-major",
            ),
            (
                "SM90_64x36x16_F32F16F16_SS",
                &["GMMA::Major::K", "GMMA::Major::K"][..],
                "no N = 36",
            ),
            ("SM90_64x40x32_S32S8S8_SS_TN", &[][..], "no N = 40"),
            (
                "SM90_64x64x16_F32TF32TF32_SS_TN",
                &[][..],
                "K of tfloat32_t is 8",
            ),
            (
                "SM90_64x64x16_F16BF16BF16_SS",
                &["GMMA::Major::K", "GMMA::Major::K"][..],
                "GMMA has no",
            ),
            ("SM90_64x64x8_F32TF32TF32_SS", &[][..], "K-major only"),
        ] {
            let e = Gmma::from_name(name, args)
                .unwrap()
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{name}: {e}");
        }
    }
}
