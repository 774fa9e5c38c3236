//! The shell reader: a `bash` command text split into its simple commands (`;`, `&&`, `||`, `|`,
//! newlines), each read into its words (quotes and backslashes removed) and its redirections. It
//! reads a small, plain subset of the shell language and fails closed: anything outside it (command
//! or process substitution, backquotes, here-documents, subshells and groups, functions and compound
//! commands, `&` backgrounds, an assignment before a command, a variable or a glob in the command
//! name, a command that runs another command from its arguments — `eval`, `exec`, `env`, `xargs`,
//! a shell, an interpreter's inline code) makes the whole text *unreadable*, and an unreadable text
//! never matches an `allow` rule (`crate::rules`).
//!
//! Words keep what the reader knows: a word holding an unquoted `$` expansion, a glob character
//! (`*`, `?`, `[`), a brace or a leading `~` is *open* (the shell may turn it into other text, or into
//! several words or none): a rule's literal word never surely matches it.

/// One word of a simple command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The text with quotes and backslashes removed.
    pub text: String,
    /// Whether the shell may expand it (a variable, a glob, a brace, a leading `~`).
    pub open: bool,
}

/// One redirection to or from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The file as written (quotes removed).
    pub path: String,
    /// Whether it is written (`>`, `>>`, `>|`, `&>`, `<>`); `<` reads.
    pub write: bool,
}

/// What the reader made of a command text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Every simple command in order, as its words (at least one word each).
    pub commands: Vec<Vec<Word>>,
    /// Every redirection to or from a file, in order.
    pub redirects: Vec<Redirect>,
    /// The code a shell was given with `-c` (`sh -c 'echo x > f'`), when it is one known word: read
    /// again by the rules so that what it holds can still be denied (never allowed).
    pub inner: Vec<String>,
    /// The first construct the reader does not understand (`command substitution`, …); `None` when
    /// the whole text was read.
    pub unreadable: Option<&'static str>,
}

/// Commands that run another command, or code, taken from their arguments: a text invoking one of
/// them is unreadable whatever its arguments.
pub const RUNS_OTHERS: [&str; 33] = [
    "eval", "exec", "source", ".", "env", "xargs", "sudo", "su", "doas", "nohup", "timeout", "nice", "ionice", "stdbuf", "setsid", "chroot", "unshare",
    "nsenter", "flock", "watch", "strace", "ltrace", "time", "command", "builtin", "trap", "alias", "sh", "bash", "zsh", "dash", "ksh", "busybox",
];

/// More shells, and programs whose argument is always code (`awk`'s program can call `system`).
pub const SHELLS: [&str; 10] = ["mksh", "fish", "csh", "tcsh", "pwsh", "powershell", "awk", "gawk", "mawk", "nawk"];

/// Interpreters: unreadable with an inline-code option ([`INLINE_CODE`]), readable running a file.
pub const INTERPRETERS: [&str; 14] =
    ["python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "tclsh", "Rscript", "osascript"];

/// The options that give an interpreter its code inline (`-` alone: from the standard input).
pub const INLINE_CODE: [&str; 8] = ["-c", "-e", "-E", "-p", "-r", "--eval", "--print", "-"];

/// Reserved words that open compound commands, functions and tests.
const KEYWORDS: [&str; 22] = [
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function", "select", "coproc", "!", "[[", "]]", "{", "}", "in",
    "declare",
];

/// Reads `text` (see the module's documentation).
pub fn read(text: &str) -> Reading {
    if text.contains('\0') {
        // No shell passes a NUL in a word, and no path holds one: nothing to read.
        return Reading { unreadable: Some("a NUL character"), ..Reading::default() };
    }
    let mut reader = Reader { chars: text.chars().collect(), at: 0, reading: Reading::default() };
    if let Err(what) = reader.run() {
        reader.reading.unreadable = Some(what);
    }
    reader.reading
}

struct Reader {
    chars: Vec<char>,
    at: usize,
    reading: Reading,
}

type Step<T> = Result<T, &'static str>;

/// One token: a word (with whether it was quoted at all), an operator, or a redirection.
enum Token {
    Word(Word),
    /// Ends a simple command: `;`, a newline, `&&` (`&`), `||` (`|`), `|` or `|&` (`p`).
    End(char),
    /// A redirection operator: whether it writes, whether its target may be a file descriptor
    /// (`>&`, `<&`).
    Redirect {
        write: bool,
        dup: bool,
    },
    /// `<<<`: a here-string, its word is input text.
    HereString,
}

impl Reader {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn run(&mut self) -> Step<()> {
        let mut words: Vec<Word> = Vec::new();
        // Whether a command is required next (after `&&`, `||`, `|`).
        let mut needs_command = false;
        while let Some(token) = self.token()? {
            match token {
                Token::Word(word) => words.push(word),
                Token::End(op) => {
                    if words.is_empty() {
                        // A blank line, or a line break after `&&`, `||`, `|`.
                        if op == '\n' {
                            continue;
                        }
                        // `; x`, `a ; ; b`, `&& x`, `a | | b`.
                        return Err("a syntax error");
                    }
                    self.command(std::mem::take(&mut words))?;
                    needs_command = matches!(op, '&' | '|' | 'p');
                }
                Token::Redirect { write, dup } => {
                    let target = match self.token()? {
                        Some(Token::Word(w)) => w,
                        _ => return Err("a syntax error"),
                    };
                    if dup && (target.text == "-" || (!target.text.is_empty() && target.text.bytes().all(|b| b.is_ascii_digit()))) && !target.open {
                        continue;
                    }
                    if target.open || target.text.is_empty() {
                        return Err("a redirection to a path the reader cannot read");
                    }
                    if target.text != "/dev/null" {
                        self.reading.redirects.push(Redirect { path: target.text, write });
                    }
                }
                Token::HereString => match self.token()? {
                    Some(Token::Word(_)) => {}
                    _ => return Err("a syntax error"),
                },
            }
        }
        if needs_command && words.is_empty() {
            return Err("a syntax error");
        }
        if !words.is_empty() {
            self.command(words)?;
        }
        Ok(())
    }

    /// Keeps one simple command (its words count for `deny` and `ask` whatever follows), then checks it.
    fn command(&mut self, words: Vec<Word>) -> Step<()> {
        self.reading.commands.push(words);
        let words = self.reading.commands.last().map(Vec::as_slice).unwrap_or_default();
        let name = &words[0];
        let first = name.text.as_str();
        if KEYWORDS.contains(&first) {
            return Err("a compound command, a group or a function");
        }
        if name.open {
            return Err("a variable or a pattern in the command name");
        }
        if is_assignment(first) {
            return Err("an assignment before the command");
        }
        let base = first.rsplit('/').next().unwrap_or(first);
        if RUNS_OTHERS.contains(&base) || SHELLS.contains(&base) {
            if let Some(code) = words.windows(2).find(|w| w[0].text == "-c" && !w[0].open && !w[1].open).map(|w| w[1].text.clone()) {
                self.reading.inner.push(code);
            }
            return Err("a command that runs other commands (a shell, eval, exec, env, xargs …)");
        }
        let interpreter = INTERPRETERS.contains(&base) || base.strip_prefix("python3.").is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit()));
        if interpreter
            && words[1..].iter().any(|w| {
                w.open
                    || INLINE_CODE.contains(&w.text.as_str())
                    || (w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains(['c', 'e', 'p', 'r', 'E']))
            })
        {
            return Err("an interpreter running inline code");
        }
        if base == "find"
            && words.iter().any(|w| matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir" | "-delete" | "-fprint" | "-fprintf" | "-fls"))
        {
            return Err("a command that runs other commands (a shell, eval, exec, env, xargs …)");
        }
        Ok(())
    }

    /// The next token, `None` at the end of the text.
    fn token(&mut self) -> Step<Option<Token>> {
        // Blanks and comments.
        loop {
            match self.peek(0) {
                Some(' ' | '\t') => self.at += 1,
                Some('\\') if self.peek(1) == Some('\n') => self.at += 2,
                Some('#') => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                _ => break,
            }
        }
        let Some(c) = self.peek(0) else { return Ok(None) };
        let next = self.peek(1);
        match c {
            '\n' | ';' => {
                if c == ';' && next == Some(';') {
                    return Err("a compound command, a group or a function");
                }
                if c == ';' && next == Some('&') {
                    return Err("a compound command, a group or a function");
                }
                self.at += 1;
                Ok(Some(Token::End(c)))
            }
            '&' => match next {
                Some('&') => {
                    self.at += 2;
                    Ok(Some(Token::End('&')))
                }
                Some('>') => {
                    self.at += if self.peek(2) == Some('>') { 3 } else { 2 };
                    Ok(Some(Token::Redirect { write: true, dup: false }))
                }
                _ => Err("a background command (&)"),
            },
            '|' => {
                self.at += if matches!(next, Some('|' | '&')) { 2 } else { 1 };
                Ok(Some(Token::End(if next == Some('|') { '|' } else { 'p' })))
            }
            '(' | ')' => Err("a subshell, a group or a function definition"),
            '`' => Err("a backquote (command substitution)"),
            '<' | '>' => self.redirect(),
            _ => self.word().map(Some),
        }
    }

    /// A redirection operator at the cursor (without a file-descriptor number).
    fn redirect(&mut self) -> Step<Option<Token>> {
        let c = self.peek(0);
        let next = self.peek(1);
        if next == Some('(') {
            return Err("process substitution");
        }
        if c == Some('<') {
            match next {
                Some('<') if self.peek(2) == Some('<') => {
                    self.at += 3;
                    return Ok(Some(Token::HereString));
                }
                Some('<') => return Err("a here-document"),
                Some('&') => {
                    self.at += 2;
                    return Ok(Some(Token::Redirect { write: false, dup: true }));
                }
                Some('>') => {
                    self.at += 2;
                    return Ok(Some(Token::Redirect { write: true, dup: false }));
                }
                _ => {
                    self.at += 1;
                    return Ok(Some(Token::Redirect { write: false, dup: false }));
                }
            }
        }
        match next {
            Some('>' | '|') => {
                self.at += 2;
                Ok(Some(Token::Redirect { write: true, dup: false }))
            }
            Some('&') => {
                self.at += 2;
                Ok(Some(Token::Redirect { write: true, dup: true }))
            }
            _ => {
                self.at += 1;
                Ok(Some(Token::Redirect { write: true, dup: false }))
            }
        }
    }

    /// A word at the cursor; a word of digits right before `<` or `>` is a file-descriptor number and
    /// reads as the redirection.
    fn word(&mut self) -> Step<Token> {
        let start = self.at;
        let mut text = String::new();
        let mut open = false;
        let mut quoted = false;
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' => {
                    let digits = !quoted && !text.is_empty() && self.chars[start..self.at].iter().all(char::is_ascii_digit);
                    if digits {
                        return self.redirect().map(|t| t.unwrap_or(Token::End(';')));
                    }
                    break;
                }
                '`' => return Err("a backquote (command substitution)"),
                '\\' => {
                    match self.peek(1) {
                        Some('\n') => {}
                        Some(e) => text.push(e),
                        None => return Err("a syntax error"),
                    }
                    self.at += 2;
                    quoted = true;
                }
                '\'' => {
                    self.at += 1;
                    loop {
                        match self.peek(0) {
                            None => return Err("an unterminated quote"),
                            Some('\'') => break,
                            Some(q) => text.push(q),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                    quoted = true;
                }
                '"' => {
                    self.at += 1;
                    loop {
                        match self.peek(0) {
                            None => return Err("an unterminated quote"),
                            Some('"') => break,
                            Some('`') => return Err("a backquote (command substitution)"),
                            Some('$') => {
                                let from = self.at;
                                self.dollar()?;
                                open = true;
                                text.extend(&self.chars[from..self.at]);
                                continue;
                            }
                            Some('\\') if matches!(self.peek(1), Some('"' | '\\' | '$' | '`' | '\n')) => {
                                if let Some(e) = self.peek(1).filter(|e| *e != '\n') {
                                    text.push(e);
                                }
                                self.at += 1;
                            }
                            Some(q) => text.push(q),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                    quoted = true;
                }
                '$' => {
                    if self.peek(1) == Some('\'') {
                        return Err("a $'…' string");
                    }
                    let from = self.at;
                    self.dollar()?;
                    open = true;
                    text.extend(&self.chars[from..self.at]);
                }
                '*' | '?' | '[' | ']' | '{' | '}' => {
                    open = true;
                    text.push(c);
                    self.at += 1;
                }
                '~' if text.is_empty() && !quoted => {
                    open = true;
                    text.push(c);
                    self.at += 1;
                }
                '=' if !quoted && self.peek(1) == Some('(') => return Err("an assignment before the command"),
                _ => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        Ok(Token::Word(Word { text, open }))
    }

    /// A `$` at the cursor: a parameter (`$x`, `${x}`, `$1`, `$?`) is skipped; a command or
    /// arithmetic substitution is unreadable.
    fn dollar(&mut self) -> Step<()> {
        self.at += 1;
        match self.peek(0) {
            Some('(') => Err("command substitution"),
            Some('{') => {
                while let Some(c) = self.peek(0) {
                    self.at += 1;
                    if c == '}' {
                        return Ok(());
                    }
                    if matches!(c, '$' | '`' | '(' | '"' | '\'') {
                        return Err("command substitution");
                    }
                }
                Err("an unterminated quote")
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                while self.peek(0).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.at += 1;
                }
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || matches!(c, '?' | '#' | '@' | '*' | '$' | '!' | '-') => {
                self.at += 1;
                Ok(())
            }
            // A lone `$` is a literal dollar.
            _ => Ok(()),
        }
    }
}

/// `NAME=…` (a shell variable assignment).
fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            let name = name.strip_suffix('+').unwrap_or(name);
            name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_character_is_not_understood() {
        // Found by fuzz/fuzz_targets/shell_reader.rs: a NUL in a redirection's file read as understood.
        assert_eq!(read("cat < in.\0txt >> out.txt").unreadable, Some("a NUL character"));
        assert_eq!(read("cat < in.txt >> out.txt").unreadable, None);
    }

    #[test]
    fn words_redirections_and_what_is_not_understood() {
        let r = read("git  'st'\"atus\" 2>&1 | head -n 5 > out.txt; ls < in.txt");
        let words: Vec<Vec<&str>> = r.commands.iter().map(|c| c.iter().map(|w| w.text.as_str()).collect()).collect();
        assert_eq!(words, [vec!["git", "status"], vec!["head", "-n", "5"], vec!["ls"]]);
        assert_eq!(r.redirects, [Redirect { path: "out.txt".into(), write: true }, Redirect { path: "in.txt".into(), write: false }]);
        assert_eq!(r.unreadable, None);
        assert_eq!(read("echo $(x)").unreadable, Some("command substitution"));
        assert_eq!(read("sh -c 'ls > f'").inner, ["ls > f"]);
    }
}
