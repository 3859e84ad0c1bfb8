package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.ScalarSubquery;
import org.apache.spark.sql.catalyst.plans.InnerLike;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.runtime.AbstractPartialFunction;

/**
 * Drops the copies of a pruning predicate that Spark's constraint propagation puts on the side of a join
 * the filter was built from. A user's {@code cuckoo_might_contain((SELECT cuckoo_filter(k) FROM small), big.k)}
 * on one side of {@code big JOIN small ON big.k = small.k} is, by the join's condition, also a constraint on
 * {@code small.k}, so {@code InferFiltersFromConstraints} adds it to {@code small}: a probe of every row of
 * {@code small} with a filter of its own keys, which keeps them all, and which hides {@code small}'s shuffle
 * from {@link ShareCreationSideShuffle}. A copy is recognized by its subquery: the same subquery (same
 * expression id) probing both sides of one join, where only one side reads the relations the subquery
 * builds from, on a side constraint propagation copies into (not a side an outer join preserves). The copy
 * is implied by the other side's probe and the join's condition, so removing it changes no result. Anything
 * ambiguous (both sides or neither read those relations) is left alone.
 */
public final class RemoveInferredProbes extends Rule<LogicalPlan> {
  @Override
  public String ruleName() {
    return "CuckooRemoveInferredProbes";
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return plan.transformUp(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan p) {
        return p instanceof Join;
      }

      @Override
      public LogicalPlan apply(LogicalPlan p) {
        Join join = (Join) p;
        Map<ExprId, ScalarSubquery> left = probes(join.left());
        Map<ExprId, ScalarSubquery> right = probes(join.right());
        LogicalPlan newLeft = join.left();
        LogicalPlan newRight = join.right();
        for (Map.Entry<ExprId, ScalarSubquery> e : left.entrySet()) {
          if (!right.containsKey(e.getKey())) {
            continue;
          }
          LogicalPlan creation = e.getValue().plan();
          boolean readByLeft = readsAllLeaves(join.left(), creation);
          boolean readByRight = readsAllLeaves(join.right(), creation);
          if (readByLeft && !readByRight && copiedInto(join.joinType(), true)) {
            newLeft = without(newLeft, e.getKey());
          } else if (readByRight && !readByLeft && copiedInto(join.joinType(), false)) {
            newRight = without(newRight, e.getKey());
          }
        }
        if (newLeft == join.left() && newRight == join.right()) {
          return join;
        }
        return join.withNewChildren(seq(List.of(newLeft, newRight)));
      }
    });
  }

  /**
   * Whether constraint propagation copies predicates into this side of such a join ({@code
   * InferFiltersFromConstraints}): both sides of inner and left semi joins, only the side an outer or anti
   * join does not keep whole. A probe on a side it never copies into is the query's own, and on the side an
   * outer join preserves it decides which rows are there at all: removing it would change the result.
   */
  private static boolean copiedInto(JoinType type, boolean left) {
    if (type instanceof InnerLike || type == LeftSemi$.MODULE$) {
      return true;
    }
    return left ? type == RightOuter$.MODULE$ : type == LeftOuter$.MODULE$ || type == LeftAnti$.MODULE$;
  }

  /** The subqueries of the probes in the filters of {@code plan}, by expression id. */
  private static Map<ExprId, ScalarSubquery> probes(LogicalPlan plan) {
    Map<ExprId, ScalarSubquery> out = new HashMap<>();
    collectProbes(plan, out);
    return out;
  }

  private static void collectProbes(LogicalPlan plan, Map<ExprId, ScalarSubquery> out) {
    if (plan instanceof Filter) {
      for (Expression c : conjuncts(((Filter) plan).condition())) {
        ScalarSubquery s = probeSubquery(c);
        if (s != null) {
          out.put(s.exprId(), s);
        }
      }
    }
    for (LogicalPlan child : list(plan.children())) {
      collectProbes(child, out);
    }
  }

  private static ScalarSubquery probeSubquery(Expression e) {
    if (e instanceof CuckooMightContain && ((CuckooMightContain) e).filterExpression() instanceof ScalarSubquery) {
      return (ScalarSubquery) ((CuckooMightContain) e).filterExpression();
    }
    return null;
  }

  /** Whether every leaf of {@code creation} is a leaf of {@code side} (the same relation). */
  private static boolean readsAllLeaves(LogicalPlan side, LogicalPlan creation) {
    List<LogicalPlan> sideLeaves = list(side.collectLeaves());
    for (LogicalPlan leaf : list(creation.collectLeaves())) {
      if (sideLeaves.stream().noneMatch(l -> l.sameResult(leaf))) {
        return false;
      }
    }
    return true;
  }

  /** {@code plan} without the probes that use subquery {@code id}. */
  private static LogicalPlan without(LogicalPlan plan, ExprId id) {
    return plan.transformUp(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan p) {
        return p instanceof Filter;
      }

      @Override
      public LogicalPlan apply(LogicalPlan p) {
        Filter f = (Filter) p;
        List<Expression> all = conjuncts(f.condition());
        List<Expression> kept = new ArrayList<>();
        for (Expression c : all) {
          ScalarSubquery s = probeSubquery(c);
          if (s == null || !s.exprId().equals(id)) {
            kept.add(c);
          }
        }
        if (kept.size() == all.size()) {
          return f;
        }
        if (kept.isEmpty()) {
          return f.child();
        }
        Expression condition = kept.get(0);
        for (int i = 1; i < kept.size(); i++) {
          condition = new And(condition, kept.get(i));
        }
        return new Filter(condition, f.child());
      }
    });
  }

  private static List<Expression> conjuncts(Expression e) {
    List<Expression> out = new ArrayList<>();
    if (e instanceof And) {
      out.addAll(conjuncts(((And) e).left()));
      out.addAll(conjuncts(((And) e).right()));
    } else {
      out.add(e);
    }
    return out;
  }
}
