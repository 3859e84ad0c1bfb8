package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.core.hash.CuckooHash;

/**
 * The paper's blocked Bloom filter ("blk-BF", section 7, after Putze, Sanders and Singler): an array of
 * 64-byte Bloom filters, one cache line each. The high 32 bits of the item hash choose the block; the
 * low 32 bits give {@code k} positions inside it by double hashing, {@code a + i * b} mod 512 with an
 * odd step {@code b}, so the {@code k} bits are distinct. A lookup stops at the first 0 bit.
 */
final class BlockedBloomFilter implements PaperFilter {
  private static final int WORDS_PER_BLOCK = 8; // 64 bytes
  private static final int BLOCK_BITS_MASK = WORDS_PER_BLOCK * 64 - 1;

  private final long[] words;
  private final long blocks;
  private final long capacity;
  private final int hashes;

  BlockedBloomFilter(long bits, long capacity) {
    if (bits % 512 != 0 || bits / 512 > Integer.MAX_VALUE / WORDS_PER_BLOCK) {
      throw new IllegalArgumentException("bits must be a multiple of 512 that fits an array, got " + bits);
    }
    this.blocks = bits / 512;
    this.words = new long[(int) (blocks * WORDS_PER_BLOCK)];
    this.capacity = capacity;
    this.hashes = StandardBloomFilter.optimalHashes(bits, capacity);
  }

  @Override
  public String configuration() {
    return "64-byte blocks, k = " + hashes;
  }

  @Override
  public boolean add(long key) {
    long h = CuckooHash.hashLong(key, 0);
    int base = (int) (((h >>> 32) * blocks) >>> 32) * WORDS_PER_BLOCK;
    int a = (int) h;
    int b = (a >>> 9) | 1;
    for (int i = 0; i < hashes; i++) {
      int bit = (a + i * b) & BLOCK_BITS_MASK;
      words[base + (bit >>> 6)] |= 1L << bit;
    }
    return true;
  }

  @Override
  public boolean mightContain(long key) {
    long h = CuckooHash.hashLong(key, 0);
    int base = (int) (((h >>> 32) * blocks) >>> 32) * WORDS_PER_BLOCK;
    int a = (int) h;
    int b = (a >>> 9) | 1;
    for (int i = 0; i < hashes; i++) {
      int bit = (a + i * b) & BLOCK_BITS_MASK;
      if ((words[base + (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public long bitSize() {
    return blocks * 512;
  }

  @Override
  public long capacity() {
    return capacity;
  }
}
