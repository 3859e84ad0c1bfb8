package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Concurrent lookups on a filter no thread modifies (the broadcast case) are safe. */
class ConcurrencyTest {
  @ParameterizedTest(name = "semiSorted={0} stashed={1}")
  @CsvSource({"false, false", "true, false", "false, true"})
  void concurrentLookupsAgreeWithSingleThreadedOnes(boolean semiSorted, boolean stashed) throws Exception {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).expectedItems(200_000).fpp(0.01)
        .maxKicks(stashed ? 2 : 500).build();
    long n = 0;
    while (filter.add(n)) {
      n++;
      if (!stashed && n == 200_000) {
        break;
      }
    }
    long items = n;
    long queries = 400_000;
    boolean[] expected = new boolean[(int) queries];
    for (int q = 0; q < queries; q++) {
      expected[q] = filter.mightContain(q * 3L) && filter.count(q * 3L) > 0;
    }
    int threads = 6;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<boolean[]>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t;
        results.add(pool.submit(() -> {
          boolean[] seen = new boolean[(int) queries];
          for (int round = 0; round < 3; round++) {
            // Each thread walks the queries in a different order.
            for (int k = 0; k < queries; k++) {
              int q = (int) ((k + offset * 65_537L) % queries);
              seen[q] = filter.mightContain(q * 3L) && filter.count(q * 3L) > 0;
            }
          }
          for (long i = 0; i < items; i++) {
            if (!filter.mightContain(i)) {
              throw new AssertionError("false negative for " + i);
            }
          }
          return seen;
        }));
      }
      for (Future<boolean[]> f : results) {
        assertArrayEquals(expected, f.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(items, filter.size());
  }

  /**
   * Batched lookups use a per-thread scratch block: several threads running mightContainAll and
   * mightContainHashes at once, interleaved with per-item mightContain and count, all get the
   * single-threaded answers. Ranges of random length cross the 256-key block boundaries.
   */
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2} segmentBytes={3} stashed={4}")
  @CsvSource({
      "false, 4, 12, 1073741824, false", // one window per bucket: the packed table's own batched probe
      "false, 4, 19, 1073741824, false", // two windows per bucket: the generic batched probe
      "false, 4, 8, 1073741824, false", // an 80 KB table keeps the table of alternate offsets
      "true, 4, 13, 1073741824, false",
      "false, 4, 12, 4096, false", // several segments
      "false, 4, 12, 1073741824, true"}) // a stash: batched lookups go item by item
  void concurrentBatchedLookupsAgreeWithSingleThreadedOnes(boolean semiSorted, int b, int f, int segmentBytes,
      boolean stashed) throws Exception {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(20_000).maxSegmentBytes(segmentBytes).maxKicks(stashed ? 2 : 500).seed(f).build();
    SplittableRandom r = new SplittableRandom(f);
    int queries = 100_000;
    long[] keys = new long[queries];
    int members = 0;
    while (filter.loadFactor() < 0.9 && (!stashed || filter.stashSize() == 0)) {
      long key = r.nextLong();
      if (filter.add(key) && members < queries / 2) {
        keys[2 * members++] = key;
      }
    }
    assertEquals(stashed, filter.stashSize() > 0);
    // Odd slots (and even ones past the members) are random keys, mostly absent.
    for (int q = 0; q < queries; q++) {
      if (q % 2 == 1 || q / 2 >= members) {
        keys[q] = r.nextLong();
      }
    }
    long[] hashes = new long[queries];
    boolean[] expected = new boolean[queries];
    int[] expectedCounts = new int[queries];
    for (int q = 0; q < queries; q++) {
      hashes[q] = CuckooHash.hashLong(keys[q], filter.seed());
      expected[q] = filter.mightContain(keys[q]);
      expectedCounts[q] = filter.count(keys[q]);
    }
    byte[] before = filter.toByteArray();
    int threads = 4;
    CountDownLatch start = new CountDownLatch(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<boolean[]>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        SplittableRandom own = new SplittableRandom(100 + t);
        results.add(pool.submit(() -> {
          boolean[] seen = new boolean[queries];
          start.countDown();
          start.await();
          for (int round = 0; round < 2; round++) {
            int from = 0;
            while (from < queries) {
              int to = Math.min(queries, from + 1 + own.nextInt(1000));
              int kind = own.nextInt(3);
              int found = kind == 0 ? filter.mightContainAll(keys, from, to, seen)
                  : kind == 1 ? filter.mightContainHashes(hashes, from, to, seen) : 0;
              int positives = 0;
              for (int q = from; q < to; q++) {
                positives += expected[q] ? 1 : 0;
                if (kind == 2) {
                  seen[q] = filter.mightContain(keys[q]);
                  found += seen[q] ? 1 : 0;
                  int count = filter.count(keys[q]);
                  if (count != expectedCounts[q]) {
                    throw new AssertionError("count of query " + q + ": " + count + ", expected " + expectedCounts[q]);
                  }
                } else if (seen[q] != expected[q]) {
                  throw new AssertionError("batched answer for query " + q + " (kind " + kind + ") differs");
                }
              }
              if (found != positives) {
                throw new AssertionError("range [" + from + ", " + to + ") found " + found + ", expected " + positives);
              }
              from = to;
            }
          }
          return seen;
        }));
      }
      for (Future<boolean[]> result : results) {
        assertArrayEquals(expected, result.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertArrayEquals(before, filter.toByteArray(), "lookups leave the filter unchanged");
  }
}
