package dev.cuckoofilter.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.rand;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The distributed build: deterministic, compact, and identical in answers to plain-Java filters. */
class BuildAggregateTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    // 40,000 distinct keys, most of them on several rows, plus rows with a null key.
    spark.range(0, 100_000).selectExpr("CASE WHEN id % 97 = 0 THEN NULL ELSE id % 40000 * 7919 END AS k",
        "id AS v").createOrReplaceTempView("keys");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static byte[] bytes(Dataset<Row> df) {
    return (byte[]) df.first().get(0);
  }

  @Test
  void theSameKeysGiveTheSameBytesWhateverThePartitioning() {
    Dataset<Row> keys = spark.table("keys");
    for (String sizing : new String[] {"cuckoo_filter(k)", "cuckoo_filter(k, 45000, 0.001)"}) {
      byte[] reference = bytes(keys.coalesce(1).selectExpr(sizing));
      for (Dataset<Row> variant : java.util.List.of(keys.repartition(7), keys.repartition(64),
          keys.orderBy(rand(42)).repartition(13), keys.union(keys).repartition(5, col("v")))) {
        assertArrayEquals(reference, bytes(variant.selectExpr(sizing)), sizing + " over " + variant.rdd().getNumPartitions()
            + " partitions");
      }
    }
  }

  /**
   * The builder merges the partitions' parts on the driver when they fit its budget (one stage), else
   * aggregates them on an executor (two stages); a partition whose part outgrows its share gives up and the
   * build falls back to the aggregate. The same bytes every way.
   */
  @Test
  void theBuilderMergesOnTheDriverOrAggregatesToTheSameBytes() throws Exception {
    // 8 partitions, each with all 1,000 distinct keys 12.5 times over.
    Dataset<Row> data = spark.range(0, 100_000, 1, 8).selectExpr("id % 1000 * 7919 AS k");
    try {
      byte[] reference = null;
      // budget -> stages: the aggregate alone; the driver merge alone; parts over their share, then the aggregate.
      String[][] cases = {{"0", "2"}, {"32MB", "1"}, {"4000", "3"}};
      for (String[] c : cases) {
        spark.conf().set(CuckooFilters.DRIVER_MERGE_MAX_BYTES, c[0]);
        byte[][] bytes = new byte[1][];
        assertEquals(Integer.parseInt(c[1]), stages(() -> bytes[0] = CuckooFilters.builder(data).keys("k")
            .expectedItems(1000).fpp(0.001).build().filter().toByteArray()), "stages with a budget of " + c[0]);
        if (reference == null) {
          reference = bytes[0];
        }
        assertArrayEquals(reference, bytes[0], "budget " + c[0]);
      }
      assertArrayEquals(reference, CuckooFilters.builder(data.coalesce(1)).keys("k").expectedItems(1000).fpp(0.001).build()
          .filter().toByteArray(), "one partition");
      spark.conf().set(CuckooFilters.DRIVER_MERGE_MAX_BYTES, "lots");
      Exception e = assertThrows(IllegalArgumentException.class,
          () -> CuckooFilters.builder(data).keys("k").expectedItems(1000).build());
      assertTrue(e.getMessage().contains(CuckooFilters.DRIVER_MERGE_MAX_BYTES), e.getMessage());
    } finally {
      spark.conf().unset(CuckooFilters.DRIVER_MERGE_MAX_BYTES);
    }
  }

  /**
   * A partition's part is its distinct keys, however many rows repeat them: 200,000 rows of the same 1,000 keys
   * per partition (a part of about 3 KB) gave up on a 1MB budget's share (512 KB, which it took for 128K rows),
   * and the build ran the aggregate after that job (3 stages instead of 1).
   */
  @Test
  void partitionsOfManyRowsButFewKeysMergeOnTheDriver() throws Exception {
    Dataset<Row> data = spark.range(0, 1_600_000, 1, 8).selectExpr("id % 1000 * 7919 AS k");
    byte[] aggregated = bytes(data.selectExpr("cuckoo_filter(k, 1000, 0.001)"));
    try {
      spark.conf().set(CuckooFilters.DRIVER_MERGE_MAX_BYTES, "1MB");
      byte[][] bytes = new byte[1][];
      assertEquals(1, stages(() -> bytes[0] = CuckooFilters.builder(data).keys("k").expectedItems(1000).fpp(0.001)
          .build().filter().toByteArray()));
      assertArrayEquals(aggregated, bytes[0]);
    } finally {
      spark.conf().unset(CuckooFilters.DRIVER_MERGE_MAX_BYTES);
    }
  }

  /**
   * The driver merges the parts only while they take at most the budget in all: 8 partitions of the same 100,000
   * keys send parts of about 190 KB each, every one within its four even shares of a 1MB budget (512 KB), but 1.5 MB
   * together, so the aggregate merges them on an executor (the collecting job, then its two stages).
   */
  @Test
  void partsOverTheBudgetInAllAreNotMergedOnTheDriver() throws Exception {
    Dataset<Row> data = spark.range(0, 800_000, 1, 8).selectExpr("id % 100000 * 7919 AS k");
    byte[] aggregated = bytes(data.selectExpr("cuckoo_filter(k, 100000, 0.001)"));
    long[] collected = {0};
    SparkListener results = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.taskMetrics() != null) {
          collected[0] += end.taskMetrics().resultSize();
        }
      }
    };
    try {
      spark.conf().set(CuckooFilters.DRIVER_MERGE_MAX_BYTES, "1MB");
      byte[][] bytes = new byte[1][];
      spark.sparkContext().listenerBus().waitUntilEmpty();
      spark.sparkContext().addSparkListener(results);
      int stages = stages(() -> bytes[0] = CuckooFilters.builder(data).keys("k").expectedItems(100_000).fpp(0.001)
          .build().filter().toByteArray());
      spark.sparkContext().listenerBus().waitUntilEmpty();
      assertTrue(collected[0] > (1 << 20), "the parts are over the budget in all: " + collected[0] + " bytes");
      assertEquals(3, stages, "stages: the parts, over the budget in all, must not be merged on the driver");
      assertArrayEquals(aggregated, bytes[0]);
    } finally {
      spark.sparkContext().removeSparkListener(results);
      spark.conf().unset(CuckooFilters.DRIVER_MERGE_MAX_BYTES);
    }
  }

  /** The number of stages that {@code action} submits. */
  static int stages(Runnable action) throws Exception {
    java.util.concurrent.atomic.AtomicInteger stages = new java.util.concurrent.atomic.AtomicInteger();
    SparkListener listener = new SparkListener() {
      @Override
      public void onStageSubmitted(org.apache.spark.scheduler.SparkListenerStageSubmitted submitted) {
        stages.incrementAndGet();
      }
    };
    spark.sparkContext().listenerBus().waitUntilEmpty();
    spark.sparkContext().addSparkListener(listener);
    try {
      action.run();
      spark.sparkContext().listenerBus().waitUntilEmpty();
      return stages.get();
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
  }

  @Test
  void filtersBuiltInSparkAnswerLikePlainJava() throws Exception {
    Dataset<Row> rows = spark.sql("SELECT id, CAST(id AS INT) AS i, CAST(id % 100 AS SMALLINT) AS s, "
        + "CAST(id % 100 AS TINYINT) AS b, concat('key-', id) AS str, encode(concat('k', id), 'utf-8') AS bin, "
        + "date_add(DATE'2020-01-01', CAST(id AS INT)) AS d, timestamp_micros(id * 1000003) AS ts, "
        + "CAST(id / 100 AS DECIMAL(10, 2)) AS dec, CAST(id AS DECIMAL(30, 2)) AS wide, CAST(id AS DOUBLE) / 4 AS dbl "
        + "FROM range(0, 3000)");
    rows.createOrReplaceTempView("typed");
    String[] cols = {"id", "i", "s", "b", "str", "bin", "d", "ts", "dec", "wide", "dbl"};
    for (String c : cols) {
      CuckooFilter f = CuckooFilter.fromByteArray(bytes(spark.sql("SELECT cuckoo_filter(" + c + ") FROM typed")));
      for (long id = 0; id < 3000; id++) {
        assertTrue(f.mightContainHash(plainJavaHash(c, id, f.seed())), c + " " + id);
      }
    }
    // Absent keys are (up to the false-positive rate) absent in Java too.
    CuckooFilter longs = CuckooFilter.fromByteArray(bytes(spark.sql("SELECT cuckoo_filter(id, 3000, 0.0001) FROM typed")));
    int falsePositives = 0;
    for (long id = 3000; id < 103_000; id++) {
      falsePositives += longs.mightContain(id) ? 1 : 0;
    }
    assertTrue(falsePositives < 50, "false positives " + falsePositives);
    // Composite keys chain the seed: (id, str) as columns or as a struct.
    CuckooFilter composite = CuckooFilter.fromByteArray(bytes(spark.sql("SELECT cuckoo_filter(struct(id, str)) FROM typed")));
    for (long id = 0; id < 3000; id++) {
      long h = CuckooHash.hashString("key-" + id, CuckooHash.hashLong(id, composite.seed()));
      assertTrue(composite.mightContainHash(h));
    }
  }

  /** The plain-Java hash of the value column {@code c} holds for {@code id}, per docs/HASHING.md. */
  static long plainJavaHash(String c, long id, long seed) {
    switch (c) {
      case "id":
      case "i":
        return CuckooHash.hashLong(id, seed);
      case "s":
      case "b":
        return CuckooHash.hashLong(id % 100, seed);
      case "str":
        return CuckooHash.hashString("key-" + id, seed);
      case "bin":
        return CuckooHash.hashBytes(("k" + id).getBytes(StandardCharsets.UTF_8), seed);
      case "d":
        return CuckooHash.hashLong(LocalDate.of(2020, 1, 1).plusDays(id).toEpochDay(), seed);
      case "ts":
        Instant t = Instant.ofEpochSecond(0, id * 1000003 * 1000);
        return CuckooHash.hashLong(t.getEpochSecond() * 1_000_000 + t.getNano() / 1000, seed);
      case "dec":
        return CuckooHash.hashLong(new BigDecimal(id).divide(new BigDecimal(100)).setScale(2).unscaledValue()
            .longValueExact(), seed);
      case "wide":
        return CuckooHash.hashLong(id * 100, seed);
      case "dbl":
        return CuckooHash.hashLong(Double.doubleToLongBits(id / 4.0), seed);
      default:
        throw new IllegalArgumentException(c);
    }
  }

  @Test
  void nullKeysAreLeftOutAndEmptyInputsGiveEmptyFilters() throws Exception {
    CuckooFilter f = CuckooFilter.fromByteArray(bytes(spark.sql("SELECT cuckoo_filter(k) FROM keys")));
    CuckooFilter nonNull = CuckooFilter.fromByteArray(bytes(spark.sql("SELECT cuckoo_filter(k) FROM keys WHERE k IS NOT NULL")));
    assertEquals(nonNull, f);
    CuckooFilter empty = CuckooFilter.fromByteArray(bytes(spark.sql("SELECT cuckoo_filter(k) FROM keys WHERE v < 0")));
    assertEquals(0, empty.size());
    CuckooFilter allNull = CuckooFilter.fromByteArray(bytes(spark.sql("SELECT cuckoo_filter(k, 10, 0.01) FROM keys WHERE k IS NULL")));
    assertEquals(0, allNull.size());
    // Per-group filters.
    Dataset<Row> perGroup = spark.table("keys").groupBy(expr("v % 3 AS g")).agg(CuckooFilters.filterOf(col("k")));
    assertEquals(3, perGroup.count());
  }

  /**
   * A correlated scalar subquery over no rows is the aggregate of no rows, an empty filter, as the same
   * subquery uncorrelated gives (Spark fills such rows with the aggregate's default result).
   */
  @Test
  void aCorrelatedSubqueryOverNoRowsGivesAnEmptyFilterNotNull() {
    for (String sizing : new String[] {"cuckoo_filter(k)", "cuckoo_filter(k, 10, 0.001)"}) {
      // id -2 and -1 match no row; 0 only a row with a null key; 1 a row with a key.
      java.util.List<Row> rows = spark.sql("SELECT o.id, (SELECT " + sizing + " FROM keys WHERE keys.v = o.id) AS f "
          + "FROM range(-2, 2) o ORDER BY o.id").collectAsList();
      assertEquals(4, rows.size());
      for (Row row : rows) {
        long id = row.getLong(0);
        byte[] uncorrelated = bytes(spark.sql("SELECT " + sizing + " FROM keys WHERE v = " + id));
        assertArrayEquals(uncorrelated, (byte[]) row.get(1), sizing + " for id " + id);
      }
    }
  }

  @Test
  void tooManyKeysForTheGivenSizeFailClearly() {
    Exception e = assertThrows(Exception.class, () -> spark.sql("SELECT cuckoo_filter(k, 100, 0.01) FROM keys").first());
    Throwable root = e;
    while (root.getCause() != null && !(root instanceof IllegalStateException)) {
      root = root.getCause();
    }
    assertTrue(String.valueOf(root.getMessage()).contains("expectedItems"), String.valueOf(root.getMessage()));
  }

  /**
   * Partial results cross the shuffle as sorted delta-encoded entry sets: a few bytes per key and
   * partition, not a full-size table per partition.
   */
  @Test
  void whatCrossesTheShuffleIsCompact() throws Exception {
    AtomicLong shuffled = new AtomicLong();
    SparkListener listener = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.taskMetrics() != null) {
          shuffled.addAndGet(end.taskMetrics().shuffleWriteMetrics().bytesWritten());
        }
      }
    };
    spark.sparkContext().addSparkListener(listener);
    try {
      long keys = 1_000_000;
      Dataset<Row> data = spark.range(0, keys, 1, 64).selectExpr("id * 31 AS k");
      spark.sparkContext().listenerBus().waitUntilEmpty();
      shuffled.set(0);
      CuckooFilter f;
      try {
        f = CuckooFilter.fromByteArray(bytes(data.selectExpr("cuckoo_filter(k, 1000000, 0.01)")));
      } catch (java.io.IOException e) {
        throw new AssertionError(e);
      }
      spark.sparkContext().listenerBus().waitUntilEmpty();
      long bytes = shuffled.get();
      double perKey = (double) bytes / keys;
      long fullTables = 64 * f.serializedSize();
      System.out.printf("shuffle: %d bytes for %d keys in 64 partitions (%.2f bytes/key); 64 full tables: %d bytes%n",
          bytes, keys, perKey, fullTables);
      assertTrue(perKey < 4.0, "bytes per key " + perKey);
      assertTrue(bytes * 10 < fullTables);
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
  }
}
