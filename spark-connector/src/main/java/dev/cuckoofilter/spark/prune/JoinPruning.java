package dev.cuckoofilter.spark.prune;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import java.util.Locale;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NthValue;
import org.apache.spark.sql.catalyst.expressions.RowFrame$;
import org.apache.spark.sql.catalyst.expressions.SpecifiedWindowFrame;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.expressions.UnboundedFollowing$;
import org.apache.spark.sql.catalyst.expressions.UnboundedPreceding$;
import org.apache.spark.sql.catalyst.expressions.WindowExpression;
import org.apache.spark.sql.catalyst.expressions.WindowFrame;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.AnyValue;
import org.apache.spark.sql.catalyst.expressions.aggregate.ApproximatePercentile;
import org.apache.spark.sql.catalyst.expressions.aggregate.Collect;
import org.apache.spark.sql.catalyst.expressions.aggregate.CollectTopK;
import org.apache.spark.sql.catalyst.expressions.aggregate.First;
import org.apache.spark.sql.catalyst.expressions.aggregate.HistogramNumeric;
import org.apache.spark.sql.catalyst.expressions.aggregate.Last;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.MaxMinBy;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Mode;
import org.apache.spark.sql.catalyst.plans.logical.CTERelationRef;
import org.apache.spark.sql.catalyst.plans.logical.GlobalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LocalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Offset;
import org.apache.spark.sql.catalyst.plans.logical.Sample;
import org.apache.spark.sql.catalyst.plans.logical.Tail;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import scala.runtime.AbstractFunction1;

/**
 * Which side of a join may be pruned with a filter of the other side's keys without changing the join's
 * result: a side whose rows without a match never reach the output. The left side of inner, right outer
 * and left semi joins; the right side of inner, left outer, left semi and left anti joins. Never a side
 * an outer join preserves, the left side of an anti join, a full outer or a cross join. And only with a
 * filter of the other side's rows as the join reads them: a side that is not {@link #repeatable} is never
 * the one a filter is built from.
 */
public final class JoinPruning {
  /** The side of {@code left.join(right, ...)} to prune. */
  public enum Side {
    LEFT, RIGHT
  }

  private JoinPruning() {}

  /** Spark's join type name, normalized as {@code Dataset.join} does. */
  public static String normalize(String joinType) {
    String t = joinType.toLowerCase(Locale.ROOT).replace("_", "");
    switch (t) {
      case "inner":
        return "inner";
      case "left":
      case "leftouter":
        return "left_outer";
      case "right":
      case "rightouter":
        return "right_outer";
      case "full":
      case "fullouter":
      case "outer":
        return "full_outer";
      case "semi":
      case "leftsemi":
        return "left_semi";
      case "anti":
      case "leftanti":
        return "left_anti";
      case "cross":
        return "cross";
      default:
        throw new IllegalArgumentException("unknown join type '" + joinType + "'; expected inner, left_outer, "
            + "right_outer, full_outer, left_semi, left_anti or cross");
    }
  }

  /** Null if {@code side} may be pruned in a join of this type, else the reason it may not. */
  public static String refusal(String joinType, Side side) {
    String t = normalize(joinType);
    boolean ok;
    switch (t) {
      case "inner":
        ok = true;
        break;
      case "right_outer":
        ok = side == Side.LEFT;
        break;
      case "left_outer":
      case "left_anti":
        ok = side == Side.RIGHT;
        break;
      case "left_semi":
        ok = true;
        break;
      default:
        ok = false;
    }
    if (ok) {
      return null;
    }
    if (t.equals("cross")) {
      return "a cross join has no keys to prune by";
    }
    if (t.equals("left_anti")) {
      return "the left side of a left anti join is the result of its non-matching rows; pruning them would "
          + "change the result";
    }
    return "the " + side.name().toLowerCase(Locale.ROOT) + " side of a " + t + " join keeps its rows without a "
        + "match; pruning them would change the result";
  }

  /**
   * Whether every run of {@code plan} yields the same rows: a filter built by one run of a join's other side
   * (a subquery, a stored filter) holds the keys of the join's own run only if so. Not so with
   * non-deterministic expressions ({@code rand()}...), nor where the rows depend on the order they arrive in,
   * which a shuffle does not keep from one run to the next: a limit, offset, tail or sample; an aggregate
   * that keeps a row by arrival or breaks ties that way ({@code first}, {@code last}, {@code any_value},
   * {@code max_by}, {@code min_by}, {@code mode}), lists its inputs in arrival order ({@code collect_list},
   * {@code collect_set}) or summarizes them approximately in that order ({@code percentile_approx},
   * {@code histogram_numeric}), or rounds a floating-point result by that order ({@code sum} or {@code avg} of doubles,
   * {@code stddev}...: a key computed from it, or a group at a {@code HAVING} bound on it, may differ in the last
   * bit); or a window function over a ROWS frame ({@code row_number()}, {@code lag()},
   * running sums) whose ties may be broken either way. Subqueries count as part of the plan: a limit in an
   * {@code IN (SELECT ... LIMIT n)} picks the side's rows as much as one of the side's own.
   */
  public static boolean repeatable(LogicalPlan plan) {
    return !plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        if (node instanceof GlobalLimit
            || node instanceof LocalLimit
            || node instanceof Offset
            || node instanceof Tail
            || node instanceof Sample
            // Mid-optimization, Spark has inlined every CTE but those that are non-deterministic and read more than
            // once; the reference that is left shows nothing of its rand() (it becomes a repartition of the CTE's
            // plan only later), and each reading of it may compute other rows.
            || node instanceof CTERelationRef) {
          return true;
        }
        for (Expression e : list(node.expressions())) {
          if (!e.deterministic() || e.exists(new AbstractFunction1<Expression, Object>() {
            @Override
            public Object apply(Expression x) {
              return x instanceof SubqueryExpression && !repeatable(((SubqueryExpression) x).plan())
                  || x instanceof First
                  || x instanceof Last
                  || x instanceof AnyValue
                  || x instanceof MaxMinBy
                  || x instanceof Mode
                  || x instanceof Collect
                  || x instanceof CollectTopK
                  || x instanceof ApproximatePercentile
                  || x instanceof HistogramNumeric
                  || x instanceof NthValue
                  || roundsByArrivalOrder(x)
                  || x instanceof WindowExpression
                  && orderDependentFrame(((WindowExpression) x)
                      .windowSpec().frameSpecification());
            }
          })) {
            return true;
          }
        }
        return false;
      }
    });
  }

  /**
   * A floating-point aggregate other than min and max ({@code sum} and {@code avg} of doubles, {@code avg} of
   * integers, {@code stddev}, {@code variance}, {@code corr}...): its rounding depends on the order it adds its
   * inputs in, which the final aggregation's shuffle fetch order sets anew in every run.
   */
  private static boolean roundsByArrivalOrder(Expression x) {
    return x instanceof AggregateFunction && !(x instanceof Max || x instanceof Min)
        && (x.dataType() instanceof DoubleType || x.dataType() instanceof FloatType);
  }

  private static boolean orderDependentFrame(WindowFrame frame) {
    if (!(frame instanceof SpecifiedWindowFrame)) {
      return true; // not resolved yet: assume the worst
    }
    SpecifiedWindowFrame f =
        (SpecifiedWindowFrame) frame;
    return f.frameType() == RowFrame$.MODULE$
        && !(f.lower() == UnboundedPreceding$.MODULE$
            && f.upper() == UnboundedFollowing$.MODULE$);
  }
}
