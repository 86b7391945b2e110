//! The closest method name to a mistyped one, for the "did you mean" of an
//! unknown method (the console's `cli/console/closest.ts`, in Rust).

/// The edit distance between `a` and `b` (inserts, deletes and changes).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

/// The name in `names` closest to `name`, when it is a likely typo (at most
/// 3 edits and fewer than the name's length) or `name` is its prefix.
pub(crate) fn closest<'a>(name: &str, names: &'a [String]) -> Option<&'a str> {
    let score = |c: &String| {
        if !name.is_empty() && c.starts_with(name) {
            0
        } else {
            2 * distance(name, c)
        }
    };
    let best = names.iter().min_by_key(|c| score(c))?;
    let limit = 2 * 3.min(name.chars().count().saturating_sub(1).max(1));
    (score(best) <= limit).then_some(best.as_str())
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_typo_or_a_prefix_finds_the_method_and_a_stranger_finds_none() {
        let names = vec!["add".to_string(), "list".to_string()];
        assert_eq!(closest("ad", &names), Some("add"));
        assert_eq!(closest("lsit", &names), Some("list"));
        assert_eq!(closest("nope", &names), None);
    }
}
