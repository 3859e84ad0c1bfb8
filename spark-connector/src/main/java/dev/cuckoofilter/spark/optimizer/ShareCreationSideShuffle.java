package dev.cuckoofilter.spark.optimizer;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial$;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.BaseSubqueryExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.ScalarSubquery;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SubqueryExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec$;
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;
import scala.collection.JavaConverters;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractPartialFunction;

/**
 * Lets a runtime filter's build read the join's own shuffle of its creation side instead of scanning
 * that side a second time (adaptive execution only; a query-stage preparation rule).
 *
 * <p>{@link CuckooRuntimeFilterRule} builds the filter in a scalar subquery over the join's other side, and
 * the join shuffles that same side: without this rule the side is scanned, filtered and projected twice.
 * Here a filter-building subquery whose input is the same plan (same result, same output attributes) as
 * the child of a shuffle exchange of the main query is rewritten to aggregate over that exchange. Adaptive
 * execution shares one stage cache between a query and its subqueries, so the shuffle runs once: the
 * subquery materializes it and the join reads it. The filter is the same set of keys either way, since
 * the exchange only repartitions the rows.
 *
 * <p>Anything that does not match exactly (a creation side with its own exchanges, non-deterministic
 * expressions, other attributes) is left as it was. Switched off with {@link RuntimeFilterConf#SHARE_SHUFFLE}.
 */
public final class ShareCreationSideShuffle extends Rule<SparkPlan> {
  @Override
  public String ruleName() {
    return "CuckooShareCreationSideShuffle";
  }

  @Override
  public SparkPlan apply(SparkPlan plan) {
    SQLConf conf = SQLConf.get();
    // Without exchange reuse the subquery would run its own copy of the shuffle: no gain.
    if (!Boolean.parseBoolean(conf.getConfString(RuntimeFilterConf.SHARE_SHUFFLE, "true")) || !conf.exchangeReuseEnabled()) {
      return plan;
    }
    List<ShuffleExchangeExec> exchanges = new ArrayList<>();
    collectExchanges(plan, exchanges);
    if (exchanges.isEmpty()) {
      return plan;
    }
    return rewrite(plan, exchanges);
  }

  private static void collectExchanges(SparkPlan plan, List<ShuffleExchangeExec> out) {
    if (plan instanceof ShuffleExchangeExec) {
      out.add((ShuffleExchangeExec) plan);
    }
    for (SparkPlan child : list(plan.children())) {
      collectExchanges(child, out);
    }
  }

  private static SparkPlan rewrite(SparkPlan plan, List<ShuffleExchangeExec> exchanges) {
    SparkPlan withChildren = plan.mapChildren(new AbstractFunction1<SparkPlan, SparkPlan>() {
      @Override
      public SparkPlan apply(SparkPlan child) {
        return rewrite(child, exchanges);
      }
    });
    return (SparkPlan) withChildren.mapExpressions(new AbstractFunction1<Expression, Expression>() {
      @Override
      public Expression apply(Expression e) {
        return e.transform(new SubqueryRewrite(exchanges));
      }
    });
  }

  /** Replaces a filter-building scalar subquery by one that reads a matching exchange. */
  private static final class SubqueryRewrite extends AbstractPartialFunction<Expression, Expression> {
    private final List<ShuffleExchangeExec> exchanges;

    SubqueryRewrite(List<ShuffleExchangeExec> exchanges) {
      this.exchanges = exchanges;
    }

    @Override
    public boolean isDefinedAt(Expression e) {
      return e instanceof ScalarSubquery;
    }

    @Override
    public Expression apply(Expression e) {
      ScalarSubquery subquery = (ScalarSubquery) e;
      SparkPlan replanned = replanned(subquery);
      if (replanned == null) {
        return e;
      }
      return subquery.withNewPlan((BaseSubqueryExec) subquery.plan().withNewChildren(seq(List.of(replanned))));
    }

    /** The subquery's plan reading a shared exchange, or null if it does not build a filter over one. */
    private AdaptiveSparkPlanExec replanned(ScalarSubquery subquery) {
      AdaptiveSparkPlanExec adaptive = adaptive(subquery);
      if (adaptive == null || adaptive.inputPlan().logicalLink().isEmpty()) {
        return null;
      }
      LogicalPlan oldLogical = adaptive.inputPlan().logicalLink().get();
      LogicalPlan[] logical = {oldLogical};
      ShuffleExchangeExec[] shared = {null};
      SparkPlan input = replaceBuildInput(adaptive.inputPlan(), logical, shared);
      if (input == adaptive.inputPlan()) {
        return null;
      }
      // Adaptive execution re-plans a subquery from its logical plan once a stage is done, replacing the
      // logical node a finished stage links to (found by identity) with the stage. So the subquery's own
      // physical nodes must link to the new logical plan, as the exchange's copy links to its leaf there
      // (the nodes below the copy keep their links).
      Map<LogicalPlan, LogicalPlan> renamed = new IdentityHashMap<>();
      pairNodes(oldLogical, logical[0], renamed);
      relink(input, shared[0], renamed);
      return new AdaptiveSparkPlanExec(input, adaptive.context(), adaptive.preprocessingRules(), adaptive.isSubquery(),
          adaptive.supportsColumnar());
    }

    private SparkPlan replaceBuildInput(SparkPlan plan, LogicalPlan[] logical, ShuffleExchangeExec[] shared) {
      if (isPartialFilterBuild(plan) && plan.children().size() == 1 && plan.children().head() instanceof ProjectExec) {
        ProjectExec project = (ProjectExec) plan.children().head();
        ShuffleExchangeExec exchange = exchangeOf(project);
        LogicalPlan exchanged = exchange == null ? null : logicalLinkOf(exchange);
        LogicalPlan keys = exchanged == null ? null : logicalProject(logical[0], project);
        if (keys == null) {
          return plan;
        }
        // The subquery reads a copy of the exchange (equal to it, so adaptive execution runs one stage for
        // both) under a logical leaf that plans to that copy: re-planning the subquery from its logical
        // plan then yields the exchange again, never a second scan of the side.
        ShuffleExchangeExec copy = (ShuffleExchangeExec) exchange.clone();
        LogicalPlan leaf = new LogicalQueryStage(exchanged, copy);
        copy.setTagValue(SparkPlan.LOGICAL_PLAN_TAG(), leaf);
        logical[0] = replaceNode(logical[0], keys, keys.withNewChildren(seq(List.of(leaf))));
        shared[0] = copy;
        return plan.withNewChildren(seq(List.of((SparkPlan) project.withNewChildren(seq(List.of((SparkPlan) copy))))));
      }
      List<SparkPlan> children = list(plan.children());
      if (children.size() != 1) {
        return plan;
      }
      SparkPlan child = replaceBuildInput(children.get(0), logical, shared);
      return child == children.get(0) ? plan : plan.withNewChildren(seq(List.of(child)));
    }

    /** An exchange whose child produces exactly the rows the projection reads, or null. */
    private ShuffleExchangeExec exchangeOf(ProjectExec project) {
      SparkPlan source = project.child();
      if (!deterministic(source)) {
        return null;
      }
      for (ShuffleExchangeExec exchange : exchanges) {
        SparkPlan rows = exchange.child();
        if (rows instanceof ProjectExec && onlyAttributes((ProjectExec) rows)) {
          rows = ((ProjectExec) rows).child();
        }
        if (rows.output().equals(source.output()) && rows.sameResult(source)
            && project.references().subsetOf(exchange.outputSet())) {
          return exchange;
        }
      }
      return null;
    }
  }

  /** The logical node a query stage of this exchange links to: its own, else its first descendant's. */
  private static LogicalPlan logicalLinkOf(SparkPlan plan) {
    Option<LogicalPlan> temp = plan.getTagValue(AdaptiveSparkPlanExec$.MODULE$.TEMP_LOGICAL_PLAN_TAG());
    if (temp.isDefined()) {
      return temp.get();
    }
    if (plan.logicalLink().isDefined()) {
      return plan.logicalLink().get();
    }
    for (SparkPlan child : list(plan.children())) {
      LogicalPlan link = logicalLinkOf(child);
      if (link != null) {
        return link;
      }
    }
    return null;
  }

  /** The logical projection the physical one was planned from: the one with the same output attributes. */
  private static LogicalPlan logicalProject(LogicalPlan plan, ProjectExec project) {
    Option<LogicalPlan> found = plan.find(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan p) {
        return p instanceof Project && p.children().size() == 1 && p.output().equals(project.output());
      }
    });
    return found.isDefined() ? found.get() : null;
  }

  /** Maps each node of {@code before} to its counterpart in {@code after}, down to the subtrees they share. */
  private static void pairNodes(LogicalPlan before, LogicalPlan after, Map<LogicalPlan, LogicalPlan> out) {
    if (before == after || before.children().size() != after.children().size()) {
      return;
    }
    out.put(before, after);
    List<LogicalPlan> a = list(before.children());
    List<LogicalPlan> b = list(after.children());
    for (int i = 0; i < a.size(); i++) {
      pairNodes(a.get(i), b.get(i), out);
    }
  }

  /** Points the logical links of {@code plan}'s nodes, above {@code stop}, to the renamed logical nodes. */
  private static void relink(SparkPlan plan, SparkPlan stop, Map<LogicalPlan, LogicalPlan> renamed) {
    if (plan == stop) {
      return;
    }
    for (org.apache.spark.sql.catalyst.trees.TreeNodeTag<LogicalPlan> tag
        : List.of(SparkPlan.LOGICAL_PLAN_TAG(), SparkPlan.LOGICAL_PLAN_INHERITED_TAG())) {
      Option<LogicalPlan> link = plan.getTagValue(tag);
      if (link.isDefined() && renamed.containsKey(link.get())) {
        plan.setTagValue(tag, renamed.get(link.get()));
      }
    }
    for (SparkPlan child : list(plan.children())) {
      relink(child, stop, renamed);
    }
  }

  /** {@code plan} with the node {@code target} (by identity) replaced by {@code replacement}. */
  private static LogicalPlan replaceNode(LogicalPlan plan, LogicalPlan target, LogicalPlan replacement) {
    if (plan == target) {
      return replacement;
    }
    return plan.mapChildren(new AbstractFunction1<LogicalPlan, LogicalPlan>() {
      @Override
      public LogicalPlan apply(LogicalPlan child) {
        return replaceNode(child, target, replacement);
      }
    });
  }

  private static AdaptiveSparkPlanExec adaptive(ScalarSubquery subquery) {
    BaseSubqueryExec plan = subquery.plan();
    if (plan instanceof SubqueryExec && ((SubqueryExec) plan).child() instanceof AdaptiveSparkPlanExec) {
      return (AdaptiveSparkPlanExec) ((SubqueryExec) plan).child();
    }
    return null;
  }

  /** The partial aggregate of a {@code cuckoo_filter} build. */
  private static boolean isPartialFilterBuild(SparkPlan plan) {
    if (!(plan instanceof BaseAggregateExec)) {
      return false;
    }
    BaseAggregateExec aggregate = (BaseAggregateExec) plan;
    if (!aggregate.groupingExpressions().isEmpty()) {
      return false;
    }
    for (AggregateExpression e : list(aggregate.aggregateExpressions())) {
      if (e.aggregateFunction() instanceof CuckooFilterAggregate && e.mode() == Partial$.MODULE$) {
        return true;
      }
    }
    return false;
  }

  private static boolean onlyAttributes(ProjectExec project) {
    for (NamedExpression e : list(project.projectList())) {
      if (!(e instanceof Attribute)) {
        return false;
      }
    }
    return true;
  }

  private static boolean deterministic(SparkPlan plan) {
    for (Expression e : list(plan.expressions())) {
      if (!e.deterministic()) {
        return false;
      }
    }
    for (SparkPlan child : list(plan.children())) {
      if (!deterministic(child)) {
        return false;
      }
    }
    return true;
  }

  private static <T> List<T> list(Seq<T> seq) {
    return JavaConverters.seqAsJavaListConverter(seq).asJava();
  }

  private static <T> Seq<T> seq(List<T> list) {
    return JavaConverters.asScalaBufferConverter(list).asScala().toList();
  }
}
