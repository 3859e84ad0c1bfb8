package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * FilterParameters is public and feeds CanonicalBuilder directly: parameters outside the ranges of the
 * binary format are refused there, instead of building a filter its own reader rejects (or one whose
 * items have a single bucket, with an odd bucket count).
 */
class FilterParametersTest {
  static FilterParameters with(String field, Object value) {
    boolean semiSorted = field.equals("semiSorted") ? (Boolean) value : false;
    int b = field.equals("bucketSize") ? (Integer) value : 4;
    int f = field.equals("fingerprintBits") ? (Integer) value : 12;
    long m = field.equals("bucketCount") ? (Long) value : 100;
    int hash = field.equals("hashAlgorithm") ? (Integer) value : 1;
    int kicks = field.equals("maxKicks") ? (Integer) value : 500;
    int stash = field.equals("stashCapacity") ? (Integer) value : 4;
    long expected = field.equals("expectedItems") ? (Long) value : 0;
    double fpp = field.equals("targetFpp") ? (Double) value : 0.0;
    return new FilterParameters(semiSorted, b, f, m, hash, 7, kicks, stash, expected, fpp);
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
      "bucketSize, 3", "bucketSize, 16", "fingerprintBits, 3", "fingerprintBits, 33", "bucketCount, 101",
      "bucketCount, 0", "bucketCount, 4294967298", "hashAlgorithm, 2", "maxKicks, -1", "maxKicks, 1048577",
      "stashCapacity, -1", "stashCapacity, 65", "expectedItems, -1", "targetFpp, 1.0", "targetFpp, -0.5",
      "targetFpp, NaN"})
  void outOfRangeFieldsAreRefusedNamingTheField(String field, String value) {
    Object v;
    switch (field) {
      case "bucketCount":
      case "expectedItems":
        v = Long.parseLong(value);
        break;
      case "targetFpp":
        v = Double.parseDouble(value);
        break;
      default:
        v = Integer.parseInt(value);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> with(field, v));
    assertTrue(e.getMessage().contains(field) && e.getMessage().contains(value), e.getMessage());
  }

  @Test
  void semiSortedNeedsBucketSizeFour() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new FilterParameters(true, 8, 12, 100, 1, 0, 500, 4, 0, 0.0));
    assertTrue(e.getMessage().contains("semiSorted"), e.getMessage());
  }

  @Test
  void theExtremesOfEveryRangeWork() throws Exception {
    FilterParameters low = new FilterParameters(true, 4, 4, 2, 1, Long.MIN_VALUE, 0, 0, 0, 0.0);
    FilterParameters high = new FilterParameters(false, 8, 32, 1L << 32, 1, Long.MAX_VALUE, 1 << 20, 64,
        Long.MAX_VALUE, Math.nextDown(1.0));
    assertEquals(12, low.bucketBits());
    assertEquals(256, high.bucketBits());
    CanonicalBuilder builder = new CanonicalBuilder(low, false);
    builder.addHash(42);
    CuckooFilter filter = builder.build();
    assertEquals(filter, CuckooFilter.fromByteArray(filter.toByteArray()));
    // Java serialization goes through the validating constructor and round-trips.
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(high);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertEquals(high, in.readObject());
    }
  }
}
