package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
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
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.PredicateHelper;
import org.apache.spark.sql.catalyst.optimizer.InjectRuntimeFilter$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import scala.collection.JavaConverters;

/**
 * Stored filters as join indexes. A stored filter is registered for a table or view
 * ({@code spark.cuckoo.storedFilter.<name> = <filter store location>}, by {@code SET} in SQL or
 * {@link #register}); when a join's other side is that table or view, the runtime filter rule probes the
 * stored filter directly instead of building one.
 *
 * <p><b>Staleness.</b> A stored filter describes the table as it was when it was built: its metadata
 * carries a fingerprint of the table's data, a SHA-256 of the path, length and modification time of every
 * file of the table's (file-based) relation. The rule uses the filter only if the table's current
 * fingerprint is the same; otherwise (files added, removed or rewritten), or for relations without files
 * to fingerprint, the filter is stale and the rule falls back to building a fresh one for the query. Keep
 * the stored filter current with an incremental update ({@code FilterUpdater}) or a rebuild
 * ({@link #storeIndex}), both of which record the new fingerprint.
 *
 * <p>Only repeatable tables and views can be indexed: one with a limit, a sample or a non-deterministic
 * expression may return other rows at each read, whose keys a filter of an earlier read need not hold. Such
 * a table is refused by {@link #storeIndex} and {@link #updateIndex}, and a registration for it (a view
 * replaced since it was indexed) is ignored.
 */
public final class StoredFilterIndex {
  /** Configuration prefix of registrations: {@code spark.cuckoo.storedFilter.<table or view>}. */
  public static final String PREFIX = "spark.cuckoo.storedFilter.";
  /** Metadata property holding the source table's fingerprint. */
  public static final String FINGERPRINT = "cuckoo.source.fingerprint";

  /** The stored filters that joins used lately, so that a query does not read and broadcast one again. */
  private static final OpenedFilters OPENED = new OpenedFilters(8);
  /** Where the registered tables read their files, so that joins over other files pass them over quickly. */
  private static final TableRoots ROOTS = new TableRoots(64);

  private StoredFilterIndex() {}

  /** Registers the filter stored at {@code location} for {@code table} (a table or view name). */
  public static void register(SparkSession spark, String table, String location) {
    spark.conf().set(PREFIX + table.toLowerCase(Locale.ROOT), location);
  }

  /**
   * Builds a filter of {@code table}'s key columns, stores it as the next version at {@code location}
   * with the table's fingerprint, and registers it.
   */
  public static FilterVersion storeIndex(SparkSession spark, String table, List<String> keyColumns, String location,
      double fpp) throws IOException {
    String fingerprint = indexableFingerprint(spark, table);
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
   * Brings the stored filter registered for {@code table} up to date with {@code change} (an
   * incremental update, FilterUpdater) and records the table's current fingerprint, so the rule uses it
   * again.
   */
  public static FilterVersion updateIndex(SparkSession spark, String table,
      dev.cuckoofilter.spark.update.ChangeSet change) throws IOException {
    String location = spark.conf().get(PREFIX + table.toLowerCase(Locale.ROOT), null);
    if (location == null) {
      throw new IllegalArgumentException("no stored filter is registered for " + table + " (" + PREFIX
          + table.toLowerCase(Locale.ROOT) + " is not set)");
    }
    String fingerprint = indexableFingerprint(spark, table);
    return dev.cuckoofilter.spark.update.FilterUpdater.update(FilterStore.open(location, spark), change,
        "table " + table, Map.of(FINGERPRINT, fingerprint)).version();
  }

  /**
   * The fingerprint of a table or view that a stored filter can index: file-based, and repeatable (every read
   * returns the same rows, so the filter of one read holds the keys of the next).
   *
   * @throws IllegalArgumentException naming the table otherwise
   */
  private static String indexableFingerprint(SparkSession spark, String table) {
    LogicalPlan plan = spark.table(table).queryExecution().optimizedPlan();
    if (!CuckooRuntimeFilterRule.repeatable(plan)) {
      throw new IllegalArgumentException("table " + table + " cannot be indexed by a stored filter: it is not "
          + "repeatable (a limit, sample, non-deterministic expression such as rand(), or an order-dependent window "
          + "or aggregate), so a later read may return rows whose keys the filter does not hold");
    }
    return relation(plan).map(StoredFilterIndex::fingerprint).orElseThrow(() -> new IllegalArgumentException("table "
        + table + " is not a file-based table whose data can be fingerprinted; stored filters can only index "
        + "file-based tables and views over them"));
  }

  /** A stored filter that can replace a build for a join side, or why it cannot. */
  record Match(Expression probe, String description) {}

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
        creationRoots = relation(creation).map(StoredFilterIndex::roots).orElse(null);
        if (creationRoots == null) {
          return Optional.empty();
        }
      }
      String table = r.getKey().substring(PREFIX.length());
      SparkSession spark = SparkSession.active();
      try {
        FilterStore store = FilterStore.open(r.getValue(), spark);
        Optional<FilterVersion> latest = store.latest();
        if (latest.isEmpty()) {
          continue;
        }
        // Planning the table is the expensive part (3-15 ms for the views of the tests and benchmarks): pass over
        // a registration whose table read other files when this version was last considered.
        TableRoots.Key rootsKey = new TableRoots.Key(table, latest.get());
        List<String> known = ROOTS.get(rootsKey);
        if (known != null && !known.equals(creationRoots)) {
          continue;
        }
        LogicalPlan registered;
        try {
          registered = spark.table(table).queryExecution().optimizedPlan();
        } catch (Exception e) { // the table or view no longer exists: the registration is ignored
          continue;
        }
        Optional<HadoopFsRelation> registeredRelation = relation(registered);
        List<String> registeredRoots = registeredRelation.map(StoredFilterIndex::roots).orElse(List.of());
        ROOTS.put(rootsKey, registeredRoots);
        if (!registeredRoots.equals(creationRoots)) {
          continue;
        }
        // The commit record decides; the filter file is read (and verified) only for a version that is used.
        FilterMetadata metadata = store.metadata(latest.get().version());
        List<StructField> storedKeys = metadata.keyColumns();
        int[] order = storedKeyOrder(creation, creationKeys, registered, storedKeys);
        // Last, as it lists the table's files: whether they are still those the filter was built from.
        if (order == null || !fingerprint(registeredRelation.get()).equals(metadata.properties().get(FINGERPRINT))) {
          continue; // other rows, indexes other columns, or stale: build instead
        }
        List<Expression> probed = new ArrayList<>();
        for (int i : order) {
          probed.add(keys.get(i));
        }
        if (!dev.cuckoofilter.spark.hash.KeyTypes.hashAlike(storedKeys.stream().map(StructField::dataType).toList(),
            probed.stream().map(Expression::dataType).toList())) {
          continue; // keys of other types: its probe would refuse them
        }
        SparkCuckooFilter filter = OPENED.get(spark, latest.get(), () -> store.sparkFilter(spark, latest.get().version()));
        Column[] probeKeys = probed.stream().map(Column::new).toArray(Column[]::new);
        return Optional.of(new Match(filter.mightContain(probeKeys).expr(),
            "stored filter " + store.location() + " v" + latest.get().version() + " for " + table));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the stored filter registered for " + table + " at " + r.getValue(), e);
      }
    }
    return Optional.empty();
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
    List<Attribute> registeredKeys = new ArrayList<>();
    for (StructField stored : storedKeys) {
      Attribute found = null;
      for (Attribute a : list(registered.output())) {
        if (a.name().equalsIgnoreCase(stored.name())) {
          if (found != null) {
            return null; // ambiguous
          }
          found = a;
        }
      }
      if (found == null) {
        return null;
      }
      registeredKeys.add(found);
    }
    Base creationBase = Base.of(creation, creationKeys);
    Base registeredBase = Base.of(registered, new ArrayList<>(registeredKeys));
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

  /** The plan's one file-based relation, if it reads exactly one, through a file index that lists its files. */
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
    return fs.location() instanceof PartitioningAwareFileIndex ? Optional.of(fs) : Optional.empty();
  }

  /** The root paths of the relation's files, sorted. */
  private static List<String> roots(HadoopFsRelation relation) {
    return list(relation.location().rootPaths()).stream().map(Object::toString).sorted().toList();
  }

  /** SHA-256 of the path, length and modification time of every file of the relation, in path order. */
  private static String fingerprint(HadoopFsRelation relation) {
    PartitioningAwareFileIndex index = (PartitioningAwareFileIndex) relation.location();
    index.refresh(); // see files added or replaced since the relation was cached
    List<String> files = new ArrayList<>();
    for (FileStatus f : list(index.allFiles())) {
      files.add(f.getPath() + "\t" + f.getLen() + "\t" + f.getModificationTime());
    }
    java.util.Collections.sort(files);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String f : files) {
        sha.update(f.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
