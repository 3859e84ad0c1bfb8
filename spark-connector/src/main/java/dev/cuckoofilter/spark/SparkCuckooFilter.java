package dev.cuckoofilter.spark;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import dev.cuckoofilter.spark.expressions.FilterHandle;
import dev.cuckoofilter.spark.expressions.FilterReference;
import dev.cuckoofilter.spark.expressions.PruneMetrics;
import dev.cuckoofilter.spark.hash.CharKeys;
import dev.cuckoofilter.spark.hash.KeyTypes;
import dev.cuckoofilter.spark.hash.StructKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;
import scala.reflect.ClassTag$;

/**
 * A cuckoo filter of a dataset's keys, ready to prune other datasets: it knows its key types (to refuse
 * probes with incompatible keys), broadcasts itself once on first use (executors deserialize it once per
 * JVM), and counts the rows its prunes see and keep.
 *
 * <pre>{@code
 * SparkCuckooFilter customers = CuckooFilters.build(activeCustomers, "customer_id");
 * Dataset<Row> relevantOrders = customers.prune(orders, "customer_id");
 * }</pre>
 */
public final class SparkCuckooFilter {
  private final SparkSession session;
  /** The filter in this JVM; null when probes reach it through {@link #handle} only. */
  private final CuckooFilter filter;
  /** How probes reach a filter held elsewhere (a filter store); null for a filter in this JVM. */
  private final FilterHandle handle;
  private final List<StructField> keyFields;
  /** A key that is no column of the built dataset (a struct field, an expression), or null: see saveTo. */
  private final String keyNotAColumn;
  private Broadcast<CuckooFilter> broadcast;
  private PruneMetrics metrics;

  SparkCuckooFilter(SparkSession session, CuckooFilter filter, List<StructField> keyFields, String keyNotAColumn) {
    this(session, filter, null, keyFields, keyNotAColumn);
  }

  private SparkCuckooFilter(SparkSession session, CuckooFilter filter, FilterHandle handle,
      List<StructField> keyFields, String keyNotAColumn) {
    this.session = session;
    this.filter = filter;
    this.handle = handle;
    this.keyFields = List.copyOf(keyFields);
    this.keyNotAColumn = keyNotAColumn;
  }

  /** Wraps a filter built elsewhere (plain Java, a file) whose keys have the given names and types. */
  public static SparkCuckooFilter of(SparkSession session, CuckooFilter filter, List<StructField> keyFields) {
    return new SparkCuckooFilter(session, filter, null, keyFields, null);
  }

  /**
   * A filter that probes reach through {@code handle} (for example one that executors load from a
   * filter store), with keys of the given names and types. Its key-type checks name the handle.
   */
  public static SparkCuckooFilter of(SparkSession session, FilterHandle handle, List<StructField> keyFields) {
    return new SparkCuckooFilter(session, null, handle, keyFields, null);
  }

  /** The filter itself. For a filter reached through a handle, this obtains it in this JVM. */
  public CuckooFilter filter() {
    return filter != null ? filter : handle.filter();
  }

  /** Names and types of the columns the filter was built from. */
  public List<StructField> keyFields() {
    return keyFields;
  }

  /** The broadcast of the filter, made on first use. */
  public synchronized Broadcast<CuckooFilter> broadcast() {
    if (broadcast == null) {
      broadcast = session.sparkContext().broadcast(filter(), ClassTag$.MODULE$.apply(CuckooFilter.class));
    }
    return broadcast;
  }

  private synchronized PruneMetrics metrics() {
    if (metrics == null) {
      metrics = PruneMetrics.register(session.sparkContext(), "cuckoo filter");
    }
    return metrics;
  }

  /**
   * A boolean column: true if the key (one column per key component) may be in the filter. Keys that
   * hash otherwise than the filter's (a string probe of a long filter, say) fail at analysis, and so does a
   * struct with the fields of the filter's struct key in another order, at any depth (the same data read back
   * from JSON): a struct hashes its fields in order. {@link #prune} takes such a struct's fields by name.
   */
  public Column mightContain(Column... keys) {
    return new Column(probe(keys, null));
  }

  /** {@link #mightContain(Column...)} by column names. */
  public Column mightContain(String... keyColumns) {
    return mightContain(columns(keyColumns));
  }

  private Expression probe(Column[] keys, PruneMetrics counting) {
    List<Expression> exprs = new ArrayList<>();
    for (Column k : keys) {
      exprs.add(k.expr());
    }
    FilterReference reference = new FilterReference(handle != null ? handle : FilterHandle.of(broadcast(), filter),
        keyFields);
    return CuckooMightContain.create(reference, exprs, counting);
  }

  /**
   * The rows of {@code data} whose key may be in the filter (all rows whose key is in it, plus false
   * positives); rows with a null key component are dropped. Counts rows in and out ({@link #rowsIn()}), or
   * partitions ({@link #partitionsIn()}) when Spark prunes by partition with it.
   *
   * @throws IllegalArgumentException if the key columns' types do not match the filter's
   */
  public Dataset<Row> prune(Dataset<Row> data, Column... keys) {
    Column[] byName = structKeysAsFilters(data, keys);
    checkKeyTypes(data, byName);
    return data.where(new Column(probe(charKeysAsFilters(data, byName), metrics())));
  }

  /**
   * The keys, with a struct whose fields are the filter's struct key's in another order (at any depth) rebuilt in the
   * filter's order, its fields taken by name, as {@code FilterUpdater} reads a change: a struct key hashes its fields
   * in order, and the same struct read back from JSON (whose schema inference sorts struct fields by name) has them in
   * another order.
   */
  private Column[] structKeysAsFilters(Dataset<Row> data, Column[] keys) {
    if (keys.length != keyFields.size()) {
      return keys; // a struct against columns: positional
    }
    StructField[] probe = data.select(keys).schema().fields();
    Column[] out = keys.clone();
    for (int i = 0; i < keys.length; i++) {
      Column byName = StructKeys.byFieldName(keys[i], probe[i].dataType(), keyFields.get(i).dataType());
      if (byName != null) {
        out[i] = byName;
      }
    }
    return out;
  }

  /**
   * The keys, with a CHAR column of another length than the filter's CHAR key column brought to the
   * filter's length, and likewise the CHAR fields of a struct key (at any depth), as Spark's join compares them
   * (the shorter padded with spaces: CHAR(3) 'ab ' equals CHAR(5) 'ab   '), so that a join of the pruned rows
   * with the filter's data keeps its matches: trailing spaces dropped, then padded to the filter's length (a
   * longer value that cannot equal any is cut, at worst a false positive).
   */
  private Column[] charKeysAsFilters(Dataset<Row> data, Column[] keys) {
    if (keys.length != keyFields.size()) {
      return keys; // a struct against columns: no CHAR key to compare
    }
    StructField[] probe = data.select(keys).schema().fields();
    Column[] out = keys.clone();
    for (int i = 0; i < keys.length; i++) {
      Column brought = CharKeys.toLengths(keys[i], CharKeys.rawType(probe[i]), CharKeys.rawType(keyFields.get(i)),
          false);
      if (brought != null) {
        out[i] = brought;
      }
    }
    return out;
  }

  /** {@link #prune(Dataset, Column...)} by column names. */
  public Dataset<Row> prune(Dataset<Row> data, String... keyColumns) {
    return prune(data, columns(keyColumns));
  }

  /**
   * Publishes the filter as the next version of a stored location, with its key columns and
   * {@code source} in the metadata; its parent is the location's latest version, if any.
   *
   * @throws dev.cuckoofilter.spark.store.FilterConflictException if another writer published meanwhile
   */
  public dev.cuckoofilter.spark.store.FilterVersion saveTo(dev.cuckoofilter.spark.store.FilterStore store, String source)
      throws java.io.IOException {
    if (keyNotAColumn != null) {
      // The location records key columns by name, and updates and the jobs read those columns: a struct field
      // s.x would be recorded as x, and an update would hash another column x (or find none).
      throw new IllegalArgumentException("saveTo: the key " + keyNotAColumn + " is not a column of the dataset the "
          + "filter was built from (a struct field or an expression), but a filter location records its key columns "
          + "by name and updates read those columns; make the key a column first, e.g. selectExpr(\"s.x AS s_x\"), "
          + "and build from that. Nothing was published to " + store.location());
    }
    long parent = store.latest().map(dev.cuckoofilter.spark.store.FilterVersion::version)
        .orElse(dev.cuckoofilter.spark.store.FilterMetadata.NO_PARENT);
    return store.publish(filter(), dev.cuckoofilter.spark.store.FilterMetadata.of(filter(), keyFields, source, parent));
  }

  /**
   * Rows seen by this filter's prunes so far (after their actions ran). A prune on partition columns of a
   * partitioned file-source table probes partitions, not rows: {@link #partitionsIn()}.
   */
  public long rowsIn() {
    return metrics().rowsIn();
  }

  /** Rows kept by this filter's prunes so far. */
  public long rowsOut() {
    return metrics().rowsOut();
  }

  /**
   * Partitions seen by this filter's prunes so far: a prune whose keys are partition columns of a partitioned
   * file-source table (written with {@code partitionBy}, or {@code PARTITIONED BY}) is planned by Spark as a
   * partition filter, evaluated on the driver with each partition's values, and probes no row (with {@link
   * CuckooFilterExtensions}; without them such probes count as rows).
   */
  public long partitionsIn() {
    return metrics().partitionsIn();
  }

  /** Partitions kept by this filter's prunes so far, whose rows are read without being probed. */
  public long partitionsOut() {
    return metrics().partitionsOut();
  }

  /** Removes the broadcast from the executors and the driver. */
  public synchronized void destroy() {
    if (broadcast != null) {
      broadcast.destroy();
      broadcast = null;
    }
  }

  private void checkKeyTypes(Dataset<Row> data, Column[] keys) {
    StructField[] probe = data.select(keys).schema().fields();
    String expected = KeyTypes.flatCategories(keyFields.stream().map(StructField::dataType).toList());
    String actual = KeyTypes.flatCategories(Arrays.stream(probe).map(StructField::dataType).toList());
    if (!expected.equals(actual)) {
      throw new IllegalArgumentException("the probe keys " + describe(Arrays.asList(probe)) + " do not match the "
          + "filter's keys " + describe(keyFields) + " (hashed as " + actual + " vs " + expected + ")"
          + (handle != null ? "; filter: " + handle.describe() : ""));
    }
  }

  private static String describe(List<StructField> fields) {
    List<String> parts = new ArrayList<>();
    for (StructField f : fields) {
      parts.add(f.name() + " " + f.dataType().simpleString());
    }
    return "(" + String.join(", ", parts) + ")";
  }

  static Column[] columns(String... names) {
    Column[] cols = new Column[names.length];
    for (int i = 0; i < names.length; i++) {
      cols[i] = functions.col(names[i]);
    }
    return cols;
  }

  @Override
  public String toString() {
    return "SparkCuckooFilter" + describe(keyFields) + " " + (filter != null ? filter : handle.describe());
  }
}
