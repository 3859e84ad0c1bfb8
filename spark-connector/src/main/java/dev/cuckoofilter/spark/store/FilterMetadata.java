package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.io.Serializable;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What is published with each filter version (docs/STORE.md, "Metadata"). Probes use the key columns to
 * refuse keys of other types; writers use {@link #parentVersion()} for optimistic concurrency.
 *
 * @param keyColumns    names and Spark types of the key columns, in key order (several for a composite key)
 * @param fpp           the false-positive rate the filter was built for, in [0, 1)
 * @param itemCount     items in the filter ({@link CuckooFilter#size()})
 * @param capacity      table entries ({@link CuckooFilter#capacity()})
 * @param source        where the keys came from (a table, a query, a job), free text
 * @param createdAt     when the filter was built
 * @param parentVersion the version this one replaces, which must be the latest version when it is
 *                      published; {@link #NO_PARENT} for the first version of a location
 * @param formatVersion the binary format of the filter (docs/FORMAT.md)
 * @param properties    free-form pairs for tools and jobs (for example the job that built the filter)
 */
public record FilterMetadata(List<StructField> keyColumns, double fpp, long itemCount, long capacity, String source,
    Instant createdAt, long parentVersion, int formatVersion, Map<String, String> properties)
    implements Serializable {

  /** {@link #parentVersion()} of a location's first version. */
  public static final long NO_PARENT = -1;

  /**
   * Validates and copies the arguments.
   *
   * @throws IllegalArgumentException naming the field that is missing or out of range
   */
  public FilterMetadata {
    if (keyColumns == null || keyColumns.isEmpty()) {
      throw new IllegalArgumentException("FilterMetadata.keyColumns: at least one key column is needed");
    }
    for (StructField f : keyColumns) {
      if (f == null) {
        throw new IllegalArgumentException("FilterMetadata.keyColumns: contains null");
      }
      if (!KeyTypes.supported(f.dataType())) {
        throw new IllegalArgumentException("FilterMetadata.keyColumns: key column " + f.name() + " has unsupported type "
            + f.dataType().simpleString() + "; keys can be integral, boolean, float, double, decimal, string, "
            + "binary, date, timestamp or structs of these");
      }
    }
    keyColumns = List.copyOf(keyColumns);
    if (!(fpp >= 0 && fpp < 1)) {
      throw new IllegalArgumentException("FilterMetadata.fpp must be in [0, 1), got " + fpp);
    }
    if (itemCount < 0) {
      throw new IllegalArgumentException("FilterMetadata.itemCount must not be negative, got " + itemCount);
    }
    if (capacity < 0) {
      throw new IllegalArgumentException("FilterMetadata.capacity must not be negative, got " + capacity);
    }
    source = source == null ? "" : source;
    if (createdAt == null) {
      throw new IllegalArgumentException("FilterMetadata.createdAt is missing");
    }
    if (parentVersion < NO_PARENT || parentVersion == 0) {
      throw new IllegalArgumentException("FilterMetadata.parentVersion must be -1 (no parent) or a version number "
          + "(1 or more), got " + parentVersion);
    }
    if (formatVersion < 1) {
      throw new IllegalArgumentException("FilterMetadata.formatVersion must be 1 or more, got " + formatVersion);
    }
    TreeMap<String, String> sorted = new TreeMap<>();
    if (properties != null) {
      for (Map.Entry<String, String> e : properties.entrySet()) {
        if (e.getKey() == null || e.getValue() == null) {
          throw new IllegalArgumentException("FilterMetadata.properties: null key or value (" + e.getKey() + " = "
              + e.getValue() + ")");
        }
        sorted.put(e.getKey(), e.getValue());
      }
    }
    // Sorted so that the JSON of equal metadata is byte-identical.
    properties = Collections.unmodifiableMap(sorted);
  }

  /**
   * Metadata describing {@code filter}: its sizing target (or, for a filter sized without one, its
   * expected rate at the current load), item count and capacity, created now, in the current format.
   *
   * @param keyColumns    the key columns the filter was built from
   * @param source        where the keys came from
   * @param parentVersion the version the filter replaces ({@link #NO_PARENT} for a new location)
   */
  public static FilterMetadata of(CuckooFilter filter, List<StructField> keyColumns, String source,
      long parentVersion) {
    if (filter == null) {
      throw new IllegalArgumentException("FilterMetadata.of: filter is null");
    }
    double target = filter.parameters().targetFpp();
    double fpp = target > 0 ? target : Math.min(filter.expectedFpp(), Math.nextDown(1.0));
    return new FilterMetadata(keyColumns, fpp, filter.size(), filter.capacity(), source, Instant.now(), parentVersion,
        FilterFormat.VERSION, Map.of());
  }

  /** The same metadata based on another parent (to retry a publish after a {@link FilterConflictException}). */
  public FilterMetadata withParentVersion(long parent) {
    return new FilterMetadata(keyColumns, fpp, itemCount, capacity, source, createdAt, parent, formatVersion,
        properties);
  }

  /** The same metadata with other properties. */
  public FilterMetadata withProperties(Map<String, String> newProperties) {
    return new FilterMetadata(keyColumns, fpp, itemCount, capacity, source, createdAt, parentVersion, formatVersion,
        newProperties);
  }

  /** The key columns as a schema. */
  public StructType keySchema() {
    return new StructType(keyColumns.toArray(new StructField[0]));
  }
}
