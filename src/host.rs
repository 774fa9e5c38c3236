//! Host names and IP literals as the network rules read them (docs/package.md, "Network rules"): a
//! name is compared in lower case without its trailing dot, written in ASCII (an internationalized
//! name in punycode, `xn--…`); an IPv4 literal is a dotted quad, an IPv6 one is compared by its
//! address (an IPv4-mapped one, `::ffff:a.b.c.d`, is that IPv4 address). Anything a resolver might
//! read as an address in another spelling (`127.1`, `0x7f.0.0.1`, `2130706433`) is neither, and refused.

use crate::text::concat;

/// The longest host name, in bytes (RFC 1035, without the trailing dot).
const MAX_NAME: usize = 253;

/// A host, normalized: a name, or an IP literal in its canonical text (IPv6 without brackets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    Name(String),
    Ip(String),
}

impl Host {
    /// Reads a host: a name, an IPv4 dotted quad, or an IPv6 address (bracketed or not). The error
    /// says what is wrong.
    pub fn parse(text: &str) -> Result<Host, String> {
        if let Some(inner) = text.strip_prefix('[') {
            let inner = inner.strip_suffix(']').ok_or("must write an IPv6 address in brackets: [::1]")?;
            return ipv6(inner).map(Host::Ip);
        }
        if text.contains(':') {
            return ipv6(text).map(Host::Ip);
        }
        let name = text.strip_suffix('.').unwrap_or(text);
        if let Some(ip) = ipv4(name) {
            return Ok(Host::Ip(ip));
        }
        host_name(name).map(Host::Name)
    }

    /// How it is written beside a port: `example.org`, `127.0.0.1`, `[::1]`.
    pub fn text(&self) -> String {
        match self {
            Host::Name(name) | Host::Ip(name) if !name.contains(':') => name.clone(),
            Host::Name(name) | Host::Ip(name) => concat(&["[", name, "]"]),
        }
    }
}

/// A host name: labels of letters, digits, `-` and `_` (1–63 bytes, no `-` at either end), at most 253
/// bytes, in lower case; a last label that is a number (`127.1`, `0x7f`) is an address in another
/// spelling and refused.
pub fn host_name(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("names no host".into());
    }
    if !text.is_ascii() {
        return Err("is not ASCII: write an internationalized name in punycode (xn--…)".into());
    }
    if text.len() > MAX_NAME {
        return Err("is longer than 253 bytes".into());
    }
    let name = text.to_ascii_lowercase();
    for label in name.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("has an empty label or one longer than 63 bytes".into());
        }
        if label.bytes().any(|b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_')) || label.starts_with('-') || label.ends_with('-') {
            return Err("is not a host name: letters, digits, - and _ in labels separated by dots".into());
        }
    }
    let last = name.rsplit('.').next().unwrap_or_default();
    if last.bytes().all(|b| b.is_ascii_digit()) || (last.starts_with("0x") && last[2..].bytes().all(|b| b.is_ascii_hexdigit())) {
        return Err("is an IP address in another spelling: write an IPv4 address as four decimal numbers (127.0.0.1)".into());
    }
    Ok(name)
}

/// A dotted quad (`127.0.0.1`: four decimal numbers 0–255, no leading zero), or `None`.
fn ipv4(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split('.').collect();
    let valid = parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        });
    valid.then(|| text.into())
}

/// An IPv6 address in its canonical text (RFC 5952: lower case, the longest run of zero groups as
/// `::`); an IPv4-mapped address is its IPv4 address.
fn ipv6(text: &str) -> Result<String, String> {
    let groups = ipv6_groups(text).ok_or("is not an IPv6 address")?;
    if groups[..6] == [0, 0, 0, 0, 0, 0xffff] {
        let octets = [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff];
        let parts: Vec<String> = octets.iter().map(|b| crate::text::decimal(u64::from(*b))).collect();
        return Ok(parts.join("."));
    }
    // The longest run of at least two zero groups (the first of equal ones) becomes `::`.
    let (mut best, mut run) = ((0, 0), (0, 0));
    for (i, g) in groups.iter().enumerate() {
        if *g == 0 {
            run = if run.1 > 0 && run.0 + run.1 == i { (run.0, run.1 + 1) } else { (i, 1) };
            if run.1 > best.1 {
                best = run;
            }
        }
    }
    let hex = |g: &u16| {
        let digits = b"0123456789abcdef";
        let mut out = String::new();
        let mut started = false;
        for shift in [12, 8, 4, 0] {
            let d = (g >> shift) & 0xf;
            if d != 0 || started || shift == 0 {
                started = true;
                out.push(digits[d as usize] as char);
            }
        }
        out
    };
    if best.1 < 2 {
        return Ok(groups.iter().map(hex).collect::<Vec<_>>().join(":"));
    }
    let head: Vec<String> = groups[..best.0].iter().map(hex).collect();
    let tail: Vec<String> = groups[best.0 + best.1..].iter().map(hex).collect();
    Ok(concat(&[&head.join(":"), "::", &tail.join(":")]))
}

/// The eight groups of an IPv6 address (RFC 4291 text: hex groups, one `::`, a dotted quad last).
fn ipv6_groups(text: &str) -> Option<[u16; 8]> {
    let read = |part: &str, last: bool| -> Option<Vec<u16>> {
        let mut out = Vec::new();
        if part.is_empty() {
            return Some(out);
        }
        let pieces: Vec<&str> = part.split(':').collect();
        for (i, piece) in pieces.iter().enumerate() {
            if last && i == pieces.len() - 1 && piece.contains('.') {
                let quad = ipv4(piece)?;
                let b: Vec<u16> = quad.split('.').filter_map(|n| n.parse().ok()).collect();
                out.extend([b[0] << 8 | b[1], b[2] << 8 | b[3]]);
            } else if (1..=4).contains(&piece.len()) && piece.bytes().all(|b| b.is_ascii_hexdigit()) {
                out.push(u16::from_str_radix(piece, 16).ok()?);
            } else {
                return None;
            }
        }
        Some(out)
    };
    let mut groups = [0u16; 8];
    match text.split_once("::") {
        Some((head, tail)) => {
            let (head, tail) = (read(head, false)?, read(tail, true)?);
            if head.len() + tail.len() > 7 {
                return None;
            }
            groups[..head.len()].copy_from_slice(&head);
            groups[8 - tail.len()..].copy_from_slice(&tail);
        }
        None => groups.copy_from_slice(&read(text, true).filter(|g| g.len() == 8)?),
    }
    Some(groups)
}

/// A port: a decimal number 1–65535.
pub fn port(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(n) if n > 0 && text.bytes().all(|b| b.is_ascii_digit()) && !text.starts_with('0') => Ok(n),
        _ => Err("has a port that is not a number from 1 to 65535".into()),
    }
}

/// `host[:port]` (`[v6]` or `[v6]:port` for an IPv6 address): the host and the port, if written.
pub fn split_port(text: &str) -> Result<(&str, Option<u16>), String> {
    if text.starts_with('[') {
        let end = text.find(']').ok_or("must write an IPv6 address in brackets: [::1]:443")?;
        let rest = &text[end + 1..];
        return match rest.strip_prefix(':') {
            Some(p) => Ok((&text[..=end], Some(port(p)?))),
            None if rest.is_empty() => Ok((text, None)),
            None => Err("must write an IPv6 address in brackets: [::1]:443".into()),
        };
    }
    match text.split_once(':') {
        Some((host, p)) if !p.contains(':') => Ok((host, Some(port(p)?))),
        Some(_) => Err("must write an IPv6 address in brackets: [::1]:443".into()),
        None => Ok((text, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_normalized_or_refused() {
        assert_eq!(Host::parse("API.GitHub.com."), Ok(Host::Name("api.github.com".into())));
        assert_eq!(Host::parse("127.0.0.1"), Ok(Host::Ip("127.0.0.1".into())));
        assert_eq!(Host::parse("[::1]"), Ok(Host::Ip("::1".into())));
        assert_eq!(Host::parse("0:0:0:0:0:0:0:1"), Ok(Host::Ip("::1".into())));
        assert_eq!(Host::parse("[2001:DB8:0:0:1:0:0:1]"), Ok(Host::Ip("2001:db8::1:0:0:1".into())));
        assert_eq!(Host::parse("[2001:db8:0:1:1:1:1:1]"), Ok(Host::Ip("2001:db8:0:1:1:1:1:1".into())));
        assert_eq!(Host::parse("[::ffff:127.0.0.1]"), Ok(Host::Ip("127.0.0.1".into())));
        assert_eq!(Host::parse("[fe80::]").map(|h| h.text()), Ok("[fe80::]".into()));
        assert_eq!(Host::parse("[::ffff:7f00:1]"), Ok(Host::Ip("127.0.0.1".into())));
        assert_eq!(Host::parse("[1::]"), Ok(Host::Ip("1::".into())));
        assert_eq!(Host::parse("[1:2:3:4:5:6:1.2.3.4]"), Ok(Host::Ip("1:2:3:4:5:6:102:304".into())));
        for bad in [
            "[1:::2]", "[:::]", "[1::2::3]", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7]", "[::1.2.3]", "[12345::]", "[::g]", "[1::2:3:4:5:6:7:8]", "[:1::]",
            "[1::2:]",
        ] {
            assert!(Host::parse(bad).is_err(), "{bad}");
        }
        for bad in ["", ".", "127.1", "0x7f.0.0.1", "2130706433", "01.2.3.4", "a..b", "-a.b", "bücher.de", "a b", "[::1", "fe80::1%eth0", "1.2.3.256"] {
            assert!(Host::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(split_port("a.b:443"), Ok(("a.b", Some(443))));
        assert_eq!(split_port("[::1]:8080"), Ok(("[::1]", Some(8080))));
        for bad in ["a:0", "a:65536", "a:+1", "a:08", "::1", "[::1]x"] {
            assert!(split_port(bad).is_err(), "{bad}");
        }
    }
}
