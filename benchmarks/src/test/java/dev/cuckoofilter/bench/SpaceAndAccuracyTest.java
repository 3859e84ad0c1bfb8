package dev.cuckoofilter.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The space and accuracy measurement tells refused keys, lost keys and false positives apart. */
class SpaceAndAccuracyTest {
  private static final int N = 20_000;
  private static final long[] MEMBERS = Keys.members(N);
  private static final long[] PROBES = Keys.nonMembers(200_000);

  /** An exact set that refuses every tenth key and, optionally, forgets one key it accepted. */
  private static BenchFilter exactSet(long forgotten) {
    Set<Long> keys = new HashSet<>();
    return new BenchFilter() {
      private int adds;

      @Override
      public boolean add(long key) {
        if (adds++ % 10 == 9) {
          return false;
        }
        keys.add(key);
        return true;
      }

      @Override
      public boolean mightContain(long key) {
        return key != forgotten && keys.contains(key);
      }

      @Override
      public long bitSize() {
        return 64L * keys.size();
      }
    };
  }

  @Test
  void refusedKeysAreCountedAndNotTakenForFalseNegatives() {
    SpaceAndAccuracy.Row row = SpaceAndAccuracy.measure(N, FilterKind.CUCKOOFILTER4J, exactSet(0), MEMBERS, PROBES);
    assertEquals(N / 10, row.refused());
    assertEquals(0, row.falseNegatives());
    assertEquals(0, row.falsePositives());
  }

  @Test
  void anotherLibrarysLostKeyIsReported() {
    SpaceAndAccuracy.Row row = SpaceAndAccuracy.measure(N, FilterKind.CUCKOOFILTER4J, exactSet(MEMBERS[0]), MEMBERS,
        PROBES);
    assertEquals(1, row.falseNegatives());
    assertEquals(N / 10, row.refused());
  }

  @Test
  void aLostKeyInThisProjectsFilterFailsTheRun() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> SpaceAndAccuracy.measure(N, FilterKind.CF, exactSet(MEMBERS[0]), MEMBERS, PROBES));
    assertTrue(e.getMessage().contains("CF at n=" + N + ": 1 false negatives, the first for " + MEMBERS[0]),
        e.getMessage());
  }

  @Test
  void ourFilterDeliversItsSpaceAndRate() {
    SpaceAndAccuracy.Row row = SpaceAndAccuracy.measure(N, FilterKind.CF, MEMBERS, PROBES);
    assertEquals(0, row.refused());
    assertEquals(0, row.falseNegatives());
    // f = 12, b = 4 at about 95% load: 12.6-12.7 bits per key and an expected rate of about 0.19%.
    assertTrue(row.bitsPerKey() > 12.5 && row.bitsPerKey() < 12.8, "bits per key " + row.bitsPerKey());
    assertTrue(row.fpr() > 0.0010 && row.fpr() < 0.0028, "false-positive rate " + row.fpr());
  }
}
