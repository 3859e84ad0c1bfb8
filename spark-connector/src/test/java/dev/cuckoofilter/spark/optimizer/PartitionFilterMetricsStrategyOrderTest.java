package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.CuckooFilterExtensions;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.expressions.Literal$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.FileSourceStrategy$;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * PartitionFilterMetrics.ScanStrategy plans file scans ahead of the planner strategies that extensions listed after
 * CuckooFilterExtensions inject: such a strategy must still plan the scans it planned without the partition counts.
 */
class PartitionFilterMetricsStrategyOrderTest {
  static SparkSession spark;
  @TempDir
  static Path dir;
  static String byPath;

  /** A user's extension whose strategy plans the filtered scans of partitioned file tables (marked "Filter true"). */
  public static final class UserScanExtension extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions) {
      extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
        @Override
        public SparkStrategy apply(SparkSession session) {
          return new UserScanStrategy();
        }
      });
      return BoxedUnit.UNIT;
    }
  }

  static final class UserScanStrategy extends SparkStrategy {
    @Override
    public Seq<SparkPlan> apply(LogicalPlan plan) {
      if (!(plan instanceof Filter f && f.child() instanceof LogicalRelation r
          && r.relation() instanceof HadoopFsRelation fs && fs.partitionSchema().nonEmpty())) {
        return seq(List.of());
      }
      List<SparkPlan> planned = new ArrayList<>();
      for (SparkPlan p : list(FileSourceStrategy$.MODULE$.apply(plan))) {
        planned.add(new FilterExec(Literal$.MODULE$.create(true, org.apache.spark.sql.types.DataTypes.BooleanType), p));
      }
      return seq(planned);
    }
  }

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.extensions", CuckooFilterExtensions.class.getName() + "," + UserScanExtension.class.getName())
        .getOrCreate();
    byPath = dir.resolve("fact-by-path").toString();
    spark.range(0, 4000).selectExpr("id AS v", "CAST(id % 40 AS INT) AS part").write().partitionBy("part")
        .parquet(byPath);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Until 2026-11-29 (commit 9365ecb to this fix): the probe's scan was planned by ScanStrategy, not the user's. */
  @Test
  void aStrategyOfAnExtensionListedAfterStillPlansTheScanOfAProbe() {
    Dataset<Row> data = spark.read().parquet(byPath);
    String plain = data.where("part < 25").queryExecution().executedPlan().toString();
    assertTrue(plain.contains("Filter true"), plain);

    SparkCuckooFilter f = CuckooFilters.builder(spark.range(0, 25).selectExpr("CAST(id AS INT) AS part")).keys("part")
        .fpp(0.001).build();
    Dataset<Row> pruned = f.prune(data, "part");
    String plan = pruned.queryExecution().executedPlan().toString();
    assertTrue(plan.contains("Filter true"), plan);
    assertEquals(2500, pruned.collectAsList().size());

    // A scan the user's strategy does not plan (a projection above the filter) is still ScanStrategy's.
    SparkCuckooFilter g = CuckooFilters.builder(spark.range(0, 25).selectExpr("CAST(id AS INT) AS part")).keys("part")
        .fpp(0.001).build();
    Dataset<Row> projected = g.prune(data, "part").selectExpr("part", "v + 1 AS w");
    String projectedPlan = projected.queryExecution().executedPlan().toString();
    assertTrue(!projectedPlan.contains("Filter true"), projectedPlan);
    assertEquals(2500, projected.collectAsList().size());
    assertEquals(40, g.partitionsIn());
    assertEquals(25, g.partitionsOut());
    assertEquals(0, g.rowsIn());
  }
}
