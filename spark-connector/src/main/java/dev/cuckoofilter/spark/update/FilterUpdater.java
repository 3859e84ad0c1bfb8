package dev.cuckoofilter.spark.update;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.EntryCodes;
import dev.cuckoofilter.core.FilterFullException;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.core.sizing.Sizing;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.expressions.CuckooKeyHash;
import dev.cuckoofilter.spark.hash.CharKeys;
import dev.cuckoofilter.spark.hash.KeyTypes;
import dev.cuckoofilter.spark.hash.StructKeys;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.StoredFilter;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.reflect.ClassTag$;

/**
 * Updates a filter for a change of its dataset instead of rebuilding it. The filter is the set of
 * entries ({@link EntryCodes}) of the dataset's distinct keys, so:
 *
 * <ul>
 *   <li>an entry is removed only when no row of the new dataset produces it any more: a key is removed
 *       only when its last row is gone, and never when another key shares its entry (removing a key that
 *       was never inserted, or one whose entry another key shares, could otherwise delete that other key,
 *       as the paper warns);
 *   <li>an entry is added only when it is absent: duplicate keys and re-inserted keys are stored once;
 *   <li>a key deleted and re-added in the same change stays present, and one added and deleted again in the
 *       same change stays absent.
 * </ul>
 *
 * The heavy work runs in Spark: hashing the changed keys, and checking the deleted ones against the new
 * dataset with one scan (the candidate entries are broadcast, nothing is shuffled). The driver then
 * applies the changes, which are as large as the change, and lays the filter out canonically, so an
 * updated filter has the same bytes as a fresh build of the new dataset. When the new keys would push the
 * filter past the capacity it was sized for, it is rebuilt from the new dataset, sized with room to grow
 * at the configured false-positive rate (for a stored filter, the one its metadata records), and the
 * result says so.
 */
public final class FilterUpdater {
  /** A rebuild sizes for this many times the current distinct keys. */
  static final double GROWTH = 1.5;

  private FilterUpdater() {}

  /**
   * Applies {@code change} to {@code filter}, a filter of the key columns {@code keyColumns} of the
   * dataset before the change. {@code filter} itself is not modified. A rebuild is made for the
   * false-positive rate the filter was sized for (or, for a filter without one, the rate its table gives at
   * its design load).
   *
   * @throws IllegalArgumentException if the key columns of the added or deleted rows (or of the snapshot before)
   *     have a type that hashes otherwise than in the dataset after the change
   */
  public static UpdateResult update(CuckooFilter filter, ChangeSet change, String... keyColumns) {
    return update(filter, change, configuredFpp(0, filter), keyColumns);
  }

  /**
   * The false-positive rate a filter is kept at: {@code recordedFpp} (a stored version's metadata) if
   * known and a filter can be built for it, else the rate the filter was sized for, else (a filter sized by
   * an explicit table without a target) the rate its geometry gives at its design load.
   */
  static double configuredFpp(double recordedFpp, CuckooFilter filter) {
    if (recordedFpp > 0 && buildable(recordedFpp)) {
      return recordedFpp;
    }
    FilterParameters p = filter.parameters();
    if (p.targetFpp() > 0) {
      return p.targetFpp();
    }
    return Sizing.designFalsePositiveRate(p.bucketSize(), p.fingerprintBits(), p.bucketCount());
  }

  private static boolean buildable(double fpp) {
    try {
      CuckooFilterAggregate.checkFpp(fpp);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** {@link #update(CuckooFilter, ChangeSet, String...)}; a rebuild is made for {@code fpp}. */
  static UpdateResult update(CuckooFilter filter, ChangeSet change, double fpp, String... keyColumns) {
    if (keyColumns.length == 0) {
      throw new IllegalArgumentException("keyColumns: at least one key column is needed");
    }
    FilterParameters p = filter.parameters();
    // The keys of the dataset after the change are the ones the filter must hold: the other datasets' keys are
    // checked against their types (keys of another type hash to other entries, so an added key would be missing
    // from the filter and a deleted one would stay) and hashed as the dataset holds them.
    DataType[] types = keyTypes(change.current, keyColumns);
    String currentName = change.isSnapshots() ? "the snapshot after" : "the current dataset";
    Dataset<Long> added;
    Dataset<Long> deleted;
    if (change.isSnapshots()) {
      // Diffed as key hashes, not as selected key columns: a selected struct field ("s.x") is a column named
      // "x" that the key column's name no longer resolves, and keys of one hash are one key to the filter.
      Dataset<Long> oldKeys = hashes(change.before, keyColumns, p.seed(),
          checkedAgainst(change.before, "the snapshot before", keyColumns, types, currentName)).distinct();
      Dataset<Long> newKeys = hashes(change.current, keyColumns, p.seed(), types).distinct();
      added = newKeys.except(oldKeys);
      deleted = oldKeys.except(newKeys);
    } else {
      added = hashes(change.added, keyColumns, p.seed(),
          checkedAgainst(change.added, "the added rows", keyColumns, types, currentName));
      deleted = hashes(change.deleted, keyColumns, p.seed(),
          checkedAgainst(change.deleted, "the deleted rows", keyColumns, types, currentName));
    }
    long[] deletedCodes = distinctCodes(deleted, p);
    long[] stillProduced = producedAmong(change.current, keyColumns, p, deletedCodes, types);
    long[] addedCodes = distinctCodes(added, p);

    CuckooFilter updated = filter.copy();
    long removed = 0;
    for (long code : deletedCodes) {
      if (Arrays.binarySearch(stillProduced, code) < 0 && updated.removeEntryCode(code)) {
        removed++;
      }
    }
    long kept = stillProduced.length;
    long capacity = capacity(p);
    long inserted = 0;
    for (long code : addedCodes) {
      // A key added and deleted again within the change (in the deleted rows, and no row of the new dataset
      // produces its entry) stays out: inserting it would only add a false positive, and the result would no
      // longer have the bytes of a fresh build of the new dataset.
      if (Arrays.binarySearch(deletedCodes, code) >= 0 && Arrays.binarySearch(stillProduced, code) < 0) {
        continue;
      }
      if (!updated.containsEntryCode(code)) {
        if (updated.size() >= capacity || !updated.addEntryCode(code)) {
          String reason = updated.size() >= capacity
              ? "the new keys exceed the " + capacity + " items the filter was sized for"
              : "the filter is full";
          return rebuild(change.current, keyColumns, fpp, reason);
        }
        inserted++;
      }
    }
    CuckooFilter canonical;
    try {
      canonical = CanonicalBuilder.canonical(updated);
    } catch (FilterFullException e) {
      // Whether a nearly full table takes its entries depends on their order: a filter filled one add at a time
      // (in plain Java, up to its first failed insert) may not take them all in canonical order.
      return rebuild(change.current, keyColumns, fpp, "the filter is too full to lay out its entries canonically");
    }
    return new UpdateResult(canonical, inserted, removed, kept, false, null);
  }

  /**
   * The keys a filter was sized for: its expectedItems, or for a filter sized by its table (which records none)
   * the entries its table holds at its design load, where it has the rate it records (a fixed 90% of the entries
   * let tables of buckets of 2, designed for 84%, fill past it, above that rate).
   */
  static long capacity(FilterParameters p) {
    if (p.expectedItems() > 0) {
      return p.expectedItems();
    }
    return (long) (Sizing.designLoad(p.bucketSize(), p.fingerprintBits(), p.bucketCount()) * p.slots());
  }

  /**
   * Updates the latest version of a stored filter for {@code change} and publishes the result as the
   * next version (its parent is the version read). The key columns and their types come from the stored
   * metadata; the change's datasets must have them. So does the false-positive rate: a rebuild is made for
   * the rate the latest version's metadata records, and the new version records it again.
   *
   * @param source a description of the change, recorded in the new version's metadata
   * @throws dev.cuckoofilter.spark.store.FilterConflictException if another writer published first; read
   *     the new latest version and retry
   */
  public static Published update(FilterStore store, ChangeSet change, String source) throws IOException {
    return update(store, change, source, java.util.Map.of());
  }

  /** {@link #update(FilterStore, ChangeSet, String)} recording {@code properties} in the new version's metadata. */
  public static Published update(FilterStore store, ChangeSet change, String source,
      java.util.Map<String, String> properties) throws IOException {
    StoredFilter latest = store.readLatest();
    UpdateResult result = update(latest, change);
    return new Published(result, publish(store, latest, result, source, properties));
  }

  /**
   * Publishes {@code result}, an update of {@code base} ({@link #update(StoredFilter, ChangeSet)}), as the
   * version after {@code base}, which must still be the latest. The new version records the key columns and
   * the false-positive rate of {@code base}'s metadata, as {@link #update(FilterStore, ChangeSet, String)}
   * does; for callers that choose the base version, or report on the update before publishing it.
   *
   * @throws dev.cuckoofilter.spark.store.FilterConflictException if another version was published after
   *     {@code base}
   */
  public static FilterVersion publish(FilterStore store, StoredFilter base, UpdateResult result, String source,
      java.util.Map<String, String> properties) throws IOException {
    // The location's false-positive rate again, not the filter's own (it may carry none, or another).
    FilterMetadata metadata = new FilterMetadata(base.metadata().keyColumns(), configuredFpp(base),
        result.filter().size(), result.filter().capacity(), source, Instant.now(), base.version().version(),
        FilterFormat.VERSION, properties);
    return store.publish(result.filter(), metadata);
  }

  /**
   * Applies {@code change} to a stored version without publishing it. The key columns and their types come
   * from the version's metadata, and so does the false-positive rate: a rebuild is made for the rate the
   * metadata records (the rate the location is kept at, whatever the filter's own parameters say).
   *
   * @throws IllegalArgumentException if a dataset of the change lacks a key column or has it in a type that
   *     hashes otherwise
   */
  public static UpdateResult update(StoredFilter base, ChangeSet change) {
    List<StructField> keys = base.metadata().keyColumns();
    String location = base.version().location();
    // The stored names are column names, and the update resolves them as column expressions (col, the builder's
    // keys): quoted, so that a name with a dot or a backtick is that top-level column, not a struct field of
    // another column (whose values would be hashed instead) nor a syntax error.
    String[] names = keys.stream().map(f -> quoted(f.name())).toArray(String[]::new);
    // Struct keys hash their fields in order: a change with the stored fields in another order (JSON's schema
    // inference sorts them by name) is read by field name, as Spark reads nested Parquet columns.
    change = change.map(d -> StructKeys.inStoredOrder(d, keys));
    // Every dataset of the change: keys of another type hash to other entries, so an added key would be
    // missing from the filter (a false negative) and a deleted one would not leave it.
    if (change.isSnapshots()) {
      checkKeyTypes(change.before, "the snapshot before", keys, location);
      checkKeyTypes(change.current, "the snapshot after", keys, location);
    } else {
      checkKeyTypes(change.added, "the added rows", keys, location);
      checkKeyTypes(change.deleted, "the deleted rows", keys, location);
      checkKeyTypes(change.current, "the current dataset", keys, location);
    }
    return update(base.filter(), change.map(d -> floatKeysAsStored(charKeysAsStored(d, keys), keys)),
        configuredFpp(base), names);
  }

  /**
   * {@code data} with each {@code double} key column (or struct field, at any depth) at the place of a stored
   * {@code float} key cast to {@code float}, as Spark stores such a value in the filter's column: a double 0.1 of a JSON
   * or CSV change feed, or of a DataFrame of the rows appended to a {@code float} table, is the float 0.1f there, which
   * the build hashed and probes of the table hash (as the double 0.10000000149...), not the double 0.1.
   */
  private static Dataset<Row> floatKeysAsStored(Dataset<Row> data, List<StructField> keys) {
    for (StructField key : keys) {
      StructField given = column(data, key.name());
      DataType narrowed = floatsAsStored(given.dataType(), key.dataType());
      if (narrowed != null) {
        data = data.withColumn(given.name(), data.col(quoted(key.name())).cast(narrowed));
      }
    }
    return data;
  }

  /** {@code given} with its doubles at the places of {@code stored}'s floats made floats; null if there are none. */
  private static DataType floatsAsStored(DataType given, DataType stored) {
    if (given instanceof DoubleType && stored instanceof FloatType) {
      return DataTypes.FloatType;
    }
    if (given instanceof StructType g && stored instanceof StructType st && g.fields().length == st.fields().length) {
      StructField[] fields = g.fields().clone();
      boolean changed = false;
      for (int i = 0; i < fields.length; i++) {
        DataType narrowed = floatsAsStored(fields[i].dataType(), st.fields()[i].dataType());
        if (narrowed != null) {
          fields[i] = new StructField(fields[i].name(), narrowed, fields[i].nullable(), fields[i].metadata());
          changed = true;
        }
      }
      return changed ? new StructType(fields) : null;
    }
    return null;
  }

  /**
   * {@code data} with each key column that is not a CHAR of the stored CHAR key's length (a CHAR of another
   * length, a STRING, a VARCHAR) brought to the stored length (trailing spaces dropped, then padded), as Spark
   * stores such a value in the filter's column: a CHAR(5) 'cd   ' or a STRING 'cd' added to a CHAR(3) table is
   * 'cd ', which the build hashed and which probes hash, not 'cd   ' or 'cd'. Likewise the fields of a struct key
   * column at the places of the stored struct key's CHAR fields (at any depth).
   */
  private static Dataset<Row> charKeysAsStored(Dataset<Row> data, List<StructField> keys) {
    for (StructField key : keys) {
      Column column = data.col(quoted(key.name()));
      Column brought = CharKeys.toLengths(column, CharKeys.rawType(column(data, key.name())), CharKeys.rawType(key),
          true);
      if (brought != null) {
        data = data.withColumn(key.name(), brought);
      }
    }
    return data;
  }

  private static double configuredFpp(StoredFilter stored) {
    return configuredFpp(stored.metadata().fpp(), stored.filter());
  }

  /** An update and the version it was published as. */
  public record Published(UpdateResult result, FilterVersion version) {}

  private static void checkKeyTypes(Dataset<Row> data, String what, List<StructField> keys, String location) {
    for (StructField key : keys) {
      StructField actual = columnOrNull(data, key.name());
      if (actual == null) {
        throw new IllegalArgumentException(what + " of the change have no key column " + key.name()
            + " of the filter at " + location + "; their columns are " + String.join(", ", data.schema().fieldNames()));
      }
      if (!KeyTypes.category(actual.dataType()).equals(KeyTypes.category(key.dataType()))) {
        throw new IllegalArgumentException("key column " + key.name() + " is " + actual.dataType().simpleString()
            + " in " + what + " of the change but " + key.dataType().simpleString() + " in the filter at " + location);
      }
    }
  }

  /** {@code name} as a column expression naming exactly that top-level column (not a struct field of another). */
  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /**
   * The column {@code name} of {@code data}, resolved as the update's column expressions resolve it: ignoring
   * case unless {@code spark.sql.caseSensitive} (a filter built with keys("K") from a column k records K).
   */
  private static StructField column(Dataset<Row> data, String name) {
    return data.select(functions.col(quoted(name))).schema().fields()[0];
  }

  /** {@link #column}, or null where {@code data} has no such column. */
  private static StructField columnOrNull(Dataset<Row> data, String name) {
    try {
      return column(data, name);
    } catch (Exception e) { // Spark's AnalysisException, which Java sees as checked
      if (e instanceof AnalysisException) {
        return null;
      }
      throw e;
    }
  }

  private static UpdateResult rebuild(Dataset<Row> current, String[] keyColumns, double fpp, String reason) {
    // Sized for the new keys with room to grow, at the false-positive rate the filter is kept at.
    SparkCuckooFilter rebuilt = CuckooFilters.builder(current).keys(keyColumns).headroom(GROWTH).fpp(fpp).build();
    return new UpdateResult(rebuilt.filter(), rebuilt.filter().size(), 0, 0, true, reason);
  }

  private static Dataset<Row> keys(Dataset<Row> data, String[] keyColumns) {
    Column[] cols = new Column[keyColumns.length];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = functions.col(keyColumns[i]);
    }
    return data.select(cols);
  }

  /** The types of the key columns of {@code data}. */
  private static DataType[] keyTypes(Dataset<Row> data, String[] keyColumns) {
    StructField[] fields = keys(data, keyColumns).schema().fields();
    DataType[] types = new DataType[fields.length];
    for (int i = 0; i < fields.length; i++) {
      types[i] = fields[i].dataType();
    }
    return types;
  }

  /**
   * {@code types} (the key types of the dataset after the change), after checking that the key columns of
   * {@code data} hash like them (int and long alike, float and double alike, decimals of the same scale).
   *
   * @throws IllegalArgumentException naming the key column, both datasets and both types if one does not
   */
  private static DataType[] checkedAgainst(Dataset<Row> data, String what, String[] keyColumns, DataType[] types,
      String currentName) {
    DataType[] actual = keyTypes(data, keyColumns);
    for (int i = 0; i < types.length; i++) {
      if (!KeyTypes.category(actual[i]).equals(KeyTypes.category(types[i]))) {
        throw new IllegalArgumentException("key column " + keyColumns[i] + " is " + actual[i].simpleString() + " in "
            + what + " of the change but " + types[i].simpleString() + " in " + currentName + " (" + KeyTypes.category(
            actual[i]) + " values do not hash like " + KeyTypes.category(types[i]) + " values)");
      }
    }
    return types;
  }

  /**
   * The non-null key hashes of {@code data} under the contract with {@code seed}, its {@code double} keys (or
   * struct fields) at the places of {@code float}s of {@code types} (the dataset after the change) cast to
   * {@code float}, as that dataset holds them.
   */
  private static Dataset<Long> hashes(Dataset<Row> data, String[] keyColumns, long seed, DataType[] types) {
    Dataset<Row> keys = keys(data, keyColumns);
    StructField[] fields = keys.schema().fields();
    List<Expression> columns = new ArrayList<>(list(keys.queryExecution().analyzed().output()));
    Column[] cast = new Column[fields.length];
    boolean changed = false;
    for (int i = 0; i < fields.length; i++) {
      DataType narrowed = floatsAsStored(fields[i].dataType(), types[i]);
      cast[i] = new Column(columns.get(i)); // by position: two keys may have one name (s.x and t.x)
      if (narrowed != null) {
        cast[i] = cast[i].cast(narrowed).as(fields[i].name());
        changed = true;
      }
    }
    if (changed) {
      keys = keys.select(cast);
    }
    List<Expression> attributes = new ArrayList<>(list(keys.queryExecution().analyzed().output()));
    Column hash = new Column(new CuckooKeyHash(seq(attributes), seed));
    return keys.select(hash.as("h")).where(functions.col("h").isNotNull()).as(Encoders.LONG());
  }

  /** The distinct entry codes of the hashes, sorted: computed in Spark, collected (change-sized). */
  private static long[] distinctCodes(Dataset<Long> hashes, FilterParameters p) {
    Dataset<Long> codes = hashes.mapPartitions((MapPartitionsFunction<Long, Long>) it -> {
      List<Long> out = new ArrayList<>();
      while (it.hasNext()) {
        out.add(EntryCodes.ofHash(p, it.next()));
      }
      return out.iterator();
    }, Encoders.LONG()).distinct();
    return sortedArray(codes.collectAsList());
  }

  /**
   * Which of {@code candidates} some row of {@code data} still produces: one scan of {@code data} with
   * the candidates broadcast; nothing is shuffled but the (few) matches.
   */
  private static long[] producedAmong(Dataset<Row> data, String[] keyColumns, FilterParameters p, long[] candidates,
      DataType[] types) {
    if (candidates.length == 0) {
      return candidates;
    }
    Broadcast<long[]> wanted = data.sparkSession().sparkContext().broadcast(candidates,
        ClassTag$.MODULE$.apply(long[].class));
    try {
      Dataset<Long> matches = hashes(data, keyColumns, p.seed(), types).mapPartitions((MapPartitionsFunction<Long, Long>) it -> {
        long[] sorted = wanted.value();
        List<Long> out = new ArrayList<>();
        while (it.hasNext()) {
          long code = EntryCodes.ofHash(p, it.next());
          if (Arrays.binarySearch(sorted, code) >= 0) {
            out.add(code);
          }
        }
        return out.iterator();
      }, Encoders.LONG()).distinct();
      return sortedArray(matches.collectAsList());
    } finally {
      wanted.destroy();
    }
  }

  private static long[] sortedArray(List<Long> values) {
    long[] out = new long[values.size()];
    Iterator<Long> it = values.iterator();
    for (int i = 0; i < out.length; i++) {
      out[i] = it.next();
    }
    Arrays.sort(out);
    return out;
  }
}
