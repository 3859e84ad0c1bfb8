package dev.cuckoofilter.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TwoReadCeilingTest {
  private static final int N = 100_000;

  @Test
  void hasTheTableOfCf() {
    assertEquals(FilterKind.CF.create(N).bitSize(), FilterKind.TWO_READ_CEILING.create(N).bitSize());
  }

  @Test
  void readsWhatItWrote() {
    BenchFilter f = FilterKind.TWO_READ_CEILING.create(N);
    long[] members = Keys.members(N);
    long[] absent = Keys.nonMembers(N);
    int falsePositives = 0;
    for (long key : absent) {
      falsePositives += f.mightContain(key) ? 1 : 0;
    }
    assertEquals(0, falsePositives, "an empty table has no non-zero field to match");
    for (long key : members) {
      f.add(key);
      assertTrue(f.mightContain(key), "the key just added is in its first bucket");
    }
    for (long key : absent) {
      falsePositives += f.mightContain(key) ? 1 : 0;
    }
    // Only the first field of a bucket is ever written: about 2 in 4096 absent keys match one.
    assertTrue(falsePositives < N / 100, falsePositives + " false positives");
  }

  @Test
  void isNotCountedAsAFilter() {
    assertFalse(FilterKind.TWO_READ_CEILING.isFilter());
    assertTrue(FilterKind.CF.isFilter());
  }
}
