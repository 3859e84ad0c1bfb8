package dev.cuckoofilter.bench;

import java.util.SplittableRandom;

/**
 * Why a lookup keeps two cache misses: the load a (2,4) cuckoo table reaches when an item's alternate bucket
 * must lie near its first one (so that both share a cache line or page), against the global alternate of
 * the paper and of filter-core.
 *
 * <p>With window {@code W}, the alternate of bucket {@code i} for fingerprint {@code fp} is
 * {@code ((i + s) XOR d) - s (mod m)}, with {@code s} in {@code [0, W)} and {@code d} in {@code [1, W)} drawn
 * from a hash of {@code fp}: an involution that never returns {@code i}, within {@code W} buckets of it, and
 * whose aligned blocks shift with the fingerprint, so windows overlap instead of partitioning the table (as
 * in vacuum filters with one range). {@code W = 0} is the global alternate. Insertion is the paper's random
 * walk with 500 kicks; the load is taken at the first failure.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.cuckoofilter.bench.LocalAlternateSimulation
 * [buckets] [runs]} (default 262144 buckets, 3 runs; a few seconds).
 */
public final class LocalAlternateSimulation {
  private static final int BUCKET_SIZE = 4;
  private static final int MAX_KICKS = 500;

  private final int buckets;
  private final int window;
  private final int[] slots;

  private LocalAlternateSimulation(int buckets, int window) {
    this.buckets = buckets;
    this.window = window;
    this.slots = new int[buckets * BUCKET_SIZE];
  }

  private static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    x *= 0xc4ceb9fe1a85ec53L;
    return x ^ (x >>> 33);
  }

  private int alternate(int bucket, int fp) {
    if (window == 0) {
      long r = (Long.remainderUnsigned(mix(fp), buckets)) | 1; // odd offset, even bucket count: never i itself
      return (int) Math.floorMod(r - bucket, (long) buckets);
    }
    long h = mix(fp * 0x9E3779B97F4A7C15L + 7);
    int shift = (int) (h & (window - 1));
    int offset = (int) Long.remainderUnsigned(h >>> 32, window - 1) + 1;
    int shifted = (int) ((bucket + (long) shift) % buckets);
    return (int) Math.floorMod((long) (shifted ^ offset) - shift, (long) buckets);
  }

  private boolean put(int bucket, int fp) {
    for (int s = 0; s < BUCKET_SIZE; s++) {
      if (slots[bucket * BUCKET_SIZE + s] == 0) {
        slots[bucket * BUCKET_SIZE + s] = fp;
        return true;
      }
    }
    return false;
  }

  /** Inserts random 12-bit fingerprints until the first failure; returns the load then. */
  private double fill(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long stored = 0;
    while (true) {
      long h = mix(random.nextLong());
      int fp = (int) (h >>> 52) | 1;
      int i1 = (int) Long.remainderUnsigned(h, buckets);
      int i2 = alternate(i1, fp);
      if (put(i1, fp) || put(i2, fp)) {
        stored++;
        continue;
      }
      int bucket = random.nextBoolean() ? i1 : i2;
      boolean placed = false;
      for (int k = 0; k < MAX_KICKS && !placed; k++) {
        int slot = bucket * BUCKET_SIZE + random.nextInt(BUCKET_SIZE);
        int evicted = slots[slot];
        slots[slot] = fp;
        fp = evicted;
        bucket = alternate(bucket, fp);
        placed = put(bucket, fp);
      }
      if (!placed) {
        return (double) stored / slots.length;
      }
      stored++;
    }
  }

  public static void main(String[] args) {
    int buckets = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 18;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    if (buckets % 2 != 0 || buckets < 1024) {
      throw new IllegalArgumentException("buckets must be even and at least 1024, got " + buckets);
    }
    System.out.println("window_buckets,window_bytes_f12,mean_load,min_load");
    for (int window : new int[] {0, 8, 16, 32, 64, 256, 1024}) {
      double sum = 0;
      double min = 1;
      for (int r = 0; r < runs; r++) {
        double load = new LocalAlternateSimulation(buckets, window).fill(31L * r + 1);
        sum += load;
        min = Math.min(min, load);
      }
      System.out.printf("%s,%s,%.4f,%.4f%n", window == 0 ? "global" : window, window == 0 ? "-" : window * 6, sum / runs, min);
    }
  }
}
