package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;

/** Filters and metadata used as store test fixtures: distinct key ranges give distinct filters. */
final class TestFilters {
  static final List<StructField> LONG_KEY = List.of(DataTypes.createStructField("id", DataTypes.LongType, true));

  private TestFilters() {}

  /** A filter of the keys {@code from, from + 1, ..., to - 1}. */
  static CuckooFilter range(long from, long to) {
    CuckooFilter f = CuckooFilter.create(Math.max(16, to - from), 0.01);
    for (long k = from; k < to; k++) {
      if (!f.add(k)) {
        throw new IllegalStateException("fixture filter is full at key " + k);
      }
    }
    return f;
  }

  static FilterMetadata metadata(CuckooFilter f, long parent) {
    return FilterMetadata.of(f, LONG_KEY, "test keys", parent);
  }
}
