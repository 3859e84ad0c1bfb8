package dev.cuckoofilter.spark.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.model.ObjectMetadata;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.store.S3ProxyServer;
import dev.cuckoofilter.spark.util.ScalaCollections;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stored filters of tables on S3 (S3Proxy through S3A): an object replaced under the same key with content of the
 * same length is a change of the table. S3 gives a replaced object a new Last-Modified, but in whole seconds, so the
 * table's fingerprint also records each object's ETag. Spark's file index keeps S3A's statuses as plain
 * LocatedFileStatus, without the ETag: until 2026-11-29 the fingerprint had none, and an object replaced within the
 * second of its write left the filter current (the join returned 0 of 4 rows in 3 of 6 tries).
 */
class StoredFilterIndexS3Test {
  static final String BUCKET = "stored-filter-tests";
  static final String QUERY = "SELECT f.k, f.v FROM fact f JOIN dim d ON f.k = d.k";
  static S3ProxyServer s3;
  static SparkSession spark;
  @TempDir
  static Path dir;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.start(dir.toFile());
    s3.createBucket(BUCKET);
    SparkSession.Builder builder = SparkTestSession.builder("local[2]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
    Configuration conf = s3.s3aConf();
    for (Map.Entry<String, String> e : conf) { // the settings s3aConf made, not Hadoop's defaults
      if (Arrays.asList(conf.getPropertySources(e.getKey())).equals(List.of("programmatically"))) {
        builder.config("spark.hadoop." + e.getKey(), e.getValue());
      }
    }
    spark = builder.getOrCreate();
    spark.range(0, 20_000).selectExpr("id % 10000 AS k", "id AS v").write().parquet(dir.resolve("fact").toString());
    spark.read().parquet(dir.resolve("fact").toString()).createOrReplaceTempView("fact");
  }

  @AfterAll
  static void stop() throws IOException {
    if (spark != null) {
      spark.stop();
    }
    FileSystem.closeAll(); // S3A's thread pools, before their endpoint goes away
    if (s3 != null) {
      s3.close();
      assertFalse(s3.isAlive(), "S3Proxy is stopped");
    }
  }

  /** A dimension of two rows as one Parquet file, written by Spark to {@code path}; returns the file. */
  static org.apache.hadoop.fs.Path writeDim(String path, String rows) throws IOException {
    spark.sql("SELECT CAST(k AS BIGINT) AS k, name FROM VALUES " + rows + " AS t(k, name)").coalesce(1).write()
        .parquet(path);
    org.apache.hadoop.fs.Path dirPath = new org.apache.hadoop.fs.Path(path);
    FileSystem fs = dirPath.getFileSystem(spark.sessionState().newHadoopConf());
    List<org.apache.hadoop.fs.Path> parts = Arrays.stream(fs.listStatus(dirPath)).map(FileStatus::getPath)
        .filter(p -> p.getName().startsWith("part-")).toList();
    assertEquals(1, parts.size(), parts::toString);
    return parts.get(0);
  }

  static String etag(FileStatus status) {
    assertTrue(status instanceof EtagSource, status.getClass().getName());
    return ((EtagSource) status).getEtag();
  }

  static List<Row> rows(String sql) {
    return spark.sql(sql).orderBy("v").collectAsList();
  }

  static String plan() {
    return spark.sql(QUERY).queryExecution().optimizedPlan().toString();
  }

  /** The fingerprint records each object's ETag, although the statuses of Spark's file index do not carry it. */
  @Test
  void theFingerprintRecordsEachObjectsEtag() throws Exception {
    org.apache.hadoop.fs.Path part = writeDim("s3a://" + BUCKET + "/lake/dim-etag", "(5, 'a'), (10, 'b')");
    LogicalPlan plan = spark.read().parquet(part.getParent().toString()).queryExecution().optimizedPlan();
    PartitioningAwareFileIndex index = PartitionedCatalogTables.files(StoredFilterIndex.relation(plan).orElseThrow());
    List<FileStatus> files = ScalaCollections.list(index.allFiles());
    assertEquals(List.of(part), files.stream().map(FileStatus::getPath).toList());
    FileSystem fs = part.getFileSystem(spark.sessionState().newHadoopConf());
    FileIdentities identities = FileIdentities.of(ScalaCollections.list(index.rootPaths()), files,
        spark.sessionState().newHadoopConf());
    assertEquals("\tetag " + etag(fs.getFileStatus(part)), identities.of(files.get(0)), files.get(0).getClass()
        + " listed by Spark");
  }

  /**
   * A root without objects (an emptied partition's prefix, which Spark's index reads as empty) listed before the
   * table's other roots: until 2026-11-29 its FileNotFoundException ended the listing of the roots, the other roots'
   * objects had no ETag in the fingerprint, and one replaced within the second of its write left the filter current.
   */
  @Test
  void aRootWithoutObjectsDoesNotHideTheEtagsOfTheOtherRoots() throws Exception {
    org.apache.hadoop.fs.Path part = writeDim("s3a://" + BUCKET + "/lake/dim-roots/b", "(5, 'a'), (10, 'b')");
    org.apache.hadoop.fs.Path empty = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/lake/dim-roots/a");
    Configuration conf = spark.sessionState().newHadoopConf();
    FileSystem fs = part.getFileSystem(conf);
    assertFalse(fs.exists(empty));
    LogicalPlan plan = spark.read().parquet(part.getParent().toString()).queryExecution().optimizedPlan();
    PartitioningAwareFileIndex index = PartitionedCatalogTables.files(StoredFilterIndex.relation(plan).orElseThrow());
    List<FileStatus> files = ScalaCollections.list(index.allFiles());
    assertEquals(List.of(part), files.stream().map(FileStatus::getPath).toList());
    FileIdentities identities = FileIdentities.of(List.of(empty, part.getParent()), files, conf);
    assertEquals("\tetag " + etag(fs.getFileStatus(part)), identities.of(files.get(0)), files.get(0).getClass()
        + " listed by Spark, after a root without objects");
  }

  @Test
  void anObjectReplacedUnderTheSameKeyAndLengthMakesTheFilterStale() throws Exception {
    org.apache.hadoop.fs.Path part = writeDim("s3a://" + BUCKET + "/lake/dim", "(5, 'a'), (10, 'b')");
    byte[] replacement = Files.readAllBytes(Path.of(writeDim(dir.resolve("dim-other").toUri().toString(),
        "(6, 'a'), (11, 'b')").toUri()));
    FileSystem fs = part.getFileSystem(spark.sessionState().newHadoopConf());
    FileStatus before = fs.getFileStatus(part);
    assertEquals(before.getLen(), replacement.length, "the replacement has the same length");

    spark.read().parquet(part.getParent().toString()).createOrReplaceTempView("dim");
    StoredFilterIndex.storeIndex(spark, "dim", List.of("k"), dir.resolve("filters/dim").toUri().toString(), 0.001);
    try {
      String used = plan();
      assertTrue(used.contains("cuckoo_might_contain(cuckoo_filter[") && used.contains("filters/dim"), used);
      assertFalse(used.contains("cuckoo_filter(cuckoo_key"), "no filter is built: " + used);
      assertEquals(4, rows(QUERY).size());

      // Another process replaces the object: other keys, the same key and length, in a later second than the
      // object it replaces (the ETag alone tells them apart within the same second: the test below).
      while (System.currentTimeMillis() < before.getModificationTime() + 1000) {
        Thread.sleep(20);
      }
      AmazonS3 admin = s3.adminClient();
      try {
        ObjectMetadata length = new ObjectMetadata();
        length.setContentLength(replacement.length);
        admin.putObject(BUCKET, "lake/dim/" + part.getName(), new ByteArrayInputStream(replacement), length);
      } finally {
        admin.shutdown();
      }

      // What S3A reports of the object, by HEAD and by LIST: the same length, a later Last-Modified, and its ETag
      // (S3Proxy's, an MD5 of the content as S3's of an object not uploaded in parts), another after the PUT.
      FileStatus after = fs.getFileStatus(part);
      FileStatus listed = Arrays.stream(fs.listStatus(part.getParent())).filter(s -> s.getPath().equals(part))
          .findFirst().orElseThrow();
      assertEquals(before.getLen(), after.getLen());
      assertEquals(before.getLen(), listed.getLen());
      assertTrue(after.getModificationTime() > before.getModificationTime(), before + " then " + after);
      assertEquals(after.getModificationTime(), listed.getModificationTime());
      assertNotNull(etag(before));
      assertNotEquals(etag(before), etag(after));
      assertEquals(etag(after), etag(listed));
      assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(replacement)), etag(after));

      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      List<Row> expected = rows(QUERY);
      spark.conf().unset(RuntimeFilterConf.ENABLED);
      assertEquals(4, expected.size());
      assertTrue(expected.stream().allMatch(r -> r.getLong(0) == 6 || r.getLong(0) == 11), expected::toString);
      assertEquals(expected, rows(QUERY));
      String stale = plan();
      assertFalse(stale.contains("filters/dim"), "a stale filter is not used: " + stale);
    } finally {
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim");
    }
  }
}
