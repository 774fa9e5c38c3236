//! The regular expressions of argument schemas (`pattern`, `patternProperties`): ECMA-262 patterns as
//! JSON Schema and Ajv read them (the `u` flag: code points, no multiline, matched unanchored), run on
//! a Pike VM — every position of the text is visited once with at most one thread per instruction, so
//! a match takes time linear in the text for a given pattern and never backtracks.
//!
//! What is read: literals, `.` (any code point but `\n`, `\r`, U+2028, U+2029), `^`, `$`, `\b`, `\B`,
//! groups `(…)` and `(?:…)`, `|`, the quantifiers `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (greedy or lazy:
//! the same for a yes-or-no match), classes `[…]` and `[^…]` with ranges, and the escapes `\d \D \w \W
//! \s \S` (ASCII digits and word characters, ECMA's white space), `\t \n \r \f \v \0`, `\xHH`,
//! `\uHHHH`, `\u{…}` and an escaped syntax character. Everything else is refused with the reason,
//! rather than read differently: lookaround, named groups, back references, `\p{…}`, `\c`, `\k`,
//! unknown escapes, a quantifier on nothing, a lone `{`, `}` or `]`.

use crate::text::{concat, quote};

/// A class: ranges of code points, or their complement.
#[derive(Clone, Debug)]
struct Class {
    ranges: Vec<(char, char)>,
    negated: bool,
}

impl Class {
    fn has(&self, c: char) -> bool {
        self.ranges.iter().any(|(a, b)| *a <= c && c <= *b) != self.negated
    }
}

#[derive(Clone, Debug)]
enum Inst {
    Char(char),
    Class(u32),
    Split(u32, u32),
    Jmp(u32),
    Start,
    End,
    Word(bool),
    Match,
}

#[derive(Clone, Debug)]
enum Node {
    Char(char),
    Class(Class),
    Start,
    End,
    Word(bool),
    Cat(Vec<Node>),
    Alt(Vec<Node>),
    Rep(Box<Node>, u32, Option<u32>),
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Regex {
    program: Vec<Inst>,
    classes: Vec<Class>,
}

/// The most instructions a pattern compiles to (counted repetitions are copied out).
const MAX_PROGRAM: usize = 10_000;

const DIGIT: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
const SPACE: &[(char, char)] = &[
    ('\t', '\r'),
    (' ', ' '),
    ('\u{a0}', '\u{a0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200a}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202f}', '\u{202f}'),
    ('\u{205f}', '\u{205f}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{feff}', '\u{feff}'),
];
const LINE: &[(char, char)] = &[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')];

struct Parser<'p> {
    chars: std::iter::Peekable<std::str::Chars<'p>>,
    depth: usize,
}

type Refusal = &'static str;

impl Parser<'_> {
    fn eat(&mut self, c: char) -> bool {
        self.chars.next_if_eq(&c).is_some()
    }

    fn alternation(&mut self) -> Result<Node, Refusal> {
        self.depth += 1;
        if self.depth > 64 {
            return Err("groups nested deeper than 64");
        }
        let mut options = vec![self.sequence()?];
        while self.eat('|') {
            options.push(self.sequence()?);
        }
        self.depth -= 1;
        Ok(if options.len() == 1 { options.pop().unwrap_or(Node::Cat(Vec::new())) } else { Node::Alt(options) })
    }

    fn sequence(&mut self) -> Result<Node, Refusal> {
        let mut items = Vec::new();
        while let Some(&c) = self.chars.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.chars.next();
            let atom = match c {
                '(' => {
                    if self.eat('?') && !self.eat(':') {
                        return Err("a group other than (…) and (?:…) (lookaround, a named group or flags)");
                    }
                    let inner = self.alternation()?;
                    if !self.eat(')') {
                        return Err("an unclosed group");
                    }
                    // A group may be quantified, even one holding only an assertion (`(?:$)*`).
                    Node::Cat(vec![inner])
                }
                '[' => Node::Class(self.class()?),
                '.' => Node::Class(Class { ranges: LINE.to_vec(), negated: true }),
                '^' => Node::Start,
                '$' => Node::End,
                '\\' => self.escape(false)?,
                '*' | '+' | '?' | '{' | '}' | ']' => return Err("a quantifier or bracket with nothing to apply to"),
                c => Node::Char(c),
            };
            let atom = self.quantified(atom)?;
            items.push(atom);
        }
        Ok(if items.len() == 1 { items.pop().unwrap_or(Node::Cat(Vec::new())) } else { Node::Cat(items) })
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, Refusal> {
        let (min, max) = match self.chars.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.chars.next();
                let min = self.number().ok_or("a { that is not a quantifier")?;
                let max = if self.eat(',') {
                    if self.chars.peek() == Some(&'}') {
                        None
                    } else {
                        Some(self.number().ok_or("a { that is not a quantifier")?)
                    }
                } else {
                    Some(min)
                };
                if !self.eat('}') || max.is_some_and(|m| m < min) {
                    return Err("a { that is not a quantifier");
                }
                self.finish_quantifier();
                return Self::repeat(atom, min, max);
            }
            _ => return Ok(atom),
        };
        self.chars.next();
        self.finish_quantifier();
        Self::repeat(atom, min, max)
    }

    /// A lazy quantifier's `?` (the same for a yes-or-no match).
    fn finish_quantifier(&mut self) {
        self.eat('?');
    }

    fn repeat(atom: Node, min: u32, max: Option<u32>) -> Result<Node, Refusal> {
        if matches!(atom, Node::Start | Node::End | Node::Word(_)) {
            return Err("a quantifier on an assertion");
        }
        if min > 1000 || max.is_some_and(|m| m > 1000) {
            return Err("a repetition count above 1000");
        }
        Ok(Node::Rep(Box::new(atom), min, max))
    }

    fn number(&mut self) -> Option<u32> {
        let mut n: Option<u32> = None;
        while let Some(d) = self.chars.peek().and_then(|c| c.to_digit(10)) {
            self.chars.next();
            n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d));
        }
        n
    }

    fn hex(&mut self, digits: usize) -> Result<char, Refusal> {
        let mut n = 0u32;
        let braced = digits == 0 && self.eat('{');
        let mut count = 0;
        while braced || count < digits {
            let Some(&c) = self.chars.peek() else { break };
            if braced && c == '}' {
                self.chars.next();
                return char::from_u32(n).filter(|_| count > 0).ok_or("an invalid \\u{…} escape");
            }
            let d = c.to_digit(16).ok_or("an invalid hexadecimal escape")?;
            self.chars.next();
            n = n.saturating_mul(16).saturating_add(d).min(0x11_0000);
            count += 1;
        }
        if braced || count < digits {
            return Err("an invalid hexadecimal escape");
        }
        char::from_u32(n).ok_or("an escape of a surrogate")
    }

    /// After a `\`: a character, a class, or (outside a class) an assertion.
    fn escape(&mut self, in_class: bool) -> Result<Node, Refusal> {
        let c = self.chars.next().ok_or("a trailing backslash")?;
        let class = |ranges: &[(char, char)], negated: bool| Node::Class(Class { ranges: ranges.to_vec(), negated });
        Ok(match c {
            'd' => class(DIGIT, false),
            'D' => class(DIGIT, true),
            'w' => class(WORD, false),
            'W' => class(WORD, true),
            's' => class(SPACE, false),
            'S' => class(SPACE, true),
            'b' if in_class => Node::Char('\u{8}'),
            'b' => Node::Word(true),
            'B' if !in_class => Node::Word(false),
            't' => Node::Char('\t'),
            'n' => Node::Char('\n'),
            'r' => Node::Char('\r'),
            'f' => Node::Char('\u{c}'),
            'v' => Node::Char('\u{b}'),
            '0' if !self.chars.peek().is_some_and(char::is_ascii_digit) => Node::Char('\0'),
            'x' => Node::Char(self.hex(2)?),
            'u' => Node::Char(if self.chars.peek() == Some(&'{') { self.hex(0)? } else { self.hex(4)? }),
            '-' if in_class => Node::Char('-'),
            c if "^$\\.*+?()[]{}|/".contains(c) => Node::Char(c),
            _ => return Err("an escape this engine does not read (a back reference, \\p, \\c, \\k or an unknown letter)"),
        })
    }

    /// After `[`: the class up to its `]`.
    fn class(&mut self) -> Result<Class, Refusal> {
        let negated = self.eat('^');
        let mut ranges = Vec::new();
        loop {
            let c = self.chars.next().ok_or("an unclosed class")?;
            if c == ']' {
                return Ok(Class { ranges, negated });
            }
            if c == '[' {
                return Err("a [ inside a class");
            }
            let low = self.class_atom(c)?;
            if self.chars.peek() == Some(&'-') {
                self.chars.next();
                match self.chars.next() {
                    Some(']') => {
                        push_item(&mut ranges, low)?;
                        ranges.push(('-', '-'));
                        return Ok(Class { ranges, negated });
                    }
                    Some(next) => {
                        let high = self.class_atom(next)?;
                        match (low, high) {
                            (Node::Char(a), Node::Char(b)) if a <= b => ranges.push((a, b)),
                            _ => return Err("a class range out of order or between classes"),
                        }
                    }
                    None => return Err("an unclosed class"),
                }
            } else {
                push_item(&mut ranges, low)?;
            }
        }
    }

    fn class_atom(&mut self, c: char) -> Result<Node, Refusal> {
        if c == '\\' {
            self.escape(true)
        } else {
            Ok(Node::Char(c))
        }
    }
}

/// Adds one class item: a character, or a class escape (its complement only as the whole class).
fn push_item(ranges: &mut Vec<(char, char)>, item: Node) -> Result<(), Refusal> {
    match item {
        Node::Char(c) => ranges.push((c, c)),
        Node::Class(Class { ranges: r, negated: false }) => ranges.extend(r),
        _ => return Err("\\D, \\W or \\S inside a class"),
    }
    Ok(())
}

fn emit(node: &Node, program: &mut Vec<Inst>, classes: &mut Vec<Class>) -> Result<(), Refusal> {
    if program.len() > MAX_PROGRAM {
        return Err("more than 10000 steps once compiled");
    }
    let at = |program: &Vec<Inst>| program.len() as u32;
    match node {
        Node::Char(c) => program.push(Inst::Char(*c)),
        Node::Class(class) => {
            classes.push(class.clone());
            program.push(Inst::Class(classes.len() as u32 - 1));
        }
        Node::Start => program.push(Inst::Start),
        Node::End => program.push(Inst::End),
        Node::Word(b) => program.push(Inst::Word(*b)),
        Node::Cat(items) => {
            for item in items {
                emit(item, program, classes)?;
            }
        }
        Node::Alt(options) => {
            let mut jumps = Vec::new();
            for (i, option) in options.iter().enumerate() {
                if i + 1 < options.len() {
                    let split = program.len();
                    program.push(Inst::Split(at(program) + 1, 0));
                    emit(option, program, classes)?;
                    jumps.push(program.len());
                    program.push(Inst::Jmp(0));
                    let next = at(program);
                    program[split] = Inst::Split(split as u32 + 1, next);
                } else {
                    emit(option, program, classes)?;
                }
            }
            let end = at(program);
            for j in jumps {
                program[j] = Inst::Jmp(end);
            }
        }
        Node::Rep(inner, min, max) => {
            for _ in 0..*min {
                emit(inner, program, classes)?;
            }
            match max {
                None => {
                    let split = program.len();
                    program.push(Inst::Split(0, 0));
                    emit(inner, program, classes)?;
                    program.push(Inst::Jmp(split as u32));
                    let end = at(program);
                    program[split] = Inst::Split(split as u32 + 1, end);
                }
                Some(max) => {
                    let mut splits = Vec::new();
                    for _ in *min..*max {
                        splits.push(program.len());
                        program.push(Inst::Split(0, 0));
                        emit(inner, program, classes)?;
                        if program.len() > MAX_PROGRAM {
                            return Err("more than 10000 steps once compiled");
                        }
                    }
                    let end = at(program);
                    for s in splits {
                        program[s] = Inst::Split(s as u32 + 1, end);
                    }
                }
            }
        }
    }
    Ok(())
}

impl Regex {
    /// Compiles an ECMA-262 pattern, or says what in it is refused.
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let mut parser = Parser { chars: pattern.chars().peekable(), depth: 0 };
        let compiled = parser.alternation().and_then(|node| {
            if parser.chars.next().is_some() {
                return Err("a ) without its (");
            }
            let (mut program, mut classes) = (Vec::new(), Vec::new());
            emit(&node, &mut program, &mut classes)?;
            program.push(Inst::Match);
            Ok(Regex { program, classes })
        });
        compiled.map_err(|why| concat(&["the pattern ", &quote(pattern), " is not supported: it uses ", why]))
    }

    /// Whether the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let n = self.program.len();
        let mut seen = vec![usize::MAX; n];
        let (mut current, mut next) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut stack = Vec::new();
        for i in 0..=chars.len() {
            // A thread starts at every position (the pattern is not anchored).
            self.add(&mut current, &mut seen, &mut stack, 0, i, &chars);
            for &pc in &current {
                let c = chars.get(i).copied();
                let step = match (&self.program[pc], c) {
                    (Inst::Match, _) => return true,
                    (Inst::Char(x), Some(c)) => *x == c,
                    (Inst::Class(k), Some(c)) => self.classes[*k as usize].has(c),
                    _ => false,
                };
                if step {
                    self.add(&mut next, &mut seen, &mut stack, pc + 1, i + 1, &chars);
                }
            }
            current.clear();
            std::mem::swap(&mut current, &mut next);
        }
        current.iter().any(|&pc| matches!(self.program[pc], Inst::Match))
    }

    /// Adds the thread at `pc` for position `i`, following jumps, splits and assertions.
    fn add(&self, list: &mut Vec<usize>, seen: &mut [usize], stack: &mut Vec<usize>, pc: usize, i: usize, chars: &[char]) {
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            if seen[pc] == i {
                continue;
            }
            seen[pc] = i;
            match self.program[pc] {
                Inst::Jmp(x) => stack.push(x as usize),
                Inst::Split(a, b) => {
                    stack.push(b as usize);
                    stack.push(a as usize);
                }
                Inst::Start if i == 0 => stack.push(pc + 1),
                Inst::End if i == chars.len() => stack.push(pc + 1),
                Inst::Word(b) => {
                    let word = |c: Option<&char>| c.is_some_and(|c| WORD.iter().any(|(a, z)| a <= c && c <= z));
                    let boundary = word(i.checked_sub(1).and_then(|j| chars.get(j))) != word(chars.get(i));
                    if boundary == b {
                        stack.push(pc + 1);
                    }
                }
                Inst::Start | Inst::End => {}
                _ => list.push(pc),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, text: &str) -> bool {
        Regex::new(pattern).unwrap_or_else(|e| panic!("{e}")).is_match(text)
    }

    #[test]
    fn ecma_semantics() {
        let cases: &[(&str, &str, bool)] = &[
            ("abc", "xxabcxx", true),
            ("^abc$", "abc", true),
            ("^abc$", "abc\n", false),
            ("^a.c$", "a\u{e9}c", true),
            ("^a.c$", "a\nc", false),
            ("^a.c$", "a\u{2028}c", false),
            ("^a|b$", "xb", true),
            ("^(?:ab)+$", "ababab", true),
            ("^(ab)+$", "aba", false),
            ("^a{2,3}$", "aaaa", false),
            ("^a{2,}$", "aaaa", true),
            ("^a{2}$", "aa", true),
            ("^a*?b+?$", "aab", true),
            ("^[a-c\\d_]+$", "ab9_", true),
            ("^[^a-c]$", "d", true),
            ("^[^a-c]$", "b", false),
            ("^[a-]$", "-", true),
            ("^\\d+$", "\u{663}", false),
            ("^\\w$", "\u{e9}", false),
            ("^\\s$", "\u{a0}", true),
            ("^\\s$", "\u{feff}", true),
            ("^\\S$", "\u{3000}", false),
            ("^[\\s]$", "\u{2003}", true),
            ("\\bfoo\\b", "a foo.", true),
            ("\\bfoo\\b", "afoo", false),
            ("\\Bfoo", "afoo", true),
            ("^\\x41\\u0042\\u{43}$", "ABC", true),
            ("^\\/\\.\\*$", "/.*", true),
            ("^[\\b]$", "\u{8}", true),
            ("", "anything", true),
            ("^$", "", true),
            ("^(|a)$", "", true),
            ("^(a*)*b$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", false),
            ("^(Time)?SlicerStyle(Light|Dark|Other)\\d$", "SlicerStyleDark2", true),
            ("a(?:$)*", "ab", true),
            ("^(?:\\b)+a", "a", true),
        ];
        for (p, t, want) in cases {
            assert_eq!(m(p, t), *want, "{p:?} on {t:?}");
        }
        // Linear in the text: a pattern that backtracking engines take exponential time on.
        let long = "a".repeat(20_000);
        assert!(!m("^(a|a)*(a|aa)*$b", &long));
        assert!(m("(x+x+)+y|a$", &long));
    }

    #[test]
    fn what_ecma_reads_differently_or_this_engine_cannot_is_refused() {
        for p in [
            "(?=a)", "(?!a)", "(?<=a)", "(?<n>a)", "(?i)a", "(a)\\1", "\\p{L}", "\\cA", "\\k<n>", "\\q", "[\\S]", "[[a]]", "a**", "*a", "a{", "a}", "]", "(a",
            "a)", "[a", "[z-a]", "^*", "a{1001}", "\\u{110000}", "\\x4", "\\",
        ] {
            assert!(Regex::new(p).is_err(), "{p:?} is refused");
        }
        assert_eq!(
            Regex::new("(?=a)").unwrap_err(),
            "the pattern \"(?=a)\" is not supported: it uses a group other than (…) and (?:…) (lookaround, a named group or flags)"
        );
        assert!(Regex::new("(a{1000}){1000}").unwrap_err().contains("more than 10000 steps"));
    }
}
