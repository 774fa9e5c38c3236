//! Text built without the formatting machinery (`format!` and `Display` pull in code the WebAssembly
//! build does not need): joining pieces, decimal integers, quoted strings, character counts.

/// The pieces joined (messages are built without the formatting machinery).
pub fn concat(parts: &[&str]) -> String {
    join(parts, "")
}

/// The items with `separator` between them.
pub fn join(items: &[&str], separator: &str) -> String {
    // Room for a short text from the start: growing a string step by step is much of a short check's
    // time (a longer text grows as usual).
    let mut out = String::with_capacity(64);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(item);
    }
    out
}

/// `n` in decimal.
pub fn decimal(n: u64) -> String {
    let mut out = String::with_capacity(20);
    write_u64(&mut out, n);
    out
}

pub(crate) fn write_u64(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits.iter().skip(at).map(|&d| char::from(d)));
}

/// `n` in decimal, appended to `out` (through [`write_u64`] for every value that fits 64 bits).
pub(crate) fn write_u128(out: &mut String, n: u128) {
    match u64::try_from(n) {
        Ok(small) => write_u64(out, small),
        Err(_) => {
            write_u128(out, n / 10);
            out.push(char::from(b'0' + (n % 10) as u8));
        }
    }
}

/// A string as a JSON string literal (`"a \"b\""`), as error messages quote input.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_str(&mut out, text);
    out
}

/// A JSON string literal: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00xx`,
/// everything else as is (what both `JSON.stringify` and `serde_json` print).
pub(crate) fn write_str(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(text.len() + 2);
    out.push('"');
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        // `start` and `i` are at ASCII bytes, so both are character boundaries.
        out.push_str(text.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            out.push_str("\\u00");
            for digit in [b >> 4, b & 0xf] {
                out.push(char::from(HEX.get(usize::from(digit)).copied().unwrap_or(b'0')));
            }
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(text.get(start..).unwrap_or_default());
    out.push('"');
}

/// The Unicode scalar values of `text`, counted up to `limit` (the bytes that do not continue a
/// UTF-8 sequence).
pub fn scalar_count(text: &str, limit: usize) -> usize {
    text.bytes().filter(|b| b & 0xC0 != 0x80).take(limit).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_and_decimals() {
        assert_eq!(quote("a \"b\"\n\u{1}"), "\"a \\\"b\\\"\\n\\u0001\"");
        assert_eq!(decimal(0), "0");
        assert_eq!(decimal(u64::MAX), "18446744073709551615");
        assert_eq!(concat(&["a", "b", "c"]), "abc");
        assert_eq!(join(&["a", "b"], ", "), "a, b");
        assert_eq!(scalar_count("界a", usize::MAX), 2);
    }
}
