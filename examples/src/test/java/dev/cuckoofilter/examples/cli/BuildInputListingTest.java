package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files of {@code --input} {@code cuckoo build} reads: those Spark reads of the same paths. */
class BuildInputListingTest {
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

  private static void assertBuildsLikeSpark(String name, String... inputs) throws Exception {
    Dataset<Row> data = spark.read().parquet(inputs);
    byte[] expected = CuckooFilters.builder(data).keys("id").expectedItems(2000).fpp(0.001).build().filter()
        .toByteArray();
    String location = dir.resolve("filters").resolve(name).toString();
    java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("build", location, "--keys", "id",
        "--expected-items", "2000", "--fpp", "0.001"));
    for (String input : inputs) {
      args.add("--input");
      args.add(input);
    }
    ChildProcess.Result built = CuckooTool.inProcess(args.toArray(new String[0]));
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
    assertArrayEquals(expected, FilterStore.open(location, spark).readLatest().filter().toByteArray(),
        built.describe());
  }

  @Test
  void anInputDirectoryWithAHiddenNameIsReadAsSparkReadsIt() throws Exception {
    spark.range(0, 500).write().parquet(dir.resolve("customers").toString());
    spark.range(500, 800).write().parquet(dir.resolve("_staging").toString());
    assertEquals(800, spark.read().parquet(dir.resolve("customers").toString(), dir.resolve("_staging").toString())
        .count());
    assertBuildsLikeSpark("hidden-dir", dir.resolve("customers").toString(), dir.resolve("_staging").toString());
    // A glob's match that is a directory of a hidden name is read too; one that is a file of a hidden name is not.
    spark.range(0, 200).write().parquet(dir.resolve("globbed").resolve("a").toString());
    spark.range(200, 300).write().parquet(dir.resolve("globbed").resolve(".b").toString());
    String glob = dir.resolve("globbed").toString() + "/*";
    assertEquals(300, spark.read().parquet(glob).count());
    assertBuildsLikeSpark("hidden-glob-match", glob);
  }

  @Test
  void anEmptyFileAmongTheDataFilesIsLeftOutAsSparkLeavesItOut() throws Exception {
    Path data = dir.resolve("with-empty");
    spark.range(0, 500).repartition(2).write().parquet(data.toString());
    Files.createFile(data.resolve("part-99999-empty.parquet"));
    assertEquals(500, spark.read().parquet(data.toString()).count());
    assertBuildsLikeSpark("empty-file", data.toString());
  }
}
