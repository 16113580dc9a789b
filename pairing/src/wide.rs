//! Fixed-width unsigned integers for matching weights.
//!
//! The Dutch criteria are packed into one edge weight, most important criterion in the highest bits, so a
//! weight needs a field per criterion and per scoregroup: hundreds of bits for a large open. A weight is
//! `L` 64-bit limbs, least significant first; the pairing picks the smallest `L` that fits.

use std::cmp::Ordering;
use std::fmt;

/// What the matching needs from a weight: exact, wrapping unsigned arithmetic and a total order.
pub trait Weight: Copy + Ord + fmt::Debug {
    fn zero() -> Self;
    fn from_u64(value: u64) -> Self;
    fn is_zero(&self) -> bool;
    #[must_use]
    fn wrapping_add(self, other: Self) -> Self;
    #[must_use]
    fn wrapping_sub(self, other: Self) -> Self;
    /// Shifts left by `bits`; bits shifted past the width are lost.
    #[must_use]
    fn shl(self, bits: u32) -> Self;
    #[must_use]
    fn half(self) -> Self;
    #[must_use]
    fn or(self, other: Self) -> Self;
    /// `2^bits`, or zero past the width.
    fn pow2(bits: u32) -> Self {
        Self::from_u64(1).shl(bits)
    }
    #[must_use]
    fn add_u64(self, value: u64) -> Self {
        self.wrapping_add(Self::from_u64(value))
    }
    #[must_use]
    fn sub_u64(self, value: u64) -> Self {
        self.wrapping_sub(Self::from_u64(value))
    }
}

/// An unsigned integer of `L` 64-bit limbs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wide<const L: usize>(pub [u64; L]);

impl<const L: usize> fmt::Debug for Wide<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x")?;
        for limb in self.0.iter().rev() {
            write!(f, "{limb:016x}")?;
        }
        Ok(())
    }
}

impl<const L: usize> Ord for Wide<L> {
    fn cmp(&self, other: &Self) -> Ordering {
        for i in (0..L).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        Ordering::Equal
    }
}

impl<const L: usize> PartialOrd for Wide<L> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const L: usize> Weight for Wide<L> {
    fn zero() -> Self {
        Wide([0; L])
    }

    fn from_u64(value: u64) -> Self {
        let mut limbs = [0; L];
        limbs[0] = value;
        Wide(limbs)
    }

    fn is_zero(&self) -> bool {
        self.0.iter().all(|&limb| limb == 0)
    }

    fn wrapping_add(self, other: Self) -> Self {
        let mut out = [0; L];
        let mut carry = false;
        for i in 0..L {
            let (sum, c1) = self.0[i].overflowing_add(other.0[i]);
            let (sum, c2) = sum.overflowing_add(u64::from(carry));
            out[i] = sum;
            carry = c1 || c2;
        }
        Wide(out)
    }

    fn wrapping_sub(self, other: Self) -> Self {
        let mut out = [0; L];
        let mut borrow = false;
        for i in 0..L {
            let (diff, b1) = self.0[i].overflowing_sub(other.0[i]);
            let (diff, b2) = diff.overflowing_sub(u64::from(borrow));
            out[i] = diff;
            borrow = b1 || b2;
        }
        Wide(out)
    }

    fn shl(self, bits: u32) -> Self {
        let limbs = (bits / 64) as usize;
        let rest = bits % 64;
        let mut out = [0; L];
        for i in (limbs..L).rev() {
            let source = i - limbs;
            let mut limb = self.0[source] << rest;
            if rest > 0 && source > 0 {
                limb |= self.0[source - 1] >> (64 - rest);
            }
            out[i] = limb;
        }
        Wide(out)
    }

    fn half(self) -> Self {
        let mut out = [0; L];
        for i in 0..L {
            out[i] = self.0[i] >> 1;
            if i + 1 < L {
                out[i] |= self.0[i + 1] << 63;
            }
        }
        Wide(out)
    }

    fn or(self, other: Self) -> Self {
        let mut out = self.0;
        for (limb, o) in out.iter_mut().zip(other.0) {
            *limb |= o;
        }
        Wide(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_crosses_limbs() {
        let a = Wide::<2>::from_u64(u64::MAX);
        let b = a.add_u64(1);
        assert_eq!(b.0, [0, 1]);
        assert_eq!(b.sub_u64(1), a);
        assert_eq!(Wide::<2>::pow2(64).0, [0, 1]);
        assert_eq!(Wide::<2>::pow2(70).half().0, [0, 32]);
        assert_eq!(Wide::<2>::from_u64(3).shl(63).0, [1 << 63, 1]);
        assert!(Wide::<2>::pow2(64) > Wide::<2>::from_u64(u64::MAX));
        assert_eq!(Wide::<2>::zero().sub_u64(1).add_u64(1), Wide::<2>::zero());
    }
}
