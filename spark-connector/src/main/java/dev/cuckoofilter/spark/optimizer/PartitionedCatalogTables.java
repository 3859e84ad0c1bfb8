package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.optimizer.InjectRuntimeFilter$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.CatalogFileIndex;
import org.apache.spark.sql.execution.datasources.FileIndex;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex;
import org.apache.spark.sql.execution.datasources.PruneFileSourcePartitions$;
import scala.runtime.AbstractPartialFunction;

/**
 * Relations of partitioned catalog tables whose partitions the catalog tracks ({@code saveAsTable} with
 * {@code partitionBy}, {@code CREATE TABLE ... PARTITIONED BY}). Until the optimizer's partition pruning, which
 * runs after the runtime filter rule, such a relation reads through a {@link CatalogFileIndex}: it has listed no
 * files, and without {@code ANALYZE TABLE} statistics Spark estimates its size as unknown (the largest size).
 */
final class PartitionedCatalogTables {
  private PartitionedCatalogTables() {}

  /**
   * {@code plan} with each partitioned catalog table's relation reading through the catalog's partitions, as
   * before partition pruning. A join side seen by the rule is in that state, while a registered table planned to
   * the end has had a view's filters on partition columns replace the catalog index by an index of the selected
   * partitions' files: the filters stay in both plans, so the two compare equal once both read through the catalog.
   */
  static LogicalPlan beforePruning(LogicalPlan plan) {
    return transformRelations(plan, false);
  }

  /**
   * {@code plan} with each partitioned catalog table's relation that has no statistics reading the files of the
   * partitions its filters select, listed now (as Spark lists them to scan them, into the session's file status
   * cache), so that its statistics give the size of those files instead of an unknown size.
   */
  static LogicalPlan listed(LogicalPlan plan) {
    if (!plan.exists(new scala.runtime.AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        return replaced(node, true);
      }
    })) {
      return plan; // nothing to list: no relation without statistics reads through the catalog
    }
    return transformRelations(PruneFileSourcePartitions$.MODULE$.apply(withoutProbes(plan)), true);
  }

  /**
   * {@code plan} without its filters' cuckoo filter probes. Partition pruning evaluates a probe of partition columns
   * on the driver, once per partition: Spark does so for the query, and a copy pruned only to be sized must not do it
   * again (counting each partition again in the probe's metrics, and loading a filter meant for the executors into
   * the driver). Without them, the copy's partitions are a superset of the query's.
   */
  private static LogicalPlan withoutProbes(LogicalPlan plan) {
    return plan.transformUp(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan node) {
        return node instanceof Filter f && probes(f.condition());
      }

      @Override
      public LogicalPlan apply(LogicalPlan node) {
        if (!isDefinedAt(node)) {
          return node;
        }
        Filter filter = (Filter) node;
        List<Expression> kept = new ArrayList<>();
        for (Expression c : list(InjectRuntimeFilter$.MODULE$.splitConjunctivePredicates(filter.condition()))) {
          if (!probes(c)) {
            kept.add(c);
          }
        }
        return kept.isEmpty() ? filter.child() : new Filter(kept.stream().reduce(And::new).get(), filter.child());
      }
    });
  }

  /**
   * The index listing {@code relation}'s files: its own, or for a relation reading through the catalog an index
   * of all the partitions the catalog has now.
   */
  static PartitioningAwareFileIndex files(HadoopFsRelation relation) {
    return relation.location() instanceof CatalogFileIndex catalog
        ? catalog.filterPartitions(scala.collection.immutable.List.<Expression>empty())
        : (PartitioningAwareFileIndex) relation.location();
  }

  /**
   * {@link #files}, listed now from the file system: files added or replaced since the relation was cached (or since
   * the catalog's index last listed them into Spark's file status cache) are seen. The files of a relation reading
   * through the catalog are listed once: its cached listings are dropped before the index of its partitions lists
   * them (and caches them again), where refreshing that index after it was built listed them a second time (the
   * first time from the cache); the index, and so what it lists, is the same.
   */
  static PartitioningAwareFileIndex currentFiles(HadoopFsRelation relation) {
    if (relation.location() instanceof CatalogFileIndex catalog) {
      catalog.refresh(); // drops the cached listings of its partitions, which files() then lists afresh
      return files(relation);
    }
    PartitioningAwareFileIndex index = files(relation);
    index.refresh(); // see files added or replaced since the relation was cached
    return index;
  }

  /**
   * Replaces the index of each partitioned catalog table's relation: with {@code toListed}, a catalog index of a
   * table without statistics by an index of all its partitions' files; otherwise any other index by the catalog's.
   */
  private static LogicalPlan transformRelations(LogicalPlan plan, boolean toListed) {
    return plan.transformUp(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan node) {
        return replaced(node, toListed);
      }

      @Override
      public LogicalPlan apply(LogicalPlan node) {
        if (!isDefinedAt(node)) {
          return node;
        }
        LogicalRelation r = (LogicalRelation) node;
        HadoopFsRelation fs = (HadoopFsRelation) r.relation();
        FileIndex index = toListed ? files(fs) : new CatalogFileIndex(fs.sparkSession(), r.catalogTable().get(),
            fs.sizeInBytes());
        return new LogicalRelation(new HadoopFsRelation(index, fs.partitionSchema(), fs.dataSchema(), fs.bucketSpec(),
            fs.fileFormat(), fs.options(), fs.sparkSession()), r.output(), r.catalogTable(), r.isStreaming());
      }
    });
  }

  private static boolean probes(Expression condition) {
    return condition.exists(new scala.runtime.AbstractFunction1<Expression, Object>() {
      @Override
      public Object apply(Expression e) {
        return e instanceof CuckooMightContain;
      }
    });
  }

  /** Whether {@link #transformRelations} replaces {@code node}'s index. */
  private static boolean replaced(LogicalPlan node, boolean toListed) {
    if (!(node instanceof LogicalRelation r && r.relation() instanceof HadoopFsRelation fs
        && r.catalogTable().isDefined() && tracksPartitions(r.catalogTable().get()))) {
      return false;
    }
    boolean viaCatalog = fs.location() instanceof CatalogFileIndex;
    return toListed ? viaCatalog && r.catalogTable().get().stats().isEmpty() : !viaCatalog;
  }

  private static boolean tracksPartitions(CatalogTable table) {
    return table.tracksPartitionsInCatalog() && !table.partitionColumnNames().isEmpty();
  }
}
