//! Rust tokens -> expression-language text, remembering where each column came from.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// The rendered text and the span of the token at each column range.
pub struct Rendered {
    /// The text, in the expression language.
    pub text: String,
    spans: Vec<(usize, Span)>,
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

    fn push(&mut self, text: &str, span: Span) {
        self.spans.push((self.text.chars().count(), span));
        self.text.push_str(text);
    }
}

/// Renders macro input; brackets and braces are refused (CuTe notation uses parentheses).
pub fn render(input: &TokenStream) -> Result<Rendered, (Span, String)> {
    let mut out = Rendered {
        text: String::new(),
        spans: Vec::new(),
    };
    render_into(input, &mut out, &mut false)?;
    Ok(out)
}

fn render_into(
    input: &TokenStream,
    out: &mut Rendered,
    prev_word: &mut bool,
) -> Result<(), (Span, String)> {
    for tt in input.clone() {
        match tt {
            TokenTree::Group(g) => {
                if g.delimiter() == Delimiter::None {
                    render_into(&g.stream(), out, prev_word)?;
                    continue;
                }
                if g.delimiter() != Delimiter::Parenthesis {
                    return Err((
                        g.span(),
                        "CuTe notation uses parentheses, not brackets or braces".into(),
                    ));
                }
                out.push("(", g.span_open());
                *prev_word = false;
                render_into(&g.stream(), out, prev_word)?;
                out.push(")", g.span_close());
                *prev_word = false;
            }
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
