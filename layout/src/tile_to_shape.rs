//! `tile_to_shape(block, shape[, order])`: repeat a block until it has a target shape.

use crate::error::{algebra, Result};
use crate::int_tuple::{ceil_div, IntTuple};
use crate::layout::Layout;
use crate::product::blocked_product;
use crate::stride::Major;

/// The order in which `tile_to_shape` repeats the block over the target's modes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModeOrder {
    /// `LayoutLeft` / `GenColMajor` (the default): first mode first.
    Major(Major),
    /// An explicit order such as `Step<_2,_1,_3>`.
    Order(IntTuple),
}

/// `tile_to_shape(block, trg_shape, order)`.
///
/// @pre `rank(block) <= rank(trg_shape)`, and each mode of the block divides the target's when
/// the target is static.
///
/// ```
/// # use cute_layout::*;
/// let block = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
/// let smem = tile_to_shape(&block, &tup![s(32), s(64)], &ModeOrder::Major(Major::Left))?;
/// assert_eq!(smem.to_string(), "((_8,_4),(_8,_8)):((_8,_64),(_1,_256))"); // (BLK_M,BLK_K)
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn tile_to_shape(block: &Layout, trg_shape: &IntTuple, order: &ModeOrder) -> Result<Layout> {
    let r = trg_shape.rank();
    if block.rank() > r {
        return Err(algebra(
            "tile_to_shape",
            format!("rank of {block} exceeds rank of the target shape {trg_shape}"),
        ));
    }
    let padded = block.append_to(r, &Layout::trivial());
    let block_shape = padded.shape().product_each()?;
    let target_shape = trg_shape.product_each()?;
    if target_shape.is_static() && !block_shape.is_static() {
        // C++ CuTe checks the division at compile time when the target is static, which a
        // dynamic block cannot pass (it does not compile).
        return Err(algebra(
            "tile_to_shape",
            format!("the target shape {target_shape} is static but the block shape {block_shape} is not: the division cannot be checked (C++ CuTe does not compile it)"),
        ));
    }
    if target_shape.is_static() {
        for (t, b) in target_shape.leaves().iter().zip(block_shape.leaves()) {
            if let (Some(t), Some(b)) = (t.as_static(), b.as_static()) {
                if b == 0 || t.checked_rem(b) != Some(0) {
                    return Err(algebra(
                        "tile_to_shape",
                        format!("block shape {block_shape} does not divide the target shape {target_shape}"),
                    ));
                }
            }
        }
    }
    let product_shape = ceil_div(&target_shape, &block_shape)?;
    let tiler = match order {
        ModeOrder::Major(m) => Layout::compact(&product_shape, *m)?,
        ModeOrder::Order(o) => Layout::ordered(&product_shape, o)?,
    };
    blocked_product(&padded, &tiler)
}
