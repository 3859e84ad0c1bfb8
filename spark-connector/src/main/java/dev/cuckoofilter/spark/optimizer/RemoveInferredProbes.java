package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
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
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
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
 * ambiguous (both sides or neither read those relations) is left alone, and so is a probe of that subquery
 * that is not the copy (the other side's probe through the join's equalities): a pruned Dataset used twice
 * carries the query's own probe on both sides.
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
            newLeft = withoutCopies(newLeft, join.right(), join, e.getKey());
          } else if (readByRight && !readByLeft && copiedInto(join.joinType(), false)) {
            newRight = withoutCopies(newRight, join.left(), join, e.getKey());
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

  /**
   * {@code side} without the copies of subquery {@code id}'s probe that this join implies: a probe of {@code
   * other} (one of its constraints, so true of every row it returns) with its columns replaced by the ones the
   * join's condition equates them with, wherever filter push-down took it inside {@code side}. Only such a copy
   * is implied: a row of {@code side} it drops has no match. A probe with the same subquery anywhere else in
   * {@code side} (the query's own pruning of a relation the side reads too, as when a pruned Dataset is used
   * twice) decides which rows are there, and stays.
   */
  private static LogicalPlan withoutCopies(LogicalPlan side, LogicalPlan other, Join join, ExprId id) {
    Map<ExprId, Expression> equated = equatedColumns(join, other, side);
    LogicalPlan result = side;
    for (Expression c : list(other.constraints().toSeq())) {
      ScalarSubquery s = probeSubquery(c);
      if (s == null || !s.exprId().equals(id)) {
        continue;
      }
      Expression copy = ShareCreationSideShuffle.replaceAttributes(c, equated);
      if (copy.references().subsetOf(side.outputSet())) {
        result = withoutPushed(result, (CuckooMightContain) copy);
      }
    }
    return result;
  }

  /**
   * The columns of {@code other} that the join's condition equates with a column of {@code side} (or its cast),
   * as constraint propagation replaces them ({@code QueryPlanConstraints.inferAdditionalConstraints}).
   */
  private static Map<ExprId, Expression> equatedColumns(Join join, LogicalPlan other, LogicalPlan side) {
    Map<ExprId, Expression> out = new HashMap<>();
    if (join.condition().isEmpty()) {
      return out;
    }
    for (Expression c : conjuncts(join.condition().get())) {
      if (c instanceof EqualTo) {
        Expression l = ((EqualTo) c).left();
        Expression r = ((EqualTo) c).right();
        for (Expression[] pair : new Expression[][] {{l, r}, {r, l}}) {
          Expression sideColumn = pair[1] instanceof Cast ? ((Cast) pair[1]).child() : pair[1];
          if (pair[0] instanceof Attribute && other.outputSet().contains((Attribute) pair[0])
              && sideColumn instanceof Attribute && side.outputSet().contains((Attribute) sideColumn)) {
            out.putIfAbsent(((Attribute) pair[0]).exprId(), pair[1]);
          }
        }
      }
    }
    return out;
  }

  /**
   * {@code plan} without {@code copy} (a probe of its output columns), looked for where predicate push-down
   * puts a filter of the plan's output: through projections (their aliases replaced), filters, and the sides
   * of joins that a filter of that side's columns passes unchanged.
   */
  private static LogicalPlan withoutPushed(LogicalPlan plan, CuckooMightContain copy) {
    if (!copy.deterministic()) {
      return plan;
    }
    if (plan instanceof Filter) {
      Filter f = (Filter) plan;
      List<Expression> all = conjuncts(f.condition());
      List<Expression> kept = new ArrayList<>();
      for (Expression c : all) {
        if (!sameProbe(c, copy)) {
          kept.add(c);
        }
      }
      LogicalPlan child = withoutPushed(f.child(), copy);
      if (kept.isEmpty()) {
        return child;
      }
      if (kept.size() == all.size() && child == f.child()) {
        return f;
      }
      Expression condition = kept.get(0);
      for (int i = 1; i < kept.size(); i++) {
        condition = new And(condition, kept.get(i));
      }
      return new Filter(condition, child);
    }
    if (plan instanceof Project) {
      Map<ExprId, Expression> aliases = new HashMap<>();
      for (NamedExpression e : list(((Project) plan).projectList())) {
        if (e instanceof Alias) {
          aliases.put(e.exprId(), ((Alias) e).child());
        }
      }
      LogicalPlan child = ((Project) plan).child();
      Expression pushed = ShareCreationSideShuffle.replaceAttributes(copy, aliases);
      if (pushed.references().subsetOf(child.outputSet())) {
        LogicalPlan newChild = withoutPushed(child, (CuckooMightContain) pushed);
        return newChild == child ? plan : plan.withNewChildren(seq(List.of(newChild)));
      }
      return plan;
    }
    if (plan instanceof SubqueryAlias || plan instanceof CuckooFilterHint) {
      LogicalPlan child = plan.children().head();
      LogicalPlan newChild = withoutPushed(child, copy);
      return newChild == child ? plan : plan.withNewChildren(seq(List.of(newChild)));
    }
    if (plan instanceof Join) {
      Join j = (Join) plan;
      JoinType t = j.joinType();
      if (copy.references().subsetOf(j.left().outputSet()) && (t instanceof InnerLike || t == LeftSemi$.MODULE$
          || t == LeftAnti$.MODULE$ || t == LeftOuter$.MODULE$)) {
        LogicalPlan newLeft = withoutPushed(j.left(), copy);
        return newLeft == j.left() ? plan : j.withNewChildren(seq(List.of(newLeft, j.right())));
      }
      if (copy.references().subsetOf(j.right().outputSet()) && (t instanceof InnerLike || t == RightOuter$.MODULE$)) {
        LogicalPlan newRight = withoutPushed(j.right(), copy);
        return newRight == j.right() ? plan : j.withNewChildren(seq(List.of(j.left(), newRight)));
      }
    }
    return plan;
  }

  /** Whether {@code e} is a probe by the same subquery of the same keys as {@code copy}. */
  private static boolean sameProbe(Expression e, CuckooMightContain copy) {
    ScalarSubquery s = probeSubquery(e);
    if (s == null || !s.exprId().equals(((ScalarSubquery) copy.filterExpression()).exprId())) {
      return false;
    }
    List<Expression> a = list(((CuckooMightContain) e).keys());
    List<Expression> b = list(copy.keys());
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).semanticEquals(b.get(i))) {
        return false;
      }
    }
    return true;
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
