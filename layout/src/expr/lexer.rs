//! Tokens of the CuTe expression language.

use crate::error::{Error, Result};

/// A token and the column (1-based) where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub col: usize,
}

/// Token kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// `_8`, `_-1`: a static integer.
    Static(i64),
    /// `8`, `-3`: a dynamic integer.
    Dynamic(i64),
    /// `_` alone.
    Under,
    /// A name, possibly qualified (`composition`, `M`, `GMMA::Major::K`).
    Ident(String),
    LParen,
    RParen,
    Comma,
    Colon,
    Lt,
    Gt,
    Dot,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    /// `@` of a basis stride (`_1@0`).
    At,
    LBracket,
    RBracket,
    /// `|`, `&`, `=` of a printed `MixedBits` (`M_4|(1&3)=5`).
    Pipe,
    Amp,
    Eq,
    /// `32b`: the element width of a printed pointer (`gmem_ptr[32b](A)`).
    Bits(u32),
}

impl Tok {
    /// Whether an operand can end with this token (then a following `-` is a minus sign, not
    /// the sign of a literal: `M-1` but `(4,-3)`).
    fn ends_operand(&self) -> bool {
        matches!(
            self,
            Tok::Static(_)
                | Tok::Dynamic(_)
                | Tok::Under
                | Tok::Ident(_)
                | Tok::RParen
                | Tok::Gt
                | Tok::RBracket
        )
    }
}

/// Splits `src` into tokens.
pub fn lex(src: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let punct = match c {
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            ',' => Some(Tok::Comma),
            '<' => Some(Tok::Lt),
            '>' => Some(Tok::Gt),
            '.' => Some(Tok::Dot),
            ':' if chars.get(i + 1) != Some(&':') => Some(Tok::Colon),
            '+' => Some(Tok::Plus),
            '-' if binary_minus(&out, &chars, i) => Some(Tok::Minus),
            '*' => Some(Tok::Star),
            '/' => Some(Tok::Slash),
            '%' => Some(Tok::Percent),
            '@' => Some(Tok::At),
            '[' => Some(Tok::LBracket),
            ']' => Some(Tok::RBracket),
            '|' => Some(Tok::Pipe),
            '&' => Some(Tok::Amp),
            '=' => Some(Tok::Eq),
            _ => None,
        };
        if let Some(kind) = punct {
            out.push(Token { kind, col });
            i += 1;
            continue;
        }
        let (kind, next) = lex_word(&chars, i)?;
        out.push(Token { kind, col });
        i = next;
    }
    Ok(out)
}

/// A `-` is a minus sign unless it starts a literal (`-3` after `(`, `,`, `:` or an operator).
fn binary_minus(out: &[Token], chars: &[char], i: usize) -> bool {
    let literal = chars.get(i + 1).is_some_and(char::is_ascii_digit)
        && !out.last().is_some_and(|t| t.kind.ends_operand());
    !literal
}

/// Lexes a number, a static integer, `_` or an identifier starting at `i`.
fn lex_word(chars: &[char], i: usize) -> Result<(Tok, usize)> {
    let c = chars[i];
    let at = |k: usize| chars.get(k).copied().unwrap_or(' ');
    if c.is_ascii_digit() {
        if let Some(bits) = lex_bits(chars, i) {
            return Ok(bits);
        }
    }
    if c.is_ascii_digit() || (c == '-' && at(i + 1).is_ascii_digit()) {
        let (v, next) = lex_number(chars, i)?;
        return Ok((Tok::Dynamic(v), next));
    }
    if c == '_' && (at(i + 1).is_ascii_digit() || (at(i + 1) == '-' && at(i + 2).is_ascii_digit()))
    {
        let (v, next) = lex_number(chars, i + 1)?;
        return Ok((Tok::Static(v), next));
    }
    if c == '_' && !is_ident_char(at(i + 1)) {
        return Ok((Tok::Under, i + 1));
    }
    if c.is_ascii_alphabetic() || c == '_' {
        return Ok(lex_ident(chars, i));
    }
    Err(Error::Parse {
        col: i + 1,
        msg: format!("unexpected character '{c}'"),
    })
}

/// `32b` (digits, then `b`, then no identifier character).
fn lex_bits(chars: &[char], i: usize) -> Option<(Tok, usize)> {
    let mut j = i;
    while chars.get(j).is_some_and(char::is_ascii_digit) {
        j += 1;
    }
    if chars.get(j) != Some(&'b') || chars.get(j + 1).is_some_and(|c| is_ident_char(*c)) {
        return None;
    }
    let digits: String = chars[i..j].iter().collect();
    digits.parse().ok().map(|v| (Tok::Bits(v), j + 1))
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// An identifier, with `::`-qualified segments (`GMMA::Major::K`).
fn lex_ident(chars: &[char], mut i: usize) -> (Tok, usize) {
    let mut name = String::new();
    loop {
        while i < chars.len() && is_ident_char(chars[i]) {
            name.push(chars[i]);
            i += 1;
        }
        let qualified = chars.get(i) == Some(&':')
            && chars.get(i + 1) == Some(&':')
            && chars
                .get(i + 2)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == '_');
        if !qualified {
            return (Tok::Ident(name), i);
        }
        name.push_str("::");
        i += 2;
    }
}

/// A decimal integer (optionally negative) that fits in 64 bits.
fn lex_number(chars: &[char], start: usize) -> Result<(i64, usize)> {
    let mut i = start;
    let neg = chars[i] == '-';
    if neg {
        i += 1;
    }
    let mut v: i64 = 0;
    while i < chars.len() && chars[i].is_ascii_digit() {
        let digit = i64::from(chars[i] as u8 - b'0');
        v = v
            .checked_mul(10)
            .and_then(|v| {
                if neg {
                    v.checked_sub(digit)
                } else {
                    v.checked_add(digit)
                }
            })
            .ok_or(Error::Parse {
                col: start + 1,
                msg: "integer literal does not fit in 64 bits".into(),
            })?;
        i += 1;
    }
    if i < chars.len() && is_ident_char(chars[i]) {
        return Err(Error::Parse {
            col: i + 1,
            msg: format!("unexpected character '{}' in a number", chars[i]),
        });
    }
    Ok((v, i))
}
