//! The syntax tree of a CuTe expression.

/// An expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// `_8`.
    Static(i64),
    /// `8`.
    Dynamic(i64),
    /// A bare name: a symbol (`M`) or a keyword (`LayoutLeft`).
    Name(String),
    /// `_`.
    Under,
    /// `(a,b,...)`.
    Tuple(Vec<Expr>),
    /// `S:D`.
    Layout(Box<Expr>, Box<Expr>),
    /// `name<targs>(args)`.
    Call {
        name: String,
        targs: Vec<TArg>,
        args: Vec<Expr>,
        col: usize,
    },
    /// A template type without a call: `Swizzle<3,4,3>`, `Copy_Atom<...>`.
    Type { name: String, targs: Vec<TArg> },
    /// `x(args)`: evaluate or slice a layout.
    Apply { target: Box<Expr>, args: Vec<Expr> },
    /// `x.name(args)`.
    Method {
        target: Box<Expr>,
        name: String,
        args: Vec<Expr>,
        col: usize,
    },
    /// `-x`.
    Neg(Box<Expr>),
    /// `a + b - c ...` or `a * b / c ...`: a left-associative chain of integer operators of one
    /// precedence, kept flat so that a long chain is not a deep tree.
    Arith(Box<Expr>, Vec<(ArithOp, Expr)>),
    /// `v@m`: a basis stride (`_1@0`).
    Basis(Box<Expr>, usize),
    /// `a o b o ...`: a composed layout (`Sw<3,4,3> o _0 o L`) or a tensor (`gmem_ptr[32b](A) o L`),
    /// as C++ CuTe prints them.
    Compose(Vec<Expr>),
    /// `gmem_ptr[32b](A+off)`: a pointer named by a kernel parameter, at an element offset.
    Ptr {
        space: String,
        bits: u32,
        name: String,
        offset: Option<Box<Expr>>,
    },
    /// `M_S|(d&F)=v`: a printed `MixedBits` (only the offset of a composed layout).
    MixedBits { value: i64, mask: i64 },
}

/// The arithmetic operators of integer expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// A template argument: an integer or a type (possibly with its own arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TArg {
    Int(i64),
    Type(String, Vec<TArg>),
}
