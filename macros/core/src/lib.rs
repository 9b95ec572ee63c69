//! The logic of cute's proc-macros (`shape!`, `stride!`, `layout!`, `tile!`, `cute!`), in a normal
//! library so it can be unit-tested and fuzzed.
//!
//! The macro input is CuTe notation written as Rust tokens. It is rendered to the expression
//! language (remembering which token each column came from), parsed and evaluated with the same
//! evaluator as the `cute` CLI. A dynamic operand is a Rust value: an identifier is a Rust
//! variable, and any other Rust expression is written in braces (`{m * 2}`, `{self.ld}`,
//! `{v.len()}`), parsed with `syn`. A Rust integer is a dynamic value, an `Int` (e.g.
//! `Int::symbol("M")`) is itself. Without Rust values the value is computed while the Rust program
//! compiles and the macro expands to code that builds it; with them the structure is still checked
//! at compile time (each variable and each brace group stands for a fresh symbol) and the macro
//! expands to the runtime evaluation, where every brace group is evaluated once, left to right.
//! Every failure is a `compile_error!` pointing at the tokens.

mod render;

use cute_layout::expr::{parse, Expr, Value};
use cute_layout::{Error, Int, IntTuple};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

pub use render::{render, Brace, Rendered};

/// Which macro is expanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Macro {
    /// `shape!((_128,_32,_3))`: an `IntTuple` of non-negative sizes.
    Shape,
    /// `stride!((_1,_128,_4096))`: an `IntTuple`.
    Stride,
    /// `layout!((_128,_32):(_1,_128))`: a `Layout`.
    Layout,
    /// `tile!(_4:_2, (_2,_4):(_1,_8))`: a by-mode `Tiler`.
    Tile,
    /// `cute!{ EXPR }`: any expression.
    Cute,
}

impl Macro {
    fn name(self) -> &'static str {
        match self {
            Macro::Shape => "shape!",
            Macro::Stride => "stride!",
            Macro::Layout => "layout!",
            Macro::Tile => "tile!",
            Macro::Cute => "cute!",
        }
    }
}

/// Expands one macro invocation; failures become `compile_error!`s with spans.
pub fn expand(kind: Macro, input: TokenStream) -> TokenStream {
    match try_expand(kind, input) {
        Ok(ts) => ts,
        Err((span, msg)) => quote_spanned!(span=> ::core::compile_error!(#msg)),
    }
}

type Failure = (Span, String);

fn try_expand(kind: Macro, input: TokenStream) -> Result<TokenStream, Failure> {
    let call_site = input
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    let rendered =
        render(&input).map_err(|(span, msg)| (span, format!("{}: {msg}", kind.name())))?;
    expand_rendered(kind, &rendered, call_site)
        .map_err(|(span, msg)| (span, rendered.relabel(&msg)))
}

/// The expansion of rendered input; messages may name placeholders (the caller relabels them).
fn expand_rendered(
    kind: Macro,
    rendered: &Rendered,
    call_site: Span,
) -> Result<TokenStream, Failure> {
    let src = match kind {
        Macro::Tile => format!("make_tile({})", rendered.text),
        _ => rendered.text.clone(),
    };
    if rendered.text.trim().is_empty() {
        return Err((
            call_site,
            format!("{}: expected CuTe notation, found nothing", kind.name()),
        ));
    }
    let expr = parse(&src).map_err(|e| match e {
        Error::Parse { col, msg } => {
            let col = if kind == Macro::Tile {
                col.saturating_sub(10)
            } else {
                col
            };
            (
                rendered.span_at(col),
                format!("{}: {}", kind.name(), hint(&msg)),
            )
        }
        other => (call_site, other.to_string()),
    })?;
    let mut vars = variables(&expr);
    let fail = |msg: String| (call_site, format!("{}: {msg}", kind.name()));
    if let Some(b) = rendered.braces.iter().find(|b| !vars.contains(&b.name)) {
        return Err((
            b.span,
            format!(
                "{}: `{}` is not an operand here: a Rust expression in braces stands for an \
                 integer, not a function, method or type name",
                kind.name(),
                b.label
            ),
        ));
    }
    vars.retain(|v| rendered.brace(v).is_none());
    if let Some(v) = vars.iter().find(|v| !is_rust_ident(v)) {
        return Err(fail(format!(
            "'{v}' is neither a CuTe name nor a Rust variable"
        )));
    }
    if kind != Macro::Cute && !is_literal(&expr) {
        let arithmetic = has_arithmetic(&expr);
        return Err(fail(if arithmetic {
            "only CuTe literals here (tuples, S:D, make_tile): a Rust expression goes in braces, \
             e.g. `{m * 2}`, and a CuTe one in cute!{}"
                .into()
        } else {
            "only CuTe literals here (tuples, S:D, make_tile); use cute!{} for expressions".into()
        }));
    }
    // Evaluate now, the variables and brace groups standing for kernel-parameter symbols:
    // structure and static values do not depend on them, so every error but a need for numbers is
    // the program's.
    let names = vars.iter().chain(rendered.braces.iter().map(|b| &b.name));
    let env: Vec<(String, Int)> = names.map(|v| (v.clone(), Int::symbol(v))).collect();
    let dynamic = !env.is_empty();
    let checked = match cute_layout::expr::eval_in(&expr, &env) {
        Ok(v) => Some(v),
        Err(Error::Symbolic(_)) if dynamic => None,
        Err(e) => return Err(fail(e.to_string())),
    };
    if let Some(v) = &checked {
        check_kind(kind, v).map_err(fail)?;
    }
    if !dynamic {
        let value = checked.ok_or_else(|| fail("needs known values".into()))?;
        return Ok(build(kind, &value, &src));
    }
    Ok(runtime(kind, &expr, &src, &vars, &rendered.braces))
}

/// A parse error, with a pointer to braces where Rust syntax was written as CuTe notation.
fn hint(msg: &str) -> String {
    let rust_operator = ["'*'", "'+'", "'/'", "'%'", "'&'", "'|'", "'^'", "'!'"]
        .iter()
        .any(|op| msg == format!("unexpected character {op}"));
    if rust_operator {
        format!("{msg} (a Rust expression goes in braces, e.g. `{{m * 2}}`)")
    } else if msg.starts_with("expected '(' after the method name") {
        format!("{msg} (a Rust field access goes in braces, e.g. `{{self.ld}}`)")
    } else {
        msg.to_string()
    }
}

/// A plain Rust identifier (what a variable can be named); `Copy_Atom::X` is not one.
fn is_rust_ident(n: &str) -> bool {
    let mut chars = n.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && n != "_"
}

/// The bare names of an expression that are Rust variables (not keywords or atom names).
fn variables(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    collect_vars(e, &mut out);
    out.sort();
    out.dedup();
    out
}

fn collect_vars(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Name(n) => {
            let keyword = matches!(
                n.as_str(),
                "LayoutLeft" | "LayoutRight" | "GenColMajor" | "GenRowMajor" | "X"
            );
            let atom = cute_layout::atom::MmaOp::from_name(n).is_some();
            if !keyword && !atom {
                out.push(n.clone());
            }
        }
        Expr::Tuple(v) => v.iter().for_each(|x| collect_vars(x, out)),
        Expr::Layout(a, b) => {
            collect_vars(a, out);
            collect_vars(b, out);
        }
        Expr::Call { args, .. } => args.iter().for_each(|x| collect_vars(x, out)),
        Expr::Apply { target, args } | Expr::Method { target, args, .. } => {
            collect_vars(target, out);
            args.iter().for_each(|x| collect_vars(x, out));
        }
        Expr::Neg(x) | Expr::Basis(x, _) => collect_vars(x, out),
        Expr::Arith(first, rest) => {
            collect_vars(first, out);
            rest.iter().for_each(|(_, x)| collect_vars(x, out));
        }
        Expr::Compose(parts) => parts.iter().for_each(|x| collect_vars(x, out)),
        Expr::Ptr { offset, .. } => offset.iter().for_each(|x| collect_vars(x, out)),
        Expr::Static(_)
        | Expr::Dynamic(_)
        | Expr::Under
        | Expr::Type { .. }
        | Expr::MixedBits { .. } => {}
    }
}

/// Whether integer arithmetic (`m * 2`) appears in an expression.
fn has_arithmetic(e: &Expr) -> bool {
    match e {
        Expr::Arith(..) | Expr::Neg(_) => true,
        Expr::Tuple(v) | Expr::Call { args: v, .. } => v.iter().any(has_arithmetic),
        Expr::Layout(a, b) => has_arithmetic(a) || has_arithmetic(b),
        _ => false,
    }
}

/// Whether an expression is CuTe literal notation (what `shape!`/`layout!`/`tile!` accept).
fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Static(_) | Expr::Dynamic(_) | Expr::Under | Expr::Name(_) => true,
        Expr::Tuple(v) => v.iter().all(is_literal),
        Expr::Layout(a, b) => is_literal(a) && is_literal(b),
        Expr::Call { name, args, .. } => name == "make_tile" && args.iter().all(is_literal),
        _ => false,
    }
}

/// What each literal macro must produce.
fn check_kind(kind: Macro, v: &Value) -> Result<(), String> {
    let int_tuple = |v: &Value| v.to_int_tuple(kind.name()).map_err(|e| e.to_string());
    match kind {
        Macro::Shape => {
            let t = int_tuple(v)?;
            if let Some(neg) = t
                .leaves()
                .iter()
                .find(|i| i.as_static().is_some_and(|x| x < 0))
            {
                return Err(format!("negative size {neg} in shape {t}"));
            }
            Ok(())
        }
        Macro::Stride => int_tuple(v).map(|_| ()),
        Macro::Layout => match v {
            Value::Layout(cute_layout::AnyLayout::Plain(l)) => match l
                .shape()
                .leaves()
                .iter()
                .find(|i| i.as_static().is_some_and(|x| x < 0))
            {
                Some(neg) => Err(format!("negative size {neg} in layout {l}")),
                None => Ok(()),
            },
            // C++ CuTe makes such a pair; the macros refuse it as `Layout::new` does
            Value::Incongruent(sh, st) => Err(format!(
                "make_layout: shape {sh} and stride {st} are not congruent (rank mismatch)"
            )),
            other => Err(format!(
                "expected a layout S:D, got {} {other}",
                other.kind()
            )),
        },
        Macro::Tile => v
            .to_tiler(kind.name())
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Macro::Cute => match v {
            Value::Incongruent(sh, st) => Err(format!(
                "make_layout: shape {sh} and stride {st} are not congruent (rank mismatch)"
            )),
            _ => Ok(()),
        },
    }
}

/// Code that builds a value computed at compile time.
fn build(kind: Macro, v: &Value, src: &str) -> TokenStream {
    match (kind, v) {
        (_, Value::Int(i)) => int_tokens(i),
        (Macro::Tile, _) => {
            quote!(::cute::layout::expr::eval_as::<::cute::layout::Tiler>(#src, &[])
            .unwrap_or_else(|e| ::core::unreachable!("tile! was evaluated at compile time: {}", e)))
        }
        (_, Value::Tuple(_)) => match v.to_int_tuple("") {
            Ok(t) => tuple_tokens(&t),
            Err(_) => evaluated(src, quote!(::cute::layout::expr::Value)),
        },
        (_, Value::Layout(cute_layout::AnyLayout::Plain(l))) => {
            let (sh, st) = (tuple_tokens(l.shape()), tuple_tokens(l.stride()));
            quote!(::cute::layout::Layout::new(#sh, #st)
                .unwrap_or_else(|e| ::core::unreachable!("congruent at compile time: {}", e)))
        }
        (_, other) => evaluated(src, value_type(other)),
    }
}

/// The Rust type of a value kind.
fn value_type(v: &Value) -> TokenStream {
    match v {
        Value::Layout(cute_layout::AnyLayout::Composed(_)) => quote!(::cute::layout::AnyLayout),
        Value::Swizzle(_) => quote!(::cute::layout::Swizzle),
        Value::Tensor(_) => quote!(::cute::layout::Tensor),
        Value::CopyAtom(_) => quote!(::cute::layout::atom::CopyAtom),
        Value::TiledCopy(_) => quote!(::cute::layout::atom::TiledCopy),
        Value::ThrCopy(_) => quote!(::cute::layout::atom::ThrCopy),
        Value::MmaAtom(_) => quote!(::cute::layout::atom::MmaAtom),
        Value::TiledMma(_) => quote!(::cute::layout::atom::TiledMma),
        Value::ThrMma(_) => quote!(::cute::layout::atom::ThrMma),
        _ => quote!(::cute::layout::expr::Value),
    }
}

/// A value of a kind with no literal form: re-evaluated from the (already checked) source.
fn evaluated(src: &str, ty: TokenStream) -> TokenStream {
    quote!(::cute::layout::expr::eval_as::<#ty>(#src, &[])
        .unwrap_or_else(|e| ::core::unreachable!("evaluated at compile time: {}", e)))
}

fn int_tokens(i: &Int) -> TokenStream {
    match (i.as_static(), i.value()) {
        (Some(v), _) => quote!(::cute::layout::s(#v)),
        (None, Some(v)) => quote!(::cute::layout::d(#v)),
        (None, None) => {
            let text = i.to_string();
            quote!(::cute::layout::Int::symbol(#text))
        }
    }
}

fn tuple_tokens(t: &IntTuple) -> TokenStream {
    match t {
        IntTuple::Int(i) => {
            let i = int_tokens(i);
            quote!(::cute::layout::IntTuple::Int(#i))
        }
        IntTuple::Tuple(v) => {
            let items = v.iter().map(tuple_tokens);
            quote!(::cute::layout::IntTuple::Tuple(::std::vec![#(#items),*]))
        }
    }
}

/// The runtime value of a brace group, an `Int`, evaluated where this code is placed; type errors
/// point at the braces.
fn brace_value(b: &Brace) -> TokenStream {
    let expr = &b.expr;
    // The borrow keeps `{self.ld}` from moving the field; clippy would flag it in user code.
    let value = quote_spanned!(b.span=> ::cute::layout::IntoInt::into_int(&(#expr)));
    quote!({
        #[allow(clippy::needless_borrows_for_generic_args)]
        let v = #value;
        v
    })
}

/// Code for an expression with Rust values (variables and brace groups): literals are built
/// directly (they cannot fail), anything else is evaluated at run time and returns `Result<T>`.
/// Each brace group is evaluated once, left to right.
fn runtime(kind: Macro, e: &Expr, src: &str, vars: &[String], braces: &[Brace]) -> TokenStream {
    if kind != Macro::Cute && kind != Macro::Tile {
        if let Some(ts) = literal_tokens(kind, e, braces) {
            return ts;
        }
    }
    let variables = vars.iter().map(|v| {
        let ident = proc_macro2::Ident::new(v, Span::call_site());
        quote!((::std::string::String::from(#v), ::cute::layout::IntoInt::into_int(&#ident)))
    });
    let groups = braces.iter().map(|b| {
        let (name, value) = (&b.name, brace_value(b));
        quote!((::std::string::String::from(#name), #value))
    });
    let env = quote!(&[#(#variables,)* #(#groups),*]);
    match kind {
        Macro::Tile => quote!(::cute::layout::expr::eval_as::<::cute::layout::Tiler>(#src, #env)
            .unwrap_or_else(|e| ::core::unreachable!("tile! literals cannot fail: {}", e))),
        _ => quote!(::cute::layout::expr::eval_as(#src, #env)),
    }
}

/// Direct construction of a literal shape, stride or layout whose leaves may be Rust values (in
/// source order: the shape's leaves, then the stride's).
fn literal_tokens(kind: Macro, e: &Expr, braces: &[Brace]) -> Option<TokenStream> {
    match (kind, e) {
        (Macro::Layout, Expr::Layout(a, b)) => {
            let (sh, st) = (tuple_expr_tokens(a, braces)?, tuple_expr_tokens(b, braces)?);
            Some(quote!(::cute::layout::Layout::new(#sh, #st)
                .unwrap_or_else(|e| ::core::unreachable!("congruent at compile time: {}", e))))
        }
        (Macro::Shape | Macro::Stride, _) => tuple_expr_tokens(e, braces),
        _ => None,
    }
}

fn tuple_expr_tokens(e: &Expr, braces: &[Brace]) -> Option<TokenStream> {
    Some(match e {
        Expr::Static(v) => quote!(::cute::layout::IntTuple::Int(::cute::layout::s(#v))),
        Expr::Dynamic(v) => quote!(::cute::layout::IntTuple::Int(::cute::layout::d(#v))),
        Expr::Name(n) => {
            if let Some(b) = braces.iter().find(|b| &b.name == n) {
                let value = brace_value(b);
                return Some(quote!(::cute::layout::IntTuple::Int(#value)));
            }
            if !is_rust_ident(n) {
                return None;
            }
            let ident = proc_macro2::Ident::new(n, Span::call_site());
            quote!(::cute::layout::IntTuple::Int(::cute::layout::IntoInt::into_int(&#ident)))
        }
        Expr::Tuple(v) => {
            let items = v
                .iter()
                .map(|x| tuple_expr_tokens(x, braces))
                .collect::<Option<Vec<_>>>()?;
            quote!(::cute::layout::IntTuple::Tuple(::std::vec![#(#items),*]))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
