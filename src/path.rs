//! Where a value sits inside a JSON document (`agent.toolsets[2]`, `catalog[3].name`,
//! `strategies["a b"]`), rendered only when it is shown. The edge names invalid input with it; the
//! call gate names the argument a path or a failed check comes from.

use crate::error::Error;
use crate::text::{decimal, quote};

/// Where a value sits in the input; rendered only when an error is raised.
#[derive(Clone, Copy)]
pub enum Path<'a> {
    /// A positional argument (`catalog`), or `""` for the fields of an object input.
    Root(&'a str),
    /// A key of an object.
    Key(&'a Path<'a>, &'a str),
    /// An index of an array.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The path of `key` inside this object.
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The path of item `index` inside this array.
    pub fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    /// `agent.toolsets[2]`, `catalog[3].name`, `strategies["a b"]`; `input` for the top level.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, true);
        if out.is_empty() {
            out.push_str("input");
        }
        out
    }

    /// The rendering below the root: `items[0].path` for `arguments.items[0].path`; empty for the root.
    pub fn render_below_root(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, false);
        out
    }

    fn render_into(&self, out: &mut String, root: bool) {
        match self {
            Path::Root(name) => out.push_str(if root { name } else { "" }),
            Path::Key(parent, key) => {
                parent.render_into(out, root);
                if is_identifier(key) {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                } else {
                    out.push('[');
                    out.push_str(&quote(key));
                    out.push(']');
                }
            }
            Path::Index(parent, index) => {
                parent.render_into(out, root);
                out.push('[');
                out.push_str(&decimal(*index as u64));
                out.push(']');
            }
        }
    }

    /// An invalid-input error at this path.
    pub fn error(&self, what: impl Into<String>) -> Error {
        Error::invalid(self.render(), what)
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_the_spec() {
        let root = Path::Root("");
        let agent = root.key("agent");
        let toolsets = agent.key("toolsets");
        assert_eq!(toolsets.index(2).render(), "agent.toolsets[2]");
        assert_eq!(root.render(), "input");
        let catalog = Path::Root("catalog");
        let item = catalog.index(3);
        assert_eq!(item.key("name").render(), "catalog[3].name");
        let strategies = root.key("strategies");
        assert_eq!(strategies.key("a b").render(), "strategies[\"a b\"]");
        assert_eq!(strategies.key("q\"\n").render(), "strategies[\"q\\\"\\n\"]");
        let arguments = Path::Root("arguments");
        let items = arguments.key("items");
        assert_eq!(items.index(0).key("path").render_below_root(), "items[0].path");
        assert_eq!(arguments.index(1).render_below_root(), "[1]");
        assert_eq!(arguments.key("a b").render_below_root(), "[\"a b\"]");
        assert_eq!(arguments.render_below_root(), "");
    }
}
