package dev.cuckoofilter.spark.store;

import static dev.cuckoofilter.spark.store.TestFilters.metadata;
import static dev.cuckoofilter.spark.store.TestFilters.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every file system must show, run against a real local file system, HDFS
 * (MiniDFSCluster) and S3 (S3Proxy) by the subclasses.
 */
abstract class FilterStoreContract {
  private static final AtomicInteger LOCATIONS = new AtomicInteger();

  /** A directory URI on the file system under test; each test uses fresh locations below it. */
  abstract String baseUri();

  /** The Hadoop configuration that reaches the file system under test. */
  abstract Configuration conf();

  /** Where child JVMs write their logs. */
  abstract File workDir();

  FilterStore newStore() throws IOException {
    return FilterStore.open(baseUri() + "/filters-" + LOCATIONS.incrementAndGet() + "-" + System.nanoTime(), conf());
  }

  // --------------------------------------------------------------------------- versions and reads

  @Test
  void anEmptyLocationHasNoVersions() throws IOException {
    FilterStore store = newStore();
    assertEquals(List.of(), store.versions());
    assertTrue(store.latest().isEmpty());
    FilterVersionNotFoundException e = assertThrows(FilterVersionNotFoundException.class, store::readLatest);
    assertTrue(e.getMessage().contains(store.location()) && e.getMessage().contains("no filter version"),
        e.getMessage());
    assertEquals(-1, e.version());
    FilterVersionNotFoundException one = assertThrows(FilterVersionNotFoundException.class, () -> store.read(1));
    assertTrue(one.getMessage().contains(store.location() + ": version 1 does not exist"), one.getMessage());
    assertThrows(IllegalArgumentException.class, () -> store.read(0));
  }

  @Test
  void versionsAreNumberedFromOneWithParentsAndReadBackExactly() throws IOException {
    FilterStore store = newStore();
    List<CuckooFilter> published = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      CuckooFilter f = range(i * 1000L, i * 1000L + 700);
      published.add(f);
      Instant before = Instant.now();
      FilterVersion v = store.publish(f, metadata(f, i == 0 ? FilterMetadata.NO_PARENT : i));
      assertEquals(i + 1, v.version());
      assertEquals(store.location(), v.location());
      assertEquals(f.serializedSize(), v.filterBytes());
      assertFalse(v.createdAt().isBefore(before.minusSeconds(1)), v.createdAt() + " vs " + before);
    }
    assertEquals(List.of(1L, 2L, 3L), store.versions().stream().map(FilterVersion::version).toList());
    assertEquals(3, store.latest().orElseThrow().version());
    for (int i = 0; i < 3; i++) {
      StoredFilter s = store.read(i + 1);
      assertEquals(published.get(i), s.filter());
      assertEquals(i == 0 ? FilterMetadata.NO_PARENT : i, s.metadata().parentVersion());
      assertEquals(i + 1, s.version().version());
      assertTrue(s.filter().mightContain(i * 1000L + 699));
    }
    assertEquals(published.get(2), store.readLatest().filter());
    // A second store object on the same location sees the same versions.
    FilterStore again = FilterStore.open(store.location(), conf());
    assertEquals(store.versions(), again.versions());
    FilterVersionNotFoundException e = assertThrows(FilterVersionNotFoundException.class, () -> store.read(4));
    assertTrue(e.getMessage().contains("version 4 does not exist") && e.getMessage().contains("latest version is 3"),
        e.getMessage());
    assertEquals(store.location(), e.location());
  }

  @Test
  void metadataRoundTripsWithEveryField() throws IOException {
    FilterStore store = newStore();
    Metadata columnMetadata = new MetadataBuilder().putString("comment", "customer key").build();
    List<StructField> keys = List.of(
        DataTypes.createStructField("customer_id", DataTypes.LongType, false, columnMetadata),
        DataTypes.createStructField("region", DataTypes.StringType, true),
        DataTypes.createStructField("amount", DataTypes.createDecimalType(12, 2), true),
        DataTypes.createStructField("day", DataTypes.DateType, true),
        DataTypes.createStructField("at", DataTypes.TimestampType, true),
        DataTypes.createStructField("raw", DataTypes.BinaryType, true));
    CuckooFilter f = CuckooFilter.builder().expectedItems(5000).fpp(0.0005).build();
    for (int i = 0; i < 1234; i++) {
      f.add("k" + i);
    }
    Instant created = Instant.parse("2024-02-29T23:59:58.123456789Z");
    FilterMetadata m = new FilterMetadata(keys, 0.0005, f.size(), f.capacity(), "lake.orders ⋈ customers — 2024 Q1",
        created, FilterMetadata.NO_PARENT, 1, Map.of("job", "nightly-42", "rows", "1234", "ünïcode", "✓"));
    store.publish(f, m);
    StoredFilter s = store.read(1);
    assertEquals(m, s.metadata());
    assertEquals(keys, s.metadata().keyColumns());
    assertEquals(columnMetadata, s.metadata().keyColumns().get(0).metadata());
    assertEquals(new BigDecimal("0.0005").doubleValue(), s.metadata().fpp());
    assertEquals(1234, s.metadata().itemCount());
    assertEquals(f.capacity(), s.metadata().capacity());
    assertEquals(created, s.metadata().createdAt());
    assertEquals(1, s.metadata().formatVersion());
    assertEquals("nightly-42", s.metadata().properties().get("job"));
    assertEquals(f, s.filter());

    FilterMetadata derived = FilterMetadata.of(f, keys, "src", 7);
    assertEquals(0.0005, derived.fpp());
    assertEquals(f.size(), derived.itemCount());
    assertEquals(7, derived.parentVersion());
    assertEquals(1, derived.formatVersion());
  }

  @Test
  void versionsPublishedWithoutSparkTypesReadBackTypedAndUntyped() throws IOException {
    FilterStore store = newStore();
    CuckooFilter f = range(0, 500);
    String keys = "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,"
        + "\"metadata\":{}}]}";
    VersionMetadata plain = VersionMetadata.of(f, keys, "a tool", FilterMetadata.NO_PARENT)
        .withProperties(Map.of("tool", "cuckoo"));
    assertEquals(1, store.publish(f, plain).version());
    StoredVersion untyped = store.readVersion(1);
    assertEquals(plain, untyped.metadata());
    assertEquals(f, untyped.filter());
    assertEquals(untyped, store.readLatestVersion());
    StoredFilter typed = store.read(1);
    assertEquals(TestFilters.LONG_KEY, typed.metadata().keyColumns());
    assertEquals(plain, typed.metadata().toVersionMetadata());

    // JSON Spark cannot read as key columns: readable untyped, refused typed as a damaged commit record.
    CuckooFilter g = range(500, 900);
    String unknownType = keys.replace("\"long\"", "\"uuid\"");
    store.publishWithNewKeys(g, VersionMetadata.of(g, unknownType, "a tool", 1));
    assertEquals(g, store.readVersion(2).filter());
    StoredFilterCorruptException e = assertThrows(StoredFilterCorruptException.class, () -> store.read(2));
    assertEquals(store.layout().commitFile(2).toString(), e.file());
    assertTrue(e.getMessage().contains("not a readable commit record: metadata.keyColumns"), e.getMessage());
    assertThrows(StoredFilterCorruptException.class, store::readLatest);
  }

  @Test
  void publishRefusesMetadataThatDoesNotDescribeTheFilterOrAMissingParent() throws IOException {
    FilterStore store = newStore();
    CuckooFilter f = range(0, 100);
    FilterMetadata wrongCount = new FilterMetadata(TestFilters.LONG_KEY, 0.01, 99, f.capacity(), "", Instant.now(),
        FilterMetadata.NO_PARENT, 1, Map.of());
    IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> store.publish(f, wrongCount));
    assertTrue(count.getMessage().contains("metadata.itemCount is 99 but the filter holds 100 items"),
        count.getMessage());
    IllegalArgumentException parent = assertThrows(IllegalArgumentException.class,
        () -> store.publish(f, metadata(f, 3)));
    assertTrue(parent.getMessage().contains("parentVersion is 3") && parent.getMessage().contains("no version yet"),
        parent.getMessage());
    assertEquals(List.of(), store.versions());
    assertEquals(0, listNames(store, store.layout().data).size(), "a refused publish writes nothing");
  }

  // ------------------------------------------------------------------------------------ retention

  @Test
  void retentionRemovesTheOldestVersionsWithTheirFiles() throws IOException {
    FilterStore store = newStore();
    List<CuckooFilter> published = publishChain(store, 5);
    assertEquals(5, listNames(store, store.layout().data).size());
    assertEquals(3, store.retain(2));
    assertEquals(List.of(4L, 5L), store.versions().stream().map(FilterVersion::version).toList());
    assertEquals(2, listNames(store, store.layout().data).size(), "data files of removed versions are deleted");
    assertEquals(published.get(3), store.read(4).filter());
    FilterVersionNotFoundException gone = assertThrows(FilterVersionNotFoundException.class, () -> store.read(2));
    assertTrue(gone.getMessage().contains("version 2 does not exist"), gone.getMessage());
    assertEquals(0, store.retain(2));
    assertEquals(1, store.retain(1));
    assertEquals(published.get(4), store.readLatest().filter());
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> store.retain(0));
    assertTrue(none.getMessage().contains("keepLatest"), none.getMessage());
    // Numbering continues after retention.
    CuckooFilter next = range(9000, 9100);
    assertEquals(6, store.publish(next, metadata(next, 5)).version());
  }

  // ---------------------------------------------------------------------------------- concurrency

  @Test
  void ofConcurrentWritersOnOneParentExactlyOneWinsAndTheOthersRetry() throws Exception {
    FilterStore store = newStore();
    CuckooFilter base = range(0, 100);
    store.publish(base, metadata(base, FilterMetadata.NO_PARENT));
    int writers = 6;
    CyclicBarrier start = new CyclicBarrier(writers);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    Map<Long, CuckooFilter> publishedBy = new ConcurrentHashMap<>();
    try {
      List<Future<Object>> outcomes = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        CuckooFilter mine = range(10_000L * (w + 1), 10_000L * (w + 1) + 300);
        outcomes.add(pool.submit(() -> {
          FilterStore own = FilterStore.open(store.location(), conf()); // as a separate job would
          start.await();
          try {
            FilterVersion v = own.publish(mine, metadata(mine, 1));
            publishedBy.put(v.version(), mine);
            return v;
          } catch (FilterConflictException e) {
            return e;
          }
        }));
      }
      List<FilterConflictException> conflicts = new ArrayList<>();
      List<FilterVersion> wins = new ArrayList<>();
      for (Future<Object> o : outcomes) {
        Object r = o.get(120, TimeUnit.SECONDS);
        if (r instanceof FilterVersion) {
          wins.add((FilterVersion) r);
        } else {
          conflicts.add((FilterConflictException) r);
        }
      }
      assertEquals(1, wins.size(), "exactly one writer wins: " + wins);
      assertEquals(2, wins.get(0).version());
      for (FilterConflictException c : conflicts) {
        assertEquals(store.location(), c.location());
        assertEquals(2, c.version());
        assertTrue(c.getMessage().contains("location " + store.location() + ": version 2 was published concurrently"),
            c.getMessage());
      }
      assertEquals(List.of(1L, 2L), store.versions().stream().map(FilterVersion::version).toList());
      assertEquals(publishedBy.get(2L), store.read(2).filter(), "the winner's filter, not overwritten");
      assertEquals(2, listNames(store, store.layout().data).size(), "losers leave no data file");

      // The losers retry (concurrently) on the latest version until each has published.
      List<Future<?>> retries = new ArrayList<>();
      AtomicInteger attempts = new AtomicInteger();
      for (int w = 0; w < writers - 1; w++) {
        CuckooFilter mine = range(100_000L * (w + 1), 100_000L * (w + 1) + 200);
        retries.add(pool.submit(() -> {
          FilterStore own = FilterStore.open(store.location(), conf());
          while (true) {
            attempts.incrementAndGet();
            long latest = own.latest().orElseThrow().version();
            try {
              FilterVersion v = own.publish(mine, metadata(mine, latest));
              publishedBy.put(v.version(), mine);
              return null;
            } catch (FilterConflictException e) {
              assertTrue(e.version() > latest, e.getMessage());
            }
          }
        }));
      }
      for (Future<?> r : retries) {
        r.get(120, TimeUnit.SECONDS);
      }
      assertTrue(attempts.get() >= writers - 1);
      List<FilterVersion> all = store.versions();
      assertEquals(writers + 1, all.size());
      for (FilterVersion v : all) {
        StoredFilter s = store.read(v.version());
        assertEquals(v.version() - 1 == 0 ? FilterMetadata.NO_PARENT : v.version() - 1, s.metadata().parentVersion());
        if (v.version() > 1) {
          assertEquals(publishedBy.get(v.version()), s.filter(), "version " + v.version());
        }
      }
      assertEquals(writers + 1, listNames(store, store.layout().data).size());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aWriterOnAnOlderParentGetsAConflict() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 3);
    CuckooFilter late = range(5000, 5100);
    FilterConflictException e = assertThrows(FilterConflictException.class,
        () -> store.publish(late, metadata(late, 1)));
    assertEquals(3, e.version());
    assertTrue(e.getMessage().contains("version 3 was published concurrently by another writer (retry on version 3)"),
        e.getMessage());
    CuckooFilter first = range(5000, 5100);
    FilterConflictException none = assertThrows(FilterConflictException.class,
        () -> store.publish(first, metadata(first, FilterMetadata.NO_PARENT)));
    assertEquals(3, none.version());
    assertEquals(3, store.versions().size());
  }

  @Test
  void aConflictDecidedAtTheCommitLeavesNoTraceOfTheLoser() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 1);
    CuckooFilter loser = range(20_000, 20_500);
    CuckooFilter winner = range(30_000, 30_500);
    Path[] loserData = new Path[1];
    FilterConflictException e = assertThrows(FilterConflictException.class,
        () -> store.publish(loser, metadata(loser, 1), dataFile -> {
          loserData[0] = dataFile;
          // Another writer commits on the same parent after this one checked the latest version.
          FilterStore other = FilterStore.open(store.location(), conf());
          assertEquals(2, other.publish(winner, metadata(winner, 1)).version());
        }));
    assertEquals(2, e.version());
    assertEquals(winner, store.read(2).filter());
    assertFalse(store.fileSystem().exists(loserData[0]), "the loser's data file is deleted");
    assertEquals(List.of(1L, 2L), store.versions().stream().map(FilterVersion::version).toList());
  }

  @Test
  void aCommitOnAVersionNumberFreedByRetentionIsWithdrawn() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 1);
    CuckooFilter stale = range(40_000, 40_100);
    CuckooFilter third = range(50_000, 50_100);
    FilterConflictException e = assertThrows(FilterConflictException.class,
        () -> store.publish(stale, metadata(stale, 1), dataFile -> {
          // While this writer is slow, others publish versions 2 and 3 and retention keeps only 3,
          // freeing the name of version 2 that this writer is about to commit.
          FilterStore other = FilterStore.open(store.location(), conf());
          CuckooFilter second = range(45_000, 45_100);
          other.publish(second, metadata(second, 1));
          other.publish(third, metadata(third, 2));
          assertEquals(2, other.retain(1));
        }));
    assertEquals(3, e.version());
    assertTrue(e.getMessage().contains("withdrawn"), e.getMessage());
    assertEquals(List.of(3L), store.versions().stream().map(FilterVersion::version).toList());
    assertEquals(third, store.readLatest().filter());
    assertEquals(1, listNames(store, store.layout().data).size());
  }

  // ------------------------------------------------------------------------------------- faults

  /**
   * A location that is a file (a mistyped path, a data file named instead of its directory) is refused by every
   * operation with the same message, on every file system. On HDFS the listing of {@code versions/} below a file
   * failed with the NameNode's AccessControlException ("/lake/x (is not a directory)"), a permission error that
   * named no filter location, while the local file system and S3 said "is a file, not a filter location".
   */
  @Test
  void aLocationThatIsAFileIsRefusedByEveryOperation() throws IOException {
    FilterStore probe = newStore();
    try (FSDataOutputStream out = probe.fileSystem().create(probe.layout().root, false)) {
      out.write("not a filter location".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    FilterStore store = FilterStore.open(probe.location(), conf());
    CuckooFilter f = range(0, 100);
    Map<String, org.junit.jupiter.api.function.Executable> operations = new TreeMap<>();
    operations.put("versions", store::versions);
    operations.put("versionNumbers", store::versionNumbers);
    operations.put("latest", store::latest);
    operations.put("readLatest", store::readLatest);
    operations.put("read", () -> store.read(1));
    operations.put("metadata", () -> store.metadata(1));
    operations.put("publish", () -> store.publish(f, metadata(f, FilterMetadata.NO_PARENT)));
    operations.put("retain", () -> store.retain(1));
    operations.put("cleanLeftovers", () -> store.cleanLeftovers(Duration.ZERO));
    for (Map.Entry<String, org.junit.jupiter.api.function.Executable> op : operations.entrySet()) {
      IOException e = assertThrows(IOException.class, op.getValue(), op.getKey());
      assertEquals(IOException.class, e.getClass(), op.getKey() + ": " + e);
      assertTrue(e.getMessage().contains("location " + store.location() + " is a file, not a filter location"),
          op.getKey() + ": " + e);
    }
    assertTrue(store.fileSystem().getFileStatus(store.layout().root).isFile(), "the file is left as it was");
  }

  /**
   * An age beyond what milliseconds since 1970 can express (Duration.ofSeconds(Long.MAX_VALUE), ChronoUnit.FOREVER's
   * duration: "only files older than ever") is valid and deletes nothing; it failed with ArithmeticException "long
   * overflow" from Duration.toMillis, a message naming neither the argument nor the location.
   */
  @Test
  void cleaningLeftoversOlderThanAnyRepresentableAgeDeletesNothing() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 1);
    Path leftover = new Path(store.layout().data, StoreLayout.dataName(2, java.util.UUID.randomUUID().toString()));
    store.fileSystem().create(leftover, false).close();
    assertEquals(0, store.cleanLeftovers(Duration.ofSeconds(Long.MAX_VALUE)));
    assertEquals(0, store.cleanLeftovers(java.time.temporal.ChronoUnit.FOREVER.getDuration()));
    assertTrue(store.fileSystem().exists(leftover), "no file is older than that");
    assertEquals(1, store.cleanLeftovers(Duration.ZERO));
  }

  @Test
  void aWriterKilledBetweenWritingAndCommittingLeavesThePublishedVersionIntact() throws Exception {
    FilterStore store = newStore();
    CuckooFilter first = range(0, 800);
    store.publish(first, metadata(first, FilterMetadata.NO_PARENT));
    File log = new File(workDir(), "killed-writer.log");
    Path leftover;
    try (ChildJvm writer = ChildJvm.start(ChildJvm.testClasspath(), StoreWriterProcess.class, log,
        "stop-before-commit", store.location(), confFile().getPath(), "1", "1000", "3000")) {
      String line = writer.awaitLine(l -> l.startsWith("DATA_WRITTEN "));
      leftover = new Path(line.substring("DATA_WRITTEN ".length()));
      writer.kill();
    }
    FileSystem fs = store.fileSystem();
    assertTrue(fs.exists(leftover), "the killed writer's data file is a leftover: " + leftover);
    assertEquals(List.of(1L), store.versions().stream().map(FilterVersion::version).toList());
    assertEquals(first, store.readLatest().filter());
    assertEquals(0, store.cleanLeftovers(Duration.ofHours(1)), "too recent: could belong to a live writer");
    assertTrue(fs.exists(leftover));
    assertEquals(1, store.cleanLeftovers(Duration.ZERO));
    assertFalse(fs.exists(leftover));
    assertEquals(first, store.read(1).filter(), "cleaning never touches a committed version");
    CuckooFilter second = range(1000, 3000);
    assertEquals(2, store.publish(second, metadata(second, 1)).version());
    assertEquals(0, store.cleanLeftovers(Duration.ZERO));
    assertEquals(second, store.readLatest().filter());
  }

  @Test
  void aDamagedDataFileIsRefusedNamingTheFile() throws IOException {
    FilterStore store = newStore();
    CuckooFilter f = range(0, 3000);
    store.publish(f, metadata(f, FilterMetadata.NO_PARENT));
    Path data = store.layout().dataFile(store.readCommit(1).data().name());
    byte[] original = readAll(store, data);
    int n = original.length;
    Map<String, byte[]> damages = new TreeMap<>();
    damages.put("header byte flipped", flip(original, 8));
    damages.put("header checksum flipped", flip(original, 77));
    damages.put("table byte flipped", flip(original, n / 2));
    damages.put("body checksum flipped", flip(original, n - 1));
    damages.put("truncated", Arrays.copyOf(original, n - 10));
    damages.put("truncated to nothing", new byte[0]);
    damages.put("byte appended", Arrays.copyOf(original, n + 1));
    CuckooFilter other = range(500_000, 503_000); // same geometry, other items: valid, same length
    assertEquals(n, other.toByteArray().length);
    damages.put("replaced by another valid filter", other.toByteArray());
    for (Map.Entry<String, byte[]> damage : damages.entrySet()) {
      overwrite(store, data, damage.getValue());
      StoredFilterCorruptException e = assertThrows(StoredFilterCorruptException.class, () -> store.read(1),
          damage.getKey());
      assertEquals(data.toString(), e.file(), damage.getKey());
      assertEquals(1, e.version());
      assertTrue(e.getMessage().contains("location " + store.location() + ", version 1: file " + data),
          damage.getKey() + ": " + e.getMessage());
      assertThrows(StoredFilterCorruptException.class, store::readLatest, damage.getKey());
    }
    overwrite(store, data, original);
    assertEquals(f, store.read(1).filter(), "the undamaged file reads again");
  }

  @Test
  void aDamagedCommitFileIsRefusedNamingTheFile() throws IOException {
    FilterStore store = newStore();
    publishChain(store, 2);
    Path commit = store.layout().commitFile(2);
    byte[] original = readAll(store, commit);
    List<byte[]> damages = List.of(
        Arrays.copyOf(original, original.length / 2),
        new byte[0],
        new String(original, java.nio.charset.StandardCharsets.UTF_8).replace("\"version\" : 2", "\"version\" : 7")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8),
        new String(original, java.nio.charset.StandardCharsets.UTF_8).replace("\"storeFormat\" : 1",
            "\"storeFormat\" : 2").getBytes(java.nio.charset.StandardCharsets.UTF_8),
        new String(original, java.nio.charset.StandardCharsets.UTF_8).replaceFirst("\"bytes\" : [0-9]+",
            "\"bytes\" : -5").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    for (byte[] damage : damages) {
      assertFalse(Arrays.equals(damage, original), "the damage changes the file");
      overwrite(store, commit, damage);
      StoredFilterCorruptException e = assertThrows(StoredFilterCorruptException.class, () -> store.read(2));
      assertEquals(commit.toString(), e.file());
      assertTrue(e.getMessage().contains("not a readable commit record"), e.getMessage());
      assertThrows(StoredFilterCorruptException.class, store::versions);
      assertEquals(1, store.read(1).version().version(), "other versions stay readable");
    }
    overwrite(store, commit, original);
    assertEquals(2, store.readLatest().version().version());
  }

  @Test
  void aVersionRemovedUnderAReaderGivesTheDocumentedError() throws IOException {
    FilterStore store = newStore();
    List<CuckooFilter> published = publishChain(store, 3);

    // Removed after its commit record was read, before its data file was opened.
    CommitRecord one = store.readCommit(1);
    assertEquals(1, store.retain(2));
    FilterVersionNotFoundException e = assertThrows(FilterVersionNotFoundException.class,
        () -> store.readFilter(1, one.data()));
    assertEquals(1, e.version());
    assertTrue(e.getMessage().contains("location " + store.location() + ": version 1 was removed"), e.getMessage());

    // Removed while its data file is open: the reader gets the right filter or the documented error.
    CommitRecord two = store.readCommit(2);
    Path data = store.layout().dataFile(two.data().name());
    try (FSDataInputStream open = store.fileSystem().open(data)) {
      assertEquals(1, store.retain(1));
      try {
        assertEquals(published.get(1), store.readFilter(2, two.data(), data, open));
      } catch (IOException removed) {
        assertTrue(removed.getMessage().contains(store.location()) && removed.getMessage().contains("version 2"),
            removed.getMessage());
      }
    }
    assertThrows(FilterVersionNotFoundException.class, () -> store.read(2));
    assertEquals(published.get(2), store.readLatest().filter());
  }

  // ------------------------------------------------------------------------------------ helpers

  /** Publishes versions 1..n, each a distinct filter on the previous version. */
  static List<CuckooFilter> publishChain(FilterStore store, int n) throws IOException {
    List<CuckooFilter> filters = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      CuckooFilter f = range(i * 100_000L, i * 100_000L + 500);
      FilterVersion v = store.publish(f, metadata(f, i == 1 ? FilterMetadata.NO_PARENT : i - 1));
      assertEquals(i, v.version());
      filters.add(f);
    }
    return filters;
  }

  static Set<String> listNames(FilterStore store, Path dir) throws IOException {
    Set<String> names = new HashSet<>();
    if (!store.fileSystem().exists(dir)) {
      return names;
    }
    for (FileStatus s : store.fileSystem().listStatus(dir)) {
      names.add(s.getPath().getName());
    }
    return names;
  }

  static byte[] readAll(FilterStore store, Path file) throws IOException {
    try (FSDataInputStream in = store.fileSystem().open(file)) {
      return in.readAllBytes();
    }
  }

  /** Replaces a file's content, as an operator, a bug or bit rot would. */
  static void overwrite(FilterStore store, Path file, byte[] content) throws IOException {
    try (FSDataOutputStream out = store.fileSystem().create(file, true)) {
      out.write(content);
    }
  }

  static byte[] flip(byte[] bytes, int at) {
    byte[] copy = bytes.clone();
    copy[at] ^= 0x10;
    return copy;
  }

  /** The Hadoop configuration as an XML file, for child JVMs. */
  File confFile() throws IOException {
    File file = new File(workDir(), "store-conf-" + System.nanoTime() + ".xml");
    try (OutputStream out = new FileOutputStream(file)) {
      conf().writeXml(out);
    }
    return file;
  }
}
