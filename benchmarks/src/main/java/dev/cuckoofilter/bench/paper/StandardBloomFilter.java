package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.core.hash.CuckooHash;

/**
 * The paper's standard Bloom filter ("BF", section 7): {@code k} bits per item at positions
 * {@code g_i = h1 + i * h2} (Kirsch and Mitzenmacher's double hashing), where {@code h1} and {@code h2}
 * are the high and low 32 bits of the same 64-bit item hash the cuckoo filter uses, as in the paper. A
 * lookup stops at the first 0 bit.
 */
final class StandardBloomFilter implements PaperFilter {
  private final long[] words;
  private final long bits;
  private final long capacity;
  private final int hashes;

  /** {@code bits} bits for {@code capacity} items, with the optimal {@code k = round(bits / capacity * ln 2)}. */
  StandardBloomFilter(long bits, long capacity) {
    if (bits > 1L << 32 || bits % 64 != 0) {
      throw new IllegalArgumentException("bits must be a multiple of 64 up to 2^32, got " + bits);
    }
    this.words = new long[(int) (bits >>> 6)];
    this.bits = bits;
    this.capacity = capacity;
    this.hashes = optimalHashes(bits, capacity);
  }

  static int optimalHashes(long bits, long capacity) {
    return Math.max(1, (int) Math.round((double) bits / capacity * Math.log(2)));
  }

  @Override
  public String configuration() {
    return "k = " + hashes;
  }

  /** Bit {@code i} of an item: {@code g_i} scaled to the bit count (a multiply, not a modulo). */
  private long position(int h1, int h2, int i) {
    return ((h1 + i * h2) & 0xFFFFFFFFL) * bits >>> 32;
  }

  @Override
  public boolean add(long key) {
    long h = CuckooHash.hashLong(key, 0);
    int h1 = (int) (h >>> 32);
    int h2 = (int) h;
    for (int i = 0; i < hashes; i++) {
      long p = position(h1, h2, i);
      words[(int) (p >>> 6)] |= 1L << p;
    }
    return true;
  }

  @Override
  public boolean mightContain(long key) {
    long h = CuckooHash.hashLong(key, 0);
    int h1 = (int) (h >>> 32);
    int h2 = (int) h;
    for (int i = 0; i < hashes; i++) {
      long p = position(h1, h2, i);
      if ((words[(int) (p >>> 6)] & (1L << p)) == 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public long bitSize() {
    return bits;
  }

  @Override
  public long capacity() {
    return capacity;
  }
}
