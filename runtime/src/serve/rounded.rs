//! Numbers a double rounded on the way in: a call argument written as a
//! number that JSON parsing (serde_json reads every number that is not a
//! 64-bit integer as the nearest double) turned into an integer it is not,
//! such as `5.0000000000000001` (read as 5) or `1e-400` (read as 0). The
//! transport finds them in the request's text; admission holds each to the
//! input schema as written, so that an integer parameter never takes a
//! number the client did not write.
//!
//! How: a double next to the one read, on the side of the written value
//! (`f64::next_up` or `next_down`), lies where the written value lies
//! relative to every bound a double can state, and below 2^52 it is no
//! integer. The arguments with each rounded number so nudged are checked
//! against the schema again; whatever that check refuses, the written value
//! breaks. From 2^52 up a double's neighbours are integers too, so a written
//! fraction there is also checked for the schema's `type`: put in its place,
//! `0.5` must not be refused as not an integer. An integer written in float
//! form past 2^53 is taken exactly or refused where it is read (a generic
//! component's `value` reader, the SDKs' readers).

use std::cmp::Ordering;

use serde_json::Value;

use crate::definitions::schema::Schema;

/// 2^52: from here on a double's neighbours are integers.
const NEIGHBOURS_ARE_INTEGERS: f64 = 4_503_599_627_370_496.0;

/// Where the written value lies relative to the double it was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The written value is greater.
    Above,
    /// The written value is smaller.
    Below,
}

/// One argument number that was read as an integral double it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundedNumber {
    /// Where it is in the arguments, as a JSON pointer (`/items/0/count`).
    pub pointer: String,
    /// The number as the client wrote it.
    pub written: String,
    /// Where the written value lies relative to the double read.
    pub side: Side,
    /// Whether the written value has a fraction (it is no integer).
    pub fraction: bool,
}

/// The rounded numbers of one call's arguments, in the order written. The
/// transport puts them in the request's extensions; an empty list (the
/// usual case) costs admission nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundedNumbers(pub Vec<RoundedNumber>);

impl RoundedNumber {
    /// The literal `written` (JSON number syntax) at `pointer`, when the
    /// double it reads as is an integer other than the written value; `None`
    /// for an exact literal, one read as a fraction (no integer parameter
    /// takes it, and a fraction parameter is meant to get the nearest double),
    /// or text that is not a finite JSON number.
    pub fn of(pointer: String, written: &str) -> Option<RoundedNumber> {
        let read: f64 = written.parse().ok()?;
        if !read.is_finite() || read.fract() != 0.0 {
            return None;
        }
        let (negative, digits, power) = decimal(written)?;
        let side = match compare(negative, &digits, power, read) {
            Ordering::Equal => return None,
            Ordering::Greater => Side::Above,
            Ordering::Less => Side::Below,
        };
        Some(RoundedNumber {
            pointer,
            written: written.to_string(),
            side,
            fraction: power < 0,
        })
    }

    /// The double next to `read` on the written value's side, when there is
    /// a finite one.
    fn nudged(&self, read: f64) -> Option<f64> {
        let next = match self.side {
            Side::Above => read.next_up(),
            Side::Below => read.next_down(),
        };
        next.is_finite().then_some(next)
    }
}

impl RoundedNumbers {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How `arguments` break `schema` as written: the schema's check run
    /// once more on the arguments with every rounded number nudged towards
    /// its written value, and for a written fraction from 2^52 up, with
    /// `0.5` in its place for the schema's `type`. Each problem names the
    /// written number rather than the stand-in. Empty when there are no
    /// rounded numbers or the schema takes them as written. Call it after
    /// the arguments as read passed the check.
    pub fn violations(&self, arguments: &Value, schema: &Schema) -> Vec<String> {
        if self.is_empty() {
            return Vec::new();
        }
        let mut probe = arguments.clone();
        // Made only for a written fraction from 2^52 up (rare).
        let mut typed: Option<Value> = None;
        let mut shown = Vec::new();
        let mut large_fractions = Vec::new();
        for number in &self.0 {
            let Some(slot) = probe.pointer_mut(&number.pointer) else {
                continue;
            };
            // The value read from this very text (a later duplicate key
            // may have replaced it).
            let read = match slot {
                Value::Number(n) if n.is_f64() => n.as_f64(),
                _ => None,
            };
            if read != number.written.parse().ok() {
                continue;
            }
            let Some(read) = read else { continue };
            if let Some(nudged) = number.nudged(read).and_then(serde_json::Number::from_f64) {
                shown.push((nudged.to_string(), number, read));
                *slot = Value::Number(nudged);
            }
            if number.fraction && read.abs() >= NEIGHBOURS_ARE_INTEGERS {
                let typed = typed.get_or_insert_with(|| arguments.clone());
                if let Some(slot) = typed.pointer_mut(&number.pointer) {
                    *slot = Value::from(0.5);
                    large_fractions.push(number);
                }
            }
        }
        let mut problems: Vec<String> = schema
            .violations(&probe)
            .into_iter()
            .map(|mut problem| {
                for (nudged, number, read) in &shown {
                    if problem.contains(nudged.as_str()) {
                        problem = format!(
                            "{} (the number as written; read as a double it rounds to {read})",
                            problem.replace(nudged.as_str(), &number.written)
                        );
                    }
                }
                problem
            })
            .collect();
        if let Some(typed) = &typed {
            let wants_integer = schema.integer_required_at(typed);
            for number in large_fractions {
                if wants_integer.contains(&number.pointer) {
                    problems.push(format!(
                        "at {}: {} is not of type \"integer\" (the number as written; a double \
                         rounds it to an integer)",
                        number.pointer, number.written
                    ));
                }
            }
        }
        problems
    }
}

/// The decimal `digits × 10^power` (negative if `negative`) compared with
/// the double `read` (an integer): the digits are compared exactly, never
/// through a double.
fn compare(negative: bool, digits: &str, power: i64, read: f64) -> Ordering {
    // `read` as its exact decimal integer digits (Rust prints a double's
    // exact value at a fixed precision).
    let whole = format!("{:.0}", read.abs());
    let whole = whole.trim_start_matches('0');
    let magnitude = compare_magnitudes(digits, power, whole);
    let written_negative = negative && !digits.is_empty();
    let read_negative = read < 0.0 && !whole.is_empty();
    match (written_negative, read_negative) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
    }
}

/// A JSON number's sign, significant digits (no leading or trailing zeros;
/// empty for zero) and the power of ten they are multiplied by.
fn decimal(text: &str) -> Option<(bool, String, i64)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, "0"),
    };
    let exponent = exponent.strip_prefix('+').unwrap_or(exponent);
    let (exp_negative, exp_digits) = match exponent.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, exponent),
    };
    if exp_digits.is_empty() || !exp_digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Saturates: an exponent past this is out of a double's range anyway.
    let mut power: i64 = exp_digits.trim_start_matches('0').parse().unwrap_or(
        if exp_digits.trim_start_matches('0').is_empty() {
            0
        } else {
            1 << 40
        },
    );
    power = power.min(1 << 40);
    if exp_negative {
        power = -power;
    }
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || mantissa.ends_with('.')
    {
        return None;
    }
    let mut digits = format!("{int}{frac}");
    power -= frac.len() as i64;
    let significant = digits.trim_start_matches('0').len();
    digits.drain(..digits.len() - significant);
    while digits.ends_with('0') {
        digits.pop();
        power += 1;
    }
    Some((negative, digits, power))
}

/// `digits × 10^power` compared with the integer `whole` (digits without
/// leading zeros; empty for zero), both non-negative.
fn compare_magnitudes(digits: &str, power: i64, whole: &str) -> Ordering {
    if digits.is_empty() {
        return if whole.is_empty() {
            Ordering::Equal
        } else {
            Ordering::Less
        };
    }
    // The written value's integer part, and whether a fraction is left.
    let int_len = digits.len() as i64 + power;
    if int_len <= 0 {
        // 0.something: below any integer from 1, above zero.
        return if whole.is_empty() {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    let (int_digits, fraction): (String, bool) = if power >= 0 {
        let zeros = usize::try_from(power).unwrap_or(usize::MAX);
        if digits.len().saturating_add(zeros) > whole.len() {
            return Ordering::Greater;
        }
        (format!("{digits}{}", "0".repeat(zeros)), false)
    } else {
        let at = usize::try_from(int_len).unwrap_or(0);
        (digits[..at].to_string(), true)
    };
    match int_digits
        .len()
        .cmp(&whole.len())
        .then_with(|| int_digits.as_str().cmp(whole))
    {
        Ordering::Equal if fraction => Ordering::Greater,
        other => other,
    }
}

#[cfg(test)]
mod tests;
