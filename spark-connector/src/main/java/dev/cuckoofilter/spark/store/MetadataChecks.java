package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** The validation {@link FilterMetadata} and {@link VersionMetadata} share, with the record's name in messages. */
final class MetadataChecks {
  private MetadataChecks() {}

  static void check(String record, double fpp, long itemCount, long capacity, Instant createdAt, long parentVersion,
      int formatVersion) {
    if (!(fpp >= 0 && fpp < 1)) {
      throw new IllegalArgumentException(record + ".fpp must be in [0, 1), got " + fpp);
    }
    if (itemCount < 0) {
      throw new IllegalArgumentException(record + ".itemCount must not be negative, got " + itemCount);
    }
    if (capacity < 0) {
      throw new IllegalArgumentException(record + ".capacity must not be negative, got " + capacity);
    }
    if (createdAt == null) {
      throw new IllegalArgumentException(record + ".createdAt is missing");
    }
    if (parentVersion < FilterMetadata.NO_PARENT || parentVersion == 0) {
      throw new IllegalArgumentException(record + ".parentVersion must be -1 (no parent) or a version number "
          + "(1 or more), got " + parentVersion);
    }
    if (formatVersion < 1) {
      throw new IllegalArgumentException(record + ".formatVersion must be 1 or more, got " + formatVersion);
    }
  }

  /** The properties sorted by key, so that the JSON of equal metadata is byte-identical. */
  static Map<String, String> sortedProperties(String record, Map<String, String> properties) {
    TreeMap<String, String> sorted = new TreeMap<>();
    if (properties != null) {
      for (Map.Entry<String, String> e : properties.entrySet()) {
        if (e.getKey() == null || e.getValue() == null) {
          throw new IllegalArgumentException(record + ".properties: null key or value (" + e.getKey() + " = "
              + e.getValue() + ")");
        }
        sorted.put(e.getKey(), e.getValue());
      }
    }
    return Collections.unmodifiableMap(sorted);
  }

  /** The filter's sizing target, or for a filter sized without one its expected rate at the current load. */
  static double fppOf(CuckooFilter filter) {
    double target = filter.parameters().targetFpp();
    return target > 0 ? target : Math.min(filter.expectedFpp(), Math.nextDown(1.0));
  }
}
