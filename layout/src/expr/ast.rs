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
}

/// A template argument: an integer or a type (possibly with its own arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TArg {
    Int(i64),
    Type(String, Vec<TArg>),
}
