package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.cli.CuckooCli;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark resolves column names ignoring case (by default), and so does {@code cuckoo build}: --keys ID names the
 * column id. A location records the dataset's real column name whichever tool or spelling built it, and a location
 * that recorded another spelling of the same column (as build-filter did) is rebuilt and updated with either tool.
 */
class KeyNameCaseTest {
  @TempDir
  static Path dir;
  private static SparkSession spark;
  private static String customers;

  @BeforeAll
  static void start() {
    spark = TestSpark.session();
    customers = dir.resolve("customers").toString();
    spark.range(0, 200).selectExpr("id", "concat('c-', id) AS name").write().parquet(customers);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static String keyName(String location) throws IOException {
    return FilterStore.open(location, spark).readLatest().metadata().keyColumns().get(0).name();
  }

  @Test
  void bothBuildersRecordTheRealColumnNameAndRebuildEachOthersLocations() throws Exception {
    String location = dir.resolve("filters").resolve("both").toString();
    Result job = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "ID", "--location", location);
    assertEquals(ExitCodes.OK, job.exitCode(), job.describe());
    assertEquals("id", keyName(location));

    Result tool = inProcess(new CuckooCli(), "build", location, "--input", customers, "--keys", "Id");
    assertEquals(ExitCodes.OK, tool.exitCode(), tool.describe());
    assertEquals("id", keyName(location));
    Result again = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "iD", "--location", location);
    assertEquals(ExitCodes.OK, again.exitCode(), again.describe());
    assertEquals(3, FilterStore.open(location, spark).readLatest().version().version());
  }

  @Test
  void aLocationRecordedUnderAnotherSpellingIsRebuiltAndUpdated() throws Exception {
    // as build-filter --keys ID recorded it: the name as given, not the column's
    String location = dir.resolve("filters").resolve("spelled").toString();
    FilterStore store = FilterStore.open(location, spark);
    SparkCuckooFilter built = CuckooFilters.builder(spark.read().parquet(customers)).keys("ID").build();
    store.publish(built.filter(), FilterMetadata.of(built.filter(), built.keyFields(), "old", FilterMetadata.NO_PARENT));
    assertEquals("ID", keyName(location));

    Result job = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location", location);
    assertEquals(ExitCodes.OK, job.exitCode(), job.describe());
    Result tool = inProcess(new CuckooCli(), "build", location, "--input", customers, "--keys", "id");
    assertEquals(ExitCodes.OK, tool.exitCode(), tool.describe());
    Result update = inProcess(new UpdateFilterJob(), "--location", location, "--before", customers, "--after",
        customers);
    assertEquals(ExitCodes.OK, update.exitCode(), update.describe());
    assertEquals(4, store.readLatest().version().version());
    assertEquals("id", keyName(location));
  }
}
