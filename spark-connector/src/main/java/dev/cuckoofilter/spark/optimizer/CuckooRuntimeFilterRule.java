package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import dev.cuckoofilter.spark.expressions.PruneMetrics;
import dev.cuckoofilter.spark.prune.FilterSubquery;
import dev.cuckoofilter.spark.prune.JoinKeys;
import dev.cuckoofilter.spark.prune.JoinPruning;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.PythonFuncExpression;
import org.apache.spark.sql.catalyst.expressions.ScalarSubquery;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.optimizer.RewritePredicateSubquery$;
import org.apache.spark.sql.catalyst.planning.ExtractEquiJoinKeys$;
import org.apache.spark.sql.catalyst.plans.Cross$;
import org.apache.spark.sql.catalyst.plans.FullOuter$;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.plans.logical.DomainJoin;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.JoinHint;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.catalyst.trees.TreePattern$;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.Tuple8;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;

/**
 * Automatic cuckoo runtime filters: for an equi-join whose larger side would be shuffled, adds
 * {@code Filter(cuckoo_might_contain((SELECT cuckoo_filter(keys) FROM other side), keys))} on that side,
 * so its rows without a match are dropped before the shuffle, with no code change. {@code WHERE k IN (SELECT
 * ...)} and {@code EXISTS} count as the semi joins Spark makes of them.
 *
 * <p>It applies only where pruning cannot change the result ({@link JoinPruning}: never a preserved side
 * of an outer join or the left side of an anti join), when the side to prune is estimated at least
 * {@code applicationSideThreshold} and neither side is small enough to be broadcast (then nothing is
 * shuffled), when the other side is at most {@code creationSideThreshold} and has a selective predicate
 * or join, and not twice for the same keys. The filter is sized from the exact number of distinct keys
 * of the other side (no fixed default, no item cap). A registered stored filter of the other side
 * ({@link StoredFilterIndex}) is probed instead of building one when it is current. Settings:
 * {@link RuntimeFilterConf}.
 *
 * <p>Per query, hints beat those settings ({@link CuckooFilterHint}, resolved by {@link
 * ResolveCuckooFilterHints}): {@code NO_CUCKOO_FILTER} forbids a filter on the hinted side (and on every join
 * inside it), {@code CUCKOO_FILTER} forces one on it whatever the sizes, the settings (even with the rule
 * switched off) and {@code maxFilters}, but never where it could change the result: a forced side that the
 * join type, its key types or a non-repeatable other side rule out is left alone, with a warning in the
 * log. Where both apply, {@code NO_CUCKOO_FILTER} wins. The rule removes every hint node from the plan.
 */
public final class CuckooRuntimeFilterRule extends Rule<LogicalPlan> {
  private static final Logger LOG = LoggerFactory.getLogger(CuckooRuntimeFilterRule.class);

  private final SparkSession session;

  /** @param session where the filters' row counts ({@link PruneMetrics}) are registered */
  public CuckooRuntimeFilterRule(SparkSession session) {
    this.session = session;
  }

  @Override
  public String ruleName() {
    return "CuckooRuntimeFilter";
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    RuntimeFilterConf conf = RuntimeFilterConf.current();
    // Hint nodes are removed here whatever happens: physical planning must not see them.
    boolean hinted = CuckooFilterHint.presentIn(plan);
    // A table planned for its stored filter's fingerprint is planned without runtime filters (StoredFilterIndex).
    if (plan.isStreaming() || StoredFilterIndex.planningIndexedTable() || !(conf.enabled || hinted)) {
      return hinted ? CuckooFilterHint.strip(plan) : plan;
    }
    // WHERE k IN (SELECT ...) and EXISTS are semi joins, but Spark rewrites them as joins only after this rule
    // (batch "RewriteSubquery"): rewritten here, they are pruned as the joins written in the query are. Where
    // no filter is injected, the plan is left as it was, for Spark's own rewrite.
    LogicalPlan subqueriesAsJoins = RewritePredicateSubquery$.MODULE$.apply(plan);
    int[] budget = {conf.maxFilters};
    LogicalPlan rewritten =
        StoredFilterIndex.withinOneQuery(() -> rewrite(subqueriesAsJoins, conf, budget, hinted, null));
    if (rewritten == subqueriesAsJoins) {
      rewritten = plan;
    }
    return hinted ? CuckooFilterHint.strip(rewritten) : rewritten;
  }

  /**
   * @param hinted      whether the query has hints at all ({@link CuckooFilterHint})
   * @param forbiddenBy the {@code NO_CUCKOO_FILTER} hint on a plan that holds {@code plan}, if any (then no
   *                    join below is pruned), else null
   */
  private LogicalPlan rewrite(LogicalPlan plan, RuntimeFilterConf conf, int[] budget, boolean hinted,
      String forbiddenBy) {
    String forbiddenBelow = forbiddenBy == null && plan instanceof CuckooFilterHint
        && ((CuckooFilterHint) plan).kind() == CuckooFilterHint.Kind.FORBID ? ((CuckooFilterHint) plan).label()
        : forbiddenBy;
    LogicalPlan withChildren = plan.mapChildren(new AbstractFunction1<LogicalPlan, LogicalPlan>() {
      @Override
      public LogicalPlan apply(LogicalPlan child) {
        return rewrite(child, conf, budget, hinted, forbiddenBelow);
      }
    });
    if (!(withChildren instanceof Join)) {
      return withChildren;
    }
    Join join = (Join) withChildren;
    Option<Tuple8<JoinType, Seq<Expression>, Seq<Expression>, Option<Expression>, Option<Expression>, LogicalPlan,
        LogicalPlan, org.apache.spark.sql.catalyst.plans.logical.JoinHint>> keys = ExtractEquiJoinKeys$.MODULE$.unapply(join);
    if (keys.isEmpty()) {
      if (hinted) {
        SideHint.warnIfForced(join, "it is not on a side of an equi-join");
      }
      return join;
    }
    String joinType = joinTypeName(join.joinType());
    if (joinType == null) {
      if (hinted) {
        SideHint.warnIfForced(join, "a " + join.joinType().sql() + " join is never pruned");
      }
      return join;
    }
    List<Expression> leftKeys = JoinKeys.structFieldsNullSafe(list(keys.get()._2()));
    List<Expression> rightKeys = JoinKeys.structFieldsNullSafe(list(keys.get()._3()));
    if (leftKeys.size() != rightKeys.size()) {
      return join;
    }
    LogicalPlan left = join.left();
    LogicalPlan right = join.right();
    // Each side is sized once for both directions (sizing a partitioned catalog table lists its partitions' files).
    java.util.Map<LogicalPlan, Long> sizes = new java.util.IdentityHashMap<>();
    LogicalPlan newLeft = prune(JoinPruning.Side.LEFT, joinType, left, leftKeys, right, rightKeys, conf, budget,
        hinted ? SideHint.of(left, leftKeys, forbiddenBy) : SideHint.NONE,
        JoinShuffles.shufflesSide(join, left, list(keys.get()._2())), sizes);
    LogicalPlan newRight = prune(JoinPruning.Side.RIGHT, joinType, right, rightKeys, left, leftKeys, conf, budget,
        hinted ? SideHint.of(right, rightKeys, forbiddenBy) : SideHint.NONE,
        JoinShuffles.shufflesSide(join, right, list(keys.get()._3())), sizes);
    if (newLeft == left && newRight == right) {
      return join;
    }
    if (join.joinType() == Inner$.MODULE$ && newRight == right && prunedByStoredFilter(newLeft)) {
      return creationSideFirst(join, newLeft);
    }
    return new Join(newLeft, newRight, join.joinType(), join.condition(), join.hint());
  }

  /**
   * Inner {@code join} with its left side pruned ({@code prunedLeft}) and its sides swapped (the same rows,
   * projected back to the join's column order), so that the right side, which a stored filter replaced a build
   * of, is shuffled first. A built filter makes the pruned side wait for the other side's keys; a stored one
   * does not, and adaptive execution then runs the left side's stage first, re-plans the join knowing that
   * side's size alone, and may broadcast the pruned big side while the smaller side it could not yet measure
   * is still running (in the 1% bench scenario, a tie with the rule's build instead of a gain). With the other
   * side's stage first, it knows the small side's size when it first re-plans, as after a build.
   */
  private static LogicalPlan creationSideFirst(Join join, LogicalPlan prunedLeft) {
    JoinHint hint = join.hint();
    Join swapped = new Join(join.right(), prunedLeft, join.joinType(), join.condition(),
        new JoinHint(hint.rightHint(), hint.leftHint()));
    @SuppressWarnings("unchecked")
    Seq<NamedExpression> columns = (Seq<NamedExpression>) (Seq<?>) join.output();
    return new Project(columns, swapped);
  }

  /** Whether {@code plan} is a side this rule just filtered with a stored filter's probe ({@link #counted}). */
  private static boolean prunedByStoredFilter(LogicalPlan plan) {
    return plan instanceof Filter && ((Filter) plan).condition() instanceof CuckooMightContain
        && !(((CuckooMightContain) ((Filter) plan).condition()).filterExpression() instanceof ScalarSubquery);
  }

  /**
   * {@code application} with a cuckoo filter of {@code creation}'s keys, if that is safe and worth it:
   * a registered, current stored filter of {@code creation} ({@link StoredFilterIndex}) when there is
   * one, else a filter built for the query.
   *
   * @param shuffled whether the join shuffles {@code application} ({@link JoinShuffles})
   * @param sizes    the join's sides' sizes estimated so far ({@link #estimatedBytes}), by side
   */
  private LogicalPlan prune(JoinPruning.Side side, String joinType, LogicalPlan application,
      List<Expression> applicationKeys, LogicalPlan creation, List<Expression> creationKeys, RuntimeFilterConf conf,
      int[] budget, SideHint hint, boolean shuffled, java.util.Map<LogicalPlan, Long> sizes) {
    // A query's hint beats the session's settings.
    if (hint.forbiddenBy != null) {
      if (hint.forcedBy != null && hint.direct) {
        LOG.warn("Ignoring hint {}: {} applies too, and forbids", hint.forcedBy, hint.forbiddenBy);
      }
      return application;
    }
    if (hint.forcedBy != null) {
      return forced(side, joinType, application, applicationKeys, creation, creationKeys, conf, budget, hint);
    }
    if (!conf.enabled || budget[0] <= 0 || JoinPruning.refusal(joinType, side) != null
        || !keyTypesSupported(applicationKeys) || !keyTypesSupported(creationKeys)
        || alreadyPruned(application, applicationKeys)
        || !(conf.force || shuffled && largeEnough(application, creation, conf, sizes))) {
      return application;
    }
    if (!JoinPruning.repeatable(creation)) {
      // Neither a build nor a stored filter holds the keys of this run: a stored filter's view may have been
      // replaced, since it was indexed, by one that is not repeatable (a limit, rand()).
      return application;
    }
    LogicalPlan source = CuckooFilterHint.strip(creation);
    java.util.Optional<StoredFilterIndex.Match> stored = StoredFilterIndex.find(source, creationKeys, applicationKeys);
    if (stored.isPresent()) {
      budget[0]--;
      return counted(stored.get().probe(), application);
    }
    if ((conf.force || !conf.requireSelective || selective(creation)) && !callsPython(creation, creationKeys)
        && !readsOuterQuery(creation)) {
      budget[0]--;
      return counted(FilterSubquery.probe(asTheQueryRunsIt(source), creationKeys, conf.fpp, applicationKeys),
          application);
    }
    return application;
  }

  /**
   * {@code application} with a cuckoo filter of {@code creation}'s keys as a {@code CUCKOO_FILTER} hint asks:
   * whatever the sizes, settings and {@code maxFilters}, but only where {@link #prune} could put one at all,
   * so never where it could change the result. Otherwise the hint is ignored, with a warning.
   */
  private LogicalPlan forced(JoinPruning.Side side, String joinType, LogicalPlan application,
      List<Expression> applicationKeys, LogicalPlan creation, List<Expression> creationKeys, RuntimeFilterConf conf,
      int[] budget, SideHint hint) {
    String refusal = JoinPruning.refusal(joinType, side);
    if (refusal == null && !(keyTypesSupported(applicationKeys) && keyTypesSupported(creationKeys))) {
      refusal = "a filter cannot hold join keys of type "
          + applicationKeys.stream().map(k -> k.dataType().simpleString()).collect(Collectors.joining(", "));
    }
    if (refusal == null && !JoinPruning.repeatable(creation)) {
      refusal = "the other side may yield other keys when run again (a limit, sample, non-deterministic or "
          + "order-dependent expression), so a filter built from it could drop matching rows";
    }
    if (refusal != null) {
      // A hint on the side itself is the user's request for this join; one deeper may be honoured at another.
      if (hint.direct) {
        LOG.warn("Ignoring hint {}: {}", hint.forcedBy, refusal);
      } else {
        LOG.debug("Not applying hint {} to a join above: {}", hint.forcedBy, refusal);
      }
      return application;
    }
    if (alreadyPruned(application, applicationKeys)) {
      return application;
    }
    LogicalPlan source = CuckooFilterHint.strip(creation);
    java.util.Optional<StoredFilterIndex.Match> stored = StoredFilterIndex.find(source, creationKeys, applicationKeys);
    if (stored.isPresent()) {
      budget[0]--;
      return counted(stored.get().probe(), application);
    }
    if (callsPython(source, creationKeys)) {
      LOG.warn("Ignoring hint {}: the other side calls a Python function, which Spark runs only in the query's "
          + "main plan, not in the subquery that would build the filter", hint.forcedBy);
      return application;
    }
    if (readsOuterQuery(source)) {
      LOG.warn("Ignoring hint {}: the other side reads values of the outer query of the correlated subquery it is in, "
          + "which the subquery that would build the filter cannot", hint.forcedBy);
      return application;
    }
    budget[0]--;
    double fpp = Double.isNaN(hint.forcedFpp) ? conf.fpp : hint.forcedFpp;
    return counted(FilterSubquery.probe(asTheQueryRunsIt(source), creationKeys, fpp, applicationKeys),
        application);
  }

  /**
   * {@code creation} as the optimizer's later batches leave it in the query itself, which run after this rule and
   * only on the main plan, never inside the plan of a subquery expression such as the filter's build:
   * <ul>
   *   <li>DataSource V2 relations (Iceberg, a v2 catalog's tables) become scans ({@code V2ScanRelationPushDown}),
   *       the only form Spark plans: the build of such a side failed the query with "No plan for RelationV2";
   *   <li>distinct aggregates of several columns ({@code count(DISTINCT a), count(DISTINCT b)}) are rewritten
   *       into one ({@code RewriteDistinctAggregates}), the only form Spark plans: the build failed the query
   *       with "You hit a query analyzer bug";
   *   <li>{@code IN} / {@code EXISTS} subqueries become semi, anti and existence joins ({@code
   *       RewritePredicateSubquery}): left in the build, a correlated {@code IN} (its correlation already pulled
   *       up into the {@code ListQuery}) would be planned as an uncorrelated {@code IN} over the wider subquery
   *       rows and match nothing (an empty filter that pruned every row), and an {@code EXISTS} could not be
   *       planned at all;
   *   <li>the keys of joins on float and double are normalized ({@code NormalizeFloatingNumbers}): the query's
   *       join matches -0.0 with 0.0 and any NaN with NaN, while the build's un-normalized copy compared their
   *       bits and left such matches' keys out of the filter (a join of -0.0 with 0.0 inside the built side
   *       lost its rows);
   *   <li>struct field updates ({@code Column.withField}, {@code dropFields}) become plain structs ({@code
   *       ReplaceUpdateFieldsExpression}): they cannot be evaluated, and failed the query in the build.
   * </ul>
   * In the optimizer's order.
   */
  private static LogicalPlan asTheQueryRunsIt(LogicalPlan creation) {
    LogicalPlan scans =
        org.apache.spark.sql.execution.datasources.v2.V2ScanRelationPushDown$.MODULE$.apply(creation);
    LogicalPlan aggregates = org.apache.spark.sql.catalyst.optimizer.RewriteDistinctAggregates$.MODULE$.apply(scans);
    LogicalPlan joins = RewritePredicateSubquery$.MODULE$.apply(aggregates);
    LogicalPlan normalized = org.apache.spark.sql.catalyst.optimizer.NormalizeFloatingNumbers$.MODULE$.apply(joins);
    return org.apache.spark.sql.catalyst.optimizer.ReplaceUpdateFieldsExpression$.MODULE$.apply(normalized);
  }

  /**
   * {@code application} filtered by {@code probe}, which counts the rows it sees and keeps in accumulators
   * named after its keys (the Spark UI; {@code CuckooFilters.pruneMetrics} after an action). Injected after
   * constraint propagation, the probe is not copied elsewhere in the plan, so its counts are its own. It keeps
   * a row whose key throws: push-down may move it below a join or filter that kept that row from the key's
   * evaluation in the query (an ANSI cast of a string that only the rows failing an inner join hold).
   */
  private Filter counted(Expression probe, LogicalPlan application) {
    CuckooMightContain p = (CuckooMightContain) probe;
    String keys = list(p.keys()).stream().map(Expression::sql).collect(Collectors.joining(", "));
    String kind = p.filterExpression() instanceof ScalarSubquery ? "cuckoo runtime filter" : "stored cuckoo filter";
    return new Filter(p.withMetrics(PruneMetrics.register(session.sparkContext(), kind + " on " + keys))
        .keepingRowsWhoseKeysFail(), application);
  }

  /**
   * What the query's hints ({@link CuckooFilterHint}) say about pruning one side of a join: the {@code
   * CUCKOO_FILTER} hint that forces it, the {@code NO_CUCKOO_FILTER} hint that forbids it, or neither. A hint
   * applies to the side if it is on the side itself (below only projections, filters, sorts and
   * repartitions), or on a relation inside it that the side's keys all (forced) or partly (forbidden) come
   * from, as the filter would be pushed down onto that relation. A hint around the whole join forbids both
   * sides.
   */
  private static final class SideHint {
    static final SideHint NONE = new SideHint(null, Double.NaN, null, false);

    final String forcedBy;
    /** The false-positive rate {@link #forcedBy} sets, or NaN. */
    final double forcedFpp;
    /** Whether {@link #forcedBy} is on the side itself rather than on a relation inside it. */
    final boolean direct;
    final String forbiddenBy;

    private SideHint(String forcedBy, double forcedFpp, String forbiddenBy, boolean direct) {
      this.forcedBy = forcedBy;
      this.forcedFpp = forcedFpp;
      this.direct = direct;
      this.forbiddenBy = forbiddenBy;
    }

    static SideHint of(LogicalPlan side, List<Expression> keys, String forbiddenAbove) {
      String[] forced = {null};
      double[] forcedFpp = {Double.NaN};
      String[] forbidden = {forbiddenAbove};
      for (CuckooFilterHint h : onSide(side)) {
        note(h, forced, forcedFpp, forbidden);
      }
      boolean direct = forced[0] != null;
      List<Attribute> references = new ArrayList<>();
      for (Expression k : keys) {
        references.addAll(list(k.references().toSeq()));
      }
      side.foreach(new AbstractFunction1<LogicalPlan, scala.runtime.BoxedUnit>() {
        @Override
        public scala.runtime.BoxedUnit apply(LogicalPlan node) {
          if (node instanceof CuckooFilterHint && !references.isEmpty()) {
            CuckooFilterHint h = (CuckooFilterHint) node;
            AttributeSet output = h.outputSet();
            boolean all = references.stream().allMatch(output::contains);
            boolean any = references.stream().anyMatch(output::contains);
            if (h.kind() == CuckooFilterHint.Kind.FORCE ? all : any) {
              note(h, forced, forcedFpp, forbidden);
            }
          }
          return scala.runtime.BoxedUnit.UNIT;
        }
      });
      return new SideHint(forced[0], forcedFpp[0], forbidden[0], direct);
    }

    private static void note(CuckooFilterHint h, String[] forced, double[] forcedFpp, String[] forbidden) {
      String[] slot = h.kind() == CuckooFilterHint.Kind.FORCE ? forced : forbidden;
      if (slot[0] == null) {
        slot[0] = h.label();
        if (slot == forced) {
          forcedFpp[0] = h.fpp();
        }
      }
    }

    /** The hints on {@code side} itself: below it through operators that keep its rows' identity only. */
    static List<CuckooFilterHint> onSide(LogicalPlan side) {
      List<CuckooFilterHint> out = new ArrayList<>();
      LogicalPlan p = side;
      while (true) {
        if (p instanceof CuckooFilterHint) {
          out.add((CuckooFilterHint) p);
        } else if (!(p instanceof org.apache.spark.sql.catalyst.plans.logical.Project || p instanceof Filter
            || p instanceof org.apache.spark.sql.catalyst.plans.logical.Sort
            || p instanceof org.apache.spark.sql.catalyst.plans.logical.RepartitionOperation
            || p instanceof org.apache.spark.sql.catalyst.plans.logical.RebalancePartitions)) {
          return out;
        }
        p = p.children().head();
      }
    }

    /** Warns of each {@code CUCKOO_FILTER} hint on a side of {@code join}, which cannot be pruned. */
    static void warnIfForced(Join join, String reason) {
      for (LogicalPlan side : List.of(join.left(), join.right())) {
        for (CuckooFilterHint h : onSide(side)) {
          if (h.kind() == CuckooFilterHint.Kind.FORCE) {
            LOG.warn("Ignoring hint {}: {}", h.label(), reason);
          }
        }
      }
    }
  }



  /**
   * Join keys of types a filter cannot hold (arrays, maps, intervals) are never filtered: a probe of them
   * would fail its type check and leave an unresolved expression in the optimized plan.
   */
  /**
   * Whether the plan or its keys call a Python function (a PySpark UDF, a pandas UDF): Spark evaluates one only
   * after its optimizer has extracted it from the query's main plan into a Python runner ({@code
   * ExtractPythonUDFs}, a batch after this rule), never inside a subquery's plan such as the filter's build,
   * where it cannot be evaluated.
   */
  private static boolean callsPython(LogicalPlan plan, List<Expression> keys) {
    return keys.stream().anyMatch(CuckooRuntimeFilterRule::callsPython)
        || plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
          @Override
          public Object apply(LogicalPlan node) {
            return list(node.expressions()).stream().anyMatch(CuckooRuntimeFilterRule::callsPython);
          }
        });
  }

  private static boolean callsPython(Expression e) {
    return e.exists(new AbstractFunction1<Expression, Object>() {
      @Override
      public Object apply(Expression x) {
        return x instanceof PythonFuncExpression
            || x instanceof SubqueryExpression && callsPython(((SubqueryExpression) x).plan(), List.of());
      }
    });
  }

  /**
   * Whether the plan reads values of the outer query of the correlated subquery it is part of (the rule also runs on
   * the plans of subqueries, which Spark optimizes before the query): an outer reference, or the {@code DomainJoin}
   * placeholder with which Spark decorrelates a scalar or lateral subquery whose correlation it cannot pull up as a
   * join condition (a non-equality under an aggregate, {@code DecorrelateInnerQuery}). Spark replaces such a
   * placeholder with a join of the outer query's values only in the query's own plan ({@code
   * RewriteCorrelatedScalarSubquery}, {@code RewriteLateralSubquery}), never inside the plan of a subquery expression
   * such as the filter's build, which then failed the query ("No plan for DomainJoin").
   */
  private static boolean readsOuterQuery(LogicalPlan plan) {
    return plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        return node instanceof DomainJoin || list(node.expressions()).stream()
            .anyMatch(e -> e.containsPattern(TreePattern$.MODULE$.OUTER_REFERENCE()));
      }
    });
  }

  private static boolean keyTypesSupported(List<Expression> keys) {
    for (Expression k : keys) {
      if (!dev.cuckoofilter.spark.hash.KeyTypes.supported(k.dataType())) {
        return false;
      }
    }
    return true;
  }

  /** The side to prune is large enough to be worth it, the other side small enough to build from. */
  private static boolean largeEnough(LogicalPlan application, LogicalPlan creation, RuntimeFilterConf conf,
      java.util.Map<LogicalPlan, Long> sizes) {
    long applicationSize = sizes.computeIfAbsent(application, CuckooRuntimeFilterRule::estimatedBytes);
    long creationSize = sizes.computeIfAbsent(creation, CuckooRuntimeFilterRule::estimatedBytes);
    return applicationSize >= conf.applicationSideThreshold
        && creationSize <= conf.creationSideThreshold
        && creationSize < applicationSize;
  }

  /**
   * The side's estimated size in bytes, for choosing which side to prune. Spark's estimate, except above a
   * join without row-count statistics (no cost-based optimizer), where Spark multiplies the sizes of the
   * join's inputs and makes any side with a join look larger than a fact table: there the inputs' sizes
   * are added instead, a bound for key-foreign-key joins (they return at most the rows of the larger input).
   * Without this, a filter built from the large side would prune a joined, already selective small side
   * (measured on TPC-H-like Q3 and Q10: 1.3-1.4x slower than without the rule). A partitioned catalog table
   * without statistics, whose size Spark leaves unknown until it prunes its partitions after this rule, is
   * estimated from its selected partitions' files ({@link PartitionedCatalogTables#listed}).
   */
  static long estimatedBytes(LogicalPlan plan) {
    return estimatedBytesOfListed(PartitionedCatalogTables.listed(plan));
  }

  private static long estimatedBytesOfListed(LogicalPlan plan) {
    if (plan.stats().rowCount().isDefined() || !containsJoin(plan)) {
      return plan.stats().sizeInBytes().min(scala.math.BigInt.apply(Long.MAX_VALUE)).longValue();
    }
    long sum = 0;
    scala.collection.Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      long child = estimatedBytesOfListed(children.next());
      sum = sum > Long.MAX_VALUE - child ? Long.MAX_VALUE : sum + child;
    }
    return sum;
  }

  private static boolean containsJoin(LogicalPlan plan) {
    return plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        return node instanceof Join;
      }
    });
  }

  /** The side already carries a cuckoo filter on these keys (the rule may meet a plan twice). */
  private static boolean alreadyPruned(LogicalPlan plan, List<Expression> keys) {
    return plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        if (!(node instanceof Filter)) {
          return false;
        }
        return ((Filter) node).condition().exists(new AbstractFunction1<Expression, Object>() {
          @Override
          public Object apply(Expression e) {
            if (!(e instanceof CuckooMightContain)) {
              return false;
            }
            List<Expression> probed = list(((CuckooMightContain) e).keys());
            return probed.size() == keys.size() && sameExpressions(probed, keys);
          }
        });
      }
    });
  }

  private static boolean sameExpressions(List<Expression> a, List<Expression> b) {
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).semanticEquals(b.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** A filter with a predicate other than null checks, or a join, makes the side's keys a subset. */
  private static boolean selective(LogicalPlan plan) {
    return plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        if (node instanceof Join) {
          return true;
        }
        if (node instanceof Filter) {
          return ((Filter) node).condition().exists(new AbstractFunction1<Expression, Object>() {
            @Override
            public Object apply(Expression e) {
              return e instanceof org.apache.spark.sql.catalyst.expressions.Predicate && !(e instanceof IsNotNull)
                  && !(e instanceof org.apache.spark.sql.catalyst.expressions.And);
            }
          });
        }
        return false;
      }
    });
  }

  /** Our name for a join type, or null for types never pruned here (existence joins and others). */
  private static String joinTypeName(JoinType t) {
    if (t == Inner$.MODULE$) {
      return "inner";
    } else if (t == LeftOuter$.MODULE$) {
      return "left_outer";
    } else if (t == RightOuter$.MODULE$) {
      return "right_outer";
    } else if (t == FullOuter$.MODULE$) {
      return "full_outer";
    } else if (t == LeftSemi$.MODULE$) {
      return "left_semi";
    } else if (t == LeftAnti$.MODULE$) {
      return "left_anti";
    } else if (t == Cross$.MODULE$) {
      return "cross";
    }
    return null;
  }

}
