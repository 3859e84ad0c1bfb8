package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.core.hash.CuckooHash;
import java.math.BigInteger;

/**
 * Folds key components into a key hash exactly as the Spark connector hashes the Spark values they stand
 * for ({@code docs/HASHING.md}, section 5), from plain Java values, without Spark's SQL engine. Every
 * method takes the running hash as the seed and returns the new one, so composite keys chain the seed:
 * start with the filter's seed and fold the components in key order.
 */
final class SparkValueHash {
  private SparkValueHash() {}

  /** byte, short, int, long, date (days), timestamp and timestamp_ntz (microseconds), boolean (1 or 0). */
  static long integer(long value, long seed) {
    return CuckooHash.hashLong(value, seed);
  }

  /** float (widened to double) and double: the IEEE bits, with -0.0 as 0.0 and every NaN canonical. */
  static long floating(double value, long seed) {
    double v = value == 0.0 ? 0.0 : value;
    return CuckooHash.hashLong(Double.doubleToLongBits(v), seed); // doubleToLongBits canonicalizes NaN
  }

  /**
   * decimal(p, s), by its unscaled value: as an integer when it fits in 64 bits, else XXH64 of its
   * minimal two's-complement bytes (so the precision does not matter, only the scale).
   */
  static long decimal(BigInteger unscaled, long seed) {
    return unscaled.bitLength() < 64 ? CuckooHash.hashLong(unscaled.longValue(), seed)
        : CuckooHash.hashBytes(unscaled.toByteArray(), seed);
  }

  /** string (its UTF-8 bytes, as stored) and binary. */
  static long bytes(byte[] bytes, int offset, int length, long seed) {
    return CuckooHash.hashBytes(bytes, offset, length, seed);
  }
}
