package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.catalyst.catalog.BucketSpec;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.optimizer.InjectRuntimeFilter$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.JoinHint;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;

/**
 * Whether a join shuffles the side a runtime filter would prune, as far as the logical plan tells: pruning
 * pays by shrinking a shuffle, so where there is none the rule leaves the side alone. A join shuffles
 * nothing when it will be a broadcast join: a {@code BROADCAST} hint, or a side under the broadcast
 * threshold (the test Spark's own runtime filter makes), on a side the join type can build from. It does
 * not shuffle a side that is a bucketed table scan whose bucket columns are exactly the side's join keys
 * (Spark reads its buckets as the join's partitions and shuffles at most the other side to match).
 */
final class JoinShuffles {
  private JoinShuffles() {}

  static boolean shufflesSide(Join join, LogicalPlan side, List<Expression> sideKeys) {
    SQLConf sql = SQLConf.get();
    JoinHint hint = join.hint();
    InjectRuntimeFilter$ spark = InjectRuntimeFilter$.MODULE$;
    // A side is broadcast only where the join type lets the join build from it: a left outer join cannot
    // build its preserved left side, however small, and shuffles both sides unless the right one is small.
    boolean broadcastLeft = spark.canBuildBroadcastLeft(join.joinType())
        && (spark.hintToBroadcastLeft(hint) || spark.canBroadcastBySize(join.left(), sql));
    boolean broadcastRight = spark.canBuildBroadcastRight(join.joinType())
        && (spark.hintToBroadcastRight(hint) || spark.canBroadcastBySize(join.right(), sql));
    return !broadcastLeft && !broadcastRight && !bucketedOn(side, sideKeys, sql);
  }

  /** Whether {@code side} scans a bucketed table whose bucket columns are exactly {@code keys}. */
  static boolean bucketedOn(LogicalPlan side, List<Expression> keys, SQLConf sql) {
    if (!sql.bucketingEnabled()) {
      return false;
    }
    LogicalPlan p = side;
    while (p instanceof Project || p instanceof Filter || p instanceof CuckooFilterHint) {
      p = p.children().head();
    }
    if (!(p instanceof LogicalRelation) || !(((LogicalRelation) p).relation() instanceof HadoopFsRelation)) {
      return false;
    }
    Option<BucketSpec> spec = ((HadoopFsRelation) ((LogicalRelation) p).relation()).bucketSpec();
    if (spec.isEmpty()) {
      return false;
    }
    Set<String> keyColumns = new HashSet<>();
    for (Expression key : keys) {
      // A key computed from columns (a cast, an expression) is not the bucketing: Spark shuffles then.
      if (!(key instanceof AttributeReference) || !p.outputSet().contains((AttributeReference) key)) {
        return false;
      }
      keyColumns.add(((AttributeReference) key).name().toLowerCase(Locale.ROOT));
    }
    Set<String> bucketColumns = new HashSet<>();
    for (String column : list(spec.get().bucketColumnNames())) {
      bucketColumns.add(column.toLowerCase(Locale.ROOT));
    }
    return keyColumns.equals(bucketColumns);
  }
}
