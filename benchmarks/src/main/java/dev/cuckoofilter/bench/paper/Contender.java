package dev.cuckoofilter.bench.paper;

/**
 * The filters of the paper's comparison (section 7), each created at a given number of bits. The paper
 * fixes the cuckoo table first (2^25 buckets of four 12-bit entries, 192 MB) and gives every other filter
 * the same memory; the Bloom filters are sized for 13 bits per item, with the optimal 9 hash functions.
 */
enum Contender {
  CF("CF", "this project, b = 4, f = 12, no stash") {
    @Override
    PaperFilter create(long bits) {
      return new CuckooAdapter(CuckooAdapter.paperFaithful(4, 12, false, bits / 48, 0));
    }
  },
  SS_CF("ss-CF", "this project, semi-sorted, b = 4, f = 13 (48-bit buckets), no stash") {
    @Override
    PaperFilter create(long bits) {
      return new CuckooAdapter(CuckooAdapter.paperFaithful(4, 13, true, bits / 48, 0));
    }
  },
  BF("BF", "standard Bloom filter written here as the paper's: double hashing, k optimal for 13 bits/item") {
    @Override
    PaperFilter create(long bits) {
      return new StandardBloomFilter(bits, bits / BLOOM_BITS_PER_ITEM);
    }
  },
  BLOCKED_BF("blk-BF", "blocked Bloom filter written here as the paper's: 64-byte blocks, k optimal for 13 bits/item") {
    @Override
    PaperFilter create(long bits) {
      return new BlockedBloomFilter(bits, bits / BLOOM_BITS_PER_ITEM);
    }
  },
  GUAVA_BF("Guava BF", "Guava BloomFilter, k hash functions optimal for the size (13 bits/item)") {
    @Override
    PaperFilter create(long bits) {
      return new GuavaBloomFilter(bits, bits / BLOOM_BITS_PER_ITEM);
    }
  };

  /** Section 7.1: the Bloom filters' capacity, 13 bits per item. */
  static final int BLOOM_BITS_PER_ITEM = 13;

  /** Short name, as in the paper's tables and legends. */
  final String label;
  /** What exactly was measured. */
  final String implementation;

  Contender(String label, String implementation) {
    this.label = label;
    this.implementation = implementation;
  }

  /** An empty filter of exactly {@code bits} bits (a multiple of 48 * 512). */
  abstract PaperFilter create(long bits);

  /** Whether it supports deletion (the cuckoo filters; Bloom filters do not). */
  boolean deletes() {
    return this == CF || this == SS_CF;
  }
}
