package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fill to the first failure, as in the paper (no stash): the load factor reached by (2,b)-filters.
 * Paper (section 5, Fig. 2): about 84% for b = 2, 95% for b = 4, 98% for b = 8.
 */
class LoadFactorTest {
  @ParameterizedTest(name = "b={0} (paper {1})")
  @CsvSource({"2, 0.84", "4, 0.95", "8, 0.98"})
  void fillToFailureReachesThePapersLoadFactor(int b, double paperLoad) {
    for (int f = 6; f <= 16; f++) {
      double min = 1;
      for (int trial = 0; trial < 3; trial++) {
        CuckooFilter filter = CuckooFilter.builder().bucketSize(b).fingerprintBits(f).bucketCount(1 << 14)
            .stashCapacity(0).seed(trial).build();
        SplittableRandom r = new SplittableRandom(trial * 7919L + f);
        while (filter.add(r.nextLong())) {
          // fill
        }
        min = Math.min(min, filter.loadFactor());
      }
      double reached = min;
      int width = f;
      assertTrue(reached >= paperLoad, () -> "b=" + b + " f=" + width + " reached only " + reached);
    }
  }

  @ParameterizedTest(name = "f={0}")
  @CsvSource({"5", "6", "8", "12", "13", "16"})
  void semiSortedReachesTheSameLoad(int f) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(true).fingerprintBits(f).bucketCount(1 << 13)
        .stashCapacity(0).seed(f).build();
    SplittableRandom r = new SplittableRandom(f);
    while (filter.add(r.nextLong())) {
      // fill
    }
    assertTrue(filter.loadFactor() >= 0.95, () -> "semi-sorted f=" + f + " reached only " + filter.loadFactor());
  }
}
