package dev.cuckoofilter.spark;

import dev.cuckoofilter.spark.execution.MapSideFilterBuildExec;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.execution.RangeExec;
import org.apache.spark.sql.execution.ScalarSubquery;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import scala.collection.JavaConverters;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/** What an executed adaptive plan did, across its query stages and its subqueries. */
public final class ExecutedPlans {
  /** Range scans run. */
  public int scans;
  /** Scalar subqueries, in the order met. */
  public final List<ScalarSubquery> subqueries = new ArrayList<>();
  /** Reused exchanges read inside subqueries. */
  public int reusedInSubqueries;
  /** Filters built from a shuffle's map tasks. */
  public final List<MapSideFilterBuildExec> mapSideBuilds = new ArrayList<>();

  private ExecutedPlans() {}

  public static ExecutedPlans of(SparkPlan plan) {
    ExecutedPlans c = new ExecutedPlans();
    c.visit(plan, false);
    return c;
  }

  /** The value of the only scalar subquery (a built filter's bytes). */
  public byte[] onlySubqueryResult() {
    if (subqueries.size() != 1) {
      throw new AssertionError(subqueries.size() + " subqueries");
    }
    return (byte[]) subqueries.get(0).eval(null);
  }

  private void visit(SparkPlan plan, boolean inSubquery) {
    if (plan instanceof AdaptiveSparkPlanExec) {
      visit(((AdaptiveSparkPlanExec) plan).executedPlan(), inSubquery);
      return;
    }
    if (plan instanceof QueryStageExec) {
      visit(((QueryStageExec) plan).plan(), inSubquery);
      return;
    }
    if (plan instanceof ReusedExchangeExec) {
      reusedInSubqueries += inSubquery ? 1 : 0;
      return; // the exchange it reuses is counted where it runs
    }
    if (plan instanceof RangeExec) {
      scans++;
    }
    if (plan instanceof MapSideFilterBuildExec) {
      mapSideBuilds.add((MapSideFilterBuildExec) plan);
    }
    for (Expression e : JavaConverters.seqAsJavaListConverter(plan.expressions()).asJava()) {
      e.foreach(new AbstractFunction1<Expression, BoxedUnit>() {
        @Override
        public BoxedUnit apply(Expression x) {
          if (x instanceof ScalarSubquery) {
            subqueries.add((ScalarSubquery) x);
            visit(((ScalarSubquery) x).plan(), true);
          }
          return BoxedUnit.UNIT;
        }
      });
    }
    for (SparkPlan child : JavaConverters.seqAsJavaListConverter(plan.children()).asJava()) {
      visit(child, inSubquery);
    }
  }
}
