package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files Spark wrote in the legacy hybrid Julian/Gregorian calendar (Spark 2, Spark 3.0's INT96, or the LEGACY rebase
 * modes), whose dates before 1582-10-15 and timestamps before 1900-01-01 Spark rebases when it reads them: the tool
 * does not rebase, so it refuses such a key rather than build a filter without the keys Spark reads. Later values
 * need no rebase and build the Spark build's filter.
 */
class LegacyCalendarBuildTest {
  @TempDir
  static Path dir;

  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = TestSpark.session();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static Path write(String name, String timestampType, String rebaseConf, String... exprs) {
    spark.conf().set("spark.sql.parquet.outputTimestampType", timestampType);
    spark.conf().set(rebaseConf, "LEGACY");
    try {
      spark.range(0, 300).selectExpr(exprs).write().parquet(dir.resolve(name).toString());
    } finally {
      spark.conf().unset("spark.sql.parquet.outputTimestampType");
      spark.conf().unset(rebaseConf);
    }
    return dir.resolve(name);
  }

  /** Dates as a file of Spark 2 holds them (Spark 2's footer, no rebase mode): Spark 3.5 rebases the early ones. */
  private static Path writeAsSpark2(String name) throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType("message spark_schema { optional int32 k (DATE); }");
    Path file = dir.resolve(name).resolve("part-00000.parquet");
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).withExtraMetaData(Map.of("org.apache.spark.version", "2.4.8"))
        .build()) {
      for (int k = 0; k < 300; k++) {
        writer.write(new SimpleGroupFactory(schema).newGroup().append("k", -354_285 + k)); // 1000-01-06 on
      }
    }
    // Spark reads other days than the file holds: a build of the stored days would miss them.
    assertNotEquals(-354_285, spark.read().parquet(dir.resolve(name).toString()).selectExpr("unix_date(k)")
        .orderBy("k").first().getInt(0));
    return dir.resolve(name);
  }

  private static ChildProcess.Result build(Path input, String key) {
    return CuckooTool.inProcess("build", dir.resolve("filters").resolve(input.getFileName()).toString(), "--input",
        input.toString(), "--keys", key, "--expected-items", "1000", "--fpp", "0.001");
  }

  @Test
  void ancientDatesAndTimestampsOfLegacyCalendarFilesAreRefusedNamingFileAndColumn() throws Exception {
    String dates = "spark.sql.parquet.datetimeRebaseModeInWrite";
    String int96 = "spark.sql.parquet.int96RebaseModeInWrite";
    Object[][] cases = {
        {write("date", "INT96", dates, "date_add(date'1000-01-01', cast(id AS int)) AS k"), "1582-10-15"},
        {write("micros", "TIMESTAMP_MICROS", dates, "timestamp_micros(-30000000000000000 + id * 1000003) AS k"),
            "1900-01-01T00:00:00Z"},
        {write("millis", "TIMESTAMP_MILLIS", dates, "timestamp_millis(-30000000000000 + id * 1000003) AS k"),
            "1900-01-01T00:00:00Z"},
        {write("int96", "INT96", int96, "timestamp_micros(-30000000000000000 + id * 1000003) AS k"),
            "1900-01-01T00:00:00Z"},
        {writeAsSpark2("spark2"), "1582-10-15"}};
    for (Object[] c : cases) {
      Path input = (Path) c[0];
      ChildProcess.Result built = build(input, "k");
      // Before the fix: built (exit 0) of the values as stored, not the ones Spark reads: a join pruned with it lost rows.
      assertEquals(ExitCodes.USAGE, built.exitCode(), built.describe());
      assertTrue(built.stderr().matches("(?s).*key column k of file:\\S+/" + input.getFileName()
          + "/part-\\S+\\.parquet holds [-0-9T:.Z]+, before " + c[1] + ", in the legacy hybrid.*"), built.describe());
      assertTrue(Files.notExists(dir.resolve("filters").resolve(input.getFileName())), built.describe());
    }
  }

  @Test
  void laterValuesOfLegacyCalendarFilesBuildTheSparkBuildsFilter() throws Exception {
    String dates = "spark.sql.parquet.datetimeRebaseModeInWrite";
    Path[] inputs = {
        write("late-date", "INT96", dates, "date_add(date'1582-10-15', cast(id AS int)) AS k"),
        write("late-micros", "TIMESTAMP_MICROS", dates, "timestamp_micros(-2208988800000000 + id * 1000003) AS k"),
        write("late-int96", "INT96", "spark.sql.parquet.int96RebaseModeInWrite",
            "timestamp_micros(-2208988800000000 + id * 1000003) AS k")};
    for (Path input : inputs) {
      ChildProcess.Result built = build(input, "k");
      assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
      Dataset<Row> data = spark.read().parquet(input.toString());
      byte[] expected = CuckooFilters.builder(data).keys("k").expectedItems(1000).fpp(0.001).build().filter()
          .toByteArray();
      FilterStore store = FilterStore.open(dir.resolve("filters").resolve(input.getFileName()).toString(), spark);
      assertArrayEquals(expected, store.readLatest().filter().toByteArray(), input.toString());
      assertEquals(300, store.sparkFilterLatest(spark).prune(data, "k").count(), input.toString());
    }
  }
}
