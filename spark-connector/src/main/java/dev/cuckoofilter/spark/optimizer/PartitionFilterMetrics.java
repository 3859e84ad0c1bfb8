package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import dev.cuckoofilter.spark.expressions.PruneMetrics;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.catalyst.trees.TreeNode;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.CatalogFileIndex;
import org.apache.spark.sql.execution.datasources.FileIndex;
import org.apache.spark.sql.execution.datasources.FileSourceStrategy$;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.internal.SQLConf;
import scala.collection.JavaConverters;
import scala.collection.Seq;

/**
 * Counts a cuckoo filter probe that Spark plans as a partition filter of a file scan in partitions, not rows.
 * When a probe's keys are partition columns of a partitioned file-source table (written with {@code partitionBy},
 * or a catalog table {@code PARTITIONED BY}), Spark evaluates it on the driver, once with each partition's values,
 * to choose the partitions to read, and drops it from the filters of the rows read: its {@link PruneMetrics} then
 * counted partitions as rows (a runtime filter on a table of 40 partitions: 40 "rows in"). Here such a probe gets
 * {@link PruneMetrics#forPartitions()}, at the two places Spark evaluates partition filters:
 * <ul>
 *   <li>{@link BeforePartitionPruning}, an optimizer rule run just before Spark's {@code PruneFileSourcePartitions}:
 *       that rule prunes the partitions of a catalog table (whose partitions the catalog lists) with the filters
 *       above it that have no subquery ({@code SparkCuckooFilter.prune} on a partition column);
 *   <li>{@link ScanStrategy}, a planner strategy that plans file scans as Spark's {@code FileSourceStrategy} does,
 *       then marks the probes among the scan's partition filters, which the scan evaluates as it lists its files
 *       (a table read by path; a runtime filter, whose subquery {@code PruneFileSourcePartitions} leaves alone).
 *       A probe that {@code PruneFileSourcePartitions} already applied is evaluated by the scan again, with the
 *       partitions it kept only (each kept again): that evaluation is not counted.
 * </ul>
 * Only the copy that Spark evaluates with partition values is changed, so a probe that is also evaluated with the
 * rows (a partition filter Spark extracts from a disjunction that also reads data columns) counts both, each as
 * what it is. Metrics are not part of a probe's identity: the plans are otherwise unchanged. Installed by {@code
 * CuckooFilterExtensions}: in a session without them, such probes still count partition values as rows. Hive
 * tables read by Hive's reader ({@code HiveTableScanExec}) and DataSource V2 scans are not covered.
 */
public final class PartitionFilterMetrics {
  private PartitionFilterMetrics() {}

  /**
   * Marks the probes that {@code PruneFileSourcePartitions} will evaluate with partition values: in a filter of a
   * partitioned catalog table (above it, through deterministic projections and filters), the conjuncts of its
   * partition columns only that are deterministic and have no subquery (the filters that rule prunes with; a
   * partition column renamed by a projection is not recognized, and its probe counts rows as before). Injected
   * after the runtime filter rule, just before Spark's batch with {@code PruneFileSourcePartitions}.
   */
  public static final class BeforePartitionPruning extends Rule<LogicalPlan> {
    @Override
    public String ruleName() {
      return "CuckooPartitionFilterMetrics";
    }

    @Override
    public LogicalPlan apply(LogicalPlan plan) {
      return marked(plan);
    }

    /**
     * {@code plan} with its probes marked, rebuilt by hand ({@link #withChildren}).
     */
    private static LogicalPlan marked(LogicalPlan plan) {
      List<LogicalPlan> children = new ArrayList<>();
      boolean changed = false;
      for (LogicalPlan child : list(plan.children())) {
        LogicalPlan marked = marked(child);
        changed |= marked != child;
        children.add(marked);
      }
      LogicalPlan p = changed ? withChildren(plan, children) : plan;
      LogicalRelation relation = p instanceof Filter ? catalogTableBelow(p) : null;
      if (relation == null) {
        return p;
      }
      Filter filter = (Filter) p;
      Set<ExprId> partitionColumns = partitionColumns(relation);
      List<Expression> conjuncts = new ArrayList<>();
      boolean marked = false;
      for (Expression c : conjuncts(filter.condition())) {
        Expression counted = c;
        if (c.deterministic() && !SubqueryExpression$.MODULE$.hasSubquery(c) && within(c, partitionColumns)) {
          counted = countingPartitions(c, false);
        }
        marked |= counted != c;
        conjuncts.add(counted);
      }
      if (!marked) {
        return filter;
      }
      Expression condition = conjuncts.get(0);
      for (int i = 1; i < conjuncts.size(); i++) {
        condition = new And(condition, conjuncts.get(i));
      }
      return new Filter(condition, filter.child());
    }

    /**
     * The partitioned catalog table that {@code filter} is a filter of, through deterministic projections and
     * filters (as {@code PruneFileSourcePartitions} collects them), or null.
     */
    private static LogicalRelation catalogTableBelow(LogicalPlan filter) {
      LogicalPlan p = filter.children().head();
      while ((p instanceof Project || p instanceof Filter) && p.deterministic()) {
        p = p.children().head();
      }
      return p instanceof LogicalRelation r && r.relation() instanceof HadoopFsRelation fs
          && fs.partitionSchema().nonEmpty() && fs.location() instanceof CatalogFileIndex ? r : null;
    }
  }

  /**
   * Plans the scan of a partitioned file-source table whose filters hold a counting probe, as Spark's {@code
   * FileSourceStrategy} (which plans it otherwise, right after this strategy), and marks the probes of the scan's
   * partition filters as counting partitions. Anything else is left to Spark's strategies, and so is a scan that a
   * strategy Spark consults between this one and {@code FileSourceStrategy} plans (one injected by an extension
   * listed after {@code CuckooFilterExtensions}): its plan is returned unchanged, and its probes count as before.
   */
  public static final class ScanStrategy extends SparkStrategy {
    private final SparkSession session;

    public ScanStrategy(SparkSession session) {
      this.session = session;
    }

    @Override
    public Seq<SparkPlan> apply(LogicalPlan plan) {
      if (!partitionedScanWithCountingProbe(plan)) {
        return seq(List.of());
      }
      Seq<SparkPlan> before = plannedBeforeFileSourceStrategy(plan);
      if (before != null) {
        return before;
      }
      List<SparkPlan> planned = new ArrayList<>();
      for (SparkPlan p : list(FileSourceStrategy$.MODULE$.apply(plan))) {
        planned.add(withPartitionCounts(p));
      }
      return seq(planned);
    }

    /**
     * What a strategy that Spark consults after this one and before {@code FileSourceStrategy} plans {@code plan}
     * as (the strategies of extensions listed after {@code CuckooFilterExtensions}, say a user's own file scans),
     * unchanged, or null if none plans it: Spark would have planned it so, and this strategy only labels metrics.
     */
    private Seq<SparkPlan> plannedBeforeFileSourceStrategy(LogicalPlan plan) {
      boolean after = false;
      for (SparkStrategy s : list(session.sessionState().planner().strategies())) {
        if (s == FileSourceStrategy$.MODULE$) {
          return null;
        }
        if (s instanceof ScanStrategy) {
          after = true;
        } else if (after) {
          Seq<SparkPlan> planned = s.apply(plan);
          if (planned.nonEmpty()) {
            return planned;
          }
        }
      }
      return null;
    }
  }

  /**
   * Whether {@code plan} is filters and projections (what {@code FileSourceStrategy} plans as one scan) over a
   * partitioned file-source table, with a probe that counts what it sees in one of its filters.
   */
  private static boolean partitionedScanWithCountingProbe(LogicalPlan plan) {
    boolean probe = false;
    LogicalPlan p = plan;
    while (p instanceof Project || p instanceof Filter) {
      if (p instanceof Filter f) {
        probe |= counts(f.condition());
      }
      p = p.children().head();
    }
    return probe && p instanceof LogicalRelation r && r.relation() instanceof HadoopFsRelation fs
        && fs.partitionSchema().nonEmpty();
  }

  /** Whether {@code e} holds a probe that counts what it sees. */
  private static boolean counts(Expression e) {
    if (e instanceof CuckooMightContain c && c.metrics() != null) {
      return true;
    }
    for (Expression child : list(e.children())) {
      if (counts(child)) {
        return true;
      }
    }
    return false;
  }

  private static SparkPlan withPartitionCounts(SparkPlan plan) {
    if (plan instanceof FileSourceScanExec scan) {
      return withPartitionCounts(scan);
    }
    List<SparkPlan> children = new ArrayList<>();
    boolean changed = false;
    for (SparkPlan child : list(plan.children())) {
      SparkPlan counted = withPartitionCounts(child);
      changed |= counted != child;
      children.add(counted);
    }
    return changed ? withChildren(plan, children) : plan;
  }

  /**
   * The scan with the probes of its partition filters counting partitions, except those {@code
   * PruneFileSourcePartitions} applied and counted already ({@link BeforePartitionPruning} marked them): the scan
   * reads a catalog table's partitions as that rule pruned them, and evaluates them again with those.
   */
  private static SparkPlan withPartitionCounts(FileSourceScanExec scan) {
    FileIndex location = scan.relation().location();
    boolean prunedWhenOptimized = !(location instanceof CatalogFileIndex) && location.metadataOpsTimeNs().isDefined();
    List<Expression> filters = new ArrayList<>();
    boolean changed = false;
    for (Expression f : list(scan.partitionFilters())) {
      Expression counted = countingPartitions(f, prunedWhenOptimized && !SubqueryExpression$.MODULE$.hasSubquery(f));
      changed |= counted != f;
      filters.add(counted);
    }
    if (!changed) {
      return scan;
    }
    Object[] args = new Object[scan.productArity()];
    boolean replaced = false;
    for (int i = 0; i < args.length; i++) {
      args[i] = scan.productElement(i);
      if (!replaced && args[i] == scan.partitionFilters()) {
        args[i] = seq(filters);
        replaced = true;
      }
    }
    return replaced ? scan.makeCopy(args) : scan;
  }

  /**
   * {@code e} with its counting probes counting partitions; with {@code countedAlready}, a probe that counts
   * partitions already (so counted when {@code PruneFileSourcePartitions} evaluated it) counting nothing.
   */
  private static Expression countingPartitions(Expression e, boolean countedAlready) {
    if (e instanceof CuckooMightContain c && c.metrics() != null) {
      if (!c.metrics().countsPartitions()) {
        return c.withMetrics(c.metrics().forPartitions());
      }
      return countedAlready ? c.withMetrics(null) : c;
    }
    List<Expression> children = new ArrayList<>();
    boolean changed = false;
    for (Expression child : list(e.children())) {
      Expression counted = countingPartitions(child, countedAlready);
      changed |= counted != child;
      children.add(counted);
    }
    return changed ? withChildren(e, children) : e;
  }

  /**
   * {@code node} with {@code children}, always a copy: metrics are no part of a probe's equality, so Catalyst's
   * transforms and {@code withNewChildren} keep the original of an equal result, the probe that counts rows.
   */
  private static <T extends TreeNode<T>> T withChildren(T node, List<T> children) {
    T copy = node.withNewChildrenInternal(JavaConverters.asScalaBuffer(children).toIndexedSeq());
    copy.copyTagsFrom(node);
    return copy;
  }

  private static Set<ExprId> partitionColumns(LogicalRelation relation) {
    HadoopFsRelation fs = (HadoopFsRelation) relation.relation();
    Set<ExprId> ids = new HashSet<>();
    for (Attribute a : list(relation.resolve(fs.partitionSchema(), SQLConf.get().resolver()))) {
      ids.add(a.exprId());
    }
    return ids;
  }

  private static boolean within(Expression e, Set<ExprId> columns) {
    List<Attribute> references = list(e.references().toSeq());
    return !references.isEmpty() && references.stream().allMatch(a -> columns.contains(a.exprId()));
  }

  private static List<Expression> conjuncts(Expression e) {
    List<Expression> out = new ArrayList<>();
    if (e instanceof And and) {
      out.addAll(conjuncts(and.left()));
      out.addAll(conjuncts(and.right()));
    } else {
      out.add(e);
    }
    return out;
  }
}
