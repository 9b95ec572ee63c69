//! TMA tensor maps: a kernel's [`TensorMap`] encoded for one launch — its dimensions and
//! strides evaluated from the integer arguments, checked against `CUtensorMap`'s rules (so a
//! bad problem is an error that names the condition, not a driver code), then
//! `cuTensorMapEncodeTiled` over the buffer's device address. The 128-byte result is passed by
//! value as the kernel's `const __grid_constant__` parameter.

use cudarc::driver::sys;
use cudarc::driver::DeviceRepr;
use cute_codegen::TensorMap;
use cute_layout::atom::TmaSwizzle;
use cute_layout::ElemType;

use crate::error::{Result, RuntimeError};

/// An encoded tensor map (`CUtensorMap`: 64-byte aligned, 128 bytes).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct TensorMapArg(pub [u64; 16]);

// SAFETY: a plain 128-byte value with the alignment and size of CUDA's `CUtensorMap`, which a
// kernel takes by value.
unsafe impl DeviceRepr for TensorMapArg {}

/// A tensor map's arguments to `cuTensorMapEncodeTiled`, evaluated and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding {
    pub dims: Vec<u64>,
    /// Bytes between consecutive indices of dimensions 1.. (dimension 0 is contiguous).
    pub strides: Vec<u64>,
    pub boxes: Vec<u32>,
}

/// The most bytes a global stride may be (`< 2^40`).
const STRIDE_MAX: u64 = 1 << 40;

/// The encoding of `map` for integer arguments `env`, or the condition a launch breaks.
pub fn encoding(map: &TensorMap, env: &dyn Fn(&str) -> Option<i64>) -> Result<Encoding> {
    let bad = |m: String| RuntimeError::Problem(format!("the TMA map of {}: {m}", map.param));
    let t = &map.tma;
    let bytes = u64::from(t.elem.bits() / 8);
    let eval = |i: &cute_layout::Int, what: &str| -> Result<u64> {
        let v = i
            .evaluate(env)
            .ok_or_else(|| bad(format!("{what} {i} has unbound symbols")))?;
        u64::try_from(v).map_err(|_| bad(format!("{what} {i} = {v} is negative")))
    };
    let mut enc = Encoding {
        dims: Vec::new(),
        strides: Vec::new(),
        boxes: Vec::new(),
    };
    for (i, d) in t.dims.iter().enumerate() {
        let n = eval(&d.extent, "extent")?;
        if !(1..=1 << 32).contains(&n) {
            return Err(bad(format!("dimension {i} has {n} elements (1 to 2^32)")));
        }
        enc.dims.push(n);
        enc.boxes
            .push(u32::try_from(d.box_extent).unwrap_or(u32::MAX));
        if i > 0 {
            let s = eval(&d.stride, "stride")?.saturating_mul(bytes);
            if s % 16 != 0 || s == 0 || s >= STRIDE_MAX {
                return Err(bad(format!(
                    "dimension {i}'s stride {} is {s} bytes: a positive multiple of 16 below 2^40",
                    d.stride
                )));
            }
            enc.strides.push(s);
        }
    }
    Ok(enc)
}

/// `cuTensorMapEncodeTiled` of `map` over the buffer at device address `base`.
pub fn encode(
    map: &TensorMap,
    base: u64,
    env: &dyn Fn(&str) -> Option<i64>,
) -> Result<TensorMapArg> {
    let enc = encoding(map, env)?;
    if !base.is_multiple_of(16) {
        return Err(RuntimeError::Problem(format!(
            "the TMA map of {}: the buffer at 0x{base:x} is not 16-byte aligned",
            map.param
        )));
    }
    let t = &map.tma;
    let ty = data_type(t.elem).ok_or_else(|| {
        RuntimeError::Problem(format!(
            "the TMA map of {}: no tensor-map type for {}",
            map.param, t.elem
        ))
    })?;
    let ones = vec![1u32; enc.dims.len()];
    let mut out = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: the arrays hold `rank` dimensions, `rank - 1` strides, `rank` boxes and element
    // strides, as the call reads; `out` is a CUtensorMap the call writes.
    let r = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut out,
            ty,
            enc.dims.len() as u32,
            base as *mut std::ffi::c_void,
            enc.dims.as_ptr(),
            enc.strides.as_ptr(),
            enc.boxes.as_ptr(),
            ones.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle(t.swizzle),
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    r.result().map_err(RuntimeError::driver(format!(
        "cuTensorMapEncodeTiled of {} ({:?})",
        map.param, enc
    )))?;
    Ok(TensorMapArg(out.opaque))
}

/// The tensor-map type of an element type (TF32 operands are FP32 bits, as the cp.async
/// kernels read them).
fn data_type(e: ElemType) -> Option<sys::CUtensorMapDataType> {
    use sys::CUtensorMapDataType as T;
    Some(match e {
        ElemType::F16 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        ElemType::Bf16 => T::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        ElemType::F32 | ElemType::Tf32 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        ElemType::F64 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        ElemType::U8 | ElemType::E4M3 | ElemType::E5M2 => T::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        ElemType::U16 => T::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        ElemType::I32 => T::CU_TENSOR_MAP_DATA_TYPE_INT32,
        _ => return None,
    })
}

fn swizzle(s: TmaSwizzle) -> sys::CUtensorMapSwizzle {
    use sys::CUtensorMapSwizzle as S;
    match s {
        TmaSwizzle::None => S::CU_TENSOR_MAP_SWIZZLE_NONE,
        TmaSwizzle::B32 => S::CU_TENSOR_MAP_SWIZZLE_32B,
        TmaSwizzle::B64 => S::CU_TENSOR_MAP_SWIZZLE_64B,
        TmaSwizzle::B128 => S::CU_TENSOR_MAP_SWIZZLE_128B,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_codegen::gemm::GemmLayout;
    use cute_codegen::named::plan;

    fn maps(name: &str, layout: &str) -> Vec<TensorMap> {
        let p = plan(name, GemmLayout::parse(layout).unwrap()).unwrap();
        cute_codegen::gemm::emit(&p).unwrap().launch.tensor_maps
    }

    #[test]
    fn hgemm_sm90_tn_maps_are_k_then_rows() {
        let m = maps("hgemm-sm90", "TN");
        let env = |s: &str| match s {
            "M" => Some(300),
            "N" => Some(17),
            "K" => Some(1000),
            "ldA" | "ldB" => Some(1000),
            _ => None,
        };
        let a = encoding(&m[0], &env).unwrap();
        assert_eq!(
            a,
            Encoding {
                dims: vec![1000, 300],
                strides: vec![2000],
                boxes: vec![64, 128]
            }
        );
        // ldA = 1001 halves: 2002 bytes, not a multiple of 16
        let odd = |s: &str| if s == "ldA" { Some(1001) } else { env(s) };
        let e = encoding(&m[0], &odd).unwrap_err().to_string();
        assert!(e.contains("2002 bytes: a positive multiple of 16"), "{e}");
    }
}
