package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.optimizer.RuleOnOff.sorted;
import static dev.cuckoofilter.spark.optimizer.RuleOnOff.withRuleOff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.StoredFilter;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Registered stored filters while retention runs: between a reader's read of the latest commit record and a later
 * read of that version (its record again, or its data file), another writer publishes a version and retention
 * removes the one being read. The stores are opened through the scheme {@code racefile:}, the local file system
 * with the race injected (Spark's own reads of the tables, through {@code file:}, are unaffected).
 */
class StoredFilterIndexRaceTest {
  static SparkSession spark;
  @TempDir
  static Path dir;
  static final String QUERY = "SELECT f.k, f.v, d.name FROM rfact f JOIN rdim_active d ON f.k = d.k";

  /** The local file system under the scheme racefile:, running one action after the n-th opening of a commit record. */
  public static final class CommitOpenRaceFileSystem extends RawLocalFileSystem {
    static volatile IORunnable action;
    static volatile int opensBefore;

    interface IORunnable {
      void run() throws IOException;
    }

    @Override
    public URI getUri() {
      return URI.create("racefile:///");
    }

    @Override
    public String getScheme() {
      return "racefile";
    }

    @Override
    public FSDataInputStream open(org.apache.hadoop.fs.Path f, int bufferSize) throws IOException {
      FSDataInputStream in = super.open(f, bufferSize); // open: the record stays readable once removed
      synchronized (CommitOpenRaceFileSystem.class) {
        IORunnable run = action;
        if (run != null && f.getParent().getName().equals("versions") && --opensBefore == 0) {
          action = null;
          run.run();
        }
      }
      return in;
    }
  }

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB")
        .getOrCreate();
    spark.sparkContext().hadoopConfiguration().setClass("fs.racefile.impl", CommitOpenRaceFileSystem.class,
        org.apache.hadoop.fs.FileSystem.class);
    spark.sparkContext().hadoopConfiguration().setBoolean("fs.racefile.impl.disable.cache", true);
    spark.range(0, 20_000).selectExpr("id % 10000 AS k", "id AS v").write().parquet(dir.resolve("fact").toString());
    spark.range(0, 2000).selectExpr("id * 5 AS k", "CAST(id % 10 AS INT) AS segment", "concat('d', id) AS name")
        .write().parquet(dir.resolve("dim").toString());
    spark.read().parquet(dir.resolve("fact").toString()).createOrReplaceTempView("rfact");
    spark.read().parquet(dir.resolve("dim").toString()).createOrReplaceTempView("rdim_all");
    spark.sql("CREATE OR REPLACE TEMP VIEW rdim_active AS SELECT * FROM rdim_all WHERE segment < 3");
  }

  @AfterAll
  static void stop() {
    CommitOpenRaceFileSystem.action = null;
    spark.stop();
  }

  /** A stored index of rdim_active at {@code name}, registered under racefile:, and a writer of it under file:. */
  static FilterStore storeIndex(String name) throws IOException {
    String fileLocation = dir.resolve("filters/" + name).toUri().toString();
    StoredFilterIndex.storeIndex(spark, "rdim_active", List.of("k"), fileLocation, 0.001);
    StoredFilterIndex.register(spark, "rdim_active", fileLocation.replaceFirst("^file:", "racefile:"));
    return FilterStore.open(fileLocation, new Configuration());
  }

  /** Publishes {@code base} again as the next version and keeps only that one, after the n-th commit record opened. */
  static void raceAfterCommitOpen(int n, FilterStore writer, StoredFilter base) {
    CommitOpenRaceFileSystem.opensBefore = n;
    CommitOpenRaceFileSystem.action = () -> {
      writer.publish(base.filter(), base.metadata().withParentVersion(base.version().version()));
      writer.retain(1);
    };
  }

  /**
   * The rule's lookup reads the latest commit record (1), its metadata (2), then the version as a Spark filter (its
   * record, 3, then its data file): the version removed after any of these must not fail the query.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void aQueryWhoseStoredFilterVersionIsRemovedWhilePlanningUsesTheNewLatest(int opensBeforeRace) throws Exception {
    FilterStore writer = storeIndex("query" + opensBeforeRace);
    try {
      List<Row> expected = withRuleOff(QUERY);
      raceAfterCommitOpen(opensBeforeRace, writer, writer.read(1));
      Dataset<Row> df = spark.sql(QUERY);
      String plan = df.queryExecution().optimizedPlan().toString();
      assertEquals(null, CommitOpenRaceFileSystem.action, "the race was run");
      assertEquals(List.of(2L), writer.versionNumbers(), "only the new latest is left");
      assertTrue(plan.contains("filters/query" + opensBeforeRace + " version 2"), plan);
      assertEquals(expected, sorted(df));
    } finally {
      CommitOpenRaceFileSystem.action = null;
      spark.conf().unset(StoredFilterIndex.PREFIX + "rdim_active");
    }
  }

  /** updateIndex reads the latest version's key columns, then updates the latest version: it must update the new latest. */
  @org.junit.jupiter.api.Test
  void anUpdateWhoseLatestVersionIsRemovedWhileReadingUpdatesTheNewLatest() throws Exception {
    FilterStore writer = storeIndex("update");
    try {
      List<Row> expected = withRuleOff(QUERY);
      raceAfterCommitOpen(1, writer, writer.read(1));
      Dataset<Row> dim = spark.table("rdim_active");
      long version = StoredFilterIndex.updateIndex(spark, "rdim_active",
          dev.cuckoofilter.spark.update.ChangeSet.of(dim.limit(0), dim.limit(0), dim)).version();
      assertEquals(null, CommitOpenRaceFileSystem.action, "the race was run");
      assertEquals(3, version, "an update of the new latest, version 2");
      assertEquals(2, writer.read(3).metadata().parentVersion());
      Dataset<Row> df = spark.sql(QUERY);
      String plan = df.queryExecution().optimizedPlan().toString();
      assertTrue(plan.contains("filters/update version 3"), plan);
      assertEquals(expected, sorted(df));
    } finally {
      CommitOpenRaceFileSystem.action = null;
      spark.conf().unset(StoredFilterIndex.PREFIX + "rdim_active");
    }
  }
}
