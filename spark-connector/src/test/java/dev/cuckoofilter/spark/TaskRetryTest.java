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
      if (t.attemptNumber() == 0 && t.partitionId() == 1 && v % 1000 == 999) {
        throw new IllegalStateException("injected failure in the first attempt of partition 1");
      }
      return v;
    }, DataTypes.LongType);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void retriedTasksYieldTheSameFilter() throws Exception {
    java.util.concurrent.atomic.AtomicInteger failedAttempts = new java.util.concurrent.atomic.AtomicInteger();
    spark.sparkContext().addSparkListener(new org.apache.spark.scheduler.SparkListener() {
      @Override
      public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
        if (!end.taskInfo().successful()) {
          failedAttempts.incrementAndGet();
        }
      }
    });
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
}
