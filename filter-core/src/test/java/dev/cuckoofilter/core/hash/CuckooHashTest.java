package dev.cuckoofilter.core.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CuckooHashTest {
  @Test
  void integralValuesHashAlikeWhateverTheirWidth() {
    for (long seed : new long[] {0, 1, -7, 0x1234_5678_9ABCL}) {
      for (long v : new long[] {0, 1, -1, 127, -128, 32767, -32768, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
        long h = CuckooHash.hashLong(v, seed);
        if (v == (byte) v) {
          assertEquals(h, CuckooHash.hashLong((byte) v, seed));
        }
        if (v == (short) v) {
          assertEquals(h, CuckooHash.hashLong((short) v, seed));
        }
        assertEquals(h, CuckooHash.hashLong((int) v, seed));
      }
    }
  }

  /** Pins the contract: these values must never change, filters on disk depend on them. */
  @Test
  void contractValuesArePinned() {
    assertEquals(0L, CuckooHash.hashLong(0, 0));
    // hashLong is SplitMix64's finalizer: SplittableRandom(0)'s first output is mix64(0 + golden gamma).
    assertEquals(new java.util.SplittableRandom(0).nextLong(), CuckooHash.hashLong(0x9E3779B97F4A7C15L, 0));
    assertEquals(new java.util.SplittableRandom(5).nextLong(), CuckooHash.hashLong(5 + 0x9E3779B97F4A7C15L, 0));
    assertEquals(0xef46db3751d8e999L, CuckooHash.hashBytes(new byte[0], 0));
    assertEquals(0x44bc2cf5ad770999L, CuckooHash.hashString("abc", 0));
    assertEquals(CuckooHash.hashBytes("abc".getBytes(StandardCharsets.UTF_8), 99), CuckooHash.hashString("abc", 99));
  }

  /** Pins the alternate bucket too, with and without the wrap-around below bucket 0: files depend on it. */
  @Test
  void alternateValuesArePinned() {
    assertEquals(93L, Addressing.alternate(0, 1, 1000));
    assertEquals(94L, Addressing.alternate(999, 1, 1000)); // 93 - 999 wraps around
    assertEquals(486L, Addressing.alternate(5, 4095, 1000));
    assertEquals(67_344_979L, Addressing.alternate(123_456_788L, 2049, 123_456_790L)); // wraps
    assertEquals(1L, Addressing.alternate(0, 3, 2));
    assertEquals(3_753_418_510L, Addressing.alternate((1L << 32) - 1, 77, 1L << 32)); // wraps
  }

  /** Filters may look offsets up in a table instead of computing them: the table must be the formula. */
  @Test
  void offsetTableIsTheFormula() {
    for (long m : new long[] {2, 1000, 123_456_790L, Integer.MAX_VALUE - 1L}) {
      for (int f : new int[] {4, 8, 12, 16}) {
        int[] offsets = Addressing.offsets(f, m);
        assertEquals(1 << f, offsets.length);
        for (int fp = 0; fp < offsets.length; fp++) {
          assertEquals(Addressing.offset(fp, m), offsets[fp]);
          for (long b : new long[] {0, m / 3, m - 1}) {
            assertEquals(Addressing.alternate(b, fp, m), Addressing.alternateAt(b, offsets[fp], m));
          }
        }
      }
    }
    assertThrows(IllegalArgumentException.class, () -> Addressing.offsets(12, Integer.MAX_VALUE + 1L));
  }

  @Test
  void longHashIsABijectionAndSeedsDiffer() {
    Set<Long> seen = new HashSet<>();
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < 200_000; i++) {
      assertTrue(seen.add(CuckooHash.hashLong(i, 17)));
    }
    for (int i = 0; i < 1000; i++) {
      long v = r.nextLong();
      assertNotEquals(CuckooHash.hashLong(v, 1), CuckooHash.hashLong(v, 2));
    }
  }

  @Test
  void addressingStaysInRangeAndAlternateIsADistinctInvolution() {
    SplittableRandom r = new SplittableRandom(7);
    long[] sizes = {2, 4, 6, 1000, 123_456_790L, (1L << 31) + 2, (1L << 32) - 2, 1L << 32};
    for (long m : sizes) {
      for (int f : new int[] {4, 12, 32}) {
        for (int i = 0; i < 20_000; i++) {
          long h = r.nextLong();
          long b = Addressing.bucketIndex(h, m);
          long fp = Addressing.fingerprint(h, f);
          assertTrue(b >= 0 && b < m, "bucket in range");
          assertTrue(fp >= 1 && fp <= (1L << f) - 1, "fingerprint in range");
          long alt = Addressing.alternate(b, fp, m);
          assertTrue(alt >= 0 && alt < m, "alternate in range");
          assertNotEquals(b, alt, "two distinct buckets");
          assertEquals(b, Addressing.alternate(alt, fp, m), "alternate of alternate");
        }
      }
    }
  }
}
