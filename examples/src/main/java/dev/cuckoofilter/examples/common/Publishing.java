package dev.cuckoofilter.examples.common;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.VersionMetadata;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;

/**
 * Publishing filters to a store and describing them, the same way from every job and subcommand. Key
 * columns are given as the JSON of their Spark schema ({@link VersionMetadata}), which the tool writes
 * without Spark and the jobs take from {@code StructType.json()}.
 */
public final class Publishing {
  /** Metadata property naming the program that published a version. */
  public static final String CREATED_BY = "createdBy";

  private Publishing() {}

  /**
   * Publishes {@code filter} as the version after {@code parent} ({@link FilterMetadata#NO_PARENT} for the first),
   * which must still be the latest version: for commands that read the location before computing the filter, so
   * that a version published meanwhile makes the publish a conflict instead of being replaced unseen.
   *
   * @throws dev.cuckoofilter.spark.store.FilterConflictException if a version after {@code parent} exists
   */
  public static FilterVersion publishOn(FilterStore store, long parent, CuckooFilter filter, String keyColumnsJson,
      String source, String createdBy, boolean newKeys) throws IOException {
    VersionMetadata metadata = VersionMetadata.of(filter, keyColumnsJson, source, parent)
        .withProperties(Map.of(CREATED_BY, createdBy));
    return newKeys ? store.publishWithNewKeys(filter, metadata) : store.publish(filter, metadata);
  }

  /** One line of statistics: entries, capacity and load, space, false-positive rate, size. */
  public static String statistics(CuckooFilter filter) {
    return String.format(Locale.ROOT, "%d entries, capacity %d (load %.3f), %.2f bits/entry, expected fpp %.3g, "
        + "%d bytes", filter.size(), filter.capacity(), filter.loadFactor(), filter.bitsPerItem(),
        filter.expectedFpp(), filter.serializedSize());
  }
}
