package dev.cuckoofilter.spark;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.execution.PartialBuilds;
import dev.cuckoofilter.spark.expressions.CuckooKeyHash;
import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import dev.cuckoofilter.spark.expressions.PruneMetrics;
import dev.cuckoofilter.spark.hash.CharKeys;
import dev.cuckoofilter.spark.hash.KeyTypes;
import dev.cuckoofilter.spark.optimizer.CuckooFilterHint;
import dev.cuckoofilter.spark.optimizer.CuckooRuntimeFilterRule;
import dev.cuckoofilter.spark.prune.FilterSubquery;
import dev.cuckoofilter.spark.prune.JoinKeys;
import dev.cuckoofilter.spark.prune.JoinPruning;
import dev.cuckoofilter.spark.sql.CuckooSqlFunctions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset$;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.TypedColumn;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SQLExecution$;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import scala.Option;
import scala.runtime.AbstractFunction0;

/**
 * The DataFrame API. The common path is one call, lazy like any transformation (the filter is built by the
 * query that uses the result):
 *
 * <pre>{@code
 * Dataset<Row> pruned = CuckooFilters.prune(orders, activeCustomers, "customer_id");
 * Dataset<Row> joined = CuckooFilters.join(orders, activeCustomers, List.of("customer_id"), "inner");
 * }</pre>
 *
 * and the parts are available for filters that are kept around:
 *
 * <pre>{@code
 * SparkCuckooFilter f = CuckooFilters.builder(activeCustomers).keys("customer_id").fpp(0.001).build();
 * orders.where(f.mightContain(col("customer_id")));
 * df.groupBy("region").agg(CuckooFilters.filterOf(col("customer_id")));   // BINARY filter per group
 * byte[] bytes = customers.select(CuckooFilters.<Customer>typedFilterOf(col("id"))).first(); // typed Dataset
 * }</pre>
 *
 * Composite keys are several columns (or a struct); null keys never match and are left out.
 */
public final class CuckooFilters {
  private CuckooFilters() {}

  /**
   * An aggregate column: the serialized filter (docs/FORMAT.md) of the distinct non-null keys, sized
   * from the exact distinct count. Works in {@code agg}, {@code groupBy().agg}, and SQL as
   * {@code cuckoo_filter(key)}.
   */
  public static Column filterOf(Column... keys) {
    return filterOf(0, CuckooFilterAggregate.DEFAULT_FPP, keys);
  }

  /**
   * {@link #filterOf(Column...)} sized for {@code expectedItems} keys (0: the exact distinct count) at
   * false-positive rate {@code fpp}.
   *
   * @throws IllegalArgumentException if no filter can have that size or rate
   */
  public static Column filterOf(long expectedItems, double fpp, Column... keys) {
    if (expectedItems != 0) {
      CuckooFilterAggregate.checkFpp(fpp);
      CuckooFilterAggregate.checkExpectedItems(expectedItems, fpp);
    } else {
      CuckooFilterAggregate.checkFppSizedFromData(fpp);
    }
    List<Expression> exprs = new ArrayList<>();
    for (Column k : keys) {
      exprs.add(k.expr());
    }
    return new Column(CuckooFilterAggregate.create(exprs, expectedItems, fpp).toAggregateExpression());
  }

  /**
   * The typed form of {@link #filterOf(Column...)}, for the typed Dataset API: the same native aggregate
   * (same speed, same bytes) as a {@code TypedColumn} whose value is the serialized filter. The key
   * columns are columns of the Dataset (for a bean, its properties).
   *
   * <pre>{@code
   * Dataset<Customer> customers = df.as(Encoders.bean(Customer.class));
   * byte[] all = customers.select(CuckooFilters.<Customer>typedFilterOf(col("id"))).first();
   * Dataset<Tuple2<String, byte[]>> perRegion = customers
   *     .groupByKey((MapFunction<Customer, String>) Customer::getRegion, Encoders.STRING())
   *     .agg(CuckooFilters.typedFilterOf(col("id")));
   * CuckooFilter f = CuckooFilter.fromByteArray(all);
   * }</pre>
   *
   * @param <T> the Dataset's element type (any: the column reads the Dataset's columns, not its objects)
   */
  public static <T> TypedColumn<T, byte[]> typedFilterOf(Column... keys) {
    return typed(filterOf(keys));
  }

  /**
   * {@link #typedFilterOf(Column...)} sized for {@code expectedItems} keys (0: the exact distinct count) at
   * false-positive rate {@code fpp}.
   *
   * @param <T> the Dataset's element type
   * @throws IllegalArgumentException if no filter can have that size or rate
   */
  public static <T> TypedColumn<T, byte[]> typedFilterOf(long expectedItems, double fpp, Column... keys) {
    return typed(filterOf(expectedItems, fpp, keys));
  }

  @SuppressWarnings("unchecked")
  private static <T> TypedColumn<T, byte[]> typed(Column aggregate) {
    // TypedColumn is contravariant in its input type in Scala; Java needs the cast to see it.
    return (TypedColumn<T, byte[]>) (TypedColumn<?, byte[]>) aggregate.as(Encoders.BINARY());
  }

  /** Builds a filter of the distinct keys of {@code data} (sized from an approximate distinct count). */
  public static SparkCuckooFilter build(Dataset<?> data, String... keyColumns) {
    return builder(data).keys(keyColumns).build();
  }

  /** A builder for a filter of {@code data}'s keys. */
  public static Builder builder(Dataset<?> data) {
    return new Builder(data);
  }

  /**
   * The rows of {@code big} whose key may occur in {@code small}, at a false-positive rate of 0.01: see
   * {@link #prune(Dataset, Dataset, double, String...)}.
   */
  public static Dataset<Row> prune(Dataset<Row> big, Dataset<?> small, String... keyColumns) {
    return prune(big, small, CuckooFilterAggregate.DEFAULT_FPP, keyColumns);
  }

  /**
   * The rows of {@code big} whose key may occur in {@code small}, filtered before any shuffle. Lazy, like
   * any transformation: the filter of {@code small}'s distinct keys is built when a query of the result
   * runs, in a scalar subquery ({@code cuckoo_filter} sized from the exact distinct count), and reaches
   * the executors with the tasks. In a join of the result with {@code small}, Spark's constraint
   * propagation copies the predicate to {@code small}'s side, where {@link CuckooFilterExtensions} removes
   * it again. Both sides use the same key column names. The probe counts the rows it sees and keeps ({@link
   * #pruneMetrics}, accumulators named {@code cuckoo filter on <keys>}); where a copy on {@code small}'s side
   * stays (without the extensions, or in a self-join), it counts that side's rows too.
   *
   * @param fpp the filter's false-positive rate, in (0, 1)
   */
  public static Dataset<Row> prune(Dataset<Row> big, Dataset<?> small, double fpp, String... keyColumns) {
    CuckooMightContain probe = probe(big, small, fpp, keyColumns);
    // Named by the columns as resolved (a quoted `a.b` is a.b), like the rule's filters.
    String[] names = big.select(java.util.Arrays.stream(keyColumns).map(big::col).toArray(Column[]::new)).columns();
    PruneMetrics counts = PruneMetrics.register(big.sparkSession().sparkContext(),
        "cuckoo filter on " + String.join(", ", names));
    return big.where(new Column(probe.withMetrics(counts)));
  }

  /** The probe of {@code big}'s keys by a filter of {@code small}'s, after checking both sides' keys. */
  private static CuckooMightContain probe(Dataset<Row> big, Dataset<?> small, double fpp, String... keyColumns) {
    CuckooFilterAggregate.checkFppSizedFromData(fpp); // the filter is sized from small's distinct count
    if (keyColumns.length == 0) {
      throw new IllegalArgumentException("prune: at least one key column is needed");
    }
    Column notNull = small.col(keyColumns[0]).isNotNull();
    for (int i = 1; i < keyColumns.length; i++) {
      notNull = notNull.and(small.col(keyColumns[i]).isNotNull());
    }
    // The filter's subquery reads small once more: a small side that may give other rows at each read (a
    // limit, a sample, rand()) could leave out keys the join then matches.
    if (!JoinPruning.repeatable(small.queryExecution().optimizedPlan())) {
      throw new IllegalArgumentException("prune: the side the filter is built from is not repeatable (a limit, sample, "
          + "non-deterministic expression such as rand(), or an order-dependent window or aggregate): the filter's "
          + "read of it may hold other keys than the join's; checkpoint() it or build the filter explicitly with "
          + "CuckooFilters.builder(...).build()");
    }
    // Null keys are never in a filter: dropping them first spares the build their rows.
    Dataset<?> creation = small.where(notNull);
    List<Expression> creationKeys = new ArrayList<>();
    List<Expression> bigKeys = new ArrayList<>();
    Column[] creationColumns = new Column[keyColumns.length];
    Column[] bigColumns = new Column[keyColumns.length];
    for (int i = 0; i < keyColumns.length; i++) {
      creationColumns[i] = creation.col(keyColumns[i]);
      creationKeys.add(creationColumns[i].expr());
      bigColumns[i] = big.col(keyColumns[i]);
      bigKeys.add(bigColumns[i].expr());
    }
    StructField[] creationFields = creation.select(creationColumns).schema().fields();
    checkKeyTypes(creationFields);
    StructField[] bigFields = big.select(bigColumns).schema().fields();
    checkKeyTypes(bigFields);
    List<DataType> creationTypes = java.util.Arrays.stream(creationFields).map(StructField::dataType).toList();
    List<DataType> bigTypes = java.util.Arrays.stream(bigFields).map(StructField::dataType).toList();
    if (!KeyTypes.hashAlike(creationTypes, bigTypes)) {
      // A join would compare such keys after a cast; the filter hashes them as they are and would drop matches.
      throw new IllegalArgumentException("prune: the keys of the pruned side " + describe(bigFields)
          + " do not hash like the keys of the side the filter is built from " + describe(creationFields) + " ("
          + KeyTypes.flatCategories(bigTypes) + " vs " + KeyTypes.flatCategories(creationTypes)
          + "); cast them to one type first");
    }
    // A struct hashes its fields in order; one with the other side's fields in another order has the same
    // categories, and Spark's join refuses to compare the two.
    String reordered = KeyTypes.reorderedStruct(creationTypes, bigTypes);
    if (reordered != null) {
      throw new IllegalArgumentException("prune: the keys of the pruned side " + describe(bigFields) + " have the "
          + "fields of the struct keys of the side the filter is built from " + describe(creationFields)
          + " in another order (" + reordered + "): a struct key hashes its fields in order, and a join does not "
          + "compare such structs; list the fields in one order on both sides");
    }
    // A join pads the shorter of two CHAR keys with spaces before comparing them (Spark's
    // ApplyCharTypePadding: CHAR(3) 'ab ' equals CHAR(5) 'ab   '); the filter must hash the padded value.
    padCharKeys(creationFields, creationKeys, bigFields, bigKeys);
    // Struct keys by their fields, null fields included: a join matches struct(1, null) with itself.
    return FilterSubquery.probe(creation.queryExecution().analyzed(),
        JoinKeys.structFieldsNullSafe(creationKeys), fpp, JoinKeys.structFieldsNullSafe(bigKeys));
  }

  /**
   * Joins {@code left} and {@code right} on equally named columns, first pruning {@code left} with a
   * filter of {@code right}'s keys. Only where pruning cannot change the result (see {@link JoinPruning}).
   * The column names are taken as they are, as by {@code Dataset.join(right, usingColumns, joinType)}: no
   * quoting is needed for names with dots or spaces.
   *
   * @throws IllegalArgumentException if the join type keeps the pruned side's unmatched rows
   */
  public static Dataset<Row> join(Dataset<Row> left, Dataset<Row> right, List<String> usingColumns, String joinType) {
    return join(left, right, usingColumns, joinType, JoinPruning.Side.LEFT);
  }

  /** {@link #join(Dataset, Dataset, List, String)} pruning the given side with the other side's keys. */
  public static Dataset<Row> join(Dataset<Row> left, Dataset<Row> right, List<String> usingColumns, String joinType,
      JoinPruning.Side side) {
    return join(left, right, usingColumns, joinType, side, CuckooFilterAggregate.DEFAULT_FPP);
  }

  /**
   * {@link #join(Dataset, Dataset, List, String, JoinPruning.Side)} with a filter of false-positive rate
   * {@code fpp}; the filter is built when the join runs. In a session with {@link CuckooFilterExtensions} it
   * is a forced runtime filter (the {@code CUCKOO_FILTER} hint, whatever the rule's settings), which adaptive
   * execution builds from the map tasks of the join's own shuffle of the other side; without them, a
   * subquery reads the other side once more ({@link #prune(Dataset, Dataset, double, String...)}).
   */
  public static Dataset<Row> join(Dataset<Row> left, Dataset<Row> right, List<String> usingColumns, String joinType,
      JoinPruning.Side side, double fpp) {
    if (side == null || joinType == null) {
      throw new IllegalArgumentException("join: the join type and the side to prune are needed, got " + joinType
          + " and " + side);
    }
    if (usingColumns == null || usingColumns.isEmpty()) {
      throw new IllegalArgumentException("join: at least one key column is needed");
    }
    String refusal = JoinPruning.refusal(joinType, side);
    if (refusal != null) {
      throw new IllegalArgumentException("cannot prune this join: " + refusal);
    }
    // Using columns are plain names (a.b is the column named "a.b"), while prune's are parsed like
    // Dataset.col's (a.b is field b of a, or column b of a): quote them.
    String[] keys = usingColumns.stream().map(CuckooFilters::quoted).toArray(String[]::new);
    Dataset<Row> pruned = side == JoinPruning.Side.LEFT ? left : right;
    Dataset<Row> other = side == JoinPruning.Side.LEFT ? right : left;
    if (runtimeFilterRuleInstalled(left.sparkSession())) {
      // With the extensions, a forced runtime filter: the rule places it after column pruning, where (with
      // adaptive execution) it is built from the map tasks of the join's own shuffle of the other side. The
      // keys are checked as prune checks them.
      probe(pruned, other, fpp, keys);
      pruned = forcedFilter(pruned, fpp);
    } else {
      // A probe whose filter is built in a subquery with its own read of the other side.
      pruned = prune(pruned, other, fpp, keys);
    }
    Dataset<Row> l = side == JoinPruning.Side.LEFT ? pruned : left;
    Dataset<Row> r = side == JoinPruning.Side.RIGHT ? pruned : right;
    return l.join(r, seq(usingColumns), JoinPruning.normalize(joinType));
  }

  /**
   * The row counts of the cuckoo filters that prune {@code query}: each filter the runtime filter rule put
   * into it (with {@link CuckooFilterExtensions}, so also the filter of {@link #join}), each {@link #prune}
   * and each {@link SparkCuckooFilter#prune}, in plan order (a {@code SparkCuckooFilter}'s counts are its own, summed over every
   * query it pruned). Read them after an action on this very Dataset ({@code collect},
   * {@code write}, {@code foreach}): an action that derives another Dataset, such as {@code count()}, plans
   * a copy of the query with counts of its own. The same counts are accumulators in the Spark UI, named
   * after the pruned keys ({@code cuckoo runtime filter on o.customer_id: rows in}; a {@code SparkCuckooFilter}'s
   * are named {@code cuckoo filter}, whatever it prunes). A filter whose keys are
   * partition columns of a partitioned file-source table prunes its partitions, and counts them ({@link
   * PruneMetrics#partitionsIn()}, {@code ...: partitions in}) and no row.
   */
  public static List<PruneMetrics> pruneMetrics(Dataset<?> query) {
    java.util.Set<PruneMetrics> found = new java.util.LinkedHashSet<>();
    collectMetrics(query.queryExecution().optimizedPlan(), found);
    return List.copyOf(found);
  }

  private static void collectMetrics(LogicalPlan plan, java.util.Set<PruneMetrics> found) {
    for (Expression e : list(plan.expressions())) {
      collectMetrics(e, found);
    }
    for (LogicalPlan child : list(plan.children())) {
      collectMetrics(child, found);
    }
  }

  private static void collectMetrics(Expression e, java.util.Set<PruneMetrics> found) {
    if (e instanceof CuckooMightContain probe && probe.metrics() != null) {
      found.add(probe.metrics());
    }
    if (e instanceof SubqueryExpression subquery) {
      collectMetrics(subquery.plan(), found);
    }
    for (Expression child : list(e.children())) {
      collectMetrics(child, found);
    }
  }

  /** {@code side} under a {@code CUCKOO_FILTER} hint at {@code fpp}. */
  private static Dataset<Row> forcedFilter(Dataset<Row> side, double fpp) {
    return Dataset$.MODULE$.ofRows(side.sparkSession(),
        new CuckooFilterHint(side.queryExecution().analyzed(), CuckooFilterHint.Kind.FORCE, "", fpp));
  }

  /** Whether the session runs {@link CuckooRuntimeFilterRule} ({@link CuckooFilterExtensions} is enabled). */
  private static boolean runtimeFilterRuleInstalled(SparkSession session) {
    for (Object rule : list(session.sessionState().optimizer().preCBORules())) {
      if (rule instanceof CuckooRuntimeFilterRule) {
        return true;
      }
    }
    return false;
  }

  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  private static String describe(StructField[] fields) {
    List<String> parts = new ArrayList<>();
    for (StructField f : fields) {
      parts.add(f.name() + " " + f.dataType().simpleString());
    }
    return "(" + String.join(", ", parts) + ")";
  }

  /**
   * Pads, as Spark's join does, the shorter of two CHAR key columns of different lengths to the longer
   * length, and likewise the CHAR fields of two struct key columns (at any depth), so that equal keys of the join
   * hash alike (the keys lists are updated in place).
   */
  private static void padCharKeys(StructField[] aFields, List<Expression> aKeys, StructField[] bFields,
      List<Expression> bKeys) {
    for (int i = 0; i < aFields.length; i++) {
      DataType a = CharKeys.rawType(aFields[i]);
      DataType b = CharKeys.rawType(bFields[i]);
      Expression paddedA = CharKeys.padShorter(aKeys.get(i), a, b);
      Expression paddedB = CharKeys.padShorter(bKeys.get(i), b, a);
      if (paddedA != null) {
        aKeys.set(i, paddedA);
      }
      if (paddedB != null) {
        bKeys.set(i, paddedB);
      }
    }
  }

  private static void checkKeyTypes(StructField[] fields) {
    for (StructField f : fields) {
      if (!KeyTypes.supported(f.dataType())) {
        throw new IllegalArgumentException("key column " + f.name() + " has unsupported type "
            + f.dataType().simpleString() + "; keys can be " + KeyTypes.SUPPORTED_TYPES);
      }
    }
  }

  /** Registers the SQL functions in an existing session (without {@code spark.sql.extensions}). */
  public static void registerFunctions(SparkSession session) {
    CuckooSqlFunctions.register(session);
  }

  /**
   * Most bytes of partial builds that {@link Builder#build()} collects to the driver and merges there
   * (default 32MB; 0 turns it off): past it, the parts are merged by an aggregate on one executor.
   */
  public static final String DRIVER_MERGE_MAX_BYTES = "spark.cuckoo.build.driverMerge.maxBytes";

  /** Builds a {@link SparkCuckooFilter}. */
  public static final class Builder {
    private final Dataset<?> data;
    private Column[] keys;
    private long expectedItems;
    private double fpp = CuckooFilterAggregate.DEFAULT_FPP;
    private double headroom = 1.05;
    private boolean exactCount;

    private Builder(Dataset<?> data) {
      this.data = data;
    }

    public Builder keys(String... columns) {
      return keys(SparkCuckooFilter.columns(columns));
    }

    public Builder keys(Column... columns) {
      if (columns.length == 0) {
        throw new IllegalArgumentException("keys: at least one key column is needed");
      }
      this.keys = columns.clone();
      return this;
    }

    /**
     * When sizing from the data: room for this many times the (approximate) distinct keys, at least
     * 1.05 (the count's error); more leaves space for later incremental inserts.
     */
    public Builder headroom(double factor) {
      if (!(factor >= 1.05 && factor <= 1000)) {
        throw new IllegalArgumentException("headroom must be between 1.05 and 1000, got " + factor);
      }
      this.headroom = factor;
      return this;
    }

    /** Distinct keys to size for; by default an approximate distinct count of the data (+5%). */
    public Builder expectedItems(long expectedItems) {
      if (expectedItems <= 0) {
        throw new IllegalArgumentException("expectedItems must be positive, got " + expectedItems);
      }
      this.expectedItems = expectedItems;
      return this;
    }

    /** False-positive rate, in (0, 1) and within what 32-bit fingerprints deliver; default 0.01. */
    public Builder fpp(double fpp) {
      CuckooFilterAggregate.checkFpp(fpp);
      this.fpp = fpp;
      return this;
    }

    /**
     * Size from the exact distinct count in the same job instead of an approximate count first: one
     * scan instead of two and no headroom in the table, but the partial results carry 64-bit key hashes
     * (about 7 bytes per distinct key, against 2-3 for entries of a filter sized up front) and the final
     * task decodes them once per 8M keys, as {@code cuckoo_filter} without {@code expectedItems} does.
     */
    public Builder exactCount(boolean exactCount) {
      this.exactCount = exactCount;
      return this;
    }

    public SparkCuckooFilter build() {
      if (keys == null) {
        throw new IllegalStateException("set the key columns with keys(...) before build()");
      }
      Dataset<Row> keyData = data.select(keys);
      List<Attribute> attributes = list(keyData.queryExecution().analyzed().output());
      List<StructField> fields = List.of(keyData.schema().fields());
      checkKeyTypes(keyData.schema().fields());
      List<Expression> exprs = new ArrayList<>(attributes);
      if (expectedItems > 0) {
        CuckooFilterAggregate.checkExpectedItems(expectedItems, fpp); // before any job
      } else if (exactCount) {
        CuckooFilterAggregate.checkFppSizedFromData(fpp); // sized in the final task, from the data
      }
      long expected = expectedItems;
      if (expected <= 0 && !exactCount) {
        expected = estimateDistinct(keyData, exprs, headroom);
        try {
          CuckooFilterAggregate.checkExpectedItems(expected, fpp);
        } catch (IllegalArgumentException e) {
          // The user gave no expectedItems: say where the size came from.
          throw new IllegalArgumentException("the keys' estimated distinct count (with headroom " + headroom
              + ") sizes the filter: " + e.getMessage(), e);
        }
      }
      CuckooFilterAggregate aggregate = CuckooFilterAggregate.create(exprs, expected, fpp);
      byte[] bytes = mergedOnDriver(keyData, aggregate, expected);
      if (bytes == null) {
        bytes = (byte[]) keyData.agg(new Column(aggregate.toAggregateExpression())).collectAsList().get(0).get(0);
      }
      try {
        return new SparkCuckooFilter(data.sparkSession(), CuckooFilter.fromByteArray(bytes), fields,
            keyNotAColumn(attributes));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * The first key that is not a column of {@code data} passed through (a struct field or an expression: the
     * select gave it a new attribute), described as it was given; null if every key is a column.
     */
    private String keyNotAColumn(List<Attribute> keyAttributes) {
      java.util.Set<Object> columns = new java.util.HashSet<>();
      for (Attribute a : list(data.queryExecution().analyzed().output())) {
        columns.add(a.exprId());
      }
      for (int i = 0; i < keyAttributes.size(); i++) {
        if (!columns.contains(keyAttributes.get(i).exprId())) {
          return keys[i].toString();
        }
      }
      return null;
    }

    /**
     * The filter built from the partitions' partial builds, collected and merged on the driver: one stage,
     * where an aggregate takes two (the parts shuffled to one task that merges them). Only while the parts
     * fit {@link #DRIVER_MERGE_MAX_BYTES}; null if they do not (the caller then aggregates, so that the
     * driver receives only the filter).
     */
    private static byte[] mergedOnDriver(Dataset<Row> keyData, CuckooFilterAggregate aggregate, long expected) {
      SparkSession session = keyData.sparkSession();
      String value = session.conf().get(DRIVER_MERGE_MAX_BYTES, "32MB");
      long budget;
      try {
        budget = JavaUtils.byteStringAsBytes(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(DRIVER_MERGE_MAX_BYTES + " must be a size such as 32MB, got '" + value + "'", e);
      }
      if (budget <= 0 || expected > budget / PartialBuilds.MIN_BYTES_PER_KEY) {
        return null;
      }
      QueryExecution execution = keyData.queryExecution();
      // By position: the plan's rows are the keys, in order (the optimizer may have renamed their attributes).
      CuckooFilterAggregate bound = PartialBuilds.bind(aggregate, execution.analyzed().output());
      byte[][] parts = SQLExecution$.MODULE$.withNewExecutionId(execution, Option.apply("cuckoo filter build"),
          new AbstractFunction0<byte[][]>() {
            @Override
            public byte[][] apply() {
              RDD<InternalRow> rows = execution.toRdd();
              long maxPart = PartialBuilds.maxPartBytes(budget, rows.getNumPartitions());
              // Each part within its shares, and all of them within the budget.
              return PartialBuilds.collectWithin(PartialBuilds.parts(rows, bound, maxPart), budget);
            }
          });
      if (parts == null) {
        return null;
      }
      return PartialBuilds.merge(aggregate, java.util.Arrays.asList(parts).iterator());
    }

    /** HyperLogLog++ estimate (1% relative error) of the distinct non-null keys, times the headroom. */
    private static long estimateDistinct(Dataset<Row> keyData, List<Expression> keys, double headroom) {
      Column hash = new Column(new CuckooKeyHash(seq(keys), 0L));
      long estimate = keyData.agg(functions.approx_count_distinct(hash, 0.01)).collectAsList().get(0).getLong(0);
      return Math.max(16, (long) Math.ceil(estimate * headroom) + 16);
    }
  }
}
