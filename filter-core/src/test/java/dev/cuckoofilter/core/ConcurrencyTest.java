package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
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
}
