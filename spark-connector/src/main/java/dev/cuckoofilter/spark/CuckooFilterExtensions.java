package dev.cuckoofilter.spark;

import dev.cuckoofilter.spark.optimizer.CuckooFilterHintStrategy;
import dev.cuckoofilter.spark.optimizer.CuckooRuntimeFilterRule;
import dev.cuckoofilter.spark.optimizer.PartitionFilterMetrics;
import dev.cuckoofilter.spark.optimizer.PushFiltersBelowCuckooFilterHints;
import dev.cuckoofilter.spark.optimizer.RemoveInferredProbes;
import dev.cuckoofilter.spark.optimizer.ResolveCuckooFilterHints;
import dev.cuckoofilter.spark.optimizer.ShareCreationSideShuffle;
import dev.cuckoofilter.spark.sql.CuckooSqlFunctions;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import scala.Function1;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Enables, in every session, the SQL functions {@code cuckoo_filter}, {@code cuckoo_might_contain} and
 * {@code cuckoo_filter_info}, and the automatic cuckoo runtime filter ({@link CuckooRuntimeFilterRule},
 * switched off with {@code spark.cuckoo.runtimeFilter.enabled=false}) with its shared-shuffle build
 * ({@link ShareCreationSideShuffle}), {@link RemoveInferredProbes}, the partition counts of probes planned as
 * partition filters ({@link PartitionFilterMetrics}), and the per-query hints {@code
 * CUCKOO_FILTER} / {@code NO_CUCKOO_FILTER} ({@link ResolveCuckooFilterHints}):
 * {@code spark.sql.extensions=dev.cuckoofilter.spark.CuckooFilterExtensions}.
 */
public final class CuckooFilterExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit>
    implements SparkSessionExtensionsProvider {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    CuckooSqlFunctions.register(extensions);
    // The per-query hints CUCKOO_FILTER and NO_CUCKOO_FILTER, read (and removed) by CuckooRuntimeFilterRule.
    extensions.injectResolutionRule(perSession(ResolveCuckooFilterHints::new));
    extensions.injectOptimizerRule(perSession(PushFiltersBelowCuckooFilterHints::new));
    extensions.injectPlannerStrategy(perSession(CuckooFilterHintStrategy::new));
    // First, the copies of pruning predicates that constraint propagation put on the side a filter is built from.
    extensions.injectPreCBORule(perSession(RemoveInferredProbes::new));
    // Before join reordering, once per query: the filters then sit on the join sides, and later
    // predicate push-down moves them to the scans.
    extensions.injectPreCBORule(session(CuckooRuntimeFilterRule::new));
    // Last before Spark's PruneFileSourcePartitions, and in planning file scans: a probe that Spark evaluates with
    // partition values (its keys are partition columns of a file-source table) counts partitions, not rows.
    extensions.injectPreCBORule(perSession(PartitionFilterMetrics.BeforePartitionPruning::new));
    extensions.injectPlannerStrategy(session(PartitionFilterMetrics.ScanStrategy::new));
    // After EnsureRequirements has placed the exchanges: a filter's build may then read the join's shuffle.
    extensions.injectQueryStagePrepRule(perSession(ShareCreationSideShuffle::new));
    return BoxedUnit.UNIT;
  }

  /** The builder Spark's injection points take: a new instance for each session. */
  private static <T> Function1<SparkSession, T> session(java.util.function.Function<SparkSession, T> create) {
    return new AbstractFunction1<>() {
      @Override
      public T apply(SparkSession session) {
        return create.apply(session);
      }
    };
  }

  /** {@link #session} for what does not need the session. */
  private static <T> Function1<SparkSession, T> perSession(Supplier<T> create) {
    return session(ignored -> create.get());
  }
}
