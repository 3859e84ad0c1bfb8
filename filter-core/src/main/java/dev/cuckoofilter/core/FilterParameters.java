package dev.cuckoofilter.core;

import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.core.sizing.Sizing;
import dev.cuckoofilter.core.table.Stash;

/**
 * Everything that defines a cuckoo filter's geometry and behaviour, as recorded in its binary header.
 *
 * <p>Two filters can be merged and give the same answers for the same items exactly when their
 * {@linkplain #compatibilityDifference compatibility parameters} are equal: variant, bucket size,
 * fingerprint width, bucket count, hash algorithm and seed. The remaining fields (max kicks, stash
 * capacity, expected items, target false-positive rate) only affect how inserts behave or describe how
 * the filter was sized.
 *
 * @param semiSorted      whether buckets use the paper's semi-sorting encoding (section 5.2)
 * @param bucketSize      entries per bucket {@code b}: 2, 4 or 8
 * @param fingerprintBits fingerprint width {@code f}: 4 to 32
 * @param bucketCount     number of buckets {@code m}: even, 2 to 2^32
 * @param hashAlgorithm   item hash contract id ({@link dev.cuckoofilter.core.hash.CuckooHash#ALGORITHM_ID})
 * @param seed            hash seed
 * @param maxKicks        longest kick chain tried before an insert falls back to the stash
 * @param stashCapacity   fingerprints the stash can hold (0 to 64)
 * @param expectedItems   items the filter was sized for (informational, 0 if unknown)
 * @param targetFpp       false-positive rate the filter was sized for (informational, 0 if unknown)
 */
public record FilterParameters(
    boolean semiSorted,
    int bucketSize,
    int fingerprintBits,
    long bucketCount,
    int hashAlgorithm,
    long seed,
    int maxKicks,
    int stashCapacity,
    long expectedItems,
    double targetFpp) implements java.io.Serializable {

  /**
   * Checks every field against the range the binary format allows, so that no filter can be built
   * (for example by a {@link CanonicalBuilder}) that its own reader would reject.
   *
   * @throws IllegalArgumentException naming the first field out of range, its value and the range
   */
  public FilterParameters {
    if (bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
      throw new IllegalArgumentException("bucketSize must be 2, 4 or 8, got " + bucketSize);
    }
    if (semiSorted && bucketSize != 4) {
      throw new IllegalArgumentException("semiSorted requires bucketSize 4, got " + bucketSize);
    }
    if (fingerprintBits < 4 || fingerprintBits > 32) {
      throw new IllegalArgumentException("fingerprintBits must be between 4 and 32, got " + fingerprintBits);
    }
    if (bucketCount < 2 || bucketCount > Sizing.MAX_BUCKETS || (bucketCount & 1) != 0) {
      throw new IllegalArgumentException("bucketCount must be an even number from 2 to " + Sizing.MAX_BUCKETS
          + ", got " + bucketCount);
    }
    if (hashAlgorithm != CuckooHash.ALGORITHM_ID) {
      throw new IllegalArgumentException("hashAlgorithm must be " + CuckooHash.ALGORITHM_ID + ", got " + hashAlgorithm);
    }
    if (maxKicks < 0 || maxKicks > FilterFormat.MAX_KICKS) {
      throw new IllegalArgumentException("maxKicks must be between 0 and " + FilterFormat.MAX_KICKS + ", got "
          + maxKicks);
    }
    if (stashCapacity < 0 || stashCapacity > Stash.MAX_CAPACITY) {
      throw new IllegalArgumentException("stashCapacity must be between 0 and " + Stash.MAX_CAPACITY + ", got "
          + stashCapacity);
    }
    if (expectedItems < 0) {
      throw new IllegalArgumentException("expectedItems must be 0 (unknown) or positive, got " + expectedItems);
    }
    if (!(targetFpp >= 0.0 && targetFpp < 1.0)) {
      throw new IllegalArgumentException("targetFpp must be in [0, 1) (0 = unknown), got " + targetFpp);
    }
  }

  /** Bits in one bucket. */
  public int bucketBits() {
    return semiSorted ? 12 + 4 * (fingerprintBits - 4) : bucketSize * fingerprintBits;
  }

  /** Entries in the table: {@code bucketCount * bucketSize}. */
  public long slots() {
    return bucketCount * bucketSize;
  }

  /**
   * Null if filters with these parameters and {@code other}'s are compatible (can be merged, answer
   * alike), otherwise a message naming the first parameter that differs and both values.
   */
  public String compatibilityDifference(FilterParameters other) {
    if (semiSorted != other.semiSorted) {
      return "variant differs: " + variant() + " vs " + other.variant();
    }
    if (bucketSize != other.bucketSize) {
      return "bucketSize differs: " + bucketSize + " vs " + other.bucketSize;
    }
    if (fingerprintBits != other.fingerprintBits) {
      return "fingerprintBits differs: " + fingerprintBits + " vs " + other.fingerprintBits;
    }
    if (bucketCount != other.bucketCount) {
      return "bucketCount differs: " + bucketCount + " vs " + other.bucketCount;
    }
    if (hashAlgorithm != other.hashAlgorithm) {
      return "hashAlgorithm differs: " + hashAlgorithm + " vs " + other.hashAlgorithm;
    }
    if (seed != other.seed) {
      return "seed differs: " + seed + " vs " + other.seed;
    }
    return null;
  }

  /** "semi-sorted" or "packed". */
  public String variant() {
    return semiSorted ? "semi-sorted" : "packed";
  }
}
