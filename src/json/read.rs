//! The reader: a cursor over JSON text that checks the syntax as it goes and reads typed
//! values with the path of the value at fault.
//!
//! It reads in document order, one value at a time, without building a tree (a save of a
//! million players is never held twice). Syntax errors use `serde_json`'s words and
//! positions, so that messages did not change when this reader replaced it; errors about a
//! value put its path first (`leagues[1].min_rating: expected a number (got the string
//! "x") at line 4 column 35`).
//!
//! Positions follow `serde_json`'s rule: the column counts the bytes of the line read so
//! far. A scalar at fault is read whole (the position is its last byte); an object or a
//! list where something else belongs is not entered (the position is its bracket, where
//! `serde_json` gives the byte before it); a syntax error points at the byte that cannot
//! be read.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Objects and lists may nest fewer levels than this (`serde_json` refuses the 128th).
const MAX_DEPTH: usize = 128;

/// What an unsigned field accepts, in the messages.
const WHOLE_NUMBER: &str = "a whole number from 0 to 4294967295";

/// Why a text could not be read.
#[derive(Debug)]
pub(crate) struct JsonError {
    /// The message: the path of the value, what is wrong in plain words, and where
    /// (`at line L column C`).
    pub(crate) message: String,
    /// Whether the text names a field the type does not have.
    pub(crate) unknown_field: bool,
}

/// What reading gives.
pub(crate) type Read<T> = Result<T, JsonError>;

/// One value's first token: scalars are read whole, objects and lists are not entered.
enum Token<'a> {
    Null,
    Bool(bool),
    Number(&'a str),
    Str(Cow<'a, str>),
    List,
    Object,
}

/// What [`Reader::members`] calls with each member: the key and the offset after it.
type Member<'f, 'a> = dyn FnMut(&mut Reader<'a>, Cow<'a, str>, usize) -> Read<()> + 'f;

/// A cursor over JSON text with the path of the value being read.
pub(crate) struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// The path of the value being read (`leagues[0].k`), empty at the top.
    path: String,
    /// What the top is called in messages (`the configuration`), or empty.
    root: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader at byte `pos` of `text`, whose value there has the path `path`.
    pub(crate) fn new(text: &'a str, pos: usize, path: &str, root: &'static str) -> Self {
        Self { text, pos, path: path.to_owned(), root }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Skips whitespace and returns the next byte, not consumed.
    fn next_byte(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
        self.peek()
    }

    /// ` at line L column C` for the first `at` bytes read.
    fn position(&self, at: usize) -> String {
        let read = &self.text.as_bytes()[..at.min(self.text.len())];
        let (mut line, mut line_start) = (1, 0);
        for (i, _) in read.iter().enumerate().filter(|(_, &byte)| byte == b'\n') {
            line += 1;
            line_start = i + 1;
        }
        let column = read.len() - line_start;
        format!(" at line {line} column {column}")
    }

    /// A syntax error after the first `at` bytes (no path: the position says where).
    fn syntax(&self, at: usize, what: &str) -> JsonError {
        JsonError { message: format!("{what}{}", self.position(at)), unknown_field: false }
    }

    /// A syntax error at the byte the reader is on.
    fn syntax_here(&self, what: &str) -> JsonError {
        self.syntax((self.pos + 1).min(self.text.len()), what)
    }

    /// An error about the value at the reader's path, after the first `at` bytes.
    fn fail(&self, at: usize, what: &str) -> JsonError {
        let label = if self.path.is_empty() { self.root } else { &self.path };
        let separator = if label.is_empty() { "" } else { ": " };
        JsonError { message: format!("{label}{separator}{what}{}", self.position(at)), unknown_field: false }
    }

    /// Reads a string whose opening quote is next.
    fn string(&mut self) -> Read<Cow<'a, str>> {
        self.pos += 1;
        let mut owned: Option<String> = None;
        let mut from = self.pos;
        loop {
            let Some(byte) = self.peek() else { return Err(self.syntax(self.text.len(), "EOF while parsing a string")) };
            match byte {
                b'"' => {
                    let tail = &self.text[from..self.pos];
                    self.pos += 1;
                    return Ok(match owned {
                        None => Cow::Borrowed(tail),
                        Some(mut text) => {
                            text.push_str(tail);
                            Cow::Owned(text)
                        }
                    });
                }
                b'\\' => {
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[from..self.pos]);
                    self.pos += 1;
                    let unescaped = self.escape()?;
                    text.push(unescaped);
                    from = self.pos;
                }
                0..=0x1f => return Err(self.syntax(self.pos + 1, "control character (\\u0000-\\u001F) found while parsing a string")),
                _ => self.pos += 1,
            }
        }
    }

    /// Reads the character after a backslash.
    fn escape(&mut self) -> Read<char> {
        let Some(byte) = self.peek() else { return Err(self.syntax(self.text.len(), "EOF while parsing a string")) };
        self.pos += 1;
        Ok(match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4()?;
                let code = match first {
                    0xD800..=0xDBFF => {
                        // A leading surrogate: `\u` and a trailing one must follow (the
                        // byte that is not is read before the error, as serde_json does).
                        for expected in [b'\\', b'u'] {
                            match self.peek() {
                                None => return Err(self.syntax(self.pos, "EOF while parsing a string")),
                                Some(byte) if byte != expected => return Err(self.syntax(self.pos + 1, "unexpected end of hex escape")),
                                Some(_) => self.pos += 1,
                            }
                        }
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(self.syntax(self.pos, "lone leading surrogate in hex escape"));
                        }
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.syntax(self.pos, "lone leading surrogate in hex escape")),
                    code => code,
                };
                // Every code outside the surrogates, and every pair, is a character.
                char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
            }
            _ => return Err(self.syntax(self.pos, "invalid escape")),
        })
    }

    /// Reads the four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Read<u32> {
        // All four bytes are read before a bad one is reported (serde_json's positions).
        let Some(digits) = self.text.as_bytes().get(self.pos..self.pos + 4) else {
            self.pos = self.text.len();
            return Err(self.syntax(self.pos, "EOF while parsing a string"));
        };
        self.pos += 4;
        let code = digits.iter().try_fold(0, |code, &byte| Some(code * 16 + char::from(byte).to_digit(16)?));
        code.ok_or_else(|| self.syntax(self.pos, "invalid escape"))
    }

    /// Skips decimal digits; whether there was one.
    fn digits(&mut self) -> bool {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos > start
    }

    /// The error for a number that stops where a digit must follow.
    fn digit_missing(&mut self) -> JsonError {
        if self.peek().is_none() {
            return self.syntax(self.pos, "EOF while parsing a value");
        }
        self.pos += 1;
        self.syntax(self.pos, "invalid number")
    }

    /// Reads a number (JSON's grammar), returning its text.
    fn number(&mut self) -> Read<&'a str> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
            if let Some(b'0'..=b'9') = self.peek() {
                return Err(self.syntax_here("invalid number"));
            }
        } else if !self.digits() {
            return Err(self.digit_missing());
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            // Unlike after a sign or an `e` ([`Reader::digit_missing`]), `serde_json` points
            // at the byte after the point without reading it.
            if !self.digits() {
                return Err(if self.peek().is_none() { self.syntax(self.pos, "EOF while parsing a value") } else { self.syntax_here("invalid number") });
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !self.digits() {
                return Err(self.digit_missing());
            }
        }
        Ok(&self.text[start..self.pos])
    }

    /// Reads `null`, `true` or `false`, whose first letter is next.
    fn word(&mut self, word: &str) -> Read<()> {
        for &expected in word.as_bytes() {
            let Some(byte) = self.peek() else { return Err(self.syntax(self.pos, "EOF while parsing a value")) };
            self.pos += 1;
            if byte != expected {
                return Err(self.syntax(self.pos, "expected ident"));
            }
        }
        Ok(())
    }

    /// Reads the next value's first token (see [`Token`]).
    fn token(&mut self) -> Read<Token<'a>> {
        Ok(match self.next_byte() {
            None => return Err(self.syntax_here("EOF while parsing a value")),
            Some(b'{') => Token::Object,
            Some(b'[') => Token::List,
            Some(b'"') => Token::Str(self.string()?),
            Some(b'n') => self.word("null").map(|()| Token::Null)?,
            Some(b't') => self.word("true").map(|()| Token::Bool(true))?,
            Some(b'f') => self.word("false").map(|()| Token::Bool(false))?,
            Some(b'-' | b'0'..=b'9') => Token::Number(self.number()?),
            Some(_) => return Err(self.syntax_here("expected value")),
        })
    }

    /// Reads the members of the object whose `{` is next, calling `member` with each key
    /// and the offset after it; `member` reads the value.
    fn members(&mut self, member: &mut Member<'_, 'a>) -> Read<()> {
        self.pos += 1;
        let mut first = true;
        loop {
            let mut next = self.next_byte();
            match next {
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                None => return Err(self.syntax_here("EOF while parsing an object")),
                Some(b',') if !first => {
                    self.pos += 1;
                    next = self.next_byte();
                    match next {
                        Some(b'}') => return Err(self.syntax_here("trailing comma")),
                        None => return Err(self.syntax_here("EOF while parsing a value")),
                        _ => {}
                    }
                }
                Some(_) if !first => return Err(self.syntax_here("expected `,` or `}`")),
                Some(_) => {}
            }
            first = false;
            if next != Some(b'"') {
                return Err(self.syntax_here("key must be a string"));
            }
            let key = self.string()?;
            let key_end = self.pos;
            match self.next_byte() {
                Some(b':') => self.pos += 1,
                Some(_) => return Err(self.syntax_here("expected `:`")),
                None => return Err(self.syntax_here("EOF while parsing an object")),
            }
            member(self, key, key_end)?;
        }
    }

    /// Reads the items of the list whose `[` is next, calling `item` with each index;
    /// `item` reads the value.
    fn items(&mut self, item: &mut dyn FnMut(&mut Self, usize) -> Read<()>) -> Read<()> {
        self.pos += 1;
        let mut index = 0;
        loop {
            match self.next_byte() {
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                None => return Err(self.syntax_here("EOF while parsing a list")),
                Some(b',') if index > 0 => {
                    self.pos += 1;
                    match self.next_byte() {
                        Some(b']') => return Err(self.syntax_here("trailing comma")),
                        None => return Err(self.syntax_here("EOF while parsing a value")),
                        _ => {}
                    }
                }
                Some(_) if index > 0 => return Err(self.syntax_here("expected `,` or `]`")),
                Some(_) => {}
            }
            item(self, index)?;
            index += 1;
        }
    }

    /// Reads any value, checking its syntax.
    fn skip(&mut self, depth: usize) -> Read<()> {
        let token = self.token()?;
        if matches!(token, Token::Object | Token::List) && depth + 1 >= MAX_DEPTH {
            return Err(self.syntax_here("recursion limit exceeded"));
        }
        match token {
            Token::Object => self.members(&mut |reader, _, _| reader.skip(depth + 1)),
            Token::List => self.items(&mut |reader, _| reader.skip(depth + 1)),
            _ => Ok(()),
        }
    }

    /// Reads the value at the reader without looking at it, returning the byte range of
    /// its text (a save's checksummed payload).
    pub(crate) fn skip_value(&mut self) -> Read<(usize, usize)> {
        self.next_byte();
        let start = self.pos;
        self.skip(0)?;
        Ok((start, self.pos))
    }

    /// Checks the syntax of the whole text: one value and nothing after it.
    fn check_syntax(&mut self) -> Read<()> {
        self.skip(0)?;
        match self.next_byte() {
            Some(_) => Err(self.syntax_here("trailing characters")),
            None => Ok(()),
        }
    }

    /// The value here is not `expected`: reads a scalar whole and says what it is. The
    /// position is a scalar's last byte, or the bracket of an object or a list (which is
    /// not entered).
    fn mismatch(&mut self, expected: &str) -> JsonError {
        let (got, at) = match self.token() {
            Err(error) => return error,
            Ok(Token::Object) => (Cow::Borrowed("an object"), self.pos + 1),
            Ok(Token::List) => (Cow::Borrowed("a list"), self.pos + 1),
            Ok(Token::Null) => (Cow::Borrowed("null"), self.pos),
            Ok(Token::Bool(flag)) => (Cow::Borrowed(if flag { "true" } else { "false" }), self.pos),
            Ok(Token::Number(number)) => (Cow::Owned(format!("the number {number}")), self.pos),
            Ok(Token::Str(text)) => (Cow::Owned(format!("the string {text:?}")), self.pos),
        };
        self.fail(at, &format!("expected {expected} (got {got})"))
    }

    /// Appends a field to the path.
    fn push_field(&mut self, name: &str) {
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(name);
    }

    /// Reads an object whose members are `fields` (and the tag `tag`, already read by
    /// [`Reader::variant`], unless empty), calling `field` with the index of each; the
    /// fields whose bits are set in `required` must be there. Unknown and repeated fields
    /// are refused.
    pub(crate) fn object(&mut self, fields: &[&str], required: u64, tag: &str, field: &mut dyn FnMut(&mut Self, usize) -> Read<()>) -> Read<()> {
        if self.next_byte() != Some(b'{') {
            return Err(self.mismatch("an object ({...})"));
        }
        debug_assert!(fields.len() < 64, "the bits of `seen` name every field and the tag");
        let mut seen = 0_u64;
        let outer = self.path.len();
        self.members(&mut |reader, key, key_end| {
            let index = if !tag.is_empty() && key == tag { Some(fields.len()) } else { fields.iter().position(|name| *name == key) };
            let Some(index) = index else {
                reader.push_field(&key);
                let expected = if fields.is_empty() { ", there are no fields".to_owned() } else { format!(", expected {}", one_of(fields)) };
                let mut error = reader.fail(key_end, &format!("unknown field {key:?}{expected}"));
                error.unknown_field = true;
                return Err(error);
            };
            if seen & (1 << index) != 0 {
                return Err(reader.fail(key_end, &format!("the field {key:?} is given twice")));
            }
            seen |= 1 << index;
            reader.push_field(&key);
            if index == fields.len() {
                reader.token()?;
            } else {
                field(reader, index)?;
            }
            reader.path.truncate(outer);
            Ok(())
        })?;
        let missing = required & !seen;
        if missing != 0 {
            let name = fields[missing.trailing_zeros() as usize];
            return Err(self.fail(self.pos, &format!("the field {name:?} is missing (it is required here)")));
        }
        Ok(())
    }

    /// The variant an internally tagged object names with its field `tag`, one of
    /// `names`; the reader stays before the object, for [`Reader::object`].
    pub(crate) fn variant(&mut self, tag: &str, names: &[&str]) -> Read<usize> {
        if self.next_byte() != Some(b'{') {
            return Err(self.mismatch("an object ({...})"));
        }
        let start = self.pos;
        let outer = self.path.len();
        let mut found = None;
        self.members(&mut |reader, key, _| {
            if key != tag || found.is_some() {
                return reader.skip(0);
            }
            reader.push_field(tag);
            found = Some(reader.name(names)?);
            reader.path.truncate(outer);
            Ok(())
        })?;
        let Some(variant) = found else { return Err(self.fail(self.pos, &format!("the field {tag:?} is missing (it is required here)"))) };
        self.pos = start;
        Ok(variant)
    }

    /// Reads a list, calling `item` for each element (the path says which).
    pub(crate) fn list(&mut self, item: &mut dyn FnMut(&mut Self) -> Read<()>) -> Read<()> {
        if self.next_byte() != Some(b'[') {
            return Err(self.mismatch("a list ([...])"));
        }
        let outer = self.path.len();
        self.items(&mut |reader, index| {
            reader.path.truncate(outer);
            let _ = write!(reader.path, "[{index}]");
            item(reader)
        })?;
        self.path.truncate(outer);
        Ok(())
    }

    /// Reads one of `names` (an enum's value), returning its index.
    pub(crate) fn name(&mut self, names: &[&str]) -> Read<usize> {
        if self.next_byte() != Some(b'"') {
            return Err(self.mismatch(&one_of(names)));
        }
        let name = self.string()?;
        names.iter().position(|known| *known == name).ok_or_else(|| self.fail(self.pos, &format!("unknown value {name:?}: expected {}", one_of(names))))
    }

    /// Reads a string.
    pub(crate) fn string_value(&mut self) -> Read<String> {
        if self.next_byte() != Some(b'"') {
            return Err(self.mismatch("a string"));
        }
        self.string().map(Cow::into_owned)
    }

    /// Reads `true` or `false`.
    pub(crate) fn bool(&mut self) -> Read<bool> {
        match self.next_byte() {
            Some(b't' | b'f') => match self.token()? {
                Token::Bool(flag) => Ok(flag),
                // Not reached: `t` and `f` start only `true` and `false`, or a syntax error.
                _ => Err(self.syntax(self.pos, "expected ident")),
            },
            _ => Err(self.mismatch("true or false")),
        }
    }

    /// Reads a number's text, or fails with `expected`.
    fn number_text(&mut self, expected: &str) -> Read<&'a str> {
        match self.next_byte() {
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.mismatch(expected)),
        }
    }

    /// Reads a number as the nearest `f64`; one too large for it is refused.
    pub(crate) fn f64(&mut self) -> Read<f64> {
        let number = self.number_text("a number")?.parse::<f64>().unwrap_or(f64::INFINITY);
        if number.is_infinite() {
            return Err(self.fail(self.pos, "number out of range"));
        }
        Ok(number)
    }

    /// Reads a number as the nearest `f32` (rounded once, from the decimal text); one too
    /// large for it is refused.
    pub(crate) fn f32(&mut self) -> Read<f32> {
        let number = self.number_text("a number")?.parse::<f32>().unwrap_or(f32::INFINITY);
        if number.is_infinite() {
            return Err(self.fail(self.pos, "number out of range"));
        }
        Ok(number)
    }

    /// Reads a whole number from 0 to `u32::MAX`.
    pub(crate) fn u32(&mut self) -> Read<u32> {
        let text = self.number_text(WHOLE_NUMBER)?;
        text.parse::<u32>().map_err(|_| self.fail(self.pos, &format!("expected {WHOLE_NUMBER} (got the number {text})")))
    }

    /// Reads `null` as `None`, anything else with `read`.
    pub(crate) fn optional<T>(&mut self, read: fn(&mut Self) -> Read<T>) -> Read<Option<T>> {
        if self.next_byte() == Some(b'n') {
            self.word("null")?;
            return Ok(None);
        }
        read(self).map(Some)
    }
}

/// `"a"`, `"a" or "b"`, `one of "a", "b", "c"`: the names a value may take.
fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("{name:?}")).collect();
    match quoted.as_slice() {
        [one] => one.clone(),
        [first, second] => format!("{first} or {second}"),
        _ => format!("one of {}", quoted.join(", ")),
    }
}

/// Reads a whole text with `read`: its syntax first, so that a truncated or malformed
/// text is reported as such wherever the fault is, then the value.
pub(crate) fn read_text<T>(text: &str, root: &'static str, read: fn(&mut Reader<'_>) -> Read<T>) -> Read<T> {
    Reader::new(text, 0, "", root).check_syntax()?;
    read(&mut Reader::new(text, 0, "", root))
}
