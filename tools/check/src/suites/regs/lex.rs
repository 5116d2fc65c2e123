//! A small Rust lexer producing token trees, enough to read macro invocations.
//!
//! Comments (doc comments included, nested block comments too) are dropped,
//! so braces inside docs never unbalance a group. String, char and number
//! literals become single [`Kind::Lit`] tokens. Bracket pairs become
//! [`Kind::Group`]s holding their contents, as `macro_rules!` sees them.

use anyhow::{bail, Result};

/// One token tree with the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: Kind,
    /// 1-based line number.
    pub line: usize,
}

/// Token kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Identifier or keyword.
    Ident(String),
    /// Literal, as written (strings keep their quotes).
    Lit(String),
    /// Single punctuation character; `=>` is `=` then `>`.
    Punct(char),
    /// `(`, `[` or `{` with its contents.
    Group(char, Vec<Token>),
}

impl Token {
    /// The identifier text, if this is one.
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            Kind::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// Whether this is the punctuation `c`.
    pub fn is_punct(&self, c: char) -> bool {
        self.kind == Kind::Punct(c)
    }

    /// The contents, if this is a group opened by `open`.
    pub fn group(&self, open: char) -> Option<&[Token]> {
        match &self.kind {
            Kind::Group(o, inner) if *o == open => Some(inner),
            _ => None,
        }
    }
}

/// Lexes `src` into token trees.
pub fn lex(src: &str) -> Result<Vec<Token>> {
    let mut lexer = Lexer {
        chars: src.chars().collect(),
        pos: 0,
        line: 1,
    };
    // Open groups: (delimiter, line, tokens so far); the bottom one is the file.
    let mut stack: Vec<(char, usize, Vec<Token>)> = vec![(' ', 1, Vec::new())];
    while let Some(item) = lexer.next_item()? {
        match item {
            Item::Open(c, line) => stack.push((c, line, Vec::new())),
            Item::Close(c, line) => close_group(&mut stack, c, line)?,
            Item::Token(t) => push(&mut stack, t),
        }
    }
    match stack.pop() {
        Some((' ', _, tokens)) if stack.is_empty() => Ok(tokens),
        Some((open, line, _)) => bail!("line {line}: `{open}` is never closed"),
        None => bail!("unbalanced brackets"),
    }
}

fn push(stack: &mut [(char, usize, Vec<Token>)], t: Token) {
    if let Some((_, _, tokens)) = stack.last_mut() {
        tokens.push(t);
    }
}

fn close_group(stack: &mut Vec<(char, usize, Vec<Token>)>, close: char, line: usize) -> Result<()> {
    let want = match close {
        ')' => '(',
        ']' => '[',
        _ => '{',
    };
    match stack.pop() {
        Some((open, start, inner)) if open == want && !stack.is_empty() => {
            push(
                stack,
                Token {
                    kind: Kind::Group(open, inner),
                    line: start,
                },
            );
            Ok(())
        }
        _ => bail!("line {line}: unexpected `{close}`"),
    }
}

/// What the lexer yields before groups are built.
enum Item {
    Open(char, usize),
    Close(char, usize),
    Token(Token),
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: usize,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn next_item(&mut self) -> Result<Option<Item>> {
        self.skip_trivia()?;
        let line = self.line;
        let Some(c) = self.peek(0) else {
            return Ok(None);
        };
        let kind = match c {
            '(' | '[' | '{' => {
                self.bump();
                return Ok(Some(Item::Open(c, line)));
            }
            ')' | ']' | '}' => {
                self.bump();
                return Ok(Some(Item::Close(c, line)));
            }
            '"' => self.string()?,
            '\'' => self.quote()?,
            c if c.is_ascii_digit() => self.number(),
            c if c == '_' || c.is_alphabetic() => self.ident_or_prefixed()?,
            c => {
                self.bump();
                Kind::Punct(c)
            }
        };
        Ok(Some(Item::Token(Token { kind, line })))
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) -> Result<()> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => self.block_comment()?,
                _ => return Ok(()),
            }
        }
    }

    fn block_comment(&mut self) -> Result<()> {
        let start = self.line;
        let mut depth = 0usize;
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some('/'), Some('*')) => {
                    self.pos += 2;
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.pos += 2;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                (Some(_), _) => {
                    self.bump();
                }
                (None, _) => bail!("line {start}: unterminated block comment"),
            }
        }
    }

    /// A `"..."` string with escapes.
    fn string(&mut self) -> Result<Kind> {
        let start = self.line;
        self.bump();
        loop {
            match self.bump() {
                Some('\\') => {
                    self.bump();
                }
                Some('"') => return Ok(Kind::Lit("\"..\"".into())),
                Some(_) => {}
                None => bail!("line {start}: unterminated string"),
            }
        }
    }

    /// `r"..."`, `r#"..."#`: no escapes, closed by `"` plus as many `#`.
    fn raw_string(&mut self) -> Result<Kind> {
        let start = self.line;
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            self.bump();
            hashes += 1;
        }
        if self.bump() != Some('"') {
            bail!("line {start}: malformed raw string");
        }
        loop {
            match self.bump() {
                Some('"') if (0..hashes).all(|i| self.peek(i) == Some('#')) => {
                    self.pos += hashes;
                    return Ok(Kind::Lit("r\"..\"".into()));
                }
                Some(_) => {}
                None => bail!("line {start}: unterminated raw string"),
            }
        }
    }

    /// A char literal (`'x'`, `'\n'`) or a lifetime (`'a`).
    fn quote(&mut self) -> Result<Kind> {
        let start = self.line;
        self.bump();
        let is_char = self.peek(0) == Some('\\') || self.peek(1) == Some('\'');
        if !is_char {
            return Ok(Kind::Punct('\''));
        }
        loop {
            match self.bump() {
                Some('\\') => {
                    self.bump();
                }
                Some('\'') => return Ok(Kind::Lit("'.'".into())),
                Some('\n') | None => bail!("line {start}: unterminated char literal"),
                Some(_) => {}
            }
        }
    }

    /// A number with its suffix: `0x0010_1010`, `4u32`, `1.5`.
    fn number(&mut self) -> Kind {
        let start = self.pos;
        while let Some(c) = self.peek(0) {
            let fraction = c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit());
            if !(c.is_ascii_alphanumeric() || c == '_' || fraction) {
                break;
            }
            self.bump();
        }
        Kind::Lit(self.chars[start..self.pos].iter().collect())
    }

    /// An identifier, or a literal with a prefix (`r"`, `b"`, `br#"`, `b'`, `c"`).
    fn ident_or_prefixed(&mut self) -> Result<Kind> {
        let start = self.pos;
        while self
            .peek(0)
            .is_some_and(|c| c == '_' || c.is_alphanumeric())
        {
            self.bump();
        }
        let word: String = self.chars[start..self.pos].iter().collect();
        // `r#"` opens a raw string, `r#name` is a raw identifier.
        let raw_open = self.peek(0) == Some('"')
            || (self.peek(0) == Some('#') && matches!(self.peek(1), Some('"' | '#')));
        match (word.as_str(), self.peek(0)) {
            ("r" | "br" | "cr", _) if raw_open => self.raw_string(),
            ("b" | "c", Some('"')) => self.string(),
            ("b", Some('\'')) => self.quote(),
            _ => Ok(Kind::Ident(word)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Kind> {
        lex(src).unwrap().into_iter().map(|t| t.kind).collect()
    }

    fn ident(s: &str) -> Kind {
        Kind::Ident(s.into())
    }

    #[test]
    fn comments_with_braces_vanish() {
        let src =
            "/// doc with { and }\n//! inner }\n/* block /* nested } */ still */ a // tail {\nb";
        assert_eq!(kinds(src), vec![ident("a"), ident("b")]);
    }

    #[test]
    fn groups_nest_and_keep_lines() {
        let t = lex("x(\n[1, 2]\n{ y })").unwrap();
        assert_eq!(t.len(), 2);
        let inner = t[1].group('(').unwrap();
        assert_eq!(inner[0].line, 2);
        assert_eq!(inner[1].line, 3);
        assert_eq!(inner[1].group('{').unwrap()[0].kind, ident("y"));
    }

    #[test]
    fn literals_hide_their_contents() {
        let src = r###"#[doc = "a } brace"] r#"raw " } "# b"x{" '}' '\'' 'a x"###;
        let k = kinds(src);
        assert_eq!(k[0], Kind::Punct('#'));
        assert!(matches!(&k[1], Kind::Group('[', _)));
        assert!(matches!(k[2], Kind::Lit(_)) && matches!(k[3], Kind::Lit(_)));
        assert!(matches!(k[4], Kind::Lit(_)) && matches!(k[5], Kind::Lit(_)));
        assert_eq!(k[6..], [Kind::Punct('\''), ident("a"), ident("x")]);
    }

    #[test]
    fn numbers_keep_their_spelling() {
        assert_eq!(
            kinds("0x0010_1010 31:0 4u32 0..=3"),
            vec![
                Kind::Lit("0x0010_1010".into()),
                Kind::Lit("31".into()),
                Kind::Punct(':'),
                Kind::Lit("0".into()),
                Kind::Lit("4u32".into()),
                Kind::Lit("0".into()),
                Kind::Punct('.'),
                Kind::Punct('.'),
                Kind::Punct('='),
                Kind::Lit("3".into()),
            ]
        );
    }

    #[test]
    fn unbalanced_input_is_an_error() {
        assert!(lex("a { b").is_err());
        assert!(lex("a ) b").is_err());
        assert!(lex("a ( b ]").is_err());
        assert!(lex("\"open").is_err());
        assert!(lex("/* open").is_err());
    }
}
