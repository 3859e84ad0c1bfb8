package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stored filters in Spark jobs: executors load them from HDFS and S3 themselves (once per JVM), or the
 * driver broadcasts them; probes with other key types are refused. HDFS runs in this JVM next to Spark;
 * S3 is reachable only through the session's configuration.
 */
class StoreSparkTest {
  static final String BUCKET = "spark-filters";
  @TempDir
  static File dir;
  static MiniHdfs hdfs;
  static S3ProxyServer s3;
  static SparkSession spark;
  static Dataset<Row> big;
  static Dataset<Row> small;

  @BeforeAll
  static void start() throws Exception {
    hdfs = MiniHdfs.start(new File(dir, "hdfs"));
    s3 = S3ProxyServer.start(dir);
    s3.createBucket(BUCKET);
    SparkSession.Builder builder = SparkTestSession.builder("local[2]");
    // S3 settings only in the session: executors must get them from the store's handle. Without the
    // file system cache each executor-side load builds its S3A client from that configuration alone.
    s3.s3aConf().iterator().forEachRemaining(e -> {
      if (e.getKey().startsWith("fs.s3a.")) {
        builder.config("spark.hadoop." + e.getKey(), e.getValue());
      }
    });
    builder.config("spark.hadoop.fs.s3a.impl.disable.cache", "true");
    builder.config("spark.hadoop." + MiniHdfs.CLIENT_RETRY_DELAY, "20");
    spark = builder.getOrCreate();
    big = spark.range(0, 40_000, 1, 8).toDF("id");
    small = spark.range(0, 40_000, 13).toDF("id");
  }

  @AfterAll
  static void stop() throws IOException {
    if (spark != null) {
      spark.stop();
    }
    FileSystem.closeAll();
    if (hdfs != null) {
      hdfs.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  /** Publishes a filter of {@code small}'s ids, built by Spark, as the next version. */
  static CuckooFilter publishSmall(FilterStore store) throws IOException {
    SparkCuckooFilter built = CuckooFilters.builder(small).keys("id").expectedItems(4000).fpp(0.01).build();
    long parent = store.latest().map(FilterVersion::version).orElse(FilterMetadata.NO_PARENT);
    store.publish(built.filter(), FilterMetadata.of(built.filter(), built.keyFields(), "range(0, 40000, 13)", parent));
    return built.filter();
  }

  static List<Long> ids(Dataset<Row> df) {
    List<Long> out = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      out.add(r.getLong(0));
    }
    Collections.sort(out);
    return out;
  }

  @Test
  void executorsLoadAStoredFilterOncePerJvmAndPruneExactlyLikeTheFilterItself() throws IOException {
    FilterStore store = FilterStore.open(hdfs.uri() + "/lake/filters/small-ids", spark);
    CuckooFilter filter = publishSmall(store);
    long loadsBefore = ExecutorFilterCache.loads();

    SparkCuckooFilter stored = store.sparkFilter(spark, 1, false);
    Dataset<Row> pruned = stored.prune(big, "id");
    String plan = pruned.queryExecution().executedPlan().toString();
    assertTrue(plan.contains("version 1 (loaded by executors)"), plan);
    assertEquals(loadsBefore, ExecutorFilterCache.loads(), "planning does not read the filter on the driver");

    List<Long> kept = ids(pruned);
    assertEquals(loadsBefore + 1, ExecutorFilterCache.loads(), "8 tasks, one load");
    assertEquals(8, big.rdd().getNumPartitions());
    List<Long> expected = new ArrayList<>();
    for (long id = 0; id < 40_000; id++) {
      if (filter.mightContain(id)) {
        expected.add(id);
      }
    }
    assertEquals(expected, kept, "exactly the rows the filter itself keeps");
    assertTrue(kept.containsAll(ids(small)), "no false negatives");
    assertEquals(kept.size(), stored.prune(big, "id").count());
    assertEquals(loadsBefore + 1, ExecutorFilterCache.loads(), "later jobs reuse the executor's copy");
    assertEquals(2 * 40_000, stored.rowsIn(), "two jobs saw every row");
  }

  @Test
  void theBroadcastPathReadsOnTheDriverAndPrunesAlike() throws IOException {
    FilterStore store = FilterStore.open(hdfs.uri() + "/lake/filters/broadcast-ids", spark);
    CuckooFilter filter = publishSmall(store);
    long loadsBefore = ExecutorFilterCache.loads();
    SparkCuckooFilter broadcast = store.sparkFilterLatest(spark, true);
    Dataset<Row> pruned = broadcast.prune(big, "id");
    String plan = pruned.queryExecution().executedPlan().toString();
    assertTrue(plan.contains("version 1 (broadcast"), plan);
    assertEquals(ids(SparkCuckooFilter.of(spark, filter, broadcast.keyFields()).prune(big, "id")), ids(pruned));
    assertEquals(loadsBefore, ExecutorFilterCache.loads(), "executors took the broadcast, not the store");
    assertEquals(filter, broadcast.filter());
    String chosen = store.sparkFilter(spark, 1).prune(big, "id").queryExecution().executedPlan().toString();
    assertTrue(chosen.contains("version 1 (broadcast"), "a small filter is broadcast by default: " + chosen);
  }

  @Test
  void probesWithOtherKeyTypesAreRefusedOnBothPaths() throws IOException {
    FilterStore store = FilterStore.open(hdfs.uri() + "/lake/filters/typed-ids", spark);
    publishSmall(store);
    Dataset<Row> strings = big.selectExpr("CAST(id AS STRING) AS id");
    Dataset<Row> pairs = big.selectExpr("id", "id AS other");
    for (boolean broadcast : new boolean[] {false, true}) {
      long loadsBefore = ExecutorFilterCache.loads();
      SparkCuckooFilter stored = store.sparkFilter(spark, 1, broadcast);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> stored.prune(strings, "id"));
      assertTrue(e.getMessage().contains("the probe keys (id string) do not match the filter's keys (id bigint)")
          && e.getMessage().contains(store.location() + " version 1"), e.getMessage());
      IllegalArgumentException composite = assertThrows(IllegalArgumentException.class,
          () -> stored.prune(pairs, "id", "other"));
      assertTrue(composite.getMessage().contains("do not match"), composite.getMessage());
      assertEquals(loadsBefore, ExecutorFilterCache.loads(), "a refused probe loads nothing");
      // Integral widths hash alike: an int probe of a bigint filter is fine.
      assertEquals(ids(stored.prune(big, "id")).size(), stored.prune(big.selectExpr("CAST(id AS INT) AS id"), "id")
          .count());
    }
  }

  @Test
  void aVersionRemovedBeforeExecutorsLoadItFailsTheJobClearly() throws IOException {
    FilterStore store = FilterStore.open(hdfs.uri() + "/lake/filters/retained-ids", spark);
    publishSmall(store);
    publishSmall(store);
    SparkCuckooFilter first = store.sparkFilter(spark, 1, false);
    assertEquals(1, store.retain(1));
    Exception e = assertThrows(Exception.class, () -> first.prune(big, "id").count());
    String messages = causes(e);
    assertTrue(messages.contains("location " + store.location() + ": version 1 was removed"), messages);
    assertEquals(ids(store.sparkFilter(spark, 2, false).prune(big, "id")).size(),
        store.sparkFilterLatest(spark, true).prune(big, "id").count(), "the kept version still works");
  }

  @Test
  void s3LocationsUseTheSessionsConfigurationOnDriverAndExecutors() throws IOException {
    String location = "s3a://" + BUCKET + "/filters/small-ids";
    FilterStore store = FilterStore.open(location, spark);
    CuckooFilter filter = publishSmall(store);
    long loadsBefore = ExecutorFilterCache.loads();
    List<Long> kept = ids(store.sparkFilterLatest(spark, false).prune(big, "id"));
    assertEquals(loadsBefore + 1, ExecutorFilterCache.loads());
    assertEquals(ids(SparkCuckooFilter.of(spark, filter, TestFilters.LONG_KEY).prune(big, "id")), kept);
    assertFalse(kept.isEmpty());
  }

  static String causes(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getMessage()).append(" | ");
    }
    return sb.toString();
  }
}
