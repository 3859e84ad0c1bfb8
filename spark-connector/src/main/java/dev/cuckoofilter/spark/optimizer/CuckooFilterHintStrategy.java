package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import java.util.List;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.collection.Seq;

/**
 * Plans a {@link CuckooFilterHint} as its child. {@link CuckooRuntimeFilterRule} removes every hint node
 * before physical planning; this only keeps a query working should that rule not run (excluded with {@code
 * spark.sql.optimizer.excludedRules}).
 */
public final class CuckooFilterHintStrategy extends SparkStrategy {
  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    if (plan instanceof CuckooFilterHint) {
      return seq(List.of(planLater(((CuckooFilterHint) plan).child())));
    }
    return seq(List.of());
  }
}
