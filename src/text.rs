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

/// A string as a JSON string literal (`"a \"b\""`), as error messages quote input: `"` and `\`
/// escaped, control characters as `\b \f \n \r \t` or `\u00xx`, as `JSON.stringify` writes them.
pub fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
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
