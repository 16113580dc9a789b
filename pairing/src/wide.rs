//! Fixed-width unsigned integers for matching weights.
//!
//! The Dutch criteria are packed into one edge weight, most important criterion in the highest bits, so a
//! weight needs a field per criterion and per scoregroup: hundreds of bits for a large open. A weight is
//! `L` 64-bit limbs, least significant first; the pairing picks the smallest `L` that fits.

use std::cmp::Ordering;
use std::fmt;

/// What the matching needs from a weight: exact, wrapping unsigned arithmetic and a total order.
pub trait Weight: Copy + Ord + std::hash::Hash + fmt::Debug {
    fn zero() -> Self;
    /// The lowest 64 bits.
    fn low(&self) -> u64;
    /// The same with the lowest 64 bits replaced.
    #[must_use]
    fn with_low(self, low: u64) -> Self;
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
    /// `self + plus - minus`, wrapping.
    #[must_use]
    fn add_sub(self, plus: Self, minus: Self) -> Self {
        self.wrapping_add(plus).wrapping_sub(minus)
    }
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
    #[inline]
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

    #[inline]
    fn low(&self) -> u64 {
        self.0[0]
    }

    #[inline]
    fn with_low(self, low: u64) -> Self {
        let mut limbs = self.0;
        limbs[0] = low;
        Wide(limbs)
    }

    fn from_u64(value: u64) -> Self {
        let mut limbs = [0; L];
        limbs[0] = value;
        Wide(limbs)
    }

    #[inline]
    fn is_zero(&self) -> bool {
        self.0.iter().all(|&limb| limb == 0)
    }

    #[inline]
    fn wrapping_add(self, other: Self) -> Self {
        let mut out = [0; L];
        let mut carry = 0u128;
        for i in 0..L {
            let sum = u128::from(self.0[i]) + u128::from(other.0[i]) + carry;
            out[i] = sum as u64;
            carry = sum >> 64;
        }
        Wide(out)
    }

    #[inline]
    fn add_sub(self, plus: Self, minus: Self) -> Self {
        let mut out = [0; L];
        let mut carry = 0i128;
        for i in 0..L {
            let t = i128::from(self.0[i]) + i128::from(plus.0[i]) - i128::from(minus.0[i]) + carry;
            out[i] = t as u64;
            carry = t >> 64;
        }
        Wide(out)
    }

    #[inline]
    fn wrapping_sub(self, other: Self) -> Self {
        let mut out = [0; L];
        let mut borrow = 0u128;
        for i in 0..L {
            let diff = u128::from(self.0[i]).wrapping_sub(u128::from(other.0[i])).wrapping_sub(borrow);
            out[i] = diff as u64;
            borrow = (diff >> 64) & 1;
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
        let (x, y, z) = (Wide::<2>([u64::MAX, 5]), Wide::<2>([3, 1]), Wide::<2>([7, 9]));
        assert_eq!(x.add_sub(y, z), x.wrapping_add(y).wrapping_sub(z));
        assert_eq!(z.add_sub(y, x), z.wrapping_add(y).wrapping_sub(x));
        assert_eq!(y.add_sub(y, z), y.wrapping_add(y).wrapping_sub(z));
    }
}
