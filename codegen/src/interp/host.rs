//! Host tensors that hold data: CuTe's `make_tensor` over a host buffer, and `print_tensor` as
//! C++ CuTe prints it (`pretty_print`: `%10.2e` for float, `%11.3e` for double, `%5d` for
//! integers).

use std::fmt::Write;

use cute_layout::{AnyLayout, ElemType, IntTuple, Layout, Result as LResult};

/// A host buffer of elements of one type. Values are held as `f64`, each rounded to the element
/// type when stored, so a buffer of `f16` holds only values an `f16` can.
#[derive(Debug, Clone, PartialEq)]
pub struct HostBuffer {
    pub elem: ElemType,
    pub data: Vec<f64>,
}

impl HostBuffer {
    /// `n` zeros.
    pub fn zeros(elem: ElemType, n: usize) -> HostBuffer {
        HostBuffer {
            elem,
            data: vec![0.0; n],
        }
    }

    /// The values, each rounded to `elem`.
    pub fn from_values(elem: ElemType, values: &[f64]) -> HostBuffer {
        HostBuffer {
            elem,
            data: values.iter().map(|&v| round(elem, v)).collect(),
        }
    }

    /// Stores `v` (rounded) at `i`.
    pub fn set(&mut self, i: usize, v: f64) {
        if let Some(x) = self.data.get_mut(i) {
            *x = round(self.elem, v);
        }
    }
}

/// `v` rounded to the nearest value of `elem` (round to nearest even; integers truncate).
pub fn round(elem: ElemType, v: f64) -> f64 {
    match elem {
        ElemType::F64 => v,
        ElemType::F32 => v as f32 as f64,
        ElemType::Tf32 => {
            // 10 mantissa bits: round the f32 to nearest even at bit 13
            let b = (v as f32).to_bits();
            let r = b.wrapping_add(0xfff + ((b >> 13) & 1)) & !0x1fff;
            f32::from_bits(r) as f64
        }
        ElemType::F16 => half::f16::from_f64(v).to_f64(),
        ElemType::Bf16 => half::bf16::from_f64(v).to_f64(),
        ElemType::E4M3 => float8::F8E4M3::from_f64(v).to_f64(),
        ElemType::E5M2 => float8::F8E5M2::from_f64(v).to_f64(),
        _ => v.trunc(),
    }
}

/// A tensor over a host buffer: `make_tensor(buffer, layout)`.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTensor {
    pub buffer: HostBuffer,
    pub layout: AnyLayout,
}

impl HostTensor {
    /// `make_tensor(make_rmem_ptr(buffer), layout)`: the buffer must hold `cosize(layout)`.
    pub fn new(buffer: HostBuffer, layout: impl Into<AnyLayout>) -> LResult<HostTensor> {
        let layout = layout.into();
        let need = layout
            .shape_layout()
            .cosize()?
            .as_static()
            .or_else(|| layout.shape_layout().cosize().ok()?.value())
            .unwrap_or(i64::MAX);
        if need > buffer.data.len() as i64 {
            return Err(cute_layout::Error::Eval(format!(
                "make_tensor: {layout} needs {need} elements; the buffer holds {}",
                buffer.data.len()
            )));
        }
        Ok(HostTensor { buffer, layout })
    }

    /// `tensor(c)`.
    pub fn get(&self, c: &IntTuple) -> LResult<f64> {
        let i = self.layout.crd2idx(c)?.value().unwrap_or(-1);
        usize::try_from(i)
            .ok()
            .and_then(|i| self.buffer.data.get(i).copied())
            .ok_or_else(|| cute_layout::Error::Eval(format!("{c} is outside the buffer")))
    }

    /// `print_tensor(tensor)`: the header `ptr[Nb](name) o layout:` then the values by rank (1 to
    /// 4), as C++ CuTe prints them.
    pub fn print_tensor(&self, name: &str) -> LResult<String> {
        let mut out = format!(
            "ptr[{}b]({name}) o {}:\n",
            self.buffer.elem.bits(),
            self.layout
        );
        let l = self.layout.shape_layout();
        let ext = |i: usize| -> i64 {
            l.mode(i)
                .ok()
                .and_then(|m| m.size().ok())
                .and_then(|s| s.value())
                .unwrap_or(1)
        };
        let r = l.rank();
        if r > 4 {
            return Err(cute_layout::Error::Eval(format!(
                "print_tensor: rank {r} (CuTe prints ranks 1 to 4)"
            )));
        }
        let (m, n, p, q) = (
            ext(0),
            if r > 1 { ext(1) } else { 1 },
            if r > 2 { ext(2) } else { 1 },
            if r > 3 { ext(3) } else { 1 },
        );
        for qq in 0..q {
            if qq > 0 {
                out.push_str(&"=".repeat(5 * n as usize));
                out.push('\n');
            }
            for pp in 0..p {
                if pp > 0 {
                    out.push_str(&"-".repeat(5 * n as usize));
                    out.push('\n');
                }
                for i in 0..m {
                    for j in 0..n {
                        let c = coord(r, i, j, pp, qq);
                        let _ = write!(out, "{}", pretty(self.buffer.elem, self.get(&c)?));
                    }
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }
}

fn coord(rank: usize, i: i64, j: i64, p: i64, q: i64) -> IntTuple {
    use cute_layout::d;
    let all = [d(i), d(j), d(p), d(q)];
    if rank <= 1 {
        IntTuple::Int(d(i))
    } else {
        IntTuple::from_ints(all[..rank].to_vec())
    }
}

/// CuTe's `pretty_print` of one value.
fn pretty(elem: ElemType, v: f64) -> String {
    match elem {
        ElemType::F32
        | ElemType::Tf32
        | ElemType::F16
        | ElemType::Bf16
        | ElemType::E4M3
        | ElemType::E5M2 => c_exp(v, 2, 10),
        ElemType::F64 => c_exp(v, 3, 11),
        _ => format!("{:5}", v as i64),
    }
}

/// C's `%W.Pe`.
pub fn c_exp(v: f64, prec: usize, width: usize) -> String {
    let s = if v.is_finite() {
        let t = format!("{v:.prec$e}");
        let (mant, exp) = t.split_once('e').unwrap_or((&t, "0"));
        let e: i32 = exp.parse().unwrap_or(0);
        let sign = if e < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", e.abs())
    } else if v.is_nan() {
        "nan".to_string()
    } else if v > 0.0 {
        "inf".to_string()
    } else {
        "-inf".to_string()
    };
    format!("{s:>width$}")
}

#[allow(dead_code)]
fn _layout(_: &Layout) {}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_layout::{s, tup};

    #[test]
    fn values_round_to_their_type() {
        assert_eq!(round(ElemType::F16, 1.0 + 1.0 / 4096.0), 1.0);
        assert_eq!(round(ElemType::F32, 0.1), 0.1f32 as f64);
        assert_eq!(round(ElemType::Bf16, 1.0 + 1.0 / 512.0), 1.0);
        assert_eq!(c_exp(1234.5, 2, 10), "  1.23e+03");
        assert_eq!(c_exp(-0.000123, 3, 11), " -1.230e-04");
    }

    #[test]
    fn print_tensor_prints_as_cute() {
        // print_tensor(make_tensor(ptr, make_layout(make_shape(_2{},_3{})))) over int 0..6
        let b = HostBuffer::from_values(ElemType::I32, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let t = HostTensor::new(b, Layout::col_major(&tup![s(2), s(3)]).unwrap()).unwrap();
        assert_eq!(
            t.print_tensor("0x0").unwrap(),
            "ptr[32b](0x0) o (_2,_3):(_1,_2):\n    0    2    4\n    1    3    5\n"
        );
    }
}
