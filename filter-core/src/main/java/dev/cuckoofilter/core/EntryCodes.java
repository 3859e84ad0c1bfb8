package dev.cuckoofilter.core;

import dev.cuckoofilter.core.hash.Addressing;

/**
 * An entry code identifies what a filter stores for an item, independently of where it currently
 * sits: its canonical bucket {@code c} (the smaller of its two candidate buckets) and its fingerprint,
 * packed as {@code (c << f) | (fp - 1)}. Two items with equal codes are indistinguishable to the
 * filter. Codes order entries by bucket, then fingerprint; compare them as unsigned numbers.
 *
 * <p>Codes let distributed builds ship compact, sorted sets of entries instead of whole tables, and
 * make a filter's layout canonical ({@link CanonicalBuilder}).
 */
public final class EntryCodes {
  private EntryCodes() {}

  /** The code of the item with 64-bit hash {@code hash} in a filter with parameters {@code p}. */
  public static long ofHash(FilterParameters p, long hash) {
    long bucket = Addressing.bucketIndex(hash, p.bucketCount());
    long fp = Addressing.fingerprint(hash, p.fingerprintBits());
    return code(Math.min(bucket, Addressing.alternate(bucket, fp, p.bucketCount())), fp, p.fingerprintBits());
  }

  static long code(long canonicalBucket, long fp, int fingerprintBits) {
    return (canonicalBucket << fingerprintBits) | (fp - 1);
  }

  /** The canonical bucket of a code. */
  public static long bucket(long code, int fingerprintBits) {
    return code >>> fingerprintBits;
  }

  /** The fingerprint of a code. */
  public static long fingerprint(long code, int fingerprintBits) {
    return (code & ((1L << fingerprintBits) - 1)) + 1;
  }

  /**
   * True if {@code code} is the code of some item in a filter with {@code bucketCount} buckets and
   * {@code fingerprintBits}-bit fingerprints: its fingerprint is in {@code [1, 2^f - 1]} (the low
   * {@code f} bits are not all ones), its bucket is in {@code [0, bucketCount)} and it is the smaller of
   * the fingerprint's two buckets.
   */
  static boolean isValid(long code, int fingerprintBits, long bucketCount) {
    long mask = (1L << fingerprintBits) - 1;
    if ((code & mask) == mask) {
      return false;
    }
    long bucket = bucket(code, fingerprintBits);
    return bucket < bucketCount
        && Addressing.alternate(bucket, fingerprint(code, fingerprintBits), bucketCount) > bucket;
  }
}
