package dev.cuckoofilter.spark.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The extension's runtime filter leaves joins on keys a filter cannot hold alone. */
class RuntimeFilterKeyTypesTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void joinsOnArrayOrIntervalKeysRunUnfiltered() {
    // With the rule forced, these joins failed with Spark's internal "Invalid call to dataType on
    // unresolved object": the injected probe's keys failed its type check during optimization.
    try {
      spark.conf().set("spark.cuckoo.runtimeFilter.force", "true");
      spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
      String[][] joins = {
          {"array(id)", "array(id * 3)"},
          {"make_dt_interval(CAST(id AS INT))", "make_dt_interval(CAST(id * 3 AS INT))"}};
      for (String[] keys : joins) {
        Dataset<Row> joined = spark.sql("SELECT count(*) FROM (SELECT " + keys[0] + " AS a FROM range(0, 1000)) x "
            + "JOIN (SELECT " + keys[1] + " AS a FROM range(0, 10) WHERE id > 2) y ON x.a = y.a");
        assertFalse(joined.queryExecution().optimizedPlan().toString().contains("cuckoo_might_contain"), keys[0]);
        assertEquals(7L, joined.first().getLong(0), keys[0]);
      }
      // Supported keys are still filtered.
      Dataset<Row> longs = spark.sql("SELECT count(*) FROM (SELECT id AS a FROM range(0, 1000)) x "
          + "JOIN (SELECT id * 3 AS a FROM range(0, 10) WHERE id > 2) y ON x.a = y.a");
      assertTrue(longs.queryExecution().optimizedPlan().toString().contains("cuckoo_might_contain"));
      assertEquals(7L, longs.first().getLong(0));
    } finally {
      spark.conf().unset("spark.cuckoo.runtimeFilter.force");
      spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    }
  }
}
