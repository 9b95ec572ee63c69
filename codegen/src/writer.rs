//! `Writer`: indented CUDA C++ text, the one way generated code is written.

use std::fmt::Write;

/// An indenting writer of C++ lines.
#[derive(Debug, Default)]
pub struct Writer {
    out: String,
    indent: usize,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// Writes one line at the current indentation (an empty `text` writes an empty line).
    pub fn line(&mut self, text: impl AsRef<str>) -> &mut Self {
        let text = text.as_ref();
        if !text.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str("  ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
        self
    }

    /// A `// comment` line.
    pub fn comment(&mut self, text: impl AsRef<str>) -> &mut Self {
        self.line(format!("// {}", text.as_ref()))
    }

    /// `head {` and one more level of indentation.
    pub fn open(&mut self, head: impl AsRef<str>) -> &mut Self {
        let head = head.as_ref();
        if head.is_empty() {
            self.line("{");
        } else {
            self.line(format!("{head} {{"));
        }
        self.indent += 1;
        self
    }

    /// `}` (with an optional suffix such as `;`), one level less.
    pub fn close(&mut self, suffix: &str) -> &mut Self {
        self.indent = self.indent.saturating_sub(1);
        self.line(format!("}}{suffix}"))
    }

    /// `} head {` at the same level (`} else {`).
    pub fn reopen(&mut self, head: &str) -> &mut Self {
        self.indent = self.indent.saturating_sub(1);
        self.line(format!("}} {head} {{"));
        self.indent += 1;
        self
    }

    /// Several lines of fixed text, each at the current indentation.
    pub fn block(&mut self, text: &str) -> &mut Self {
        for l in text.lines() {
            self.line(l);
        }
        self
    }

    /// Sets the indentation level (for text written apart and spliced in).
    pub fn indent_to(&mut self, level: usize) -> &mut Self {
        self.indent = level;
        self
    }

    /// The text.
    pub fn finish(self) -> String {
        self.out
    }

    /// Writes formatted text without a newline (for building one line piece by piece).
    pub fn raw(&mut self, text: &str) -> &mut Self {
        let _ = write!(self.out, "{text}");
        self
    }
}
