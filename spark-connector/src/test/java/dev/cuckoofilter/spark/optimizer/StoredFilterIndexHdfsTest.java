package dev.cuckoofilter.spark.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.store.MiniHdfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stored filters of tables on HDFS: a file replaced under the same name is a change of the table. */
class StoredFilterIndexHdfsTest {
  static MiniHdfs hdfs;
  static SparkSession spark;
  @TempDir
  static Path dir;

  @BeforeAll
  static void start() throws Exception {
    hdfs = MiniHdfs.start(dir.resolve("hdfs").toFile());
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB")
        .config(RuntimeFilterConf.FORCE, "true")
        .config("spark.hadoop.dfs.replication", "1")
        .config("spark.hadoop." + MiniHdfs.CLIENT_RETRY_DELAY, "20")
        .getOrCreate();
    spark.range(0, 20_000).selectExpr("id % 10000 AS k", "id AS v").write().parquet(dir.resolve("fact").toString());
    spark.read().parquet(dir.resolve("fact").toString()).createOrReplaceTempView("fact");
  }

  @AfterAll
  static void stop() {
    spark.stop();
    hdfs.close();
  }

  static void write(FileSystem fs, org.apache.hadoop.fs.Path file, String text) throws Exception {
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  static List<Row> rows(String sql) {
    return spark.sql(sql).orderBy("v").collectAsList();
  }

  @Test
  void aFileReplacedUnderTheSameNameSizeAndTimeMakesTheFilterStale() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(hdfs.uri() + "/lake/dim/part-0.csv");
    FileSystem fs = file.getFileSystem(hdfs.clientConf());
    write(fs, file, "5,a\n10,b\n");
    spark.read().schema("k LONG, name STRING").csv(file.getParent().toString()).createOrReplaceTempView("dim");
    StoredFilterIndex.storeIndex(spark, "dim", List.of("k"), dir.resolve("filters/dim").toUri().toString(), 0.001);
    String query = "SELECT f.k, f.v FROM fact f JOIN dim d ON f.k = d.k";
    try {
      assertTrue(spark.sql(query).queryExecution().optimizedPlan().toString().contains("filters/dim"), "used");

      // Another process replaces the file: other keys, the same name and length, its old modification time kept
      // (as distcp -pt or a copy preserving times does).
      FileStatus before = fs.getFileStatus(file);
      write(fs, file, "6,a\n11,b\n");
      fs.setTimes(file, before.getModificationTime(), -1);
      FileStatus after = fs.getFileStatus(file);
      assertEquals(before.getLen(), after.getLen());
      assertEquals(before.getModificationTime(), after.getModificationTime());

      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      List<Row> expected = rows(query);
      spark.conf().unset(RuntimeFilterConf.ENABLED);
      assertEquals(4, expected.size());
      assertEquals(expected, rows(query));
      String plan = spark.sql(query).queryExecution().optimizedPlan().toString();
      assertFalse(plan.contains("filters/dim"), "a stale filter is not used: " + plan);
    } finally {
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim");
    }
  }
}
