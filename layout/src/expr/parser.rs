//! A recursive-descent parser for the CuTe expression language (`shared/cute-expr.md`).
//!
//! ```text
//! expr    := layout ('o' layout)*                 (a composed layout or a tensor, as printed)
//! layout  := arith (':' arith)?
//! arith   := term (('+' | '-') term)*
//! term    := unary (('*' | '/' | '%') unary)*
//! unary   := '-' unary | primary postfix*
//! postfix := '(' args ')' | '.' IDENT '(' args ')' | '@' INT
//! primary := STATIC | DYNAMIC | '_' | '(' args? ')' | pointer | mixed-bits
//!          | IDENT ('<' targs '>')? ('(' args ')')?
//! pointer := IDENT '[' BITS ']' '(' IDENT (('+' | '-') arith)? ')'     (gmem_ptr[32b](A+4))
//! mixed-bits := 'M_'INT '|' '(' INT '&' INT ')' '=' INT                 (M_4|(1&3)=5)
//! targs   := targ (',' targ)*        targ := INT | IDENT ('<' targs '>')?
//! ```
//!
//! Every value prints as this grammar reads it, so printed output parses back to the same value.
//! The syntax tree is at most [`MAX_DEPTH`] levels deep (a longer chain of calls, operators or
//! nesting is refused while it is read), so evaluating and dropping it never exhausts the stack.

use super::ast::{ArithOp, Expr, TArg};
use super::lexer::{lex, Tok, Token};
use crate::error::{Error, Result};

/// Syntax trees deeper than this are refused (they would only come from absurd or hostile input).
pub const MAX_DEPTH: usize = 64;

/// Parses one expression.
pub fn parse(src: &str) -> Result<Expr> {
    let tokens = lex(src)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        open: 0,
        end_col: src.chars().count() + 1,
    };
    let (e, _) = p.expr()?;
    if let Some(t) = p.peek() {
        return Err(p.error_at(
            t.col,
            format!("unexpected {} after the expression", describe(&t.kind)),
        ));
    }
    Ok(e)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// How many `expr`s and unary minuses are open: checked before recursing, so nesting can
    /// never exhaust the stack.
    open: usize,
    end_col: usize,
}

/// An expression and the depth of its syntax tree.
type Parsed = (Expr, usize);

fn describe(t: &Tok) -> String {
    let text = match t {
        Tok::Static(v) => return format!("'_{v}'"),
        Tok::Dynamic(v) => return format!("'{v}'"),
        Tok::Ident(n) => return format!("'{n}'"),
        Tok::Bits(b) => return format!("'{b}b'"),
        Tok::Under => "_",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::Comma => ",",
        Tok::Colon => ":",
        Tok::Lt => "<",
        Tok::Gt => ">",
        Tok::Dot => ".",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Percent => "%",
        Tok::At => "@",
        Tok::LBracket => "[",
        Tok::RBracket => "]",
        Tok::Pipe => "|",
        Tok::Amp => "&",
        Tok::Eq => "=",
    };
    format!("'{text}'")
}

impl Parser {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.pos).cloned()
    }

    fn peek_is(&self, k: &Tok) -> bool {
        self.tokens.get(self.pos).is_some_and(|t| &t.kind == k)
    }

    fn col(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.end_col, |t| t.col)
    }

    fn error_at(&self, col: usize, msg: String) -> Error {
        Error::Parse { col, msg }
    }

    fn next(&mut self, what: &str) -> Result<Token> {
        match self.tokens.get(self.pos) {
            Some(t) => {
                self.pos += 1;
                Ok(t.clone())
            }
            None => Err(self.error_at(
                self.end_col,
                format!("expected {what}, found the end of the input"),
            )),
        }
    }

    fn expect(&mut self, k: Tok, what: &str) -> Result<()> {
        let t = self.next(what)?;
        if t.kind != k {
            return Err(self.error_at(
                t.col,
                format!("expected {what}, found {}", describe(&t.kind)),
            ));
        }
        Ok(())
    }

    /// A node one level above `depth`, refused beyond [`MAX_DEPTH`].
    fn deeper(&self, depth: usize, col: usize) -> Result<usize> {
        if depth >= MAX_DEPTH {
            return Err(self.error_at(
                col,
                format!("expression nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(depth + 1)
    }

    /// Runs `f` one level of nesting deeper, refused beyond [`MAX_DEPTH`] before it recurses.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.open >= MAX_DEPTH {
            return Err(self.error_at(
                self.col(),
                format!("expression nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.open += 1;
        let out = f(self);
        self.open -= 1;
        out
    }

    fn expr(&mut self) -> Result<Parsed> {
        self.nested(Self::compose)
    }

    fn compose(&mut self) -> Result<Parsed> {
        let col = self.col();
        let (first, mut depth) = self.layout()?;
        if !self.peek_is(&Tok::Ident("o".into())) {
            return Ok((first, depth));
        }
        let mut parts = vec![first];
        while self.peek_is(&Tok::Ident("o".into())) {
            self.pos += 1;
            let (e, d) = self.layout()?;
            depth = depth.max(d);
            parts.push(e);
        }
        Ok((Expr::Compose(parts), self.deeper(depth, col)?))
    }

    fn layout(&mut self) -> Result<Parsed> {
        let col = self.col();
        let (lhs, d0) = self.arith()?;
        if !self.peek_is(&Tok::Colon) {
            return Ok((lhs, d0));
        }
        self.pos += 1;
        let (rhs, d1) = self.arith()?;
        Ok((
            Expr::Layout(Box::new(lhs), Box::new(rhs)),
            self.deeper(d0.max(d1), col)?,
        ))
    }

    fn arith(&mut self) -> Result<Parsed> {
        self.binary(
            &[(Tok::Plus, ArithOp::Add), (Tok::Minus, ArithOp::Sub)],
            Self::term,
        )
    }

    fn term(&mut self) -> Result<Parsed> {
        self.binary(
            &[
                (Tok::Star, ArithOp::Mul),
                (Tok::Slash, ArithOp::Div),
                (Tok::Percent, ArithOp::Mod),
            ],
            Self::unary,
        )
    }

    /// A left-associative chain of the operators `ops` over `operand`s.
    fn binary(
        &mut self,
        ops: &[(Tok, ArithOp)],
        operand: fn(&mut Self) -> Result<Parsed>,
    ) -> Result<Parsed> {
        let col = self.col();
        let (first, mut depth) = operand(self)?;
        let mut rest = Vec::new();
        while let Some(op) = ops.iter().find(|(t, _)| self.peek_is(t)).map(|(_, o)| *o) {
            self.pos += 1;
            let (rhs, d) = operand(self)?;
            depth = depth.max(d);
            rest.push((op, rhs));
        }
        if rest.is_empty() {
            return Ok((first, depth));
        }
        Ok((Expr::Arith(Box::new(first), rest), self.deeper(depth, col)?))
    }

    fn unary(&mut self) -> Result<Parsed> {
        let col = self.col();
        if self.peek_is(&Tok::Minus) {
            self.pos += 1;
            let (e, d) = self.nested(Self::unary)?;
            return Ok((Expr::Neg(Box::new(e)), self.deeper(d, col)?));
        }
        let (mut e, mut depth) = self.primary()?;
        loop {
            let col = self.col();
            if self.peek_is(&Tok::LParen) {
                self.pos += 1;
                let (args, d) = self.args()?;
                depth = self.deeper(depth.max(d), col)?;
                e = Expr::Apply {
                    target: Box::new(e),
                    args,
                };
            } else if self.peek_is(&Tok::Dot) {
                self.pos += 1;
                let t = self.next("a method name")?;
                let Tok::Ident(name) = t.kind else {
                    return Err(self.error_at(
                        t.col,
                        format!("expected a method name, found {}", describe(&t.kind)),
                    ));
                };
                self.expect(Tok::LParen, "'(' after the method name")?;
                let (args, d) = self.args()?;
                depth = self.deeper(depth.max(d), col)?;
                e = Expr::Method {
                    target: Box::new(e),
                    name,
                    args,
                    col: t.col,
                };
            } else if self.peek_is(&Tok::At) {
                self.pos += 1;
                let t = self.next("the mode of a basis stride")?;
                let mode = match t.kind {
                    Tok::Dynamic(m) if m >= 0 => m as usize,
                    k => {
                        return Err(self.error_at(
                            t.col,
                            format!(
                                "expected the mode of a basis stride, found {}",
                                describe(&k)
                            ),
                        ))
                    }
                };
                depth = self.deeper(depth, col)?;
                e = Expr::Basis(Box::new(e), mode);
            } else {
                return Ok((e, depth));
            }
        }
    }

    /// Comma-separated expressions up to and including ')'.
    fn args(&mut self) -> Result<(Vec<Expr>, usize)> {
        let mut out = Vec::new();
        let mut depth = 0;
        if self.peek_is(&Tok::RParen) {
            self.pos += 1;
            return Ok((out, depth));
        }
        loop {
            let (e, d) = self.expr()?;
            depth = depth.max(d);
            out.push(e);
            let t = self.next("',' or ')'")?;
            match t.kind {
                Tok::Comma => continue,
                Tok::RParen => return Ok((out, depth)),
                k => {
                    return Err(self.error_at(
                        t.col,
                        format!("expected ',' or ')', found {}", describe(&k)),
                    ))
                }
            }
        }
    }

    fn primary(&mut self) -> Result<Parsed> {
        let t = self.next("an expression")?;
        match t.kind {
            Tok::Static(v) => Ok((Expr::Static(v), 1)),
            Tok::Dynamic(v) => Ok((Expr::Dynamic(v), 1)),
            Tok::Under => Ok((Expr::Under, 1)),
            Tok::LParen => {
                let (items, d) = self.args()?;
                Ok((Expr::Tuple(items), self.deeper(d, t.col)?))
            }
            Tok::Ident(name) if self.peek_is(&Tok::LBracket) => self.pointer(name, t.col),
            Tok::Ident(name) if is_mixed_bits(&name) && self.peek_is(&Tok::Pipe) => {
                self.mixed_bits(&name, t.col)
            }
            Tok::Ident(name) => self.named(name, t.col),
            k => Err(self.error_at(
                t.col,
                format!("expected an expression, found {}", describe(&k)),
            )),
        }
    }

    /// A name, a template type or a call.
    fn named(&mut self, name: String, col: usize) -> Result<Parsed> {
        let targs = if self.peek_is(&Tok::Lt) {
            self.pos += 1;
            self.targs(1)?
        } else {
            Vec::new()
        };
        if self.peek_is(&Tok::LParen) {
            self.pos += 1;
            let (args, d) = self.args()?;
            return Ok((
                Expr::Call {
                    name,
                    targs,
                    args,
                    col,
                },
                self.deeper(d, col)?,
            ));
        }
        if targs.is_empty() {
            Ok((Expr::Name(name), 1))
        } else {
            Ok((Expr::Type { name, targs }, 1))
        }
    }

    /// Template arguments up to and including '>', `depth` levels deep.
    fn targs(&mut self, depth: usize) -> Result<Vec<TArg>> {
        let mut out = Vec::new();
        // `X<>`: the defaults of every argument (`SM90_64x64x8_F32TF32TF32_SS_TN<>`)
        if self.peek_is(&Tok::Gt) {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            let t = self.next("a template argument")?;
            let depth = self.deeper(depth, t.col)?;
            let arg = match t.kind {
                Tok::Dynamic(v) | Tok::Static(v) => TArg::Int(v),
                Tok::Ident(n) => {
                    let inner = if self.peek_is(&Tok::Lt) {
                        self.pos += 1;
                        self.targs(depth)?
                    } else {
                        Vec::new()
                    };
                    TArg::Type(n, inner)
                }
                k => {
                    return Err(self.error_at(
                        t.col,
                        format!("expected a template argument, found {}", describe(&k)),
                    ))
                }
            };
            out.push(arg);
            let t = self.next("',' or '>'")?;
            match t.kind {
                Tok::Comma => continue,
                Tok::Gt => return Ok(out),
                k => {
                    return Err(self.error_at(
                        t.col,
                        format!("expected ',' or '>', found {}", describe(&k)),
                    ))
                }
            }
        }
    }

    /// `gmem_ptr[32b](A)`, `smem_ptr[16b](sA+4)`, `rmem_ptr[32b](r-2)`.
    fn pointer(&mut self, space: String, col: usize) -> Result<Parsed> {
        self.pos += 1;
        let t = self.next("the element width of a pointer, such as 32b")?;
        let Tok::Bits(bits) = t.kind else {
            return Err(self.error_at(
                t.col,
                format!(
                    "expected an element width such as 32b, found {}",
                    describe(&t.kind)
                ),
            ));
        };
        self.expect(Tok::RBracket, "']'")?;
        self.expect(Tok::LParen, "'(' and the pointer's name")?;
        let t = self.next("the pointer's name")?;
        let Tok::Ident(name) = t.kind else {
            return Err(self.error_at(
                t.col,
                format!("expected the pointer's name, found {}", describe(&t.kind)),
            ));
        };
        let (offset, depth) = match self.peek().map(|t| t.kind) {
            Some(Tok::Plus) => {
                self.pos += 1;
                let (e, d) = self.arith()?;
                (Some(Box::new(e)), d)
            }
            Some(Tok::Minus) => {
                self.pos += 1;
                let (e, d) = self.arith()?;
                (Some(Box::new(Expr::Neg(Box::new(e)))), d + 1)
            }
            Some(Tok::Dynamic(v)) if v < 0 => {
                self.pos += 1;
                (Some(Box::new(Expr::Dynamic(v))), 1)
            }
            _ => (None, 0),
        };
        self.expect(Tok::RParen, "')' after the pointer")?;
        Ok((
            Expr::Ptr {
                space,
                bits,
                name,
                offset,
            },
            self.deeper(depth, col)?,
        ))
    }

    /// `M_S|(d&F)=v`: the value `v` whose bits under `F` are dynamic (`S = v & !F`, `d = v & F`).
    fn mixed_bits(&mut self, name: &str, col: usize) -> Result<Parsed> {
        let fixed: i64 = name[2..].parse().map_err(|_| {
            self.error_at(
                col,
                format!("'{name}': the static bits do not fit in 64 bits"),
            )
        })?;
        let int = |p: &mut Self, what: &str| -> Result<i64> {
            let t = p.next(what)?;
            match t.kind {
                Tok::Dynamic(v) => Ok(v),
                k => Err(p.error_at(t.col, format!("expected {what}, found {}", describe(&k)))),
            }
        };
        self.expect(Tok::Pipe, "'|'")?;
        self.expect(Tok::LParen, "'('")?;
        let dynamic = int(self, "the dynamic bits")?;
        self.expect(Tok::Amp, "'&'")?;
        let mask = int(self, "the mask of dynamic bits")?;
        self.expect(Tok::RParen, "')'")?;
        self.expect(Tok::Eq, "'='")?;
        let value = int(self, "the value")?;
        if fixed != value & !mask || dynamic != value & mask {
            return Err(self.error_at(
                col,
                format!("M_{fixed}|({dynamic}&{mask})={value}: the parts do not make the value"),
            ));
        }
        Ok((Expr::MixedBits { value, mask }, 1))
    }
}

/// `M_4`: the head of a printed `MixedBits`.
fn is_mixed_bits(name: &str) -> bool {
    name.len() > 2 && name.starts_with("M_") && name[2..].bytes().all(|b| b.is_ascii_digit())
}
