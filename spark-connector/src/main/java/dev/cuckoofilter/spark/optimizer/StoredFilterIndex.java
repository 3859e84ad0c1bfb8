package dev.cuckoofilter.spark.optimizer;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.StoredFilter;
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
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
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
 */
public final class StoredFilterIndex {
  /** Configuration prefix of registrations: {@code spark.cuckoo.storedFilter.<table or view>}. */
  public static final String PREFIX = "spark.cuckoo.storedFilter.";
  /** Metadata property holding the source table's fingerprint. */
  public static final String FINGERPRINT = "cuckoo.source.fingerprint";

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
    String fingerprint = fingerprint(spark.table(table).queryExecution().optimizedPlan())
        .orElseThrow(() -> new IllegalArgumentException("table " + table + " is not a file-based table whose data can be "
            + "fingerprinted; stored filters can only index file-based tables and views over them"));
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
    String fingerprint = fingerprint(spark.table(table).queryExecution().optimizedPlan())
        .orElseThrow(() -> new IllegalArgumentException("table " + table + " is not file-based"));
    return dev.cuckoofilter.spark.update.FilterUpdater.update(FilterStore.open(location, spark), change,
        "table " + table, Map.of(FINGERPRINT, fingerprint)).version();
  }

  /** A stored filter that can replace a build for a join side, or why it cannot. */
  record Match(Expression probe, String description) {}

  /**
   * The probe of a registered, current stored filter for a join side ({@code creation}, keyed by
   * {@code creationKeys}) used to prune another side keyed by {@code keys}; empty if none applies.
   */
  static Optional<Match> find(LogicalPlan creation, List<Expression> creationKeys, List<Expression> keys) {
    Map<String, String> registrations = JavaConverters.mapAsJavaMapConverter(SQLConf.get().getAllConfs()).asJava();
    for (Map.Entry<String, String> r : registrations.entrySet()) {
      if (!r.getKey().startsWith(PREFIX)) {
        continue;
      }
      String table = r.getKey().substring(PREFIX.length());
      SparkSession spark = SparkSession.active();
      LogicalPlan registered;
      try {
        registered = spark.table(table).queryExecution().optimizedPlan();
      } catch (Exception e) { // the table or view no longer exists: the registration is ignored
        continue;
      }
      if (!sameRows(creation, registered)) {
        continue;
      }
      try {
        FilterStore store = FilterStore.open(r.getValue(), spark);
        Optional<FilterVersion> latest = store.latest();
        if (latest.isEmpty()) {
          continue;
        }
        StoredFilter stored = store.read(latest.get().version());
        List<StructField> storedKeys = stored.metadata().keyColumns();
        String current = fingerprint(registered).orElse(null);
        String recorded = stored.metadata().properties().get(FINGERPRINT);
        if (current == null || !current.equals(recorded) || !sameKeyNames(creationKeys, storedKeys)) {
          continue; // stale, or indexes other columns: build instead
        }
        if (!dev.cuckoofilter.spark.hash.KeyTypes.hashAlike(storedKeys.stream().map(StructField::dataType).toList(),
            keys.stream().map(Expression::dataType).toList())) {
          continue; // keys of other types: its probe would refuse them
        }
        SparkCuckooFilter filter = store.sparkFilter(spark, latest.get().version());
        Column[] probeKeys = keys.stream().map(Column::new).toArray(Column[]::new);
        return Optional.of(new Match(filter.mightContain(probeKeys).expr(),
            "stored filter " + store.location() + " v" + latest.get().version() + " for " + table));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the stored filter registered for " + table + " at " + r.getValue(), e);
      }
    }
    return Optional.empty();
  }

  /** Both plans read the same relation with the same non-null-check filters, whatever their projections. */
  private static boolean sameRows(LogicalPlan a, LogicalPlan b) {
    return normalize(a).sameResult(normalize(b));
  }

  /** Drops projections and aliases, and null checks the optimizer infers from join keys. */
  private static LogicalPlan normalize(LogicalPlan plan) {
    if (plan instanceof Project) {
      return normalize(((Project) plan).child());
    }
    if (plan instanceof SubqueryAlias) {
      return normalize(((SubqueryAlias) plan).child());
    }
    if (plan instanceof Filter) {
      Filter f = (Filter) plan;
      PredicateHelper helper = InjectRuntimeFilter$.MODULE$;
      List<Expression> kept = new ArrayList<>();
      for (Expression c : JavaConverters.seqAsJavaListConverter(helper.splitConjunctivePredicates(f.condition())).asJava()) {
        if (!(c instanceof IsNotNull)) {
          kept.add(c);
        }
      }
      LogicalPlan child = normalize(f.child());
      return kept.isEmpty() ? child : new Filter(kept.stream().reduce(org.apache.spark.sql.catalyst.expressions.And::new)
          .get(), child);
    }
    return plan;
  }

  private static boolean sameKeyNames(List<Expression> keys, List<StructField> stored) {
    if (keys.size() != stored.size()) {
      return false;
    }
    for (int i = 0; i < keys.size(); i++) {
      if (!(keys.get(i) instanceof AttributeReference)
          || !((Attribute) keys.get(i)).name().equalsIgnoreCase(stored.get(i).name())) {
        return false;
      }
    }
    return true;
  }

  /**
   * SHA-256 of the path, length and modification time of every file under the plan's file-based
   * relation, in path order; empty if the plan has no single file-based relation.
   */
  static Optional<String> fingerprint(LogicalPlan plan) {
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
    if (!(fs.location() instanceof PartitioningAwareFileIndex)) {
      return Optional.empty();
    }
    PartitioningAwareFileIndex index = (PartitioningAwareFileIndex) fs.location();
    index.refresh(); // see files added or replaced since the relation was cached
    List<String> files = new ArrayList<>();
    for (FileStatus f : JavaConverters.seqAsJavaListConverter(index.allFiles()).asJava()) {
      files.add(f.getPath() + "\t" + f.getLen() + "\t" + f.getModificationTime());
    }
    java.util.Collections.sort(files);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String f : files) {
        sha.update(f.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      return Optional.of(HexFormat.of().formatHex(sha.digest()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
