package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.hash.KeyTypes;
import dev.cuckoofilter.spark.prune.JoinPruning;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.FilterVersionNotFoundException;
import dev.cuckoofilter.spark.store.StoredFilter;
import dev.cuckoofilter.spark.update.ChangeSet;
import dev.cuckoofilter.spark.update.FilterUpdater;
import dev.cuckoofilter.spark.update.UpdateResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.FileStatus;
import org.apache.spark.internal.config.ConfigEntry;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Cast$;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.PredicateHelper;
import org.apache.spark.sql.catalyst.expressions.UserDefinedExpression;
import org.apache.spark.sql.catalyst.optimizer.InjectRuntimeFilter$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.execution.datasources.CatalogFileIndex;
import org.apache.spark.sql.execution.datasources.FileFormat;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex;
import org.apache.spark.sql.execution.datasources.csv.CSVFileFormat;
import org.apache.spark.sql.execution.datasources.json.JsonFileFormat;
import org.apache.spark.sql.execution.datasources.orc.OrcFileFormat;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.parquet.ParquetUtils;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.collection.JavaConverters;

/**
 * Stored filters as join indexes. A stored filter is registered for a table or view
 * ({@code spark.cuckoo.storedFilter.<name> = <filter store location>}, by {@code SET} in SQL or
 * {@link #register}); when a join's other side is that table or view, the runtime filter rule probes the
 * stored filter directly instead of building one.
 *
 * <p><b>Staleness.</b> A stored filter describes the table as it was when it was built: its metadata
 * carries a fingerprint of the table's definition and data, a SHA-256 of the table's plan below its
 * projections (the relation and how it reads its files: format, schemas, options, the session time zone if it
 * reads timestamps, the date and time parser and calendar settings if it reads dates or timestamps, and, where they
 * differ from Spark's default, the settings that match its files' columns to its own or decide which rows are
 * malformed, such as {@code spark.sql.caseSensitive} for Parquet and ORC, all of the session running the query and,
 * where they differ, of the session that created the relation, from which Spark reads some of them; every filter
 * condition; the positions of the key columns in the relation) and of the path,
 * length, modification time and, where the file system has one, identity (HDFS inode, S3A ETag, local inode and
 * change time: {@link FileIdentities}) of every file of that (file-based) relation, with the values of the partition
 * it belongs to. The rule uses the filter only if
 * the table's current fingerprint is the same; otherwise (files added, removed or rewritten, a view redefined
 * over the same files), or for a version without a fingerprint, the filter is stale and
 * the rule falls back to building a fresh one for the query. Keep the stored filter current with
 * {@link #updateIndex} or a rebuild ({@link #storeIndex}), both of which record the new fingerprint.
 *
 * <p>Only tables and views whose rows the fingerprint determines can be indexed: repeatable ones (one with
 * a limit, a sample or a non-deterministic expression may return other rows at each read, whose keys a
 * filter of an earlier read need not hold), reading one file-based relation and no other data (but local rows,
 * {@code VALUES}, whose values the fingerprint records) and nothing in a subquery,
 * calling no user-defined function (whose code the fingerprint cannot see), with key columns read from the
 * relation unchanged. Others are refused by {@link #storeIndex} and {@link #updateIndex}, and a
 * registration for one (a view replaced since it was indexed) is ignored.
 */
public final class StoredFilterIndex {
  /** Configuration prefix of registrations: {@code spark.cuckoo.storedFilter.<table or view>}. */
  public static final String PREFIX = "spark.cuckoo.storedFilter.";
  /** Metadata property holding the source table's fingerprint. */
  public static final String FINGERPRINT = "cuckoo.source.fingerprint";
  private static final Logger LOG = LoggerFactory.getLogger(StoredFilterIndex.class);
  /** Reads of a registration's latest version when retention removes it meanwhile (as FilterStore.readLatest). */
  private static final int LOOKUP_ATTEMPTS = 3;

  /** The stored filters that joins used lately, so that a query does not read and broadcast one again. */
  private static final OpenedFilters OPENED = new OpenedFilters(8);
  /** Where the registered tables read their files, so that joins over other files pass them over quickly. */
  private static final TableRoots ROOTS = new TableRoots(64);
  /** Registrations passed over for want of a fingerprint, each logged once. */
  private static final java.util.Set<String> WARNED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Whether this thread is planning a registered table or view ({@link #planned}). */
  private static final ThreadLocal<Boolean> PLANNING = ThreadLocal.withInitial(() -> false);

  private StoredFilterIndex() {}

  /** True while this thread plans a table or view for its fingerprint: the runtime filter rule leaves it alone. */
  static boolean planningIndexedTable() {
    return PLANNING.get();
  }

  /**
   * The optimized plan of {@code table} without runtime filters in its own joins: the fingerprint describes the
   * table, not filters the rule would add (a built one is a subquery, which would make it unindexable), and deciding
   * whether a stored filter serves such a join plans the registered view again, which would run the rule on that
   * join again, without end (a StackOverflowError).
   */
  static LogicalPlan planned(SparkSession spark, String table) {
    boolean outer = PLANNING.get();
    PLANNING.set(true);
    try {
      return spark.table(table).queryExecution().optimizedPlan();
    } finally {
      PLANNING.set(outer);
    }
  }

  /**
   * Registers the filter stored at {@code location} for {@code table} (a table or view name), in place of the
   * table's registration under any case (table names are case-insensitive; {@code SET} keeps the case it is given).
   */
  public static void register(SparkSession spark, String table, String location) {
    registrationKeys(spark, table).forEach(spark.conf()::unset);
    spark.conf().set(PREFIX + table.toLowerCase(Locale.ROOT), location);
  }

  /** The settings registering a stored filter for {@code table}, under any case. */
  private static List<String> registrationKeys(SparkSession spark, String table) {
    return JavaConverters.mapAsJavaMapConverter(spark.conf().getAll()).asJava().keySet().stream()
        .filter(k -> k.equalsIgnoreCase(PREFIX + table)).sorted().toList();
  }

  /**
   * Builds a filter of {@code table}'s key columns, stores it as the next version at {@code location}
   * with the table's fingerprint, and registers it.
   */
  public static FilterVersion storeIndex(SparkSession spark, String table, List<String> keyColumns, String location,
      double fpp) throws IOException {
    LogicalPlan plan = planned(spark, table);
    String fingerprint = indexableFingerprint(table, plan, keyColumns);
    refuseSkippingUnreadableFiles(table, relation(plan).get());
    SparkCuckooFilter filter = CuckooFilters.builder(spark.table(table)).keys(keyColumns.toArray(new String[0]))
        .fpp(fpp).build();
    FilterStore store = FilterStore.open(location, spark);
    long parent = store.latest().map(FilterVersion::version).orElse(FilterMetadata.NO_PARENT);
    FilterMetadata metadata = FilterMetadata.of(filter.filter(), filter.keyFields(), "table " + table, parent)
        .withProperties(Map.of(FINGERPRINT, fingerprint));
    FilterVersion version = store.publish(filter.filter(), metadata);
    register(spark, table, location);
    return version;
  }

  /**
   * Refuses to build a stored filter of {@code table} while its files are read with {@code ignoreCorruptFiles} (the
   * session's {@code spark.sql.files.ignoreCorruptFiles} or the relation's option of that name): Spark then skips a
   * file on any error reading it, a passing one too, and the filter would lack that file's keys under a fingerprint
   * that still lists the file, so every later query would trust it and lose the rows of those keys.
   */
  private static void refuseSkippingUnreadableFiles(String table, HadoopFsRelation relation) {
    String option = JavaConverters.mapAsJavaMapConverter(relation.options()).asJava().entrySet().stream()
        .filter(o -> o.getKey().equalsIgnoreCase("ignoreCorruptFiles")).map(Map.Entry::getValue).findFirst()
        .orElse(null);
    boolean skips = option != null ? Boolean.parseBoolean(option.trim()) : SQLConf.get().ignoreCorruptFiles();
    if (skips) {
      throw new IllegalArgumentException("table " + table + " is read with ignoreCorruptFiles ("
          + (option != null ? "its option ignoreCorruptFiles=" + option : "spark.sql.files.ignoreCorruptFiles=true")
          + "), which skips a file on any error reading it, a passing one too: a stored filter built so could lack "
          + "keys that later reads return; store it with " + (option != null ? "that option" : "that setting")
          + " false");
    }
  }

  /**
   * Brings the stored filter registered for {@code table} up to date with {@code change} (an
   * incremental update, FilterUpdater) and records the table's current fingerprint, so the rule uses it
   * again.
   */
  public static FilterVersion updateIndex(SparkSession spark, String table,
      ChangeSet change) throws IOException {
    List<String> keys = registrationKeys(spark, table);
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("no stored filter is registered for " + table + " (" + PREFIX
          + table.toLowerCase(Locale.ROOT) + " is not set)");
    }
    List<String> locations = keys.stream().map(k -> spark.conf().get(k)).distinct().toList();
    if (locations.size() > 1) {
      throw new IllegalArgumentException("stored filters at " + locations + " are registered for " + table + " (by "
          + keys + "); unset all but one");
    }
    String location = locations.get(0);
    FilterStore store = FilterStore.open(location, spark);
    if (store.latest().isEmpty()) {
      throw new IllegalArgumentException("the stored filter registered for " + table + " at " + location
          + " has no version to update; build one with storeIndex");
    }
    // One read of the latest version, for its key columns and as the base of the update: readLatest reads the new
    // latest if retention removes the one it is reading (reading its record, then its metadata, failed then).
    StoredFilter latest = store.readLatest();
    List<String> keyColumns = latest.metadata().keyColumns().stream().map(StructField::name).toList();
    String fingerprint = indexableFingerprint(table, planned(spark, table), keyColumns);
    UpdateResult result = FilterUpdater.update(latest,
        change);
    return FilterUpdater.publish(store, latest, result, "table " + table,
        Map.of(FINGERPRINT, fingerprint));
  }

  /**
   * The fingerprint of the table or view {@code table}, planned as {@code plan}, that a stored filter of {@code
   * keyColumns} can index.
   *
   * @throws IllegalArgumentException naming the table and the reason otherwise
   */
  private static String indexableFingerprint(String table, LogicalPlan plan, List<String> keyColumns) {
    String reason = notIndexable(plan, keyColumns);
    if (reason != null) {
      throw new IllegalArgumentException("table " + table + " cannot be indexed by a stored filter of " + keyColumns
          + ": " + reason);
    }
    return fingerprint(plan, keyColumns);
  }

  /** Why a stored filter of {@code keyColumns} cannot index {@code plan}, or null if it can. */
  static String notIndexable(LogicalPlan plan, List<String> keyColumns) {
    if (!JoinPruning.repeatable(plan)) {
      return "it is not repeatable (a limit, sample, non-deterministic expression such as rand(), or an "
          + "order-dependent window or aggregate), so a later read may return rows whose keys the filter does not hold";
    }
    if (!plan.subqueriesAll().isEmpty()) {
      return "it reads data in a subquery, whose changes its fingerprint would not see";
    }
    if (plan.exists(new scala.runtime.AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        return list(node.expressions()).stream().anyMatch(e -> e.exists(new scala.runtime.AbstractFunction1<Expression,
            Object>() {
          @Override
          public Object apply(Expression x) {
            return x instanceof UserDefinedExpression;
          }
        }));
      }
    })) {
      return "it calls a user-defined function, whose code its fingerprint cannot see";
    }
    if (plan.exists(new scala.runtime.AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        return node instanceof org.apache.spark.sql.execution.columnar.InMemoryRelation;
      }
    })) {
      return "it reads cached data (CACHE TABLE or Dataset.cache() of it or of what it reads): the cache holds rows as "
          + "they were when cached, which a fingerprint of its files cannot describe; uncache it (UNCACHE TABLE) to "
          + "index it";
    }
    if (relation(plan).isEmpty()) {
      return "it is not a file-based table whose data can be fingerprinted; stored filters can only index "
          + "file-based tables and views over one of them";
    }
    LogicalPlan other = otherData(plan);
    if (other != null) {
      return "it reads data other than its file-based table's files (" + other.nodeName() + ": another table, a "
          + "Dataset of an RDD), whose changes its fingerprint would not see";
    }
    List<Attribute> keys = keyAttributes(plan, keyColumns);
    if (keys == null || Base.of(plan, new ArrayList<>(keys)) == null) {
      for (Attribute k : keys == null ? List.<Attribute>of() : keys) {
        String padded = readSidePadded(plan, k);
        if (padded != null) {
          return k.name() + " is a " + padded + " column, which Spark pads to its length as it reads it "
              + "(spark.sql.readSideCharPadding), so its keys are not the files' values; index a VARCHAR or STRING "
              + "column, or store and query the filter with spark.sql.readSideCharPadding=false";
        }
      }
      return "its key columns must be columns of the table's files, passed through unchanged (not computed, "
          + "missing or ambiguous)";
    }
    return null;
  }

  /**
   * A leaf of {@code plan} that reads data the fingerprint does not describe, or null: anything but its file-based
   * relation, local rows ({@code VALUES}, fingerprinted by their values), {@code range} and the one-row relation of a
   * {@code SELECT} without {@code FROM}. A view joining its table with another table (a JDBC or Hive table, a v2
   * catalog's) or with a Dataset of an RDD reads other rows when that data changes, while its plan's text, and so its
   * fingerprint, stays the same.
   */
  private static LogicalPlan otherData(LogicalPlan plan) {
    scala.Option<LogicalPlan> found = plan.find(new scala.runtime.AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        return node.children().isEmpty()
            && !(node instanceof LogicalRelation r && r.relation() instanceof HadoopFsRelation)
            && !(node instanceof org.apache.spark.sql.catalyst.plans.logical.LocalRelation)
            && !(node instanceof org.apache.spark.sql.catalyst.plans.logical.Range)
            && !(node instanceof org.apache.spark.sql.catalyst.plans.logical.OneRowRelation);
      }
    });
    return found.isDefined() ? found.get() : null;
  }

  /**
   * The type ({@code CHAR(5)}) of the CHAR column that {@code key} is, read through Spark's read-side padding (a
   * projection {@code readSidePadding(c, 5) AS c}, through renames), or null.
   */
  private static String readSidePadded(LogicalPlan plan, Attribute key) {
    ExprId id = key.exprId();
    for (int depth = 0; depth < 64; depth++) {
      ExprId current = id;
      Optional<Alias> alias = list(plan.collect(new scala.runtime.AbstractPartialFunction<LogicalPlan, List<Alias>>() {
        @Override
        public boolean isDefinedAt(LogicalPlan node) {
          return node instanceof Project;
        }

        @Override
        public List<Alias> apply(LogicalPlan node) {
          return list(((Project) node).projectList()).stream()
              .filter(e -> e instanceof Alias && e.exprId().equals(current)).map(e -> (Alias) e).toList();
        }
      })).stream().flatMap(List::stream).findFirst();
      if (alias.isEmpty()) {
        return null;
      }
      Expression child = alias.get().child();
      if (child instanceof Attribute a) {
        id = a.exprId();
      } else if (child instanceof org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke invoke
          && invoke.functionName().equals("readSidePadding") && invoke.arguments().size() == 2
          && invoke.arguments().apply(1) instanceof org.apache.spark.sql.catalyst.expressions.Literal length) {
        return "CHAR(" + length.value() + ")";
      } else {
        return null;
      }
    }
    return null;
  }

  /** A stored filter that can replace a build for a join side, or why it cannot. */
  record Match(Expression probe, String description) {}

  /** What {@link #find} read and computed during one optimization of a query ({@link #withinOneQuery}), by key. */
  private static final ThreadLocal<Map<List<Object>, Object>> QUERY_MEMO = new ThreadLocal<>();

  /** A computation that reads a filter store or lists a table's files. */
  private interface IoSupplier<T> {
    T get() throws IOException;
  }

  /**
   * Runs {@code optimization}, the runtime filter rule on one query's plan, reading each registration's latest version
   * and metadata, planning its table and fingerprinting it at most once: a query joining a registered table more than
   * once (a dimension joined on two keys, a self-join) did all of it for each join, one listing of the table's files
   * each. One view for the whole query is also the consistent one.
   */
  static <T> T withinOneQuery(java.util.function.Supplier<T> optimization) {
    if (QUERY_MEMO.get() != null) {
      return optimization.get();
    }
    QUERY_MEMO.set(new java.util.HashMap<>());
    try {
      return optimization.get();
    } finally {
      QUERY_MEMO.remove();
    }
  }

  /** {@code compute}'s value, from the memo of the query being optimized if it holds {@code key} (or outside one). */
  @SuppressWarnings("unchecked")
  private static <T> T once(IoSupplier<T> compute, Object... key) throws IOException {
    Map<List<Object>, Object> memo = QUERY_MEMO.get();
    if (memo == null) {
      return compute.get();
    }
    List<Object> memoKey = List.of(key);
    if (memo.containsKey(memoKey)) {
      return (T) memo.get(memoKey);
    }
    T value = compute.get();
    memo.put(memoKey, value);
    return value;
  }

  /** Drops {@code key} from the memo of the query being optimized, to read it again. */
  private static void forget(Object... key) {
    Map<List<Object>, Object> memo = QUERY_MEMO.get();
    if (memo != null) {
      memo.remove(List.of(key));
    }
  }

  /**
   * The probe of a registered, current stored filter for a join side ({@code creation}, keyed by
   * {@code creationKeys}) used to prune another side keyed by {@code keys}; empty if none applies. The caller
   * has checked that {@code creation} is repeatable.
   */
  static Optional<Match> find(LogicalPlan creation, List<Expression> creationKeys, List<Expression> keys) {
    Map<String, String> registrations = JavaConverters.mapAsJavaMapConverter(SQLConf.get().getAllConfs()).asJava();
    // A stored filter serves only a side reading the one file-based relation its table reads.
    List<String> creationRoots = null;
    for (Map.Entry<String, String> r : registrations.entrySet()) {
      if (!r.getKey().startsWith(PREFIX)) {
        continue;
      }
      if (creationRoots == null) {
        creationRoots = relation(PartitionedCatalogTables.beforePruning(creation)).map(StoredFilterIndex::roots)
            .orElse(null);
        if (creationRoots == null) {
          return Optional.empty();
        }
      }
      String table = r.getKey().substring(PREFIX.length());
      SparkSession spark = SparkSession.active();
      Optional<Match> match = Optional.empty();
      for (int attempt = 1; ; attempt++) {
        try {
          match = match(spark, table, r.getValue(), creation, creationKeys, keys, creationRoots);
          break;
        } catch (FilterVersionNotFoundException e) {
          // Retention removed the version being read, which it does only once a newer one exists: use that one.
          forget("latest", r.getValue());
          // Should retention outrun the reads, build a filter for this query instead (a removed version is no
          // reason to fail a query; a damaged one, StoredFilterCorruptException, still fails it below).
          if (attempt == LOOKUP_ATTEMPTS) {
            LOG.warn("The stored filter registered for {} at {} was removed by retention while it was being read, "
                + "{} times; this query builds its filter instead", table, r.getValue(), attempt);
            break;
          }
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read the stored filter registered for " + table + " at " + r.getValue(),
              e);
        }
      }
      if (match.isPresent()) {
        return match;
      }
    }
    return Optional.empty();
  }

  /**
   * {@link #find} for the registration of {@code table} at {@code location}: the probe of its latest version if it
   * is current and applies, else empty.
   *
   * @throws FilterVersionNotFoundException if the version was removed (by retention) while it was being read
   */
  private static Optional<Match> match(SparkSession spark, String table, String location, LogicalPlan creation,
      List<Expression> creationKeys, List<Expression> keys, List<String> creationRoots) throws IOException {
    FilterStore store = FilterStore.open(location, spark);
    Optional<FilterVersion> latest = once(store::latest, "latest", location);
    if (latest.isEmpty()) {
      return Optional.empty();
    }
    // Planning the table is the expensive part (3-15 ms for the views of the tests and benchmarks): pass over
    // a registration whose table read other files when this version was last considered.
    TableRoots.Key rootsKey = new TableRoots.Key(table, latest.get());
    List<String> known = ROOTS.get(rootsKey);
    if (known != null && !known.equals(creationRoots)) {
      return Optional.empty();
    }
    LogicalPlan registered;
    try {
      registered = once(() -> planned(spark, table), "planned", table);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) { // the table or view no longer exists: the registration is ignored
      return Optional.empty();
    }
    Optional<HadoopFsRelation> registeredRelation = relation(PartitionedCatalogTables.beforePruning(registered));
    List<String> registeredRoots = registeredRelation.map(StoredFilterIndex::roots).orElse(List.of());
    ROOTS.put(rootsKey, registeredRoots);
    if (!registeredRoots.equals(creationRoots)) {
      return Optional.empty();
    }
    // The commit record decides; the filter file is read (and verified) only for a version that is used.
    FilterMetadata metadata = once(() -> store.metadata(latest.get().version()), "metadata", location,
        latest.get().version());
    String recorded = metadata.properties().get(FINGERPRINT);
    if (recorded == null) {
      warnUnfingerprinted(table, latest.get());
      return Optional.empty();
    }
    List<StructField> storedKeys = metadata.keyColumns();
    List<String> storedNames = storedKeys.stream().map(StructField::name).toList();
    int[] order = storedKeyOrder(creation, creationKeys, registered, storedKeys);
    // Last, as it lists the table's files: whether the definition and the files are still those the filter was
    // built from.
    if (order == null || notIndexable(registered, storedNames) != null
        || !once(() -> fingerprint(registered, storedNames), "fingerprint", table, storedNames).equals(recorded)) {
      return Optional.empty(); // other rows, indexes other columns, or stale: build instead
    }
    List<Expression> probed = new ArrayList<>();
    for (int i : order) {
      probed.add(keys.get(i));
    }
    List<DataType> storedTypes = storedKeys.stream().map(StructField::dataType).toList();
    List<DataType> probedTypes = probed.stream().map(Expression::dataType).toList();
    if (!KeyTypes.hashAlike(storedTypes, probedTypes) || KeyTypes.reorderedStruct(storedTypes, probedTypes) != null) {
      return Optional.empty(); // keys of other types: its probe would refuse them
    }
    SparkCuckooFilter filter = OPENED.get(spark, latest.get(), () -> store.sparkFilter(spark, latest.get().version()));
    Column[] probeKeys = probed.stream().map(Column::new).toArray(Column[]::new);
    return Optional.of(new Match(filter.mightContain(probeKeys).expr(),
        "stored filter " + store.location() + " v" + latest.get().version() + " for " + table));
  }

  /**
   * For each key column of the stored filter, the index of the join key ({@code creationKeys}) that is that
   * column; null unless the creation side holds no rows the registered table or view does not (so the filter
   * holds all its keys) and every key is a plain column of it. Both plans are compared below their
   * projections, aliases and filters ({@link Base}): the same relation, the same filters apart from null
   * checks on keys or implied by the other filters, and each join key traced down to the same column of that relation as the stored key of its name
   * is in the registered plan. Names alone are not enough: a projection such as {@code SELECT k2 AS k} or
   * {@code SELECT k + 1 AS k} over the registered view reads the same rows but other values.
   */
  static int[] storedKeyOrder(LogicalPlan creation, List<Expression> creationKeys, LogicalPlan registered,
      List<StructField> storedKeys) {
    if (creationKeys.size() != storedKeys.size()) {
      return null;
    }
    List<Attribute> registeredKeys = keyAttributes(registered, storedKeys.stream().map(StructField::name).toList());
    if (registeredKeys == null) {
      return null;
    }
    Base creationBase = Base.of(PartitionedCatalogTables.beforePruning(creation),
        creationKeys.stream().map(StoredFilterIndex::withoutWideningCast).toList());
    Base registeredBase = Base.of(PartitionedCatalogTables.beforePruning(registered), new ArrayList<>(registeredKeys));
    if (creationBase == null || registeredBase == null || !creationBase.plan().sameResult(registeredBase.plan())) {
      return null;
    }
    int[] order = new int[storedKeys.size()];
    boolean[] used = new boolean[creationKeys.size()];
    for (int j = 0; j < order.length; j++) {
      order[j] = -1;
      for (int i = 0; i < creationKeys.size(); i++) {
        if (!used[i] && creationBase.keyOrdinals()[i] == registeredBase.keyOrdinals()[j]) {
          order[j] = i;
          used[i] = true;
          break;
        }
      }
      if (order[j] < 0) {
        return null;
      }
    }
    return order;
  }

  /**
   * The column under a cast of an integer column to a wider integer type (a join of an int column with a bigint
   * one casts the int column), else {@code key}: the cast keeps every value, and integers of equal value hash alike
   * whatever their width (docs/HASHING.md), so a stored filter of the column holds the cast keys.
   */
  static Expression withoutWideningCast(Expression key) {
    if (key instanceof Cast cast && cast.child() instanceof Attribute
        && integerWidth(cast.child().dataType()) > 0
        && integerWidth(cast.child().dataType()) <= integerWidth(cast.dataType())) {
      return cast.child();
    }
    return key;
  }

  /** The width in bytes of byte, short, int and long; 0 for other types. */
  private static int integerWidth(DataType type) {
    return type instanceof ByteType ? 1 : type instanceof ShortType ? 2 : type instanceof IntegerType ? 4
        : type instanceof LongType ? 8 : 0;
  }

  /** The output columns of {@code plan} named {@code names} (case-insensitively); null if one is missing or ambiguous. */
  private static List<Attribute> keyAttributes(LogicalPlan plan, List<String> names) {
    List<Attribute> keys = new ArrayList<>();
    for (String name : names) {
      Attribute found = null;
      for (Attribute a : list(plan.output())) {
        if (a.name().equalsIgnoreCase(name)) {
          if (found != null) {
            return null;
          }
          found = a;
        }
      }
      if (found == null) {
        return null;
      }
      keys.add(found);
    }
    return keys;
  }

  /**
   * A plan below its projections, aliases and filters ({@code plan}: that node under one filter of the
   * filters' conjuncts) and the ordinals of its keys in that node's output.
   */
  record Base(LogicalPlan plan, int[] keyOrdinals) {
    /**
     * Null if a key is not a column passed through unchanged from the node below. Null checks on key
     * columns are left out (the optimizer adds them to a join's sides; rows with a null key never match and
     * are not in the filter), and so are those the filter's other conditions imply (as the optimizer infers
     * {@code isnotnull(x)} from {@code x < 3}); others are conditions like any: a view's
     * {@code WHERE name IS NOT NULL} holds out rows that a join side without it has.
     */
    static Base of(LogicalPlan plan, List<Expression> keys) {
      List<ExprId> current = new ArrayList<>();
      for (Expression k : keys) {
        if (!(k instanceof Attribute)) {
          return null;
        }
        current.add(((Attribute) k).exprId());
      }
      List<Expression> conjuncts = new ArrayList<>();
      PredicateHelper helper = InjectRuntimeFilter$.MODULE$;
      while (true) {
        if (plan instanceof Project) {
          List<NamedExpression> projected = list(((Project) plan).projectList());
          for (int i = 0; i < current.size(); i++) {
            ExprId id = current.get(i);
            NamedExpression source = projected.stream().filter(e -> e.exprId().equals(id)).findFirst().orElse(null);
            if (source instanceof Alias && ((Alias) source).child() instanceof Attribute) {
              current.set(i, ((Attribute) ((Alias) source).child()).exprId());
            } else if (!(source instanceof Attribute)) {
              return null; // computed, or not from below
            }
          }
          plan = ((Project) plan).child();
        } else if (plan instanceof SubqueryAlias) {
          plan = ((SubqueryAlias) plan).child();
        } else if (plan instanceof Filter) {
          Filter f = (Filter) plan;
          List<Expression> all = list(helper.splitConjunctivePredicates(f.condition()));
          List<Expression> others = all.stream().filter(c -> !(c instanceof IsNotNull)).toList();
          for (Expression c : all) {
            if (!(c instanceof IsNotNull)) {
              conjuncts.add(c);
            } else if (!onKey((IsNotNull) c, current) && !implied((IsNotNull) c, others, f.child())) {
              conjuncts.add(c);
            }
          }
          plan = f.child();
        } else {
          break;
        }
      }
      List<ExprId> output = new ArrayList<>();
      for (Attribute a : list(plan.output())) {
        output.add(a.exprId());
      }
      int[] ordinals = new int[current.size()];
      for (int i = 0; i < ordinals.length; i++) {
        ordinals[i] = output.indexOf(current.get(i));
        if (ordinals[i] < 0) {
          return null;
        }
      }
      LogicalPlan normalized = conjuncts.isEmpty() ? plan
          : new Filter(conjuncts.stream().reduce(org.apache.spark.sql.catalyst.expressions.And::new).get(), plan);
      return new Base(normalized, ordinals);
    }

    private static boolean onKey(IsNotNull check, List<ExprId> keys) {
      return check.child() instanceof Attribute && keys.contains(((Attribute) check.child()).exprId());
    }

    /** The filter's other conditions (and what is known of its input) already reject the nulls. */
    private static boolean implied(IsNotNull check, List<Expression> others, LogicalPlan child) {
      LogicalPlan without = others.isEmpty() ? child
          : new Filter(others.stream().reduce(org.apache.spark.sql.catalyst.expressions.And::new).get(), child);
      return without.constraints().contains(check);
    }
  }

  /**
   * The plan's one file-based relation, if it reads exactly one, through a file index that lists its files or
   * through the catalog's partitions of a table (a partitioned catalog table before partition pruning).
   */
  static Optional<HadoopFsRelation> relation(LogicalPlan plan) {
    List<LogicalRelation> relations = new ArrayList<>();
    plan.foreach(new scala.runtime.AbstractFunction1<LogicalPlan, scala.runtime.BoxedUnit>() {
      @Override
      public scala.runtime.BoxedUnit apply(LogicalPlan node) {
        if (node instanceof LogicalRelation && ((LogicalRelation) node).relation() instanceof HadoopFsRelation) {
          relations.add((LogicalRelation) node);
        }
        return scala.runtime.BoxedUnit.UNIT;
      }
    });
    if (relations.size() != 1) {
      return Optional.empty();
    }
    HadoopFsRelation fs = (HadoopFsRelation) relations.get(0).relation();
    return fs.location() instanceof PartitioningAwareFileIndex || fs.location() instanceof CatalogFileIndex
        ? Optional.of(fs) : Optional.empty();
  }

  /** The root paths of the relation's files, sorted (a catalog table's: its location). */
  private static List<String> roots(HadoopFsRelation relation) {
    return list(relation.location().rootPaths()).stream().map(Object::toString).sorted().toList();
  }

  /**
   * SHA-256 of an indexable table's definition and data ({@link #notIndexable} is null): its plan below the
   * projections ({@link Base}, canonical, with the filter's conditions in sorted order so that their order in the
   * view does not matter, with what its text leaves out: {@link #unprinted}),
   * how its relation reads its files (format, schemas, options, settings: {@link #howFilesAreRead}), the positions of
   * the key columns in it, and the path, length, modification time and identity of every file of its relation, in path
   * order, and of a partitioned relation each partition's values with its files' paths ({@link #partitionValues}).
   */
  static String fingerprint(LogicalPlan plan, List<String> keyColumns) {
    Base base = Base.of(plan, new ArrayList<>(keyAttributes(plan, keyColumns)));
    LogicalPlan canonical = base.plan().canonicalized();
    List<String> conditions = new ArrayList<>();
    if (canonical instanceof Filter filter) {
      for (Expression c : list(InjectRuntimeFilter$.MODULE$.splitConjunctivePredicates(filter.condition()))) {
        conditions.add(unabridged(c::toString) + unprinted(List.of(c)));
      }
      java.util.Collections.sort(conditions);
      canonical = filter.child();
    }
    List<Expression> expressions = new ArrayList<>();
    canonical.foreach(new scala.runtime.AbstractFunction1<LogicalPlan, scala.runtime.BoxedUnit>() {
      @Override
      public scala.runtime.BoxedUnit apply(LogicalPlan node) {
        expressions.addAll(list(node.expressions()));
        return scala.runtime.BoxedUnit.UNIT;
      }
    });
    String definition = unabridged(canonical::toString) + unprinted(expressions);
    HadoopFsRelation relation = relation(plan).get();
    PartitioningAwareFileIndex index = PartitionedCatalogTables.currentFiles(relation);
    List<FileStatus> statuses = list(index.allFiles());
    FileIdentities identities = FileIdentities.of(list(index.rootPaths()), statuses,
        relation.sparkSession().sessionState().newHadoopConfWithOptions(relation.options()));
    List<String> files = new ArrayList<>();
    for (FileStatus f : statuses) {
      files.add(f.getPath() + "\t" + f.getLen() + "\t" + f.getModificationTime() + identities.of(f));
    }
    java.util.Collections.sort(files);
    List<String> partitions = partitionValues(index);
    List<String> localRows = localRows(base.plan());
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      java.util.function.Consumer<String> line = text -> {
        sha.update(text.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      };
      line.accept(definition);
      line.accept(howFilesAreRead(relation, base.plan()));
      conditions.forEach(line);
      line.accept(java.util.Arrays.toString(base.keyOrdinals()));
      files.forEach(line);
      partitions.forEach(line);
      localRows.forEach(line);
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * What Spark's text of {@code expressions} leaves out that selects other rows, as a suffix of that text; "" where
   * there is nothing, so the fingerprints of other plans are unchanged:
   * <ul>
   *   <li>the literals whose text is ambiguous, in order, each as its type and its value's bytes in Spark's binary row
   *       format (the same in any JVM; {@code "\tliterals\tstring 0000..."}). Spark prints a string without its
   *       quotes, so {@code name IN ('d1,d2', 'd8')} and {@code name IN ('d1', 'd2', 'd8')} have the same text, {@code
   *       name IN (d8,d1,d2)}; and a timestamp in the session time zone, so {@code TIMESTAMP'2024-01-01 00:00:00'} of a
   *       view defined in UTC and of one defined in New York, five hours apart, print alike where each is planned.
   *       Strings and timestamps count inside arrays, maps and structs too;
   *   <li>the time zones of the casts that read or write times in one, in order ({@code "\tcast zones\tUTC"}): {@code
   *       CAST(ts_text AS TIMESTAMP)} prints no zone, and reads the same text as another instant in another zone (that
   *       of the session that defined the view).
   * </ul>
   */
  private static String unprinted(List<Expression> expressions) {
    scala.Function1<DataType, Object> ambiguous = new scala.runtime.AbstractFunction1<DataType, Object>() {
      @Override
      public Object apply(DataType t) {
        return t instanceof org.apache.spark.sql.types.StringType || t instanceof TimestampType;
      }
    };
    StringBuilder literals = new StringBuilder();
    StringBuilder zones = new StringBuilder();
    for (Expression e : expressions) {
      e.foreach(new scala.runtime.AbstractFunction1<Expression, scala.runtime.BoxedUnit>() {
        @Override
        public scala.runtime.BoxedUnit apply(Expression x) {
          if (x instanceof org.apache.spark.sql.catalyst.expressions.Literal literal
              && literal.dataType().existsRecursively(ambiguous)) {
            byte[] value = org.apache.spark.sql.catalyst.expressions.UnsafeProjection$.MODULE$
                .create(new DataType[] {literal.dataType()})
                .apply(new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(new Object[] {literal.value()}))
                .getBytes();
            literals.append('\t').append(literal.dataType().sql()).append(' ').append(HexFormat.of().formatHex(value));
          } else if (x instanceof Cast cast && cast.timeZoneId().isDefined()
              && Cast$.MODULE$.needsTimeZone(cast.child().dataType(), cast.dataType())) {
            zones.append('\t').append(cast.timeZoneId().get());
          }
          return scala.runtime.BoxedUnit.UNIT;
        }
      });
    }
    return (literals.length() == 0 ? "" : "\tliterals" + literals) + (zones.length() == 0 ? "" : "\tcast zones" + zones);
  }

  /**
   * {@code text} rendered in full. Spark abridges the text of plans and expressions, where it is not told otherwise:
   * it prints the first 24 arguments of an expression or a node with more than {@code spark.sql.debug.maxToStringFields}
   * (25) and then {@code ... 2 more fields}, and cuts a plan's text at {@code spark.sql.maxPlanStringLength}. The
   * fingerprint must see all of it: a view's {@code array_contains(array(c1, ..., c25, c26), 1)} redefined as {@code
   * array_contains(array(c1, ..., c25, c27), 1)} selects other rows under the same abridged text.
   */
  private static String unabridged(java.util.function.Supplier<String> text) {
    SQLConf conf = SQLConf.get().clone();
    conf.setConf(SQLConf.MAX_TO_STRING_FIELDS(), Integer.MAX_VALUE);
    conf.unsetConf(SQLConf.MAX_PLAN_STRING_LENGTH()); // its default, the longest text it allows
    return SQLConf.withExistingConf(conf, new scala.runtime.AbstractFunction0<String>() {
      @Override
      public String apply() {
        return text.get();
      }
    });
  }

  /**
   * For each partition of a partitioned relation that has files, its values and its files' paths, sorted; nothing for
   * a relation without partitions. A partition's rows hold the values the index gives the partition, which for a
   * catalog table are the catalog's, not its directory's name: renaming a partition of an external table ({@code ALTER
   * TABLE ... PARTITION ... RENAME TO PARTITION}) or adding one at another's former location changes rows and no file.
   */
  private static List<String> partitionValues(PartitioningAwareFileIndex index) {
    org.apache.spark.sql.types.StructType schema = index.partitionSchema();
    if (schema.isEmpty()) {
      return List.of();
    }
    List<String> partitions = new ArrayList<>();
    for (org.apache.spark.sql.execution.datasources.PartitionDirectory p : list(
        index.listFiles(scala.collection.immutable.List.<Expression>empty(),
            scala.collection.immutable.List.<Expression>empty()))) {
      List<String> paths = new ArrayList<>();
      for (org.apache.spark.sql.execution.datasources.FileStatusWithMetadata f : list(p.files())) {
        paths.add(f.getPath().toString());
      }
      if (!paths.isEmpty()) {
        java.util.Collections.sort(paths);
        partitions.add("partition " + p.values().toSeq(schema) + "\t" + String.join("\t", paths));
      }
    }
    java.util.Collections.sort(partitions);
    return partitions;
  }

  /**
   * The rows of each local relation of {@code plan} (a view's {@code VALUES} joined with its table), in plan order,
   * which the plan's text leaves out: a local relation prints its columns only, so a view redefined to join {@code
   * VALUES (0), (1), (2)} where it joined {@code VALUES (0), (1)} read other rows under the same text. Each row is
   * written as its bytes in Spark's binary row format (the same in any JVM); nothing for a plan without one.
   */
  private static List<String> localRows(LogicalPlan plan) {
    List<String> relations = new ArrayList<>();
    plan.foreach(new scala.runtime.AbstractFunction1<LogicalPlan, scala.runtime.BoxedUnit>() {
      @Override
      public scala.runtime.BoxedUnit apply(LogicalPlan node) {
        if (node instanceof org.apache.spark.sql.catalyst.plans.logical.LocalRelation local) {
          org.apache.spark.sql.catalyst.expressions.UnsafeProjection toBytes =
              org.apache.spark.sql.catalyst.expressions.UnsafeProjection$.MODULE$.create(local.schema());
          StringBuilder rows = new StringBuilder("local rows");
          for (org.apache.spark.sql.catalyst.InternalRow row : list(local.data())) {
            rows.append('\t').append(HexFormat.of().formatHex(toBytes.apply(row).getBytes()));
          }
          relations.add(rows.toString());
        }
        return scala.runtime.BoxedUnit.UNIT;
      }
    });
    return relations;
  }

  /**
   * The session settings that decide which dates and times a relation reads from its files: CSV and JSON dates and
   * times are parsed by one parser or another (a date such as 6/1/2024 read with the pattern dd/MM/yyyy is a date
   * to the legacy parser, a malformed value, null, to the default one), and dates and times of Parquet and Avro
   * files of other writers are read in one calendar or the other. {@link #DATETIME_READ_SETTINGS_WHERE_SET} are
   * recorded where they differ from Spark's default only.
   */
  private static final List<String> DATETIME_READ_SETTINGS = List.of("spark.sql.legacy.timeParserPolicy",
      "spark.sql.parquet.datetimeRebaseModeInRead", "spark.sql.parquet.int96RebaseModeInRead",
      "spark.sql.avro.datetimeRebaseModeInRead");

  /**
   * More settings of how dates and times are read, recorded where they differ from Spark's default ({@link
   * #nonDefault}), so that the fingerprints of filters stored before they were recorded stay as they were: {@code
   * spark.sql.parquet.int96TimestampConversion} reads Impala's INT96 timestamps in the session time zone, and the CSV
   * and JSON parsing fallbacks read a date that the {@code dateFormat} does not parse ({@code 2024-1-6} with {@code
   * yyyy-MM-dd}) as Spark 2 did, where it is null without them.
   */
  private static final List<ConfigEntry<?>> DATETIME_READ_SETTINGS_WHERE_SET = List.of(
      SQLConf.PARQUET_INT96_TIMESTAMP_CONVERSION(), SQLConf.LEGACY_CSV_ENABLE_DATE_TIME_PARSING_FALLBACK(),
      SQLConf.LEGACY_JSON_ENABLE_DATE_TIME_PARSING_FALLBACK());

  /** The ORC reader's Hadoop setting matching the files' columns to the table's by position instead of name. */
  private static final String ORC_POSITIONAL = "orc.force.positional.evolution";

  /**
   * What the plan's text leaves out of how a relation reads its files into rows: its format, schemas, bucketing and
   * options (a CSV view redefined with {@code header=false} over the same files reads their first lines as rows too),
   * the session time zone if it reads timestamps (CSV or JSON times without an offset, and timestamp partition
   * values, are read in it: in another zone they are other instants), and the settings of how dates and times are
   * parsed and read if it reads either or {@code plan} (the relation with its conditions, {@link Base}) computes with
   * them ({@link #DATETIME_READ_SETTINGS}, {@link #computesDatetimes}), and the settings that match its files' columns
   * to its own or decide which rows (or values parsed by {@code plan}) are malformed ({@link #formatReadSettings}):
   * those of the session running the query and, where they differ, those of the session that created the relation.
   */
  private static String howFilesAreRead(HadoopFsRelation relation, LogicalPlan plan) {
    java.util.TreeMap<String, String> options = new java.util.TreeMap<>();
    JavaConverters.mapAsJavaMapConverter(relation.options()).asJava()
        .forEach((k, v) -> options.put(k.toLowerCase(Locale.ROOT), v)); // options are case-insensitive
    String settings = readSettings(relation, plan, SQLConf.get());
    // Spark reads some of them from the session that created the relation (Parquet's and ORC's case sensitivity, the
    // CSV and JSON time zone, column pruning and corrupt record column, ...), others from the one running the query:
    // where the two differ (a global temp view over a DataFrame of another session), both count.
    String relationSession = readSettings(relation, plan, relation.sparkSession().sessionState().conf());
    return relation.fileFormat().getClass().getName() + "\t" + relation.dataSchema().json() + "\t"
        + relation.partitionSchema().json() + "\t" + relation.bucketSpec() + "\t" + options + "\t" + settings
        + (relationSession.equals(settings) ? "" : "\trelation's session\t" + relationSession);
  }

  /**
   * The settings of {@code conf} that {@link #howFilesAreRead} records: the time zone (or nothing), then the date and
   * time settings and the format's settings, each preceded by a tab where there are any.
   */
  private static String readSettings(HadoopFsRelation relation, LogicalPlan plan, SQLConf conf) {
    boolean readsTimestamps = reads(relation, TimestampType.class);
    String timeZone = readsTimestamps ? conf.sessionLocalTimeZone() : "";
    String datetimes = "";
    if (readsTimestamps || reads(relation, DateType.class) || computesDatetimes(plan)) {
      // Their values are case-insensitive names, kept as set: LEGACY and legacy are the same policy.
      datetimes = DATETIME_READ_SETTINGS.stream()
          .map(k -> k + "=" + conf.getConfString(k).toUpperCase(Locale.ROOT))
          .collect(java.util.stream.Collectors.joining(","));
      datetimes += nonDefault(DATETIME_READ_SETTINGS_WHERE_SET, conf);
    }
    String formatSettings = formatReadSettings(relation, plan, conf);
    return timeZone + (datetimes.isEmpty() ? "" : "\t" + datetimes)
        + (formatSettings.isEmpty() ? "" : "\t" + formatSettings.substring(1));
  }

  /**
   * The settings that decide which values a relation of its format reads from the same files, beyond dates and times,
   * where they differ from Spark's default ({@code ,key=value} each, or nothing): which file column is which of the
   * table's (Parquet's and ORC's by name, case-insensitively unless {@code spark.sql.caseSensitive}; Parquet's by
   * field id where the table's schema has ids and {@code spark.sql.parquet.fieldId.read.enabled}; ORC's by position
   * where {@link #ORC_POSITIONAL}), and which CSV and JSON rows are malformed (and dropped in DROPMALFORMED mode, or
   * named by the corrupt record column a view may select on): CSV rows of another length where all columns are
   * parsed, not only those read; JSON rows with a malformed nested value, all nulls without partial results, and
   * those with an empty string for a number, which the legacy setting reads as null. The JSON and CSV settings count
   * too where {@code plan} (the relation with its conditions) parses JSON or CSV from strings ({@code from_json}, {@code
   * from_csv}). JSON fields and CSV columns are matched by name exactly and by position, whatever {@code
   * spark.sql.caseSensitive}.
   */
  private static String formatReadSettings(HadoopFsRelation relation, LogicalPlan plan, SQLConf conf) {
    FileFormat format = relation.fileFormat();
    boolean parsesJson = format instanceof JsonFileFormat
        || anyExpression(plan, e -> e instanceof org.apache.spark.sql.catalyst.expressions.JsonToStructs);
    boolean parsesCsv = format instanceof CSVFileFormat
        || anyExpression(plan, e -> e instanceof org.apache.spark.sql.catalyst.expressions.CsvToStructs);
    List<ConfigEntry<?>> settings = new ArrayList<>();
    if (format instanceof ParquetFileFormat || format instanceof OrcFileFormat) {
      settings.add(SQLConf.CASE_SENSITIVE());
    }
    if (format instanceof ParquetFileFormat && ParquetUtils.hasFieldIds(relation.dataSchema())) {
      settings.add(SQLConf.PARQUET_FIELD_ID_READ_ENABLED());
    }
    if (format instanceof CSVFileFormat) {
      settings.add(SQLConf.CSV_PARSER_COLUMN_PRUNING());
    }
    if (parsesJson) {
      settings.addAll(List.of(SQLConf.JSON_ENABLE_PARTIAL_RESULTS(), SQLConf.LEGACY_ALLOW_EMPTY_STRING_IN_JSON()));
    }
    if (parsesCsv || parsesJson) {
      settings.add(SQLConf.COLUMN_NAME_OF_CORRUPT_RECORD());
    }
    String recorded = nonDefault(settings, conf);
    // A Hadoop setting, which a session sets like its own (SET orc.force.positional.evolution=true).
    if (format instanceof OrcFileFormat && relation.sparkSession().sessionState()
        .newHadoopConfWithOptions(relation.options()).getBoolean(ORC_POSITIONAL, false)) {
      recorded += "," + ORC_POSITIONAL + "=true";
    }
    return recorded;
  }

  /**
   * {@code ,key=value} for each of {@code settings} whose session value differs from Spark's default (an optional
   * setting, without one, where it is set), in the order given; compared as values, so that {@code TRUE} is {@code
   * true}.
   */
  private static String nonDefault(List<ConfigEntry<?>> settings, SQLConf conf) {
    StringBuilder recorded = new StringBuilder();
    for (ConfigEntry<?> setting : settings) {
      Object value = conf.getConf(setting);
      Object byDefault = setting.defaultValue().isDefined() ? setting.defaultValue().get() : scala.None$.MODULE$;
      if (!value.equals(byDefault)) {
        recorded.append(',').append(setting.key()).append('=')
            .append(value instanceof scala.Option<?> set ? set.get() : value);
      }
    }
    return recorded.toString();
  }

  /**
   * Whether an expression of {@code plan} computes with dates or times: its value or an input of it is one, or it
   * computes in a time zone ({@code unix_timestamp(s, 'dd/MM/yyyy')}, a long from a string; casts that need no zone
   * do not count). How such a value is parsed from a string depends on the time parser policy, which the plan's text
   * does not show: {@code to_date(s, 'dd/MM/yyyy')} is null for {@code 6/1/2024} to the default parser and a date to
   * the legacy one, so a view's condition on it selects other rows under the other policy, though the relation reads
   * strings only.
   */
  private static boolean computesDatetimes(LogicalPlan plan) {
    return anyExpression(plan, e -> e instanceof org.apache.spark.sql.catalyst.expressions.TimeZoneAwareExpression
        && !(e instanceof Cast c && !Cast$.MODULE$.needsTimeZone(c.child().dataType(), c.dataType()))
        || e.dataType().existsRecursively(new scala.runtime.AbstractFunction1<DataType, Object>() {
          @Override
          public Object apply(DataType t) {
            return t instanceof DateType || t instanceof TimestampType
                || t instanceof org.apache.spark.sql.types.TimestampNTZType;
          }
        }));
  }

  /** Whether an expression of a node of {@code plan}, or one inside it, satisfies {@code test}. */
  private static boolean anyExpression(LogicalPlan plan, java.util.function.Predicate<Expression> test) {
    return plan.exists(new scala.runtime.AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        return list(node.expressions()).stream().anyMatch(e -> e.exists(
            new scala.runtime.AbstractFunction1<Expression, Object>() {
              @Override
              public Object apply(Expression x) {
                return test.test(x);
              }
            }));
      }
    });
  }

  /** Whether the relation reads a value of {@code type} (in its files' or its partitions' columns, nested too). */
  private static boolean reads(HadoopFsRelation relation, Class<? extends DataType> type) {
    scala.Function1<DataType, Object> isType = new scala.runtime.AbstractFunction1<DataType, Object>() {
      @Override
      public Object apply(DataType t) {
        return type.isInstance(t);
      }
    };
    return relation.dataSchema().existsRecursively(isType) || relation.partitionSchema().existsRecursively(isType);
  }

  private static void warnUnfingerprinted(String table, FilterVersion version) {
    if (WARNED.add(table + "\n" + version.location() + "\n" + version.version())) {
      LOG.warn("The stored filter registered for {} ({} version {}) records no fingerprint of the table, so it cannot "
          + "be known to be current and is not used: store it with StoredFilterIndex.storeIndex or bring it up to "
          + "date with StoredFilterIndex.updateIndex, which record one", table, version.location(), version.version());
    }
  }
}
