//! A recursive-descent parser for the CuTe expression language (`shared/cute-expr.md`).
//!
//! ```text
//! expr    := unary (':' unary)?
//! unary   := primary postfix*
//! postfix := '(' args ')' | '.' IDENT '(' args ')'
//! primary := STATIC | DYNAMIC | '_' | '(' args ')' | IDENT ('<' targs '>')? ('(' args ')')?
//! targs   := targ (',' targ)*        targ := INT | IDENT ('<' targs '>')?
//! ```

use super::ast::{Expr, TArg};
use super::lexer::{lex, Tok, Token};
use crate::error::{Error, Result};

/// Nesting deeper than this is refused (it would only come from absurd or hostile input).
pub const MAX_DEPTH: usize = 64;

/// Parses one expression.
pub fn parse(src: &str) -> Result<Expr> {
    let tokens = lex(src)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        depth: 0,
        end_col: src.chars().count() + 1,
    };
    let e = p.expr()?;
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
    depth: usize,
    end_col: usize,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Static(v) => format!("'_{v}'"),
        Tok::Dynamic(v) => format!("'{v}'"),
        Tok::Under => "'_'".into(),
        Tok::Ident(n) => format!("'{n}'"),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Comma => "','".into(),
        Tok::Colon => "':'".into(),
        Tok::Lt => "'<'".into(),
        Tok::Gt => "'>'".into(),
        Tok::Dot => "'.'".into(),
    }
}

impl Parser {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.pos).cloned()
    }

    fn peek_is(&self, k: &Tok) -> bool {
        self.tokens.get(self.pos).is_some_and(|t| &t.kind == k)
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

    fn enter(&mut self, col: usize) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(
                col,
                format!("expression nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr> {
        let col = self.peek().map_or(self.end_col, |t| t.col);
        self.enter(col)?;
        let lhs = self.unary()?;
        let e = if self.peek_is(&Tok::Colon) {
            self.pos += 1;
            Expr::Layout(Box::new(lhs), Box::new(self.unary()?))
        } else {
            lhs
        };
        self.depth -= 1;
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.peek_is(&Tok::LParen) {
                self.pos += 1;
                let args = self.args()?;
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
                let args = self.args()?;
                e = Expr::Method {
                    target: Box::new(e),
                    name,
                    args,
                    col: t.col,
                };
            } else {
                return Ok(e);
            }
        }
    }

    /// Comma-separated expressions up to and including ')'.
    fn args(&mut self) -> Result<Vec<Expr>> {
        let mut out = Vec::new();
        if self.peek_is(&Tok::RParen) {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            let t = self.next("',' or ')'")?;
            match t.kind {
                Tok::Comma => continue,
                Tok::RParen => return Ok(out),
                k => {
                    return Err(self.error_at(
                        t.col,
                        format!("expected ',' or ')', found {}", describe(&k)),
                    ))
                }
            }
        }
    }

    fn primary(&mut self) -> Result<Expr> {
        let t = self.next("an expression")?;
        match t.kind {
            Tok::Static(v) => Ok(Expr::Static(v)),
            Tok::Dynamic(v) => Ok(Expr::Dynamic(v)),
            Tok::Under => Ok(Expr::Under),
            Tok::LParen => {
                let items = self.args()?;
                if items.is_empty() {
                    return Err(self.error_at(t.col, "empty tuple '()'".into()));
                }
                Ok(Expr::Tuple(items))
            }
            Tok::Ident(name) => self.named(name, t.col),
            k => Err(self.error_at(
                t.col,
                format!("expected an expression, found {}", describe(&k)),
            )),
        }
    }

    /// A name, a template type or a call.
    fn named(&mut self, name: String, col: usize) -> Result<Expr> {
        let targs = if self.peek_is(&Tok::Lt) {
            self.pos += 1;
            self.targs()?
        } else {
            Vec::new()
        };
        if self.peek_is(&Tok::LParen) {
            self.pos += 1;
            let args = self.args()?;
            return Ok(Expr::Call {
                name,
                targs,
                args,
                col,
            });
        }
        if targs.is_empty() {
            Ok(Expr::Name(name))
        } else {
            Ok(Expr::Type { name, targs })
        }
    }

    /// Template arguments up to and including '>'.
    fn targs(&mut self) -> Result<Vec<TArg>> {
        let mut out = Vec::new();
        loop {
            let t = self.next("a template argument")?;
            self.enter(t.col)?;
            let arg = match t.kind {
                Tok::Dynamic(v) | Tok::Static(v) => TArg::Int(v),
                Tok::Ident(n) => {
                    let inner = if self.peek_is(&Tok::Lt) {
                        self.pos += 1;
                        self.targs()?
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
            self.depth -= 1;
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
}
