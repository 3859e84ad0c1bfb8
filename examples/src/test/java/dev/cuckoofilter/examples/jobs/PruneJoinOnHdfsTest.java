package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.MiniHdfs;
import java.net.URI;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * prune-join on HDFS (the connector's {@link MiniHdfs} in the test JVM), where one NameNode has several spellings: its
 * host's names and addresses, with or without the default port.
 */
class PruneJoinOnHdfsTest {
  @TempDir
  static Path dir;

  private static MiniHdfs hdfs;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    hdfs = MiniHdfs.start(dir.resolve("hdfs").toFile());
    spark = TestSpark.session();
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (hdfs != null) {
      hdfs.close();
    }
  }

  /**
   * The check that --output does not overlap the filter location compared the paths as spelled: with the location
   * given as hdfs://127.0.0.1:port/... and --output as hdfs://localhost:port/... (or a plain path under an
   * fs.defaultFS spelled otherwise), --mode overwrite deleted the filter store. Paths are now compared with their
   * file system's canonical scheme and authority.
   */
  @Test
  void anOutputSpelledWithAnotherNameOfTheNameNodeIsRefusedOverTheStore() throws Exception {
    String root = hdfs.uri();
    URI uri = URI.create(root);
    // the other name of the loopback NameNode
    String alias = "hdfs://" + (uri.getHost().equals("localhost") ? "127.0.0.1" : "localhost") + ":" + uri.getPort();
    String customers = root + "/data/customers";
    String orders = root + "/data/orders";
    spark.range(0, 500).selectExpr("id", "concat('c-', id) AS name").write().parquet(customers);
    spark.range(0, 2000).selectExpr("id AS order_id", "id % 1000 AS customer_id").write().parquet(orders);
    String location = root + "/filters/customers";
    FilterStore store = TestSpark.publishCustomerIds(spark, customers, location);

    Result overStore = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--keys",
        "customer_id", "--join-with", customers, "--join-keys", "id", "--output", alias + "/filters/customers",
        "--mode", "overwrite");
    assertEquals(ExitCodes.USAGE, overStore.exitCode(), overStore.describe());
    assertTrue(overStore.stderr().startsWith("prune-join: error: --output " + alias + "/filters/customers overlaps "
        + "--location " + location), overStore.describe());
    assertEquals(1, store.readLatest().version().version(), "the store is intact");
  }
}
