//! Checks of the asynchronous-pipeline statements (SM90): TMA loads and stores name a tensor
//! map of the kernel with one coordinate per dimension and write (read) a shared tile of its
//! element type that holds a whole box; mbarrier operations name a declared array; named barriers are whole warps
//! of the block with an id other than 0 (`__syncthreads`'s); `setmaxnreg` asks for what the
//! instruction allows (24 to 256 registers, a multiple of 8) on a target that has it.

use super::error;
use crate::error::Result;
use crate::ir::{Barrier, Kernel, MbarrierOp, Stmt};
use crate::target::Feature;

/// The checks of one statement (others pass).
pub(super) fn statement(k: &Kernel, s: &Stmt, path: &str) -> Result<()> {
    match s {
        Stmt::Tma {
            map,
            coords,
            dst,
            bar,
            multicast,
        } => {
            tma_box(k, map, coords.len(), dst, "load", path)?;
            if multicast.is_some() {
                in_cluster(k, "a multicast TMA load", path)?;
            }
            declared(k, &bar.name, path)
        }
        Stmt::TmaStore { map, coords, src } => tma_box(k, map, coords.len(), src, "store", path),
        Stmt::Mbarrier(op) => match op {
            MbarrierOp::Init(name) => declared(k, name, path),
            MbarrierOp::ArriveExpectTx { bar, bytes } => {
                if !(1..1 << 20).contains(bytes) {
                    return Err(error(
                        k,
                        path,
                        format!("{bytes} bytes: a transaction count is 1 to 2^20 - 1"),
                    ));
                }
                declared(k, &bar.name, path)
            }
            MbarrierOp::Arrive(bar) | MbarrierOp::Wait { bar, .. } => declared(k, &bar.name, path),
            MbarrierOp::ArriveCluster { bar, .. } => {
                in_cluster(k, "an arrival on another CTA's mbarrier", path)?;
                declared(k, &bar.name, path)
            }
        },
        Stmt::Barrier(Barrier::Cluster) => in_cluster(k, "a cluster barrier", path),
        Stmt::Barrier(Barrier::Named { id, threads }) => {
            if !(1..16).contains(id) || threads % 32 != 0 || *threads < 32 || *threads > k.threads()
            {
                return Err(error(
                    k,
                    path,
                    format!("bar.sync {id}, {threads}: an id in 1..15 (0 is __syncthreads) and whole warps of the block's {} threads", k.threads()),
                ));
            }
            Ok(())
        }
        Stmt::Barrier(Barrier::SetMaxNReg { regs, .. }) => {
            if !k.target.has(Feature::Setmaxnreg) {
                return Err(error(
                    k,
                    path,
                    format!("{} has no setmaxnreg (sm_90a)", k.target),
                ));
            }
            if !(24..=256).contains(regs) || regs % 8 != 0 {
                return Err(error(
                    k,
                    path,
                    format!("setmaxnreg {regs}: 24 to 256 registers, a multiple of 8"),
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `what` needs a kernel of a cluster of CTAs.
fn in_cluster(k: &Kernel, what: &str, path: &str) -> Result<()> {
    match k.cluster {
        [1, 1, 1] => Err(error(
            k,
            path,
            format!("{what} in a kernel without a cluster (`__cluster_dims__`)"),
        )),
        _ => Ok(()),
    }
}

/// The kernel's cluster: on a target with clusters, at most the 8 CTAs CUDA guarantees to
/// fit, each dimension dividing the grid's where the grid is static (the launch checks the
/// others, `cute_runtime::launch::grid`).
pub(super) fn cluster(k: &Kernel) -> Result<()> {
    if k.cluster == [1, 1, 1] {
        return Ok(());
    }
    let [x, y, z] = k.cluster;
    let path = "launch";
    if !k.target.has(Feature::Clusters) {
        return Err(error(
            k,
            path,
            format!("{} has no thread-block clusters (sm_90a)", k.target),
        ));
    }
    if k.cluster.iter().any(|&c| c < 1) || x * y * z > 8 {
        return Err(error(
            k,
            path,
            format!("a cluster ({x}, {y}, {z}): 1 to 8 CTAs, each dimension at least 1"),
        ));
    }
    for ((g, c), axis) in k.grid.iter().zip(k.cluster).zip(["x", "y", "z"]) {
        if let Some(g) = g.as_static() {
            if g % c != 0 {
                return Err(error(
                    k,
                    path,
                    format!("a cluster of {c} CTAs along {axis} does not divide the grid's {g}"),
                ));
            }
        }
    }
    Ok(())
}

fn declared(k: &Kernel, name: &str, path: &str) -> Result<()> {
    match k.mbarrier(name) {
        Some(b) if b.len >= 1 && (1..1 << 20).contains(&b.count) => Ok(()),
        Some(b) => Err(error(
            k,
            path,
            format!(
                "mbarriers {name}[{}] of {} arrivals: at least one, of 1 to 2^20 - 1 arrivals",
                b.len, b.count
            ),
        )),
        None => Err(error(
            k,
            path,
            format!("{name} is not a declared mbarrier array"),
        )),
    }
}

/// A TMA `load` or `store` of map `map`'s box with `rank` coordinates, to or from the shared
/// tile `t`: on a target with TMA, the map a parameter of that rank, the tile shared memory of
/// the map's element width holding a whole box.
fn tma_box(
    k: &Kernel,
    map: &str,
    rank: usize,
    t: &cute_layout::Tensor,
    what: &str,
    path: &str,
) -> Result<()> {
    if !k.target.has(Feature::Tma) {
        return Err(error(k, path, format!("{} has no TMA (sm_90a)", k.target)));
    }
    let m = k
        .tensor_map(map)
        .ok_or_else(|| error(k, path, format!("{map} is not a tensor-map parameter")))?;
    if m.tma.dims.len() != rank {
        return Err(error(
            k,
            path,
            format!(
                "{rank} coordinates for the {}-dimensional map {map}",
                m.tma.dims.len()
            ),
        ));
    }
    let (space, elem, _) = super::checks::storage_of(k, t, path)?;
    if space != cute_layout::MemSpace::Smem || elem.bits() != m.tma.elem.bits() {
        let dir = if what == "load" { "writes" } else { "reads" };
        return Err(error(
            k,
            path,
            format!(
                "{t}: a TMA {what} of {map} {dir} {} in shared memory, not {elem} in {space:?}",
                m.tma.elem
            ),
        ));
    }
    let box_elems: i64 = m.tma.dims.iter().map(|d| d.box_extent).product();
    if super::checks::tensor_size(t).is_some_and(|n| n < box_elems) {
        return Err(error(
            k,
            path,
            format!("{t}: smaller than the {box_elems} elements of {map}'s box"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::gemm::GemmLayout;
    use crate::ir::{Barrier, Kernel, MbarrierOp, Stmt};

    fn kernel() -> Kernel {
        let p = crate::named::plan("hgemm-sm90", GemmLayout::parse("TN").unwrap()).unwrap();
        crate::recipes::gemm(&p).unwrap()
    }

    /// The error of `kernel()` with `f` applied to each statement.
    fn refused(f: &mut impl FnMut(&mut Stmt)) -> String {
        fn each(body: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
            for s in body {
                f(s);
                match s {
                    Stmt::For { body, .. } => each(body, f),
                    Stmt::If { then, els, .. } => {
                        each(then, f);
                        each(els, f);
                    }
                    _ => {}
                }
            }
        }
        let mut k = kernel();
        each(&mut k.body, f);
        crate::passes::verify(&k).unwrap_err().to_string()
    }

    #[test]
    fn bad_pipeline_statements_name_the_condition() {
        let e = refused(&mut |s| {
            if let Stmt::Tma { coords, .. } = s {
                coords.pop();
            }
        });
        assert!(
            e.contains("1 coordinates for the 2-dimensional map A"),
            "{e}"
        );
        let e = refused(&mut |s| {
            if let Stmt::Tma { map, .. } = s {
                *map = "D".into();
            }
        });
        assert!(e.contains("D is not a tensor-map parameter"), "{e}");
        let e = refused(&mut |s| {
            if let Stmt::TmaStore { coords, .. } = s {
                coords.push(coords[0].clone());
            }
        });
        assert!(
            e.contains("3 coordinates for the 2-dimensional map C"),
            "{e}"
        );
        let e = refused(&mut |s| {
            if let Stmt::TmaStore { map, .. } = s {
                *map = "A".into();
            }
        });
        assert!(
            e.contains("a TMA store of A reads half_t in shared memory, not float"),
            "{e}"
        );
        let e = refused(&mut |s| {
            if let Stmt::Mbarrier(MbarrierOp::Wait { bar, .. }) = s {
                bar.name = "nope".into();
            }
        });
        assert!(e.contains("nope is not a declared mbarrier array"), "{e}");
        let e = refused(&mut |s| {
            if let Stmt::Barrier(Barrier::SetMaxNReg { regs, .. }) = s {
                *regs = 300;
            }
        });
        assert!(e.contains("setmaxnreg 300: 24 to 256 registers"), "{e}");
        let e = refused(&mut |s| {
            if let Stmt::Barrier(Barrier::Named { threads, .. }) = s {
                *threads = 250;
            }
        });
        assert!(e.contains("bar.sync 1, 250: an id in 1..15"), "{e}");
    }
}
