//! The GPU a kernel is built for: its shared memory, registers, thread and block limits and the
//! instructions it has. Verification reads it (does the plan fit, and at how many CTAs per SM?)
//! and so does emission (what `__launch_bounds__` promises, what the header claims); nothing
//! assumes one GPU.
//!
//! The figures are NVIDIA's: the CUDA C++ Programming Guide, "Compute Capabilities", table
//! "Technical Specifications per Compute Capability" (shared memory per SM and per block, resident
//! threads and blocks per SM, 64K 32-bit registers per SM and per block, 255 per thread, 1024
//! threads per block), and its "Compute Capability 8.x" / "9.0" shared-memory sections (the 1 KB
//! of an SM's shared memory that a block cannot have is reserved for the system). They were
//! checked against CCCL's `cuda::arch_traits` (libcudacxx, `cuda/__device/arch_traits.h`;
//! <https://nvidia.github.io/cccl/libcudacxx/api/structarch__traits__t.html>), which encodes the
//! same table: `max_shared_memory_per_multiprocessor`, `max_blocks_per_multiprocessor`,
//! `max_threads_per_multiprocessor`, `reserved_shared_memory_per_block = 1024` from compute
//! capability 8.0, `max_shared_memory_per_block_optin` = per SM - reserved.
//!
//! | target | GPUs | shared memory per SM / per block | threads per SM | CTAs per SM |
//! |---|---|---|---:|---:|
//! | `sm_80` | A100, A30 | 164 KiB / 163 KiB | 2048 | 32 |
//! | `sm_86` | A10, A40, RTX 30xx | 100 KiB / 99 KiB | 1536 | 16 |
//! | `sm_89` | L4, L40, RTX 40xx | 100 KiB / 99 KiB | 1536 | 24 |
//! | `sm_90a` | H100, H200 | 228 KiB / 227 KiB | 2048 | 32 |
//!
//! The occupancy rules ([`Target::occupancy`]) are those of the CUDA occupancy calculator
//! (`cuda_occupancy.h` in the CUDA toolkit) for compute capability 8.x and 9.0: registers are
//! allocated per warp, `32 * registers` rounded up to a multiple of 256; the register file is
//! split into 4 sub-partitions of a quarter each, and a warp's registers come from one of them;
//! shared memory is allocated per CTA in units of 128 bytes, with the 1 KiB reservation added.

use std::fmt;
use std::str::FromStr;

use cute_layout::atom::{CopyOp, MmaOp};
use cute_layout::ElemType;

use crate::error::{CodegenError, Result};

/// Threads per warp.
const WARP: i64 = 32;
/// A warp's registers are allocated in units of this many (`32 * registers per thread` rounded
/// up): `cudaOccRegAllocationGranularity`.
const REGISTER_ALLOCATION_UNIT: i64 = 256;
/// The register file is split into this many sub-partitions; a warp's registers come from one:
/// `cudaOccSubPartitionsPerMultiprocessor`.
const REGISTER_SUB_PARTITIONS: i64 = 4;
/// A CTA's shared memory (with the reservation) is allocated in units of this many bytes:
/// `cudaOccSMemAllocationGranularity` for compute capability 8.x and 9.0.
const SMEM_ALLOCATION_UNIT: i64 = 128;

/// The architectures the code generator targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Compute capability 8.0 (A100, A30).
    Sm80,
    /// Compute capability 8.6 (A10, A40, RTX 30xx).
    Sm86,
    /// Compute capability 8.9 (L4, L40, RTX 40xx).
    Sm89,
    /// Compute capability 9.0 with the architecture-specific instructions (`wgmma`, `setmaxnreg`):
    /// H100, H200; its cubins run on compute capability 9.0 only.
    Sm90a,
}

impl Arch {
    /// Every architecture, oldest first.
    pub const ALL: [Arch; 4] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90a];

    /// NVRTC's name of the architecture (`--gpu-architecture`): `sm_80`, ..., `sm_90a`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm_80",
            Arch::Sm86 => "sm_86",
            Arch::Sm89 => "sm_89",
            Arch::Sm90a => "sm_90a",
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The element types of the warp-level `mma.sync` a target has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MmaSync {
    /// `.f16` A and B (f16 or f32 accumulators).
    pub f16: bool,
    /// `.bf16` A and B.
    pub bf16: bool,
    /// `.tf32` A and B.
    pub tf32: bool,
    /// `.f64` (DMMA).
    pub f64: bool,
    /// The integer forms: `.s8`/`.u8`, and the sub-byte `.s4`/`.u4` and `.b1` of the catalog.
    pub int8: bool,
}

/// One instruction family a plan's atoms may lower to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `cp.async` (global -> shared without registers).
    CpAsync,
    /// `ldmatrix`.
    Ldmatrix,
    /// `mma.sync` over these A and B types.
    MmaSync(MmaType),
    /// Hopper's warpgroup MMA, `wgmma.mma_async`.
    Wgmma,
    /// The tensor memory accelerator, `cp.async.bulk.tensor`.
    Tma,
    /// `stmatrix`.
    Stmatrix,
    /// `setmaxnreg` (warp-specialized register reallocation).
    Setmaxnreg,
    /// Thread block clusters (distributed shared memory).
    Clusters,
}

/// The A and B types of an `mma.sync` (see [`MmaSync`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmaType {
    F16,
    Bf16,
    Tf32,
    F64,
    /// Integer (8-bit and sub-byte) and 1-bit.
    Int8,
}

impl Feature {
    /// What a copy atom lowers to: `cp.async`, `ldmatrix`, `stmatrix` or TMA; `None` for plain loads
    /// and stores.
    pub fn of_copy(op: &CopyOp) -> Option<Feature> {
        match op {
            CopyOp::UniversalCopy { .. } | CopyOp::AutoVectorizingCopy { .. } => None,
            CopyOp::CpAsyncCacheAlways { .. } | CopyOp::CpAsyncCacheGlobal { .. } => {
                Some(Feature::CpAsync)
            }
            CopyOp::LdsmN { .. } | CopyOp::LdsmT { .. } => Some(Feature::Ldmatrix),
            CopyOp::StsmN { .. } | CopyOp::StsmT { .. } => Some(Feature::Stmatrix),
            CopyOp::Tma { .. } => Some(Feature::Tma),
        }
    }

    /// What an MMA atom lowers to: `mma.sync` of its A type; `None` for `UniversalFMA` (FFMA).
    pub fn of_mma(op: &MmaOp) -> Option<Feature> {
        match op {
            MmaOp::UniversalFma { .. } => return None,
            MmaOp::Sm90(_) => return Some(Feature::Wgmma),
            _ => {}
        }
        let kind = match op.types()[1] {
            ElemType::F16 => MmaType::F16,
            ElemType::Bf16 => MmaType::Bf16,
            ElemType::Tf32 => MmaType::Tf32,
            ElemType::F64 => MmaType::F64,
            _ => MmaType::Int8,
        };
        Some(Feature::MmaSync(kind))
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Feature::CpAsync => f.write_str("cp.async"),
            Feature::Ldmatrix => f.write_str("ldmatrix"),
            Feature::MmaSync(t) => {
                let t = match t {
                    MmaType::F16 => "f16",
                    MmaType::Bf16 => "bf16",
                    MmaType::Tf32 => "tf32",
                    MmaType::F64 => "f64",
                    MmaType::Int8 => "integer",
                };
                write!(f, "mma.sync of {t}")
            }
            Feature::Wgmma => f.write_str("wgmma"),
            Feature::Tma => f.write_str("TMA (cp.async.bulk.tensor)"),
            Feature::Stmatrix => f.write_str("stmatrix"),
            Feature::Setmaxnreg => f.write_str("setmaxnreg"),
            Feature::Clusters => f.write_str("thread block clusters"),
        }
    }
}

/// The instructions a target has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Features {
    /// `cp.async` (compute capability 8.0 and up).
    pub cp_async: bool,
    /// `ldmatrix` (7.5 and up).
    pub ldmatrix: bool,
    /// `mma.sync` by type.
    pub mma_sync: MmaSync,
    /// `wgmma.mma_async` (sm_90a only).
    pub wgmma: bool,
    /// `cp.async.bulk.tensor` (9.0 and up).
    pub tma: bool,
    /// `stmatrix` (9.0 and up).
    pub stmatrix: bool,
    /// `setmaxnreg` (sm_90a only).
    pub setmaxnreg: bool,
    /// Thread block clusters (9.0 and up).
    pub clusters: bool,
}

impl Features {
    /// What every compute capability 8.x part has: `cp.async`, `ldmatrix`, `mma.sync` of every
    /// type; none of Hopper's.
    const AMPERE: Features = Features {
        cp_async: true,
        ldmatrix: true,
        mma_sync: MmaSync {
            f16: true,
            bf16: true,
            tf32: true,
            f64: true,
            int8: true,
        },
        wgmma: false,
        tma: false,
        stmatrix: false,
        setmaxnreg: false,
        clusters: false,
    };

    /// Whether the target has `f`.
    pub fn has(&self, f: Feature) -> bool {
        match f {
            Feature::CpAsync => self.cp_async,
            Feature::Ldmatrix => self.ldmatrix,
            Feature::MmaSync(t) => match t {
                MmaType::F16 => self.mma_sync.f16,
                MmaType::Bf16 => self.mma_sync.bf16,
                MmaType::Tf32 => self.mma_sync.tf32,
                MmaType::F64 => self.mma_sync.f64,
                MmaType::Int8 => self.mma_sync.int8,
            },
            Feature::Wgmma => self.wgmma,
            Feature::Tma => self.tma,
            Feature::Stmatrix => self.stmatrix,
            Feature::Setmaxnreg => self.setmaxnreg,
            Feature::Clusters => self.clusters,
        }
    }
}

/// A GPU architecture as the code generator sees it: the limits a plan must fit and the
/// instructions its atoms may lower to. Sizes are in bytes, counts per SM unless named per block
/// or per thread.
///
/// ```
/// use cute_codegen::target::{Arch, Target};
/// let a100 = Target::parse("sm_80")?;
/// assert_eq!((a100.arch, a100.smem_per_sm, a100.smem_per_block), (Arch::Sm80, 164 * 1024, 163 * 1024));
/// assert_eq!(Target::default().name(), "sm_90a");
/// assert!(Target::parse("sm_70").is_err());
/// # Ok::<(), cute_codegen::CodegenError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// The architecture (and NVRTC's name of it, [`Target::name`]).
    pub arch: Arch,
    /// The GPUs of the architecture, for messages and kernel headers (`H100/H200`).
    pub devices: &'static str,
    /// The most shared memory one CTA may have (the opt-in maximum above the default 48 KiB).
    pub smem_per_block: i64,
    /// The shared memory of one SM, for all the CTAs resident on it.
    pub smem_per_sm: i64,
    /// What the hardware reserves of an SM's shared memory for each resident CTA (1 KiB).
    pub smem_reserved_per_block: i64,
    /// 32-bit registers of one SM.
    pub registers_per_sm: i64,
    /// 32-bit registers one CTA may have.
    pub registers_per_block: i64,
    /// The most registers one thread may have (255).
    pub max_registers_per_thread: i64,
    /// Resident threads of one SM.
    pub max_threads_per_sm: i64,
    /// Threads of one CTA (1024).
    pub max_threads_per_block: i64,
    /// Resident CTAs of one SM.
    pub max_blocks_per_sm: i64,
    /// The instructions it has.
    pub features: Features,
    /// The SMs a persistent kernel's grid is sized for: the architecture's largest part here
    /// (H100 SXM and H200: 132; a GPU with fewer runs the extra CTAs as a second wave, correct
    /// and slower).
    pub sms: i64,
}

/// How many CTAs of one shape fit on an SM, by each of its resources; [`Occupancy::ctas`] is the
/// least. A CTA that cannot be launched at all on the target (too many threads, registers or
/// bytes of shared memory for one CTA) fits 0 times by that resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupancy {
    /// By resident threads (whole warps).
    pub by_threads: i64,
    /// By registers.
    pub by_registers: i64,
    /// By shared memory (with the per-CTA reservation).
    pub by_shared_memory: i64,
    /// By the resident-CTA limit.
    pub by_blocks: i64,
}

impl Occupancy {
    /// The CTAs that fit: the least over the resources.
    pub fn ctas(&self) -> i64 {
        self.by_threads
            .min(self.by_registers)
            .min(self.by_shared_memory)
            .min(self.by_blocks)
    }
}

impl Target {
    /// The figures shared by every target here: 64K registers per SM and per block, 255 per
    /// thread, 1024 threads per block, 1 KiB of shared memory reserved per CTA.
    const fn with(
        arch: Arch,
        devices: &'static str,
        smem_per_sm_kib: i64,
        max_threads_per_sm: i64,
        max_blocks_per_sm: i64,
        features: Features,
        sms: i64,
    ) -> Target {
        let reserved = 1024;
        Target {
            arch,
            devices,
            smem_per_block: smem_per_sm_kib * 1024 - reserved,
            smem_per_sm: smem_per_sm_kib * 1024,
            smem_reserved_per_block: reserved,
            registers_per_sm: 64 * 1024,
            registers_per_block: 64 * 1024,
            max_registers_per_thread: 255,
            max_threads_per_sm,
            max_threads_per_block: 1024,
            max_blocks_per_sm,
            features,
            sms,
        }
    }

    /// Compute capability 8.0 (A100, A30): 164 KiB of shared memory per SM, 163 KiB per CTA,
    /// 2048 threads and 32 CTAs per SM.
    pub const fn sm80() -> Target {
        Target::with(Arch::Sm80, "A100/A30", 164, 2048, 32, Features::AMPERE, 108)
    }

    /// Compute capability 8.6 (A10, A40, RTX 30xx): 100 KiB per SM, 99 KiB per CTA, 1536 threads
    /// and 16 CTAs per SM.
    pub const fn sm86() -> Target {
        Target::with(
            Arch::Sm86,
            "A10/A40/RTX 30xx",
            100,
            1536,
            16,
            Features::AMPERE,
            84,
        )
    }

    /// Compute capability 8.9 (L4, L40, RTX 40xx): 100 KiB per SM, 99 KiB per CTA, 1536 threads
    /// and 24 CTAs per SM.
    pub const fn sm89() -> Target {
        Target::with(
            Arch::Sm89,
            "L4/L40/RTX 40xx",
            100,
            1536,
            24,
            Features::AMPERE,
            142,
        )
    }

    /// Compute capability 9.0, architecture-specific (H100, H200): 228 KiB per SM, 227 KiB per
    /// CTA, 2048 threads and 32 CTAs per SM; `wgmma`, TMA, `stmatrix`, `setmaxnreg`, clusters.
    pub const fn sm90a() -> Target {
        let hopper = Features {
            wgmma: true,
            tma: true,
            stmatrix: true,
            setmaxnreg: true,
            clusters: true,
            ..Features::AMPERE
        };
        Target::with(Arch::Sm90a, "H100/H200", 228, 2048, 32, hopper, 132)
    }

    /// The target of an architecture.
    pub const fn of(arch: Arch) -> Target {
        match arch {
            Arch::Sm80 => Target::sm80(),
            Arch::Sm86 => Target::sm86(),
            Arch::Sm89 => Target::sm89(),
            Arch::Sm90a => Target::sm90a(),
        }
    }

    /// The target NVRTC calls `name` (`sm_80`, `sm_86`, `sm_89`, `sm_90a`); any other name is a
    /// [`CodegenError::UnknownTarget`].
    pub fn parse(name: &str) -> Result<Target> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .map(Target::of)
            .ok_or_else(|| CodegenError::UnknownTarget(name.to_string()))
    }

    /// NVRTC's name of the architecture, `--gpu-architecture=<name>`: `sm_90a`.
    pub fn name(&self) -> &'static str {
        self.arch.name()
    }

    /// Whether the target has the instruction family `f`.
    pub fn has(&self, f: Feature) -> bool {
        self.features.has(f)
    }

    /// How many CTAs of `threads` threads, `registers` registers per thread and `smem_bytes` of
    /// shared memory (static plus dynamic) fit on one SM, by each resource: the occupancy
    /// calculator's figures.
    ///
    /// - threads: whole warps, `max_threads_per_sm / (32 * ceil(threads / 32))`;
    /// - registers: a warp takes `32 * registers` rounded up to a multiple of 256, from one of
    ///   the 4 sub-partitions of `registers_per_sm / 4`; a CTA whose warps (rounded up to a
    ///   multiple of 4) need more than `registers_per_block` fits 0 times;
    /// - shared memory: `smem_per_sm / roundup(smem_bytes + 1 KiB reserved, 128)`;
    /// - the resident-CTA limit.
    ///
    /// A register count below 1 counts as 1.
    ///
    /// ```
    /// use cute_codegen::target::Target;
    /// // sgemm-sm80: 256 threads, 128 registers, 96 KiB: two CTAs on an H200, one on an A100
    /// assert_eq!(Target::sm90a().occupancy(256, 128, 96 * 1024).ctas(), 2);
    /// assert_eq!(Target::sm80().occupancy(256, 128, 96 * 1024).ctas(), 1);
    /// ```
    pub fn occupancy(&self, threads: i64, registers: i64, smem_bytes: i64) -> Occupancy {
        let launchable = (1..=self.max_threads_per_block).contains(&threads);
        let warps = ceil_div(threads.max(1), WARP);
        let by_threads = if launchable {
            self.max_threads_per_sm / (warps * WARP)
        } else {
            0
        };
        let registers = registers.max(1);
        let per_warp = round_up(registers.saturating_mul(WARP), REGISTER_ALLOCATION_UNIT);
        let per_block = per_warp.saturating_mul(round_up(warps, REGISTER_SUB_PARTITIONS));
        let by_registers =
            if registers > self.max_registers_per_thread || per_block > self.registers_per_block {
                0
            } else {
                let sub_partition = self.registers_per_sm / REGISTER_SUB_PARTITIONS;
                (sub_partition / per_warp) * REGISTER_SUB_PARTITIONS / warps
            };
        let by_shared_memory = if (0..=self.smem_per_block).contains(&smem_bytes) {
            let allocated = round_up(
                smem_bytes + self.smem_reserved_per_block,
                SMEM_ALLOCATION_UNIT,
            );
            self.smem_per_sm / allocated
        } else {
            0
        };
        Occupancy {
            by_threads,
            by_registers,
            by_shared_memory,
            by_blocks: self.max_blocks_per_sm,
        }
    }

    /// How many CTAs of this shape fit on one SM: [`Target::occupancy`]'s least.
    pub fn ctas_per_sm(&self, threads: i64, registers: i64, smem_bytes: i64) -> i64 {
        self.occupancy(threads, registers, smem_bytes).ctas()
    }

    /// The header line of a kernel built for `ctas > 1` CTAs per SM of `threads` threads and
    /// `smem_bytes` of shared memory: the registers a thread is left and the shared memory of
    /// the SM those CTAs take (`None` for one CTA: the launch bounds claim nothing).
    pub fn occupancy_note(&self, threads: i64, ctas: i64, smem_bytes: i64) -> Option<String> {
        (ctas > 1).then(|| {
            format!(
                "occupancy: built for {ctas} CTAs per SM ({} registers per thread at most; {} bytes of shared memory per SM, within the {}'s {})",
                self.registers_per_thread_at(threads, ctas),
                smem_bytes * ctas,
                self.devices,
                self.smem_per_sm
            )
        })
    }

    /// The most registers per thread at which `ctas` CTAs of `threads` threads fit on one SM by
    /// registers (what `__launch_bounds__(threads, ctas)` leaves the compiler), 0 if none does.
    ///
    /// ```
    /// use cute_codegen::target::Target;
    /// assert_eq!(Target::sm90a().registers_per_thread_at(256, 2), 128);
    /// assert_eq!(Target::sm80().registers_per_thread_at(256, 1), 255);
    /// assert_eq!(Target::sm86().registers_per_thread_at(1024, 1), 64);
    /// ```
    pub fn registers_per_thread_at(&self, threads: i64, ctas: i64) -> i64 {
        (1..=self.max_registers_per_thread)
            .rev()
            .find(|&r| self.occupancy(threads, r, 0).by_registers >= ctas)
            .unwrap_or(0)
    }
}

impl Default for Target {
    /// `sm_90a`, the H100/H200.
    fn default() -> Target {
        Target::sm90a()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = CodegenError;

    fn from_str(s: &str) -> Result<Target> {
        Target::parse(s)
    }
}

/// `ceil(a / b)` of a count `a` (negative: 0) by a positive `b`, saturating.
pub(crate) fn ceil_div(a: i64, b: i64) -> i64 {
    a.max(0).saturating_add(b - 1) / b
}

fn round_up(a: i64, unit: i64) -> i64 {
    ceil_div(a, unit).saturating_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed cases; each comment is the arithmetic.
    #[test]
    fn occupancy_by_hand() {
        let (a100, a10, l4, h200) = (
            Target::sm80(),
            Target::sm86(),
            Target::sm89(),
            Target::sm90a(),
        );
        // sgemm-sm80 on the H200: threads 2048/256 = 8; registers 32*128 = 4096 per warp,
        // 16384/4096 = 4 warps per sub-partition, 16 per SM / 8 = 2; shared memory
        // 233472 / (98304 + 1024) = 2; 32 CTAs
        let occ = h200.occupancy(256, 128, 98304);
        assert_eq!(
            occ,
            Occupancy {
                by_threads: 8,
                by_registers: 2,
                by_shared_memory: 2,
                by_blocks: 32
            }
        );
        assert_eq!(occ.ctas(), 2);
        // on the A100: 167936 / 99328 = 1
        assert_eq!(a100.occupancy(256, 128, 98304).by_shared_memory, 1);
        assert_eq!(a100.ctas_per_sm(256, 128, 98304), 1);
        // on sm_86 and sm_89: 102400 / 99328 = 1
        assert_eq!(a10.ctas_per_sm(256, 128, 98304), 1);
        assert_eq!(l4.ctas_per_sm(256, 128, 98304), 1);
        // 256 threads, 32 registers, no shared memory on sm_86: threads 1536/256 = 6 (registers
        // 1024 per warp: 16*4 = 64 warps / 8 = 8; shared memory 102400/1024 = 100; 16 CTAs)
        let occ = a10.occupancy(256, 32, 0);
        assert_eq!(
            (occ.by_threads, occ.by_registers, occ.by_shared_memory),
            (6, 8, 100)
        );
        assert_eq!(occ.ctas(), 6);
        // 64 threads, 32 registers: threads 1536/64 = 24, registers 64/2 = 32; the CTA limit
        // decides: 16 on sm_86, 24 on sm_89, 32 of 2048/64 = 32 on sm_80
        assert_eq!(a10.ctas_per_sm(64, 32, 0), 16);
        assert_eq!(l4.ctas_per_sm(64, 32, 0), 24);
        assert_eq!(a100.ctas_per_sm(64, 32, 0), 32);
        // the per-warp rounding: 129 registers take 32*129 = 4128 -> 4352 per warp; 16384/4352
        // = 3 warps per sub-partition, 12 per SM: one CTA of 8 warps, not the 65536/(129*256)
        // = 1.98 that ignores it (same answer) ...
        assert_eq!(a100.occupancy(256, 129, 0).by_registers, 1);
        // ... and the sub-partitions: 96 threads (3 warps) of 40 registers, 1280 per warp:
        // 16384/1280 = 12 per sub-partition, 48 warps / 3 = 16 CTAs (65536/1280 = 51 warps
        // without the sub-partitions would say 17)
        assert_eq!(a100.occupancy(96, 40, 0).by_registers, 16);
        assert_eq!(a100.ctas_per_sm(96, 40, 0), 16);
        // 100 threads are 4 warps: 2048/128 = 16 by threads
        assert_eq!(a100.occupancy(100, 32, 0).by_threads, 16);
        // a CTA of 1024 threads of 255 registers needs 8192*32 registers: it never launches
        assert_eq!(h200.occupancy(1024, 255, 0).by_registers, 0);
        assert_eq!(h200.occupancy(1024, 64, 0).by_registers, 1);
        assert_eq!(h200.occupancy(1024, 65, 0).by_registers, 0);
        // 256 registers per thread do not exist
        assert_eq!(h200.occupancy(32, 256, 0).by_registers, 0);
        // shared memory in units of 128 bytes: 1 byte + 1024 -> 1152; 102400/1152 = 88
        assert_eq!(a10.occupancy(32, 32, 1).by_shared_memory, 88);
        // 200 KiB: not one CTA on sm_86 (above 99 KiB), one on sm_90a (204800+1024 <= 233472)
        assert_eq!(a10.occupancy(256, 32, 200 * 1024).by_shared_memory, 0);
        assert_eq!(h200.ctas_per_sm(256, 32, 200 * 1024), 1);
        // the per-block maximum, exactly: one CTA
        assert_eq!(h200.occupancy(256, 32, 227 * 1024).by_shared_memory, 1);
        assert_eq!(a100.occupancy(256, 32, 163 * 1024).by_shared_memory, 1);
        assert_eq!(a100.occupancy(256, 32, 163 * 1024 + 1).by_shared_memory, 0);
        // too many threads for a CTA
        assert_eq!(a100.occupancy(1025, 32, 0).ctas(), 0);
        assert_eq!(a100.occupancy(0, 32, 0).ctas(), 0);
    }

    #[test]
    fn registers_left_by_launch_bounds() {
        let h200 = Target::sm90a();
        // __launch_bounds__(256, 2): 128 (the named kernels' note)
        assert_eq!(h200.registers_per_thread_at(256, 2), 128);
        assert_eq!(h200.registers_per_thread_at(256, 1), 255);
        assert_eq!(h200.registers_per_thread_at(128, 4), 128);
        // 3 CTAs of 256 threads: 24 warps, 6 per sub-partition: 16384/6 = 2730 -> 2560 per
        // warp, 80 registers
        assert_eq!(h200.registers_per_thread_at(256, 3), 80);
        // 1024 threads: 64 (the per-block limit), and never two CTAs on sm_86 (by registers
        // 32 would do, but not by threads: that is occupancy's concern)
        assert_eq!(Target::sm86().registers_per_thread_at(1024, 1), 64);
        assert_eq!(Target::sm86().registers_per_thread_at(1024, 2), 32);
        // 3 CTAs of 1024 threads: 96 warps, 24 per sub-partition: 16384/24 = 682 -> 512 per
        // warp, 16 registers (the thread limit forbids them: occupancy's concern)
        assert_eq!(h200.registers_per_thread_at(1024, 3), 16);
        assert_eq!(h200.ctas_per_sm(1024, 16, 0), 2);
        // 64 CTAs of 1024 threads: 2048 warps, 512 per sub-partition, 32 registers per warp:
        // not even one register per thread
        assert_eq!(h200.registers_per_thread_at(1024, 64), 0);
    }

    #[test]
    fn names_parse_and_print() {
        for arch in Arch::ALL {
            let t = Target::parse(arch.name()).unwrap();
            assert_eq!(t.arch, arch);
            assert_eq!(t.name(), arch.name());
            assert_eq!(t.to_string(), arch.name());
            assert_eq!(arch.name().parse::<Target>().unwrap(), t);
        }
        assert_eq!(Target::default(), Target::sm90a());
        for bad in ["sm_70", "sm_90", "SM_80", "sm80", "", "sm_90a "] {
            match Target::parse(bad) {
                Err(CodegenError::UnknownTarget(n)) => assert_eq!(n, bad),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        let msg = Target::parse("sm_70").unwrap_err().to_string();
        assert!(
            msg.contains("sm_70") && msg.contains("sm_80, sm_86, sm_89, sm_90a"),
            "{msg}"
        );
    }

    #[test]
    fn the_figures() {
        let t = |a| Target::of(a);
        let rows: Vec<(i64, i64, i64, i64)> = Arch::ALL
            .iter()
            .map(|&a| {
                let t = t(a);
                (
                    t.smem_per_sm / 1024,
                    t.smem_per_block / 1024,
                    t.max_threads_per_sm,
                    t.max_blocks_per_sm,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (164, 163, 2048, 32),
                (100, 99, 1536, 16),
                (100, 99, 1536, 24),
                (228, 227, 2048, 32)
            ]
        );
        for a in Arch::ALL {
            let t = t(a);
            assert_eq!(
                (
                    t.smem_reserved_per_block,
                    t.registers_per_sm,
                    t.registers_per_block,
                    t.max_registers_per_thread,
                    t.max_threads_per_block
                ),
                (1024, 65536, 65536, 255, 1024)
            );
            assert!(t.has(Feature::CpAsync) && t.has(Feature::Ldmatrix));
            for m in [
                MmaType::F16,
                MmaType::Bf16,
                MmaType::Tf32,
                MmaType::F64,
                MmaType::Int8,
            ] {
                assert!(t.has(Feature::MmaSync(m)), "{a}: {m:?}");
            }
            let hopper = a == Arch::Sm90a;
            for f in [
                Feature::Wgmma,
                Feature::Tma,
                Feature::Stmatrix,
                Feature::Setmaxnreg,
                Feature::Clusters,
            ] {
                assert_eq!(t.has(f), hopper, "{a}: {f}");
            }
        }
    }

    #[test]
    fn atoms_name_their_feature() {
        use cute_layout::atom::MmaOp;
        assert_eq!(
            Feature::of_copy(&CopyOp::CpAsyncCacheGlobal { bits: 128 }),
            Some(Feature::CpAsync)
        );
        assert_eq!(
            Feature::of_copy(&CopyOp::LdsmT { matrices: 4 }),
            Some(Feature::Ldmatrix)
        );
        assert_eq!(Feature::of_copy(&CopyOp::UniversalCopy { bits: 128 }), None);
        let fma = MmaOp::universal_fma(ElemType::F32, ElemType::F32, ElemType::F32, ElemType::F32);
        assert_eq!(Feature::of_mma(&fma), None);
        for (name, t) in [
            ("SM80_16x8x8_F32TF32TF32F32_TN", MmaType::Tf32),
            ("SM80_16x8x16_F32BF16BF16F32_TN", MmaType::Bf16),
            ("SM80_16x8x16_F32F16F16F32_TN", MmaType::F16),
            ("SM75_16x8x8_F32F16F16F32_TN", MmaType::F16),
            ("SM80_8x8x4_F64F64F64F64_TN", MmaType::F64),
            ("SM80_16x8x32_S32S8S8S32_TN", MmaType::Int8),
        ] {
            let op = MmaOp::from_name(name).unwrap();
            assert_eq!(Feature::of_mma(&op), Some(Feature::MmaSync(t)), "{name}");
        }
    }
}
