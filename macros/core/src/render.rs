//! Rust tokens -> expression-language text, remembering where each column came from.
//!
//! A brace group `{ <Rust expression> }` is parsed with `syn` and rendered as a placeholder
//! name, a fresh symbol that stands for the expression's value (see [`Brace`]).

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// The rendered text and the span of the token at each column range.
pub struct Rendered {
    /// The text, in the expression language.
    pub text: String,
    /// The brace groups, in source (left-to-right) order.
    pub braces: Vec<Brace>,
    spans: Vec<(usize, Span)>,
    /// The start of every placeholder name; no identifier or literal of the input contains it.
    prefix: String,
}

/// A dynamic operand written as a Rust expression in braces, `{m * 2}` or `{self.ld}`.
pub struct Brace {
    /// The placeholder that stands for it in [`Rendered::text`] (`__cute_brace_0`).
    pub name: String,
    /// The Rust expression inside the braces.
    pub expr: syn::Expr,
    /// The span of the whole group, braces included: errors about it point here.
    pub span: Span,
    /// The group as written (`{m * 2}`), what messages show instead of the placeholder.
    pub label: String,
}

impl Rendered {
    /// The span of the token that covers 1-based column `col` (the last token for the end).
    pub fn span_at(&self, col: usize) -> Span {
        let idx = col.saturating_sub(1);
        self.spans
            .iter()
            .rev()
            .find(|(start, _)| *start <= idx)
            .map_or_else(Span::call_site, |(_, s)| *s)
    }

    /// The brace group a placeholder name stands for.
    pub fn brace(&self, name: &str) -> Option<&Brace> {
        self.braces.iter().find(|b| b.name == name)
    }

    /// `msg` with every placeholder name replaced by its brace group as written, in one pass
    /// (a label that happens to contain placeholder-like text is left as it is).
    pub fn relabel(&self, msg: &str) -> String {
        let mut out = String::with_capacity(msg.len());
        let mut rest = msg;
        while let Some(at) = rest.find(&self.prefix) {
            out.push_str(&rest[..at]);
            let tail = &rest[at + self.prefix.len()..];
            let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let brace = tail[..digits]
                .parse::<usize>()
                .ok()
                .and_then(|i| self.braces.get(i));
            match brace {
                Some(b) => out.push_str(&b.label),
                None => out.push_str(&rest[at..at + self.prefix.len() + digits]),
            }
            rest = &tail[digits..];
        }
        out.push_str(rest);
        out
    }

    fn push(&mut self, text: &str, span: Span) {
        self.spans.push((self.text.chars().count(), span));
        self.text.push_str(text);
    }
}

/// Renders macro input. Parentheses group CuTe notation, braces hold a Rust expression, brackets
/// are refused.
pub fn render(input: &TokenStream) -> Result<Rendered, (Span, String)> {
    let mut words = Vec::new();
    collect_words(input, &mut words);
    // Placeholders must not collide with (or hide inside) a name the input spells out.
    let mut prefix = String::from("__cute_brace_");
    while words.iter().any(|w| w.contains(&prefix)) {
        prefix.push('_');
    }
    let mut out = Rendered {
        text: String::new(),
        braces: Vec::new(),
        spans: Vec::new(),
        prefix,
    };
    render_into(input, &mut out, &mut false)?;
    Ok(out)
}

/// The identifiers and literals outside brace groups (what ends up in the rendered text).
fn collect_words(input: &TokenStream, out: &mut Vec<String>) {
    for tt in input.clone() {
        match tt {
            TokenTree::Group(g) if g.delimiter() != Delimiter::Brace => {
                collect_words(&g.stream(), out);
            }
            TokenTree::Ident(i) => out.push(i.to_string()),
            TokenTree::Literal(l) => out.push(l.to_string()),
            TokenTree::Group(_) | TokenTree::Punct(_) => {}
        }
    }
}

fn render_into(
    input: &TokenStream,
    out: &mut Rendered,
    prev_word: &mut bool,
) -> Result<(), (Span, String)> {
    for tt in input.clone() {
        match tt {
            TokenTree::Group(g) => match g.delimiter() {
                Delimiter::None => render_into(&g.stream(), out, prev_word)?,
                Delimiter::Brace => {
                    let brace = parse_brace(&g, out)?;
                    if *prev_word {
                        out.push(" ", g.span());
                    }
                    out.push(&brace.name, g.span());
                    out.braces.push(brace);
                    *prev_word = true;
                }
                Delimiter::Bracket => {
                    return Err((
                        g.span(),
                        "CuTe notation uses parentheses, not brackets (a Rust expression goes \
                         in braces, e.g. `{v[0]}`)"
                            .into(),
                    ));
                }
                Delimiter::Parenthesis => {
                    out.push("(", g.span_open());
                    *prev_word = false;
                    render_into(&g.stream(), out, prev_word)?;
                    out.push(")", g.span_close());
                    *prev_word = false;
                }
            },
            TokenTree::Ident(i) => {
                if *prev_word {
                    out.push(" ", i.span());
                }
                out.push(&i.to_string(), i.span());
                *prev_word = true;
            }
            TokenTree::Literal(l) => {
                if *prev_word {
                    out.push(" ", l.span());
                }
                out.push(&l.to_string(), l.span());
                *prev_word = true;
            }
            TokenTree::Punct(p) => {
                out.push(&p.as_char().to_string(), p.span());
                *prev_word = false;
            }
        }
    }
    Ok(())
}

/// `{ <Rust expression> }` -> the next placeholder; anything else in braces is an error at them.
fn parse_brace(g: &proc_macro2::Group, out: &Rendered) -> Result<Brace, (Span, String)> {
    // The source as written when the compiler has it (diagnostics only), else the tokens.
    let written = g
        .span()
        .source_text()
        .unwrap_or_else(|| format!("{{{}}}", g.stream()));
    let label = written.split_whitespace().collect::<Vec<_>>().join(" ");
    let expr = syn::parse2::<syn::Expr>(g.stream())
        .map_err(|e| (g.span(), format!("`{label}` is not a Rust expression: {e}")))?;
    Ok(Brace {
        name: format!("{}{}", out.prefix, out.braces.len()),
        expr,
        span: g.span(),
        label,
    })
}
