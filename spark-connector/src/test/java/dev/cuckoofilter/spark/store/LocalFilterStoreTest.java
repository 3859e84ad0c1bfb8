package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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

  /**
   * A commit record edited (or damaged) so that its metadata no longer describes its version (an item count or a
   * capacity the filter does not have, a parent version that is not the one before) is damaged like any other edit:
   * publish refuses such metadata, so no writer made it. It was read and reported as the version's metadata.
   */
  @Test
  void aCommitRecordWhoseMetadataDoesNotDescribeItsVersionIsDamaged() throws IOException {
    FilterStore store = newStore();
    List<CuckooFilter> published = publishChain(store, 2);
    org.apache.hadoop.fs.Path commit = store.layout().commitFile(2);
    String original = new String(readAll(store, commit), java.nio.charset.StandardCharsets.UTF_8);
    CuckooFilter second = published.get(1);
    java.util.Map<String, String> edits = new java.util.TreeMap<>();
    edits.put("itemCount", original.replace("\"itemCount\" : " + second.size(),
        "\"itemCount\" : " + (second.size() + 900)));
    edits.put("capacity", original.replace("\"capacity\" : " + second.capacity(),
        "\"capacity\" : " + (second.capacity() * 2)));
    edits.put("parentVersion", original.replace("\"parentVersion\" : 1", "\"parentVersion\" : 7"));
    for (java.util.Map.Entry<String, String> edit : edits.entrySet()) {
      assertFalse(edit.getValue().equals(original), edit.getKey());
      overwrite(store, commit, edit.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      for (org.junit.jupiter.api.function.Executable read : List.<org.junit.jupiter.api.function.Executable>of(
          () -> store.read(2), () -> store.readVersion(2), store::readLatest, store::readLatestVersion)) {
        StoredFilterCorruptException e = org.junit.jupiter.api.Assertions.assertThrows(
            StoredFilterCorruptException.class, read, edit.getKey());
        assertEquals(commit.toString(), e.file(), edit.getKey());
        assertTrue(e.getMessage().contains(edit.getKey()), edit.getKey() + ": " + e.getMessage());
      }
      assertEquals(published.get(0), store.read(1).filter(), "other versions stay readable");
    }
    overwrite(store, commit, original.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(second, store.readLatest().filter());
  }

  /**
   * File names do not depend on the JVM's locale. A writer whose default locale formats numbers with other
   * digits (Arabic-Indic here, as on a host with LANG=ar_EG.UTF-8) published under names no listing recognised:
   * its publish returned version 1 while the location had no version, and a reader in that locale could read
   * nothing another writer published.
   */
  @Test
  void versionsWrittenAndReadInALocaleWithOtherDigitsAreTheSameVersions() throws IOException {
    FilterStore store = newStore();
    CuckooFilter first = TestFilters.range(0, 100);
    CuckooFilter second = TestFilters.range(100, 200);
    Locale format = Locale.getDefault(Locale.Category.FORMAT);
    try {
      Locale.setDefault(Locale.Category.FORMAT, Locale.forLanguageTag("ar-EG"));
      assertEquals(1, store.publish(first, TestFilters.metadata(first, FilterMetadata.NO_PARENT)).version());
      assertEquals(List.of(1L), store.versionNumbers());
      Locale.setDefault(Locale.Category.FORMAT, Locale.ROOT);
      assertEquals(List.of(1L), store.versionNumbers(), "a reader in another locale lists it");
      assertEquals(first, store.read(1).filter());
      store.publish(second, TestFilters.metadata(second, 1));
      Locale.setDefault(Locale.Category.FORMAT, Locale.forLanguageTag("ar-EG"));
      assertEquals(second, store.readLatest().filter(), "a reader in the writer's locale reads another's version");
    } finally {
      Locale.setDefault(Locale.Category.FORMAT, format);
    }
    assertEquals(java.util.Set.of("00000000000000000001.json", "00000000000000000002.json"),
        listNames(store, store.layout().versions));
  }

  /**
   * Readers refuse a commit record over 1 MiB as not one, so publish must not write one: metadata that large (a
   * long source text or properties) was published, and the location's latest version was then "damaged" for every
   * reader and every later publish.
   */
  @Test
  void metadataTooLargeForACommitRecordIsRefusedAndTheLatestVersionStays() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 1);
    CuckooFilter next = TestFilters.range(500, 600);
    FilterMetadata huge = TestFilters.metadata(next, 1).withProperties(java.util.Map.of("files", "x".repeat(1 << 20)));
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> store.publish(next, huge));
    assertTrue(e.getMessage().contains("larger than"), e.getMessage());
    assertEquals(List.of(1L), store.versionNumbers());
    assertEquals(1, store.readLatest().version().version());
    assertEquals(1, listNames(store, store.layout().data).size(), "the refused version's data file is removed");
    assertEquals(2, store.publish(next, TestFilters.metadata(next, 1)).version());
  }

  /**
   * The local file system, with one action run right after the next listing of a {@code versions/}
   * directory: another process's writer and retention, between a reader's listing and its reads.
   */
  public static final class ListingRaceFileSystem extends org.apache.hadoop.fs.RawLocalFileSystem {
    static volatile org.apache.hadoop.fs.Path listed;
    static volatile IORunnable afterListing;

    interface IORunnable {
      void run() throws IOException;
    }

    @Override
    public org.apache.hadoop.fs.FileStatus[] listStatus(org.apache.hadoop.fs.Path f) throws IOException {
      org.apache.hadoop.fs.FileStatus[] out = super.listStatus(f);
      IORunnable action = afterListing;
      if (action != null && makeQualified(f).equals(listed)) {
        afterListing = null;
        action.run();
      }
      return out;
    }
  }

  /**
   * Retention racing with a reader: between the reader's listing and its read of the latest commit record,
   * another writer publishes a version and retention removes every version the reader listed. The location
   * is not empty, and the reader must not say it is.
   */
  @Test
  void readersOfTheLatestVersionOutrunByRetentionStillFindTheNewLatest() throws IOException {
    FilterStore writer = newStore();
    publishChain(writer, 2);
    Configuration racing = conf();
    racing.setClass("fs.file.impl", ListingRaceFileSystem.class, org.apache.hadoop.fs.FileSystem.class);
    racing.setBoolean("fs.file.impl.disable.cache", true);
    FilterStore reader = FilterStore.open(writer.location(), racing);

    CuckooFilter third = TestFilters.range(900_000, 900_500);
    raceNextListing(writer, third, 2);
    assertEquals(3, reader.latest().orElseThrow().version(), "latest(): the location has version 3");
    assertNull(ListingRaceFileSystem.afterListing, "the race was run");

    CuckooFilter fourth = TestFilters.range(910_000, 910_500);
    raceNextListing(writer, fourth, 3);
    assertEquals(fourth, reader.readLatest().filter());
    assertNull(ListingRaceFileSystem.afterListing, "the race was run");

    CuckooFilter fifth = TestFilters.range(920_000, 920_500);
    raceNextListing(writer, fifth, 4);
    assertEquals(5, reader.readLatestVersion().version().version());
    assertNull(ListingRaceFileSystem.afterListing, "the race was run");
    assertEquals(List.of(5L), writer.versionNumbers());
  }

  /** Right after the next listing of the writer's versions: publish {@code next} on {@code parent}, keep only it. */
  private static void raceNextListing(FilterStore writer, CuckooFilter next, long parent) {
    ListingRaceFileSystem.listed = writer.layout().versions;
    ListingRaceFileSystem.afterListing = () -> {
      writer.publish(next, TestFilters.metadata(next, parent));
      writer.retain(1);
    };
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
