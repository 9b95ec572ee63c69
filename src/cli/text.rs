//! Text the command line prints that may hold user input: control characters are escaped, so an
//! error message that echoes an argument never drives the terminal.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` is printed escaped: C0 controls but tab (and newline where `newlines` is kept),
/// DEL, C1 controls, and the bidirectional overrides and isolates that reorder what a terminal
/// shows.
fn escaped(c: char, newlines: bool) -> bool {
    match c {
        '\t' => false,
        '\n' => !newlines,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

fn escape(s: &str, newlines: bool) -> Cow<'_, str> {
    if !s.chars().any(|c| escaped(c, newlines)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if escaped(c, newlines) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` on one line: every control character escaped as `\u{1b}`, newlines included.
pub fn one_line(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// A command's failure: `error: ...` on standard error (the report on standard output stays
/// what ran), exit status 1.
pub fn fail(e: impl std::fmt::Display) -> std::process::ExitCode {
    eprintln!("error: {}", lines(&e.to_string()));
    std::process::ExitCode::FAILURE
}

/// `s` with its lines kept (an NVRTC log, clap's usage) and every other control character
/// escaped.
pub fn lines(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// An `error: ...` line of a failing expression: one line, whatever the message holds.
pub fn error_line(e: impl std::fmt::Display) -> String {
    format!("error: {}", one_line(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_text_is_kept() {
        assert_eq!(one_line("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(one_line("x\ty"), "x\ty", "tab is kept");
        assert_eq!(one_line("x\ny\r"), "x\\u{a}y\\u{d}");
        assert_eq!(lines("x\ny\r"), "x\ny\\u{d}");
        assert_eq!(one_line("\u{7f}\u{9b}\u{0}"), "\\u{7f}\\u{9b}\\u{0}");
        assert_eq!(one_line("\u{202e}abc"), "\\u{202e}abc");
        assert_eq!(
            one_line("日本語 é (_4,_8):(_1,_4)"),
            "日本語 é (_4,_8):(_1,_4)"
        );
        assert!(matches!(one_line("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn an_error_line_is_one_line() {
        assert_eq!(
            error_line("bad\ninput\u{1b}"),
            "error: bad\\u{a}input\\u{1b}"
        );
    }
}
