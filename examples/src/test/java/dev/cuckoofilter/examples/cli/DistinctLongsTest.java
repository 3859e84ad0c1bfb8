package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The distinct values of streams with and without many duplicates, across compactions and growth. */
class DistinctLongsTest {
  @Test
  void keepsEachValueOnceInOrder() {
    for (int distinct : new int[] {0, 1, 700, 5000, 100_000}) {
      SplittableRandom random = new SplittableRandom(distinct);
      long[] pool = random.longs(distinct).toArray();
      DistinctLongs values = new DistinctLongs();
      TreeSet<Long> expected = new TreeSet<>();
      for (int i = 0; i < 3 * distinct; i++) {
        long v = pool[random.nextInt(distinct)];
        values.accept(v);
        expected.add(v);
      }
      assertArrayEquals(expected.stream().mapToLong(Long::longValue).toArray(), values.toSortedArray());
    }
  }
}
