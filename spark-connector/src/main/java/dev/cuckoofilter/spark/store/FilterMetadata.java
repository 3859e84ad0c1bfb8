package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What is published with each filter version (docs/STORE.md, "Metadata"). Probes use the key columns to
 * refuse keys of other types; writers use {@link #parentVersion()} for optimistic concurrency. The
 * commit record holds the same metadata with the key columns as JSON ({@link VersionMetadata}), which
 * is what tools without Spark read and write.
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
            + f.dataType().simpleString() + "; keys can be " + KeyTypes.SUPPORTED_TYPES);
      }
    }
    keyColumns = List.copyOf(keyColumns);
    MetadataChecks.check("FilterMetadata", fpp, itemCount, capacity, createdAt, parentVersion, formatVersion);
    source = source == null ? "" : source;
    properties = MetadataChecks.sortedProperties("FilterMetadata", properties);
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
    return new FilterMetadata(keyColumns, MetadataChecks.fppOf(filter), filter.size(), filter.capacity(), source,
        Instant.now(), parentVersion, FilterFormat.VERSION, Map.of());
  }

  /**
   * The typed form of metadata read without Spark: the key columns' JSON parsed as a Spark schema.
   *
   * @throws IllegalArgumentException if the JSON is not a schema Spark reads, or a key type is unsupported
   */
  public static FilterMetadata fromVersionMetadata(VersionMetadata m) {
    if (m == null) {
      throw new IllegalArgumentException("FilterMetadata.fromVersionMetadata: metadata is null");
    }
    DataType keys;
    try {
      keys = DataType.fromJson(m.keyColumnsJson());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("metadata.keyColumns is not a Spark schema (" + e.getMessage() + ")", e);
    }
    if (!(keys instanceof StructType)) {
      throw new IllegalArgumentException("metadata.keyColumns is not a struct schema but " + keys.simpleString());
    }
    return new FilterMetadata(List.of(((StructType) keys).fields()), m.fpp(), m.itemCount(), m.capacity(), m.source(),
        m.createdAt(), m.parentVersion(), m.formatVersion(), m.properties());
  }

  /** This metadata as its commit record holds it, with the key columns as Spark schema JSON. */
  public VersionMetadata toVersionMetadata() {
    return new VersionMetadata(keySchema().json(), fpp, itemCount, capacity, source, createdAt, parentVersion,
        formatVersion, properties);
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
