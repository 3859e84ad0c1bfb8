package dev.cuckoofilter.core.hash;

/**
 * The item hash contract (hash algorithm id 1, specified in {@code docs/HASHING.md}): how an item becomes
 * the 64-bit hash from which a filter derives a bucket and a fingerprint. Every implementation that
 * must agree with this library (the Spark connector's code-generated probes, other languages) computes
 * exactly these functions.
 *
 * <ul>
 *   <li>Integral values of any width ({@code byte}, {@code short}, {@code int}, {@code long}, and
 *       integer-encoded values such as dates) are sign-extended to 64 bits and hashed with
 *       {@link #hashLong}, so the same number hashes alike whatever its Java or Spark type.
 *   <li>Byte strings are hashed with XXH64; a {@code String} is hashed as its UTF-8 bytes, so a string
 *       and its UTF-8 encoding hash alike.
 *   <li>A composite key {@code (k1, ..., kn)} chains the seed: {@code h0 = seed},
 *       {@code hi = hash(ki, h(i-1))}, and the key's hash is {@code hn}.
 * </ul>
 */
public final class CuckooHash {
  /** Identifier of this contract in the binary format. */
  public static final int ALGORITHM_ID = 1;

  private CuckooHash() {}

  /**
   * Hash of a 64-bit integer: the SplitMix64 finalizer (Stafford's variant 13) applied to
   * {@code value XOR seed}. It is a bijection of the 64-bit values for a fixed seed, so distinct
   * integral keys never share a 64-bit hash.
   */
  public static long hashLong(long value, long seed) {
    long z = value ^ seed;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Hash of {@code bytes[offset, offset + length)}: XXH64 with the seed. */
  public static long hashBytes(byte[] bytes, int offset, int length, long seed) {
    return XxHash64.hash(bytes, offset, length, seed);
  }

  /** Hash of a whole byte array: XXH64 with the seed. */
  public static long hashBytes(byte[] bytes, long seed) {
    return XxHash64.hash(bytes, 0, bytes.length, seed);
  }

  /** Hash of a string: XXH64 of its UTF-8 encoding, computed without allocating. */
  public static long hashString(CharSequence value, long seed) {
    return XxHash64.hashUtf8(value, seed);
  }
}
