package dev.cuckoofilter.spark.optimizer;

import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterVersion;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The stored filter versions that joins used last, so that each is read, verified and broadcast once rather
 * than by every query that probes it. A version is identified by its location, number and creation time (a
 * location cleared and published again starts at version 1 with another creation time), within one running
 * Spark application. Entries of a stopped application are dropped at the next use; an evicted entry is only
 * dropped, since a query planned with it still holds its broadcast, which Spark's context cleaner removes once
 * nothing references it.
 */
final class OpenedFilters {
  /** Opens a version: reads it and makes it probe-able in Spark. */
  interface Opener {
    SparkCuckooFilter open() throws IOException;
  }

  private record Key(String location, long version, Instant createdAt) {}

  private record Entry(SparkContext context, SparkCuckooFilter filter) {}

  private final Map<Key, Entry> entries;

  OpenedFilters(int capacity) {
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
        return size() > capacity;
      }
    };
  }

  /** The filter of {@code version} opened in {@code spark}'s application, opening it if needed. */
  synchronized SparkCuckooFilter get(SparkSession spark, FilterVersion version, Opener opener) throws IOException {
    SparkContext context = spark.sparkContext();
    entries.values().removeIf(e -> e.context().isStopped());
    Key key = new Key(version.location(), version.version(), version.createdAt());
    Entry entry = entries.get(key);
    if (entry == null || entry.context() != context) {
      entry = new Entry(context, opener.open());
      entries.put(key, entry);
    }
    return entry.filter();
  }
}
