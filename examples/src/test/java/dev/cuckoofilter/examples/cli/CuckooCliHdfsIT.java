package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.MiniHdfs;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code cuckoo} tool on HDFS: a real NameNode and DataNode (the connector's {@link MiniHdfs}) in the test JVM,
 * on 127.0.0.1. The tool builds from Parquet files on HDFS and publishes, reads, verifies, diffs and
 * merges versions at {@code hdfs://} locations, in-process and as the self-contained jar in its own
 * process (whose bundled Hadoop client must speak to the NameNode by itself).
 */
class CuckooCliHdfsIT {
  private static final long EXPECTED_ITEMS = 4000;
  private static final double FPP = 0.001;

  @TempDir
  static Path dir;

  private static MiniHdfs hdfs;
  private static String root;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    hdfs = MiniHdfs.start(dir.resolve("hdfs").toFile());
    root = hdfs.uri();
    spark = TestSpark.session();
    spark.range(0, 1000).write().parquet(root + "/data/ids-0-999");
    spark.range(500, 1500).write().parquet(root + "/data/ids-500-1499");
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

  private static ChildProcess.Result cuckoo(String... args) {
    return CuckooTool.inProcess(args);
  }

  private static ChildProcess.Result cuckooProcess(String name, String... args) throws Exception {
    return CuckooTool.jar(dir.resolve("logs"), name, args);
  }

  private static void assertOk(ChildProcess.Result r) {
    assertEquals(0, r.exitCode(), r.describe());
  }

  @Test
  void buildInfoContainsDiffMergeAndVerifyOnHdfs() throws Exception {
    String loc = root + "/filters/ids";
    assertOk(cuckoo("build", loc, "--input", root + "/data/ids-0-999", "--keys", "id",
        "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP));
    // The jar in its own process, with only its bundled Hadoop client.
    ChildProcess.Result second = cuckooProcess("build", "build", loc, "--input", root + "/data/ids-500-1499",
        "--keys", "id", "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP);
    assertOk(second);
    assertTrue(second.stdout().contains("published " + loc + " version 2"), second.describe());

    // What the tool published on HDFS is what Spark builds from the same files on HDFS.
    FilterStore store = FilterStore.open(loc, spark);
    assertEquals(List.of(1L, 2L), store.versionNumbers());
    assertArrayEquals(CuckooFilters.builder(spark.read().parquet(root + "/data/ids-0-999")).keys("id")
        .expectedItems(EXPECTED_ITEMS).fpp(FPP).build().filter().toByteArray(),
        store.read(1).filter().toByteArray());

    ChildProcess.Result info = cuckooProcess("info", "info", loc);
    assertOk(info);
    assertTrue(info.stdout().startsWith("location: " + store.location() + "\nversions: 2\n"), info.describe());
    assertTrue(info.stdout().contains("  key columns: id bigint\n"), info.describe());

    CuckooFilter v2 = store.read(2).filter();
    ChildProcess.Result looked = cuckoo("contains", loc + "@2", "1499", "-7");
    assertOk(looked);
    assertEquals("1499\tmaybe present\n-7\t" + (v2.mightContain(-7L) ? "maybe present" : "absent") + "\n",
        looked.stdout());

    ChildProcess.Result diff = cuckoo("diff", loc + "@1", loc + "@2");
    assertOk(diff);
    assertTrue(diff.stdout().startsWith("A: " + store.location() + " version 1, "), diff.describe());

    String merged = root + "/filters/merged";
    assertOk(cuckoo("merge", "--into", merged, loc + "@1", loc + "@2"));
    assertArrayEquals(CuckooFilters.builder(spark.range(0, 1500).toDF()).keys("id").expectedItems(EXPECTED_ITEMS)
        .fpp(FPP).build().filter().toByteArray(), FilterStore.open(merged, spark).readLatest().filter().toByteArray());

    ChildProcess.Result verified = cuckooProcess("verify", "verify", loc);
    assertOk(verified);
    assertTrue(verified.stdout().endsWith("2 version(s) checked, all intact\n"), verified.describe());
  }

  @Test
  void aDamagedFileOnHdfsIsReportedNotLoaded() throws Exception {
    String loc = root + "/filters/damaged";
    assertOk(cuckoo("build", loc, "--input", root + "/data/ids-0-999", "--keys", "id", "--fpp", "0.01"));
    FileSystem fs = FileSystem.get(URI.create(root), hdfs.clientConf());
    org.apache.hadoop.fs.Path dataFile = null;
    for (var status : fs.listStatus(new org.apache.hadoop.fs.Path(loc + "/data"))) {
      if (status.getPath().getName().startsWith("00000000000000000001-")) {
        dataFile = status.getPath();
      }
    }
    assertTrue(dataFile != null, "no data file of version 1 under " + loc + "/data");
    // HDFS files cannot be modified in place: replace the file by a copy with one byte of the table flipped.
    byte[] bytes;
    try (var in = fs.open(dataFile)) {
      bytes = in.readAllBytes();
    }
    bytes[bytes.length / 2] ^= 0x10;
    try (FSDataOutputStream out = fs.create(dataFile, true)) {
      out.write(bytes);
    }

    ChildProcess.Result verified = cuckoo("verify", loc);
    assertEquals(ExitCodes.CORRUPT, verified.exitCode(), verified.describe());
    assertTrue(verified.stdout().contains("version 1: DAMAGED: ") && verified.stdout().contains(" is corrupt"),
        verified.describe());
    assertEquals(ExitCodes.CORRUPT, cuckoo("contains", loc, "1").exitCode());
  }
}
