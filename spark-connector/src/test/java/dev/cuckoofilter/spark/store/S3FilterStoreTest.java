package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store on S3 (S3Proxy through S3A): commits by conditional PUT (If-None-Match: *). */
class S3FilterStoreTest extends FilterStoreContract {
  static final String BUCKET = "filter-store-tests";
  @TempDir
  static File dir;
  static S3ProxyServer s3;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3ProxyServer.start(dir);
    s3.createBucket(BUCKET);
  }

  @AfterAll
  static void stopS3() throws IOException {
    FileSystem.closeAll(); // S3A's thread pools, before their endpoint goes away
    if (s3 != null) {
      s3.close();
      assertFalse(s3.isAlive(), "S3Proxy is stopped");
    }
  }

  @Override
  String baseUri() {
    return "s3a://" + BUCKET + "/lake";
  }

  @Override
  Configuration conf() {
    return s3.s3aConf();
  }

  @Override
  File workDir() {
    return dir;
  }

  /** The primitive itself: S3 refuses the second conditional PUT of a key, whatever its content. */
  @Test
  void theConditionalPutCreatesAKeyOnlyOnce() throws IOException {
    FilterStore store = newStore();
    ExclusiveCreate put = ExclusiveCreate.forFileSystem(store.fileSystem(), conf(), store.layout());
    assertTrue(put instanceof S3ConditionalPut, put.protocol());
    Path key = new Path(store.location() + "/probe.json");
    assertTrue(put.create(key, "{\"first\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertFalse(put.create(key, "{\"second\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertTrue(new String(readAll(store, key), java.nio.charset.StandardCharsets.UTF_8).equals("{\"first\":1}"));
  }
}
