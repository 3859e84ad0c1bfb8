package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store on the local file system ({@code file:}): commits by hard link. */
class LocalFilterStoreTest extends FilterStoreContract {
  @TempDir
  static File dir;

  @Override
  String baseUri() {
    return dir.toURI().toString();
  }

  @Override
  Configuration conf() {
    return new Configuration();
  }

  @Override
  File workDir() {
    return dir;
  }

  @Test
  void writesNoChecksumSideFilesAndNoTemporaryFiles() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 2);
    File root = new File(java.net.URI.create(store.location()));
    try (var files = Files.walk(root.toPath())) {
      String names = files.filter(Files::isRegularFile).map(p -> root.toPath().relativize(p).toString()).sorted()
          .collect(Collectors.joining(","));
      assertTrue(names.matches("data/0{19}1-[0-9a-f-]{36}\\.ckf,data/0{19}2-[0-9a-f-]{36}\\.ckf,"
          + "versions/0{19}1\\.json,versions/0{19}2\\.json"), names);
    }
  }

  @Test
  void aLocationThatIsAFileIsRefused() throws IOException {
    File file = new File(dir, "not-a-directory");
    Files.writeString(file.toPath(), "x");
    FilterStore store = FilterStore.open(file.toURI().toString(), conf());
    IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, store::versions);
    assertTrue(e.getMessage().contains("is a file, not a filter location"), e.getMessage());
    IllegalArgumentException empty = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterStore.open(" ", conf()));
    assertTrue(empty.getMessage().contains("locationUri is empty"), empty.getMessage());
  }

  @Test
  void cleanupRemovesTemporaryFilesAndKeepsDataAnUnreadableRecordMayName() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 2);
    File root = new File(java.net.URI.create(store.location()));
    File temp = new File(root, "_tmp/00000000000000000003.json.dead-writer.tmp");
    Files.writeString(temp.toPath(), "{\"half\": ");
    String secondData = store.readCommit(2).data().name();
    overwrite(store, store.layout().commitFile(2), "garbage".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    java.time.Duration anyAge = java.time.Duration.ZERO; // a retention age, not a timing: clean every leftover
    int cleaned = store.cleanLeftovers(anyAge);
    assertEquals(1, cleaned, "only the temporary file");
    assertFalse(temp.exists());
    assertTrue(new File(root, "data/" + secondData).exists(), "the damaged record may still name it");
    assertEquals(2, listNames(store, store.layout().data).size());
  }

  @Test
  void aCommitRecordWithAnOutOfRangeFormatVersionIsDamagedNotReadAsAnother() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 1);
    org.apache.hadoop.fs.Path commit = store.layout().commitFile(1);
    String original = new String(readAll(store, commit), java.nio.charset.StandardCharsets.UTF_8);
    // 2^32 + 1: as an int, 1
    String edited = original.replace("\"formatVersion\" : 1", "\"formatVersion\" : 4294967297");
    assertFalse(edited.equals(original));
    overwrite(store, commit, edited.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    StoredFilterCorruptException e = org.junit.jupiter.api.Assertions.assertThrows(StoredFilterCorruptException.class,
        () -> store.read(1));
    assertTrue(e.getMessage().contains("field formatVersion 4294967297 is out of range"), e.getMessage());
    assertEquals(commit.toString(), e.file());
  }

  /** The S3 commit class is the only user of hadoop-aws and the AWS SDK: other locations work without them. */
  @Test
  void localLocationsNeedNeitherHadoopAwsNorTheAwsSdk() throws Exception {
    String classpath = Arrays.stream(ChildJvm.testClasspath().split(File.pathSeparator))
        .filter(e -> !e.contains("hadoop-aws") && !e.contains("aws-java-sdk"))
        .collect(Collectors.joining(File.pathSeparator));
    assertFalse(classpath.equals(ChildJvm.testClasspath()), "the test classpath has hadoop-aws and the AWS SDK");
    FilterStore store = newStore();
    CuckooFilter first = TestFilters.range(0, 100);
    store.publish(first, TestFilters.metadata(first, FilterMetadata.NO_PARENT));
    try (ChildJvm child = ChildJvm.start(classpath, StoreWriterProcess.class, new File(dir, "no-aws.log"),
        "publish-and-read", store.location(), "-", "100", "200")) {
      assertEquals("PUBLISHED 2 true", child.awaitLine(l -> l.startsWith("PUBLISHED")));
      assertEquals(0, child.await());
    }
    assertEquals(TestFilters.range(100, 200), store.readLatest().filter());
  }
}
