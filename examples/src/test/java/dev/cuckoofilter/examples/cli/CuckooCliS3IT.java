package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.model.ObjectMetadata;
import com.amazonaws.services.s3.model.S3ObjectSummary;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestEnvironment;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code cuckoo} tool on S3: S3Proxy on 127.0.0.1 (the connector's {@link S3ProxyServer}, its own process)
 * through {@code s3a://}. The tool's jar runs with exactly the class path docs/JOBS.md documents for S3 (the jar,
 * hadoop-aws 3.3.4 and the AWS SDK bundle) and the S3A settings as {@code --conf} options.
 */
class CuckooCliS3IT {
  private static final String BUCKET = "lake";
  private static final long EXPECTED_ITEMS = 4000;
  private static final double FPP = 0.001;

  @TempDir
  static Path dir;

  private static S3ProxyServer s3;
  private static SparkSession spark;
  private static String ids0to999;
  private static String ids500to1499;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.start(dir.toFile());
    s3.createBucket(BUCKET);
    spark = TestSpark.session();
    ids0to999 = dir.resolve("ids-0-999").toUri().toString();
    ids500to1499 = dir.resolve("ids-500-1499").toUri().toString();
    spark.range(0, 1000).write().parquet(ids0to999);
    spark.range(500, 1500).write().parquet(ids500to1499);
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (s3 != null) {
      s3.close();
      assertTrue(!s3.isAlive(), "S3Proxy stopped");
    }
  }

  /** The S3A settings of {@link S3ProxyServer#s3aConf()} as the tool's {@code --conf} options. */
  private static List<String> s3aOptions() {
    List<String> options = new ArrayList<>();
    for (Map.Entry<String, String> e : s3.s3aConf().getPropsWithPrefix("fs.s3a.").entrySet()) {
      options.add("--conf");
      options.add("fs.s3a." + e.getKey() + "=" + e.getValue());
    }
    return options;
  }

  private static ChildProcess.Result cuckoo(String... args) {
    List<String> all = new ArrayList<>(s3aOptions());
    all.addAll(List.of(args));
    return CuckooTool.inProcess(all.toArray(new String[0]));
  }

  /** The tool's jar in its own JVM with hadoop-aws and the AWS SDK beside it, as docs/JOBS.md shows. */
  private static ChildProcess.Result cuckooProcess(String name, String... args) throws Exception {
    List<String> classpath = new ArrayList<>(List.of(TestEnvironment.cliJar().toString()));
    for (Path jar : TestEnvironment.sparkJars()) {
      String file = jar.getFileName().toString();
      if (file.startsWith("hadoop-aws-3.3.4") || file.startsWith("aws-java-sdk-bundle-1.12.262")) {
        classpath.add(jar.toString());
      }
    }
    assertEquals(3, classpath.size(), "hadoop-aws and the AWS SDK bundle on the test class path: " + classpath);
    List<String> command = new ArrayList<>(List.of("-cp", String.join(File.pathSeparator, classpath),
        "dev.cuckoofilter.examples.cli.CuckooCli"));
    command.addAll(s3aOptions());
    command.addAll(List.of(args));
    return ChildProcess.run(ChildProcess.java(List.of("-Xmx512m"), command), Map.of(), dir.resolve("logs"), name);
  }

  private static void assertOk(ChildProcess.Result r) {
    assertEquals(0, r.exitCode(), r.describe());
  }

  private static byte[] sparkBuild(String parquet) {
    return CuckooFilters.builder(spark.read().parquet(parquet)).keys("id").expectedItems(EXPECTED_ITEMS).fpp(FPP)
        .build().filter().toByteArray();
  }

  @Test
  void buildInfoContainsDiffMergeAndVerifyOnS3() throws Exception {
    String loc = "s3a://" + BUCKET + "/filters/ids";
    ChildProcess.Result first = cuckooProcess("build", "build", loc, "--input", ids0to999, "--keys", "id",
        "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP);
    assertOk(first);
    assertTrue(first.stdout().contains("published " + loc + " version 1"), first.describe());
    assertOk(cuckoo("build", loc, "--input", ids500to1499, "--keys", "id", "--expected-items", "" + EXPECTED_ITEMS,
        "--fpp", "" + FPP));

    // What the tool published on S3 is what Spark builds from the same files.
    Configuration conf = s3.s3aConf();
    FilterStore store = FilterStore.open(loc, conf);
    assertEquals(List.of(1L, 2L), store.versionNumbers());
    assertArrayEquals(sparkBuild(ids0to999), store.read(1).filter().toByteArray());
    assertArrayEquals(sparkBuild(ids500to1499), store.read(2).filter().toByteArray());

    ChildProcess.Result info = cuckooProcess("info", "info", loc);
    assertOk(info);
    assertTrue(info.stdout().startsWith("location: " + store.location() + "\nversions: 2\n"), info.describe());
    assertTrue(info.stdout().contains("  key columns: id bigint\n"), info.describe());

    CuckooFilter v1 = store.read(1).filter();
    ChildProcess.Result looked = cuckooProcess("contains", "contains", loc + "@1", "999", "1499");
    assertOk(looked);
    assertEquals("999\tmaybe present\n1499\t" + (v1.mightContain(1499L) ? "maybe present" : "absent") + "\n",
        looked.stdout());

    ChildProcess.Result diff = cuckoo("diff", loc + "@1", loc + "@2");
    assertOk(diff);
    assertTrue(diff.stdout().startsWith("A: " + store.location() + " version 1, "), diff.describe());

    String merged = "s3a://" + BUCKET + "/filters/merged";
    assertOk(cuckoo("merge", "--into", merged, loc + "@1", loc + "@2"));
    assertArrayEquals(CuckooFilters.builder(spark.range(0, 1500).toDF()).keys("id").expectedItems(EXPECTED_ITEMS)
        .fpp(FPP).build().filter().toByteArray(), FilterStore.open(merged, conf).readLatest().filter().toByteArray());

    ChildProcess.Result verified = cuckooProcess("verify", "verify", loc);
    assertOk(verified);
    assertTrue(verified.stdout().endsWith("2 version(s) checked, all intact\n"), verified.describe());
  }

  @Test
  void aDamagedObjectOnS3IsReportedNotLoaded() throws Exception {
    String loc = "s3a://" + BUCKET + "/filters/damaged";
    assertOk(cuckoo("build", loc, "--input", ids0to999, "--keys", "id", "--fpp", "0.01"));
    // S3 objects cannot be modified in place: overwrite version 1's data object with one byte flipped.
    AmazonS3 admin = s3.adminClient();
    try {
      String dataKey = null;
      for (S3ObjectSummary o : admin.listObjects(BUCKET, "filters/damaged/data/").getObjectSummaries()) {
        if (o.getKey().substring(o.getKey().lastIndexOf('/') + 1).startsWith("00000000000000000001-")) {
          dataKey = o.getKey();
        }
      }
      assertTrue(dataKey != null, "no data object of version 1 under " + loc + "/data");
      byte[] bytes = admin.getObject(BUCKET, dataKey).getObjectContent().readAllBytes();
      bytes[bytes.length / 2] ^= 0x10;
      ObjectMetadata metadata = new ObjectMetadata();
      metadata.setContentLength(bytes.length);
      admin.putObject(BUCKET, dataKey, new ByteArrayInputStream(bytes), metadata);
    } finally {
      admin.shutdown();
    }

    ChildProcess.Result verified = cuckooProcess("verify-damaged", "verify", loc);
    assertEquals(ExitCodes.CORRUPT, verified.exitCode(), verified.describe());
    assertTrue(verified.stdout().contains("version 1: DAMAGED: ") && verified.stdout().contains(" is corrupt"),
        verified.describe());
    assertEquals(ExitCodes.CORRUPT, cuckoo("contains", loc, "1").exitCode());
  }
}
