package dev.cuckoofilter.spark.optimizer;

import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.runtime.AbstractPartialFunction;

/**
 * Moves a filter from above a {@link CuckooFilterHint} to below it, in the optimizer's operator
 * optimization batches. Spark pushes predicates only through the operators it knows, so a hint node would
 * otherwise hold them back, away from the scan, until {@link CuckooRuntimeFilterRule} removes it. The node
 * passes its child's rows through unchanged, so the filter selects the same rows on either side of it.
 */
public final class PushFiltersBelowCuckooFilterHints extends Rule<LogicalPlan> {
  @Override
  public String ruleName() {
    return "CuckooPushFiltersBelowHints";
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return plan.transformDown(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan p) {
        return p instanceof Filter && ((Filter) p).child() instanceof CuckooFilterHint;
      }

      @Override
      public LogicalPlan apply(LogicalPlan p) {
        Filter filter = (Filter) p;
        CuckooFilterHint hint = (CuckooFilterHint) filter.child();
        return hint.withNewChildInternal(new Filter(filter.condition(), hint.child()));
      }
    });
  }
}
