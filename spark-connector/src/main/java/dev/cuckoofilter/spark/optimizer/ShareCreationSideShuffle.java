package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.execution.FilterTapAccumulator;
import dev.cuckoofilter.spark.execution.FilterTapExec;
import dev.cuckoofilter.spark.execution.MapSideFilterBuildExec;
import dev.cuckoofilter.spark.execution.PartialBuilds;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.Final$;
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
 * <p>Better still, the shuffle's map tasks build the filter's parts as the rows go by: a
 * {@link FilterTapExec} under the exchange (in the main query and in the subquery's copy alike, so they stay
 * one stage) collects each partition's partial build, and the subquery becomes a
 * {@link MapSideFilterBuildExec} that merges them on the driver, with no stage that reads the shuffle again
 * ({@link RuntimeFilterConf#MAP_SIDE_BUILD_MAX_BYTES} bounds what the driver receives; past it, or if any
 * partition's part is missing, it reads the shuffle). One filter per shared exchange is built this way.
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
    if (!RuntimeFilterConf.shareShuffle(conf) || !conf.exchangeReuseEnabled()) {
      return plan;
    }
    List<ShuffleExchangeExec> exchanges = new ArrayList<>();
    collectExchanges(plan, exchanges);
    if (exchanges.isEmpty()) {
      return plan;
    }
    long mapSideBytes = RuntimeFilterConf.mapSideBuildMaxBytes(conf);
    return tapSharedExchanges(rewrite(plan, new SubqueryRewrite(exchanges, mapSideBytes)));
  }

  private static void collectExchanges(SparkPlan plan, List<ShuffleExchangeExec> out) {
    if (plan instanceof ShuffleExchangeExec) {
      out.add((ShuffleExchangeExec) plan);
    }
    for (SparkPlan child : list(plan.children())) {
      collectExchanges(child, out);
    }
  }

  private static SparkPlan rewrite(SparkPlan plan, SubqueryRewrite subqueryRewrite) {
    SparkPlan withChildren = plan.mapChildren(new AbstractFunction1<SparkPlan, SparkPlan>() {
      @Override
      public SparkPlan apply(SparkPlan child) {
        return rewrite(child, subqueryRewrite);
      }
    });
    return (SparkPlan) withChildren.mapExpressions(new AbstractFunction1<Expression, Expression>() {
      @Override
      public Expression apply(Expression e) {
        return e.transform(subqueryRewrite);
      }
    });
  }

  /**
   * Puts the filter taps that the plan's subqueries read from (their copies of the shared exchanges) into the
   * main plan's exchanges too, so both are one shuffle for adaptive execution's stage reuse. Runs on every
   * application of the rule, as adaptive execution re-plans the main query with fresh exchanges.
   */
  private static SparkPlan tapSharedExchanges(SparkPlan plan) {
    List<ShuffleExchangeExec> tapped = new ArrayList<>();
    collectSubqueryTaps(plan, tapped);
    if (tapped.isEmpty()) {
      return plan;
    }
    return plan.transformUp(new AbstractPartialFunction<SparkPlan, SparkPlan>() {
      @Override
      public boolean isDefinedAt(SparkPlan p) {
        return p instanceof ShuffleExchangeExec && !(((ShuffleExchangeExec) p).child() instanceof FilterTapExec);
      }

      @Override
      public SparkPlan apply(SparkPlan p) {
        ShuffleExchangeExec exchange = (ShuffleExchangeExec) p;
        for (ShuffleExchangeExec template : tapped) {
          FilterTapExec tap = (FilterTapExec) template.child();
          SparkPlan candidate = withTap(exchange, tap);
          if (candidate.sameResult(template)) {
            return candidate;
          }
        }
        return p;
      }
    });
  }

  /** {@code exchange} with {@code tap} (its aggregate and accumulator) between it and its child. */
  private static ShuffleExchangeExec withTap(ShuffleExchangeExec exchange, FilterTapExec tap) {
    SparkPlan newTap = tap.withNewChildren(seq(List.of(exchange.child())));
    return (ShuffleExchangeExec) exchange.withNewChildren(seq(List.of(newTap)));
  }

  /** Exchanges with a filter tap in the plans of the scalar subqueries of {@code plan}. */
  private static void collectSubqueryTaps(SparkPlan plan, List<ShuffleExchangeExec> out) {
    for (Expression e : list(plan.expressions())) {
      e.foreach(new AbstractFunction1<Expression, scala.runtime.BoxedUnit>() {
        @Override
        public scala.runtime.BoxedUnit apply(Expression x) {
          if (x instanceof ScalarSubquery && adaptive((ScalarSubquery) x) != null) {
            collectTapped(adaptive((ScalarSubquery) x).inputPlan(), out);
          }
          return scala.runtime.BoxedUnit.UNIT;
        }
      });
    }
    for (SparkPlan child : list(plan.children())) {
      collectSubqueryTaps(child, out);
    }
  }

  private static void collectTapped(SparkPlan plan, List<ShuffleExchangeExec> out) {
    if (plan instanceof ShuffleExchangeExec && ((ShuffleExchangeExec) plan).child() instanceof FilterTapExec) {
      out.add((ShuffleExchangeExec) plan);
    }
    for (SparkPlan child : list(plan.children())) {
      collectTapped(child, out);
    }
  }

  /** Replaces a filter-building scalar subquery by one that reads a matching exchange. */
  private static final class SubqueryRewrite extends AbstractPartialFunction<Expression, Expression> {
    private final List<ShuffleExchangeExec> exchanges;
    /** Byte budget of a map-side build, 0 for none. */
    private final long mapSideBytes;
    /** The tapped version of each shared exchange (by identity): one tap per exchange, for the first filter. */
    private final Map<ShuffleExchangeExec, ShuffleExchangeExec> tapped = new IdentityHashMap<>();

    SubqueryRewrite(List<ShuffleExchangeExec> exchanges, long mapSideBytes) {
      this.exchanges = exchanges;
      this.mapSideBytes = mapSideBytes;
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
      BaseAggregateExec finalBuild = mapSideBytes > 0 ? finalFilterBuild(adaptive.inputPlan()) : null;
      CuckooFilterAggregate[] tapAggregate = {null};
      SparkPlan input = replaceBuildInput(adaptive.inputPlan(), logical, shared, finalBuild != null, tapAggregate);
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
      if (tapAggregate[0] != null) {
        // The filter is built from what the tap collected while the shuffle's map tasks ran; if adaptive
        // execution re-plans this subquery, the aggregate over the shuffle costs one more exchange and is
        // not chosen.
        SparkPlan mapSide = new MapSideFilterBuildExec(shared[0],
            PartialBuilds.bind(tapAggregate[0], shared[0].output()), finalBuild.output());
        mapSide.setLogicalLink(input.logicalLink().get());
        input = mapSide;
      }
      return new AdaptiveSparkPlanExec(input, adaptive.context(), adaptive.preprocessingRules(), adaptive.isSubquery(),
          adaptive.supportsColumnar());
    }

    /**
     * Rewrites the partial build under {@code plan} to read a copy of a shared exchange. With {@code tap}, the
     * exchange also gets a filter tap for this build, unless an earlier filter tapped it: then
     * {@code tapAggregate[0]} is this build's aggregate, its keys in terms of the exchange's rows.
     */
    private SparkPlan replaceBuildInput(SparkPlan plan, LogicalPlan[] logical, ShuffleExchangeExec[] shared,
        boolean tap, CuckooFilterAggregate[] tapAggregate) {
      if (isPartialFilterBuild(plan) && plan.children().size() == 1 && plan.children().head() instanceof ProjectExec) {
        ProjectExec project = (ProjectExec) plan.children().head();
        SharedRows match = exchangeOf(project);
        ShuffleExchangeExec exchange = match == null ? null : match.exchange;
        LogicalPlan exchanged = exchange == null ? null : logicalLinkOf(exchange);
        LogicalPlan keys = exchanged == null ? null : logicalProject(logical[0], project);
        if (keys == null) {
          return plan;
        }
        // The build's projection, reading the exchange's columns (by position, where the subquery's copy of
        // the side has attributes of its own).
        project = new ProjectExec(match.projectList, project.child());
        LogicalPlan readKeys = new Project(match.projectList, keys.children().head());
        // The subquery reads a copy of the exchange (equal to it, so adaptive execution runs one stage for
        // both) under a logical leaf that plans to that copy: re-planning the subquery from its logical
        // plan then yields the exchange again, never a second scan of the side.
        ShuffleExchangeExec source = tapped.get(exchange);
        CuckooFilterAggregate aggregate = throughProject(filterAggregate((BaseAggregateExec) plan), project);
        SparkPlan rows = exchange.child();
        CuckooFilterAggregate bound = PartialBuilds.bind(aggregate, rows.output());
        if (source == null && tap && bound.references().isEmpty()) { // every key bound to a column of the rows
          FilterTapAccumulator accumulator = new FilterTapAccumulator(mapSideBytes);
          plan.sparkContext().register(accumulator);
          source = withTap(exchange, new FilterTapExec(rows, bound, accumulator));
          tapped.put(exchange, source);
          tapAggregate[0] = aggregate;
        }
        ShuffleExchangeExec copy = (ShuffleExchangeExec) (source == null ? exchange : source).clone();
        LogicalPlan leaf = new LogicalQueryStage(exchanged, copy);
        copy.setTagValue(SparkPlan.LOGICAL_PLAN_TAG(), leaf);
        logical[0] = replaceNode(logical[0], keys, readKeys.withNewChildren(seq(List.of(leaf))));
        shared[0] = copy;
        return plan.withNewChildren(seq(List.of((SparkPlan) project.withNewChildren(seq(List.of((SparkPlan) copy))))));
      }
      List<SparkPlan> children = list(plan.children());
      if (children.size() != 1) {
        return plan;
      }
      SparkPlan child = replaceBuildInput(children.get(0), logical, shared, tap, tapAggregate);
      return child == children.get(0) ? plan : plan.withNewChildren(seq(List.of(child)));
    }

    /**
     * An exchange whose rows are exactly those the projection reads, or null. The exchange's side may project
     * them further (the build's key expressions are then read from its columns where it computes the same),
     * and may carry other attributes than the projection's input: a subquery that names the side anew (SQL's
     * second reference to a table, or a Dataset used both in a filter's build and in the join) gets
     * attributes of its own from the analyzer, and the same result column by column.
     */
    private SharedRows exchangeOf(ProjectExec project) {
      SparkPlan source = project.child();
      if (!deterministic(source)) {
        return null;
      }
      for (ShuffleExchangeExec exchange : exchanges) {
        SparkPlan rows = exchange.child();
        if (rows instanceof FilterTapExec) {
          rows = ((FilterTapExec) rows).child();
        }
        SharedRows match = matching(project, source, exchange, rows, List.of());
        if (match == null && rows instanceof ProjectExec) {
          ProjectExec sideProject = (ProjectExec) rows;
          match = matching(project, source, exchange, sideProject.child(), list(sideProject.projectList()));
        }
        if (match != null) {
          return match;
        }
      }
      return null;
    }

    /** {@code exchange} if {@code rows} below it (projected by {@code computed}) are the build's rows. */
    private SharedRows matching(ProjectExec project, SparkPlan source, ShuffleExchangeExec exchange, SparkPlan rows,
        List<NamedExpression> computed) {
      if (rows.output().size() != source.output().size() || !rows.sameResult(source)) {
        return null;
      }
      Seq<NamedExpression> projectList = new ReadExchange(list(source.output()), list(rows.output()), computed)
          .projectList(project.projectList());
      boolean readable = new ProjectExec(projectList, rows).references().subsetOf(exchange.outputSet());
      return readable ? new SharedRows(exchange, projectList) : null;
    }
  }

  /** A shared exchange, and the build's projection reading the exchange's columns. */
  private static final class SharedRows {
    final ShuffleExchangeExec exchange;
    final Seq<NamedExpression> projectList;

    SharedRows(ShuffleExchangeExec exchange, Seq<NamedExpression> projectList) {
      this.exchange = exchange;
      this.projectList = projectList;
    }
  }

  /**
   * Rewrites a projection of one plan's rows to read another plan's projection of the same rows: attributes
   * by position, then expressions that the other projection computes by its output column.
   */
  private static final class ReadExchange {
    private final Map<ExprId, Attribute> renamed = new java.util.HashMap<>();
    private final List<NamedExpression> computed;

    ReadExchange(List<Attribute> from, List<Attribute> onto, List<NamedExpression> computed) {
      for (int i = 0; i < from.size(); i++) {
        renamed.put(from.get(i).exprId(), onto.get(i));
      }
      this.computed = computed;
    }

    /** A projection list reading the exchange's columns, with the same output as before. */
    Seq<NamedExpression> projectList(Seq<NamedExpression> projectList) {
      List<NamedExpression> out = new ArrayList<>();
      for (NamedExpression named : list(projectList)) {
        Expression e = read((Expression) named);
        if (named instanceof Attribute && !(e instanceof Attribute && ((Attribute) e).exprId().equals(named.exprId()))) {
          // A column passed through keeps its name and id, now as an alias of the column it reads.
          out.add(new Alias(e, named.name(), named.exprId(), named.qualifier(), Option.empty(), seq(List.of())));
        } else {
          out.add((NamedExpression) e);
        }
      }
      return seq(out);
    }

    private Expression read(Expression e) {
      return replaceAttributes(e, renamed).transformDown(new AbstractPartialFunction<Expression, Expression>() {
        @Override
        public boolean isDefinedAt(Expression x) {
          return !(x instanceof NamedExpression) && column(x) != null;
        }

        @Override
        public Expression apply(Expression x) {
          return column(x);
        }
      });
    }

    /** The exchange's column that computes {@code x}, or null. */
    private Attribute column(Expression x) {
      if (!x.deterministic() || x.foldable()) {
        return null;
      }
      for (NamedExpression c : computed) {
        if (c instanceof Alias && ((Alias) c).child().semanticEquals(x)) {
          return c.toAttribute();
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

  /**
   * {@code plan} if it is the final aggregate of a {@code cuckoo_filter} build that returns the filter and
   * nothing else, over the partial aggregate (or its single-partition exchange, once planned); else null.
   */
  private static BaseAggregateExec finalFilterBuild(SparkPlan plan) {
    if (!(plan instanceof BaseAggregateExec) || plan.children().size() != 1) {
      return null;
    }
    SparkPlan partial = plan.children().head();
    if (partial instanceof ShuffleExchangeExec) {
      partial = partial.children().head();
    }
    if (!isPartialFilterBuild(partial)) {
      return null;
    }
    BaseAggregateExec aggregate = (BaseAggregateExec) plan;
    List<AggregateExpression> functions = list(aggregate.aggregateExpressions());
    List<NamedExpression> results = list(aggregate.resultExpressions());
    if (!aggregate.groupingExpressions().isEmpty() || functions.size() != 1 || results.size() != 1
        || !(functions.get(0).aggregateFunction() instanceof CuckooFilterAggregate)
        || functions.get(0).mode() != Final$.MODULE$) {
      return null;
    }
    Expression result = (Expression) results.get(0);
    if (result instanceof Alias) {
      result = ((Alias) result).child();
    }
    return result instanceof Attribute && ((Attribute) result).exprId().equals(functions.get(0).resultAttribute().exprId())
        ? aggregate : null;
  }

  /** The {@code cuckoo_filter} function of a partial build. */
  private static CuckooFilterAggregate filterAggregate(BaseAggregateExec partial) {
    return (CuckooFilterAggregate) list(partial.aggregateExpressions()).get(0).aggregateFunction();
  }

  /** {@code aggregate} with its keys in terms of the projection's input instead of its output. */
  private static CuckooFilterAggregate throughProject(CuckooFilterAggregate aggregate, ProjectExec project) {
    Map<ExprId, Expression> defined = new java.util.HashMap<>();
    for (NamedExpression e : list(project.projectList())) {
      defined.put(e.exprId(), e instanceof Alias ? ((Alias) e).child() : (Expression) e);
    }
    return (CuckooFilterAggregate) replaceAttributes(aggregate, defined);
  }

  /** {@code e} with each attribute that {@code replacements} has an entry for (by id) replaced by that entry. */
  static Expression replaceAttributes(Expression e, Map<ExprId, ? extends Expression> replacements) {
    return e.transform(new AbstractPartialFunction<Expression, Expression>() {
      @Override
      public boolean isDefinedAt(Expression x) {
        return x instanceof Attribute && replacements.containsKey(((Attribute) x).exprId());
      }

      @Override
      public Expression apply(Expression x) {
        return replacements.get(((Attribute) x).exprId());
      }
    });
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


}
