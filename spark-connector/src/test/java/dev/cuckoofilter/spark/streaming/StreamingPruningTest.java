package dev.cuckoofilter.spark.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.optimizer.RuntimeFilterConf;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.StreamingQueryWrapper;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structured Streaming: a stream pruned with a filter (built, or built by a subquery of each micro-batch) keeps
 * every match, and the runtime filter rule leaves streaming plans alone even when forced.
 */
class StreamingPruningTest {
  static SparkSession spark;
  @TempDir static Path dir;
  /** The executed plan of the last micro-batch of the last query {@link #run} ran. */
  static String lastPlan;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]").config("spark.sql.autoBroadcastJoinThreshold", "-1").getOrCreate();
    spark.sql("SELECT id % 5000 AS k, id AS v FROM range(0, 20000)").repartition(3)
        .write().parquet(dir.resolve("events").toString());
    spark.sql("SELECT id * 7 AS k, concat('d', id) AS name FROM range(0, 2000) WHERE id % 3 = 0")
        .write().parquet(dir.resolve("dim").toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static List<String> run(Dataset<Row> streaming, String name) throws Exception {
    StreamingQuery q = streaming.writeStream().format("memory").queryName(name).outputMode("append")
        .option("checkpointLocation", dir.resolve("cp-" + name).toString()).trigger(Trigger.AvailableNow()).start();
    q.awaitTermination();
    lastPlan = ((StreamingQueryWrapper) q).streamingQuery().lastExecution().executedPlan().toString();
    List<String> out = new ArrayList<>();
    for (Row r : spark.table(name).collectAsList()) {
      out.add(r.toString());
    }
    Collections.sort(out);
    return out;
  }

  Dataset<Row> events() {
    return spark.readStream().schema("k BIGINT, v BIGINT").parquet(dir.resolve("events").toString());
  }

  @Test
  void aStreamJoinedWithAStaticTableWithTheRuleForced() throws Exception {
    Dataset<Row> dim = spark.read().parquet(dir.resolve("dim").toString());
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    List<String> expected = run(events().join(dim, "k"), "off");
    spark.conf().set(RuntimeFilterConf.ENABLED, "true");
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    try {
      assertEquals(expected, run(events().join(dim, "k"), "on"));
      assertFalse(lastPlan.contains("cuckoo_might_contain"), lastPlan);
    } finally {
      spark.conf().unset(RuntimeFilterConf.FORCE);
    }
    assertEquals(4 * 239, expected.size()); // each of the 239 dimension keys below 5000 has 4 events
  }

  @Test
  void aStreamPrunedWithABuiltFilter() throws Exception {
    Dataset<Row> dim = spark.read().parquet(dir.resolve("dim").toString());
    SparkCuckooFilter filter = CuckooFilters.build(dim, "k");
    List<String> expected = run(events().join(dim, "k").select("k", "v"), "plain");
    assertEquals(expected, run(filter.prune(events(), "k").join(dim, "k").select("k", "v"), "pruned"));
    assertTrue(lastPlan.contains("cuckoo_might_contain"), lastPlan);
    assertEquals(expected, run(CuckooFilters.prune(events(), dim, "k").join(dim, "k").select("k", "v"), "oneCall"));
    assertTrue(lastPlan.contains("cuckoo_might_contain"), lastPlan);
  }
}
