package dev.cuckoofilter.spark.optimizer;

import dev.cuckoofilter.spark.store.FilterVersion;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the table of a stored filter registration read its files (the root paths of its one file-based
 * relation) when a version of the filter was last considered for a join. A join side reading other files
 * cannot be served by that version, whose fingerprint names the table's files, so the registration is passed
 * over without planning the table and listing its files again. An entry is only ever a reason to skip: a
 * side reading the same roots still goes through every check, and a new version starts afresh.
 */
final class TableRoots {
  /** A registration (the table or view name) and the version of its filter. */
  record Key(String table, String location, long version, Instant createdAt) {
    Key(String table, FilterVersion version) {
      this(table, version.location(), version.version(), version.createdAt());
    }
  }

  private final Map<Key, List<String>> entries;

  TableRoots(int capacity) {
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Key, List<String>> eldest) {
        return size() > capacity;
      }
    };
  }

  /** The roots recorded for {@code key}, or null. */
  synchronized List<String> get(Key key) {
    return entries.get(key);
  }

  synchronized void put(Key key, List<String> roots) {
    entries.put(key, roots);
  }
}
