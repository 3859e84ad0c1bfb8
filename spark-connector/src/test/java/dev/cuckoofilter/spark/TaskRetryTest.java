package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.apache.spark.TaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A task that fails once and is retried contributes exactly the same entries. */
class TaskRetryTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2,3]").getOrCreate(); // up to 3 attempts per task
    spark.udf().register("fail_first_attempt", (UDF1<Long, Long>) v -> {
      TaskContext t = TaskContext.get();
      if (t.attemptNumber() == 0 && t.partitionId() == 1 && v % 1000 == 991) {
        throw new IllegalStateException("injected failure in the first attempt of partition 1");
      }
      return v;
    }, DataTypes.LongType);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Counts the task attempts that fail from now on. */
  private static java.util.concurrent.atomic.AtomicInteger countFailedAttempts() {
    java.util.concurrent.atomic.AtomicInteger failedAttempts = new java.util.concurrent.atomic.AtomicInteger();
    spark.sparkContext().addSparkListener(new org.apache.spark.scheduler.SparkListener() {
      @Override
      public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
        if (!end.taskInfo().successful()) {
          failedAttempts.incrementAndGet();
        }
      }
    });
    return failedAttempts;
  }

  @Test
  void retriedTasksYieldTheSameFilter() throws Exception {
    java.util.concurrent.atomic.AtomicInteger failedAttempts = countFailedAttempts();
    Dataset<Row> clean = spark.range(0, 50_000, 1, 4).selectExpr("id * 13 AS k");
    Dataset<Row> flaky = spark.range(0, 50_000, 1, 4).selectExpr("fail_first_attempt(id) * 13 AS k");
    for (String agg : new String[] {"cuckoo_filter(k)", "cuckoo_filter(k, 60000, 0.001)"}) {
      byte[] expected = (byte[]) clean.selectExpr(agg).first().get(0);
      byte[] retried = (byte[]) flaky.selectExpr(agg).first().get(0);
      assertArrayEquals(expected, retried, agg);
    }
    spark.sparkContext().listenerBus().waitUntilEmpty();
    org.junit.jupiter.api.Assertions.assertTrue(failedAttempts.get() >= 2, "injected failures: " + failedAttempts.get());
  }

  /**
   * A runtime filter built from the map tasks of the join's shuffle: a map task that fails once contributes
   * nothing from its failed attempt and everything from its retry, so the filter is whole.
   */
  @Test
  void aRetriedMapTaskOfTheJoinsShuffleStillGivesTheWholeFilter() throws Exception {
    java.util.concurrent.atomic.AtomicInteger failedAttempts = countFailedAttempts();
    spark.conf().set("spark.sql.adaptive.enabled", "true");
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    spark.conf().set("spark.cuckoo.runtimeFilter.applicationSideThreshold", "1KB");
    spark.sql("CREATE OR REPLACE TEMP VIEW retry_fact AS SELECT id % 20000 AS k, id AS v FROM range(0, 40000)");
    spark.sql("CREATE OR REPLACE TEMP VIEW retry_dim AS SELECT fail_first_attempt(id) * 7 AS k, id % 10 AS segment "
        + "FROM range(0, 4000, 1, 4)");
    String sql = "SELECT count(*), sum(f.v) FROM retry_fact f JOIN retry_dim d ON f.k = d.k WHERE d.segment < 3";
    try {
      spark.conf().set("spark.cuckoo.runtimeFilter.enabled", "false");
      Row expected = spark.sql(sql).first();
      spark.conf().set("spark.cuckoo.runtimeFilter.enabled", "true");
      spark.conf().set("spark.cuckoo.runtimeFilter.mapSideBuild.maxBytes", "0");
      Dataset<Row> aggregated = spark.sql(sql);
      org.junit.jupiter.api.Assertions.assertEquals(expected, aggregated.collectAsList().get(0));
      byte[] filter = ExecutedPlans.of(aggregated.queryExecution().executedPlan()).onlySubqueryResult();
      int failedBefore = failedAttempts.get();

      spark.conf().unset("spark.cuckoo.runtimeFilter.mapSideBuild.maxBytes");
      Dataset<Row> mapSide = spark.sql(sql);
      org.junit.jupiter.api.Assertions.assertEquals(expected, mapSide.collectAsList().get(0));
      ExecutedPlans plans = ExecutedPlans.of(mapSide.queryExecution().executedPlan());
      org.junit.jupiter.api.Assertions.assertEquals(4, plans.mapSideBuilds.get(0).tappedPartitions());
      assertArrayEquals(filter, plans.onlySubqueryResult());
      spark.sparkContext().listenerBus().waitUntilEmpty();
      org.junit.jupiter.api.Assertions.assertTrue(failedAttempts.get() > failedBefore, "a map task of the dimension's shuffle failed once");
    } finally {
      for (String key : new String[] {"spark.sql.autoBroadcastJoinThreshold", "spark.cuckoo.runtimeFilter.applicationSideThreshold",
          "spark.cuckoo.runtimeFilter.enabled", "spark.cuckoo.runtimeFilter.mapSideBuild.maxBytes"}) {
        spark.conf().unset(key);
      }
    }
  }
}
