//! Name lookups over lists of up to 10,000 names: the names sorted once
//! with their positions, then found by binary search (`n log n` time, small code).

/// `(name, position)` pairs sorted by name, then position (an in-place heap sort).
pub fn sorted(mut pairs: Vec<(&str, usize)>) -> Vec<(&str, usize)> {
    fn sift_down(items: &mut [(&str, usize)], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && items.get(child) < items.get(child + 1) {
                child += 1;
            }
            if items.get(root) >= items.get(child) {
                return;
            }
            items.swap(root, child);
            root = child;
        }
    }
    let len = pairs.len();
    for root in (0..len / 2).rev() {
        sift_down(&mut pairs, root, len);
    }
    for end in (1..len).rev() {
        pairs.swap(0, end);
        sift_down(&mut pairs, 0, end);
    }
    pairs
}

/// The pairs of `names` with their positions in the list.
pub fn positions<S: AsRef<str>>(names: &[S]) -> Vec<(&str, usize)> {
    names.iter().enumerate().map(|(i, n)| (n.as_ref(), i)).collect()
}

/// The first position of each name in a list.
#[derive(Clone, Debug, Default)]
pub struct FirstIndex<'a>(Vec<(&'a str, usize)>);

impl<'a> FirstIndex<'a> {
    /// Indexes `(name, position)` pairs; of equal names, the lowest position is kept.
    pub fn new(pairs: Vec<(&'a str, usize)>) -> Self {
        let mut firsts: Vec<(&str, usize)> = Vec::with_capacity(pairs.len());
        for pair in sorted(pairs) {
            if firsts.last().is_none_or(|last| last.0 != pair.0) {
                firsts.push(pair);
            }
        }
        FirstIndex(firsts)
    }

    /// The first position of `name`, if it is listed.
    pub fn get(&self, name: &str) -> Option<usize> {
        let at = self.0.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
        self.0.get(at).map(|(_, position)| *position)
    }

    /// Whether `position` is the first position of `name`.
    pub fn is_first(&self, name: &str, position: usize) -> bool {
        self.get(name) == Some(position)
    }
}

/// The first repeated name of a list, as `(position, first position)`: the lowest position holding a
/// name already listed before it, and where that name was first listed.
pub fn first_duplicate(pairs: Vec<(&str, usize)>) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let mut head: Option<(&str, usize)> = None;
    let mut second_seen = false;
    for (name, position) in sorted(pairs) {
        match head {
            Some((first_name, first)) if first_name == name => {
                // Only the second of a run of equal names can be the first repetition of that name.
                if !second_seen && best.is_none_or(|(b, _)| position < b) {
                    best = Some((position, first));
                }
                second_seen = true;
            }
            _ => {
                head = Some((name, position));
                second_seen = false;
            }
        }
    }
    best
}

/// A map from names to values (keys distinct): prompt hints by tool name, the fields an update
/// sets. Its entries are held, and print, as JavaScript lists an object's keys: array-index keys
/// first, ascending, then the others in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NameMap<T>(Vec<(String, T)>);

impl<T> NameMap<T> {
    /// The map of `pairs`, in JavaScript's key order; keys must be distinct.
    pub fn new(pairs: Vec<(String, T)>) -> Self {
        NameMap(crate::value::js_key_order(pairs))
    }

    /// The entries, in JavaScript's key order.
    pub fn entries(&self) -> &[(String, T)] {
        &self.0
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<T: serde::Serialize> serde::Serialize for NameMap<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_orders_by_name_then_position() {
        let names = ["b", "a", "c", "a", "b", ""];
        let got: Vec<(&str, usize)> = sorted(positions(&names));
        assert_eq!(got, [("", 5), ("a", 1), ("a", 3), ("b", 0), ("b", 4), ("c", 2)]);
        let many: Vec<String> = (0..700u32).map(|i| ((i * 7919) % 701).to_string()).collect();
        let got = sorted(positions(&many));
        assert!(got.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(got.len(), 700);
    }

    #[test]
    fn the_first_index_keeps_the_lowest_position() {
        let names = ["x", "y", "x", "z", "y"];
        let index = FirstIndex::new(positions(&names));
        assert_eq!((index.get("x"), index.get("y"), index.get("z"), index.get("w")), (Some(0), Some(1), Some(3), None));
        assert!(index.is_first("x", 0) && !index.is_first("x", 2));
        assert_eq!(FirstIndex::default().get("x"), None);
    }

    #[test]
    fn the_first_duplicate_is_the_earliest_repetition() {
        assert_eq!(first_duplicate(positions(&["a", "b", "c"])), None);
        assert_eq!(first_duplicate(positions(&["a", "b", "b", "a"])), Some((2, 1)));
        assert_eq!(first_duplicate(positions(&["b", "a", "a", "a", "b"])), Some((2, 1)));
        assert_eq!(first_duplicate(positions(&["z", "q", "z", "q", "z"])), Some((2, 0)));
        assert_eq!(first_duplicate(positions::<&str>(&[])), None);
        // Against the reference: the first position whose name was seen before.
        let names: Vec<String> = (0..300u32).map(|i| ((i * 37 + 11) % 257).to_string()).collect();
        let mut reference = None;
        for (i, n) in names.iter().enumerate() {
            if let Some(first) = names.iter().take(i).position(|m| m == n) {
                reference = Some((i, first));
                break;
            }
        }
        assert_eq!(first_duplicate(positions(&names)), reference);
    }
}
