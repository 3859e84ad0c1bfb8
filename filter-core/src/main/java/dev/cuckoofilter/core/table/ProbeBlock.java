package dev.cuckoofilter.core.table;

/**
 * Scratch space for one block of a batched lookup or update: each key's two buckets and fingerprint, and
 * the first 64 bits read from each bucket. One block per thread, reused, so batched operations allocate
 * nothing. A table may overwrite the block's contents while it probes (e.g. turn bucket indexes into bit
 * positions); {@link BucketTable#readBuckets} leaves them as they are.
 *
 * <p>Why the words are kept: a batched lookup reads every bucket of the block in a loop that does nothing
 * else, so the CPU keeps as many cache misses in flight as it can, and only then compares fingerprints.
 * Reading and comparing in one loop holds more instructions per key in the reorder window and overlaps
 * fewer misses (measured on a 101 MB table: 21-23M lookups/s with one loop, 27-28M with the separate
 * read loop).
 */
public final class ProbeBlock {
  /** Keys per block: enough to keep the memory system busy, small enough to stay in L1 and L2. */
  public static final int SIZE = 256;

  public final long[] buckets1 = new long[SIZE];
  public final long[] buckets2 = new long[SIZE];
  public final long[] fingerprints = new long[SIZE];
  final long[] words1 = new long[SIZE];
  final long[] words2 = new long[SIZE];
  /** Indexes of the keys whose second bucket a batched update reads ahead ({@link BucketTable#readBucketsAhead}). */
  final int[] second = new int[SIZE];
}
