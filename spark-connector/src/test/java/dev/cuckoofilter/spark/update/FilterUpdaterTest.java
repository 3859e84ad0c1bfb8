package dev.cuckoofilter.spark.update;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.EntryCodes;
import dev.cuckoofilter.core.FilterFullException;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.StoredFilter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental updates keep a filter equal to a fresh build of the changed dataset: same bytes, no false
 * negatives, the false-positive rate of its load.
 */
class FilterUpdaterTest {
  static SparkSession spark;
  static final long EXPECTED = 20_000;
  static final double FPP = 0.001;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Rows (key, row id) as a DataFrame; the same key may occur on several rows. */
  static Dataset<Row> rows(List<long[]> rows) {
    List<Row> list = new ArrayList<>();
    for (long[] r : rows) {
      list.add(org.apache.spark.sql.RowFactory.create(r[0], r[1]));
    }
    return spark.createDataFrame(list, new org.apache.spark.sql.types.StructType()
        .add("k", "long").add("row", "long"));
  }

  static CuckooFilter fresh(Dataset<Row> data) throws Exception {
    return CuckooFilter.fromByteArray((byte[]) data.selectExpr("cuckoo_filter(k, " + EXPECTED + ", " + FPP + ")")
        .first().get(0));
  }

  @Test
  void updatesGiveTheBytesOfAFreshBuildInBothForms() throws Exception {
    List<long[]> before = new ArrayList<>();
    long row = 0;
    for (long k = 0; k < 5000; k++) {
      before.add(new long[] {k, row++});
      if (k % 3 == 0) {
        before.add(new long[] {k, row++}); // duplicate key
      }
    }
    List<long[]> deleted = new ArrayList<>();
    List<long[]> after = new ArrayList<>();
    for (long[] r : before) {
      // Delete one row of every 3rd key (those keep their duplicate) and all rows of every 5th key.
      boolean drop = (r[0] % 5 == 0) || (r[0] % 3 == 0 && r[1] % 2 == 0);
      (drop ? deleted : after).add(r);
    }
    List<long[]> added = new ArrayList<>();
    for (long k = 4000; k < 7000; k++) {
      added.add(new long[] {k, row++}); // existing keys, new keys, and re-added deleted keys (4000, 4005, ...)
    }
    added.add(new long[] {6999, row++}); // a duplicate inside the change
    after.addAll(added);

    CuckooFilter old = fresh(rows(before));
    CuckooFilter expected = fresh(rows(after));
    UpdateResult viaChanges = FilterUpdater.update(old, ChangeSet.of(rows(added), rows(deleted), rows(after)), "k");
    assertFalse(viaChanges.rebuilt());
    assertArrayEquals(expected.toByteArray(), viaChanges.filter().toByteArray(), viaChanges.summary());
    assertTrue(viaChanges.entriesRemoved() > 0 && viaChanges.entriesAdded() > 0 && viaChanges.deletedKeptKeys() > 0,
        viaChanges.summary());
    UpdateResult viaSnapshots = FilterUpdater.update(old, ChangeSet.between(rows(before), rows(after)), "k");
    assertArrayEquals(expected.toByteArray(), viaSnapshots.filter().toByteArray(), viaSnapshots.summary());
    // The input filter is untouched.
    assertArrayEquals(fresh(rows(before)).toByteArray(), old.toByteArray());
  }

  /**
   * A change feed can list a row that was inserted and deleted again between two snapshots in both its added
   * and its deleted rows. Such a key is not in the new dataset, so it must not enter the filter (a false
   * positive, and bytes unlike a fresh build), while a key deleted and re-added stays.
   */
  @Test
  void keysAddedAndDeletedAgainWithinAChangeStayOut() throws Exception {
    List<long[]> before = new ArrayList<>();
    for (long k = 0; k < 3000; k++) {
      before.add(new long[] {k, k});
    }
    List<long[]> transientRows = new ArrayList<>();
    for (long k = 10_000; k < 10_500; k++) {
      transientRows.add(new long[] {k, k}); // inserted and deleted again
    }
    List<long[]> deleted = new ArrayList<>(transientRows);
    List<long[]> added = new ArrayList<>(transientRows);
    List<long[]> after = new ArrayList<>();
    for (long[] r : before) {
      if (r[0] % 7 == 0) {
        deleted.add(r);
        if (r[0] % 2 == 0) {
          long[] again = {r[0], r[1] + 100_000};
          added.add(again); // deleted and re-added: stays
          after.add(again);
        }
      } else {
        after.add(r);
      }
    }
    CuckooFilter old = fresh(rows(before));
    UpdateResult result = FilterUpdater.update(old, ChangeSet.of(rows(added), rows(deleted), rows(after)), "k");
    assertArrayEquals(fresh(rows(after)).toByteArray(), result.filter().toByteArray(), result.summary());
    long transientPresent = transientRows.stream().filter(r -> result.filter().mightContain(r[0])).count();
    // Only false positives may remain: at 0.1% of 500 keys, a handful at most, not all 500.
    assertTrue(transientPresent < 10, transientPresent + " of the 500 transient keys present: " + result.summary());
    for (long[] r : after) {
      assertTrue(result.filter().mightContain(r[0]), "lost key " + r[0]);
    }
  }

  @Test
  void emptyChangesAndDeletesOfUnknownKeysChangeNothing() throws Exception {
    List<long[]> data = new ArrayList<>();
    for (long k = 0; k < 3000; k++) {
      data.add(new long[] {k * 11, k});
    }
    CuckooFilter f = fresh(rows(data));
    UpdateResult empty = FilterUpdater.update(f, ChangeSet.of(rows(List.of()), rows(List.of()), rows(data)), "k");
    assertArrayEquals(f.toByteArray(), empty.filter().toByteArray());
    // Deleting rows whose keys were never in the dataset must not remove anything (it could remove
    // another key's entry).
    List<long[]> strangers = new ArrayList<>();
    for (long k = 0; k < 20_000; k++) {
      strangers.add(new long[] {k * 11 + 5, k});
    }
    UpdateResult unknown = FilterUpdater.update(f, ChangeSet.of(rows(List.of()), rows(strangers), rows(data)), "k");
    assertEquals(0, unknown.entriesRemoved());
    assertArrayEquals(f.toByteArray(), unknown.filter().toByteArray());
  }

  /**
   * The paper's hazard, hit on purpose rather than by chance: a key S that was never in the dataset has the
   * entry of a present key P (the fingerprint and bucket pair a lookup matches), so removing S would delete
   * P's only copy. Deleting rows of S, alone or with one of P's two rows, must keep P.
   */
  @Test
  void deletingAKeyThatWasNeverInsertedButHasAPresentKeysEntryKeepsThatKey(@TempDir Path dir) throws Exception {
    List<long[]> before = new ArrayList<>();
    for (long k = 0; k < 3000; k++) {
      before.add(new long[] {k, 2 * k}); // every key on two rows
      before.add(new long[] {k, 2 * k + 1});
    }
    FilterStore store = FilterStore.open(dir.resolve("filters").toUri().toString(), spark);
    SparkCuckooFilter built = CuckooFilters.builder(rows(before)).keys("k").expectedItems(EXPECTED).fpp(FPP).build();
    assertEquals(1, built.saveTo(store, "two rows per key").version());
    CuckooFilter f = built.filter();
    Map<Long, Long> owners = entryOwners(keysOf(before), f.parameters());
    long[] found = keyWithTheEntryOfAnother(owners, f.parameters(), 1_000_000);
    long stranger = found[0];
    long present = found[1];
    // The collision is real: the stranger looks present, and removing it from the filter deletes the present key.
    assertTrue(f.mightContain(stranger));
    assertEquals(1, f.count(present));
    CuckooFilter naive = f.copy();
    assertTrue(naive.remove(stranger));
    assertFalse(naive.mightContain(present), "a naive remove of " + stranger + " loses " + present);

    // Only the stranger's (phantom) rows deleted: nothing changes, its entry counts as kept.
    List<long[]> strangerRows = List.of(new long[] {stranger, 10_000_000}, new long[] {stranger, 10_000_001});
    UpdateResult unknown = FilterUpdater.update(f, ChangeSet.of(rows(List.of()), rows(strangerRows), rows(before)),
        "k");
    assertEquals(0, unknown.entriesRemoved(), unknown.summary());
    assertEquals(1, unknown.deletedKeptKeys(), unknown.summary());
    assertTrue(unknown.filter().mightContain(present));
    assertArrayEquals(f.toByteArray(), unknown.filter().toByteArray());

    // Published through the store: the stranger's rows, one of the present key's two rows, and both rows of a
    // key whose entry is its own (so something is removed).
    long gone = owners.entrySet().stream().filter(e -> e.getValue() >= 0 && e.getValue() != present)
        .findFirst().orElseThrow().getValue();
    List<long[]> deleted = new ArrayList<>(strangerRows);
    List<long[]> after = new ArrayList<>();
    for (long[] r : before) {
      boolean drop = r[0] == gone || (r[0] == present && r[1] % 2 == 0);
      (drop ? deleted : after).add(r);
    }
    FilterUpdater.Published published = FilterUpdater.update(store,
        ChangeSet.of(rows(List.of()), rows(deleted), rows(after)), "a stranger's rows deleted");
    UpdateResult result = published.result();
    assertFalse(result.rebuilt(), result.summary());
    assertEquals(0, result.entriesAdded(), result.summary());
    assertEquals(1, result.entriesRemoved(), result.summary()); // the gone key's
    assertEquals(1, result.deletedKeptKeys(), result.summary()); // one entry, the stranger's and the present key's
    assertEquals(2, published.version().version());
    StoredFilter latest = store.readLatest();
    assertEquals(2, latest.version().version());
    assertTrue(latest.filter().mightContain(present), "lost " + present);
    assertEquals(1, latest.filter().count(present));
    assertEquals(0, latest.filter().count(gone));
    assertArrayEquals(fresh(rows(after)).toByteArray(), latest.filter().toByteArray());
  }

  /**
   * Two present keys with the same entry: a Spark build stores it once, so {@code count} is 1 for both (a plain
   * filter adding both keeps 2). When one loses its last row the entry stays for the other, in both forms of
   * change; when the other loses its last row too, the entry goes.
   */
  @Test
  void aKeyThatLosesItsLastRowKeepsTheEntryItSharesWithAnotherPresentKey() throws Exception {
    List<long[]> base = keysFrom(0, 3000);
    FilterParameters p = fresh(rows(base)).parameters();
    long[] found = keyWithTheEntryOfAnother(entryOwners(keysOf(base), p), p, 1_000_000);
    long twin = found[0]; // added to the dataset, on two rows
    long single = found[1]; // on one row
    List<long[]> before = new ArrayList<>(base);
    before.add(new long[] {twin, 5_000_000});
    before.add(new long[] {twin, 5_000_001});
    CuckooFilter f = fresh(rows(before));
    assertEquals(p, f.parameters());
    assertEquals(1, f.count(single));
    assertEquals(1, f.count(twin));
    CuckooFilter plain = f.copy();
    assertTrue(plain.add(single));
    assertEquals(2, plain.count(twin), "count includes the other key's copies");
    CuckooFilter naive = f.copy();
    assertTrue(naive.remove(single));
    assertFalse(naive.mightContain(twin), "a naive remove of " + single + " loses " + twin);

    // The single key loses its only row, the twin one of its two.
    List<long[]> deleted = List.of(new long[] {single, single}, new long[] {twin, 5_000_000});
    List<long[]> after = new ArrayList<>(before);
    after.removeIf(r -> r[1] == single || r[1] == 5_000_000);
    assertEquals(before.size() - 2, after.size());
    CuckooFilter expected = fresh(rows(after));
    assertArrayEquals(f.toByteArray(), expected.toByteArray(), "the same entries");
    List<UpdateResult> results = List.of(
        FilterUpdater.update(f, ChangeSet.of(rows(List.of()), rows(deleted), rows(after)), "k"),
        FilterUpdater.update(f, ChangeSet.between(rows(before), rows(after)), "k"));
    for (UpdateResult r : results) {
      assertFalse(r.rebuilt(), r.summary());
      assertEquals(0, r.entriesRemoved(), r.summary());
      assertEquals(1, r.deletedKeptKeys(), r.summary());
      assertTrue(r.filter().mightContain(twin), "lost " + twin);
      assertEquals(1, r.filter().count(twin));
      assertArrayEquals(expected.toByteArray(), r.filter().toByteArray());
    }

    // The twin loses its last row: now no row produces the entry.
    List<long[]> last = new ArrayList<>(after);
    last.removeIf(r -> r[0] == twin);
    UpdateResult r = FilterUpdater.update(expected, ChangeSet.of(rows(List.of()), rows(List.of(new long[] {twin,
        5_000_001})), rows(last)), "k");
    assertEquals(1, r.entriesRemoved(), r.summary());
    assertEquals(0, r.deletedKeptKeys(), r.summary());
    assertEquals(0, r.filter().count(twin));
    assertEquals(0, r.filter().count(single));
    assertArrayEquals(fresh(rows(last)).toByteArray(), r.filter().toByteArray());
  }

  static Set<Long> keysOf(List<long[]> rows) {
    Set<Long> keys = new HashSet<>();
    for (long[] r : rows) {
      keys.add(r[0]);
    }
    return keys;
  }

  /** Each entry of non-negative {@code keys} and its key, or -1 for an entry several of them have. */
  static Map<Long, Long> entryOwners(Set<Long> keys, FilterParameters p) {
    Map<Long, Long> owners = new HashMap<>();
    for (long k : keys) {
      owners.merge(entry(k, p), k, (a, b) -> -1L);
    }
    return owners;
  }

  /**
   * The first key from {@code from} up, not one of the owners' keys, whose entry is the entry of exactly one
   * of them, and that key: {key, owner}.
   */
  static long[] keyWithTheEntryOfAnother(Map<Long, Long> owners, FilterParameters p, long from) {
    for (long k = from; k < from + 100_000_000L; k++) {
      Long owner = owners.get(entry(k, p));
      if (owner != null && owner >= 0 && owner != k) {
        assertFalse(owners.containsValue(k), "not a key of the owners: " + k);
        return new long[] {k, owner};
      }
    }
    throw new AssertionError("no key from " + from + " shares an entry with one of " + owners.size());
  }

  /**
   * An in-memory filter has no stored key types: the change's datasets are checked against {@code current} (or the
   * snapshots against each other). Added rows whose key is a string where the dataset's is a bigint (a CSV change
   * feed read without inferSchema) were hashed as strings: every added key was missing from the updated filter.
   * Added rows of double keys where the dataset's are floats (a JSON feed) are hashed as the floats the dataset holds.
   */
  @Test
  void inMemoryChangesWhoseKeysHashOtherwiseThanTheCurrentDatasetAreRefusedOrCast() throws Exception {
    List<long[]> before = new ArrayList<>();
    for (long k = 0; k < 1000; k++) {
      before.add(new long[] {k, k});
    }
    List<long[]> added = new ArrayList<>();
    for (long k = 1000; k < 1200; k++) {
      added.add(new long[] {k, k});
    }
    List<long[]> after = new ArrayList<>(before);
    after.addAll(added);
    CuckooFilter f = fresh(rows(before));
    Dataset<Row> addedStrings = rows(added).selectExpr("CAST(k AS STRING) AS k", "row");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(f, ChangeSet.of(addedStrings, rows(added).limit(0), rows(after)), "k"));
    assertTrue(e.getMessage().contains("k") && e.getMessage().contains("string") && e.getMessage().contains("bigint")
        && e.getMessage().contains("added"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(f, ChangeSet.between(rows(before), rows(after).selectExpr("CAST(k AS STRING) AS k")),
            "k"));

    // float keys in the dataset, the added rows as doubles
    Dataset<Row> floatsBefore = spark.range(0, 1000).selectExpr("CAST(id / 10.0 AS FLOAT) AS k");
    Dataset<Row> floatsAfter = spark.range(0, 1200).selectExpr("CAST(id / 10.0 AS FLOAT) AS k");
    Dataset<Row> addedDoubles = spark.range(1000, 1200).selectExpr("CAST(id / 10.0 AS DOUBLE) AS k");
    UpdateResult r = FilterUpdater.update(fresh(floatsBefore), ChangeSet.of(addedDoubles, addedDoubles.limit(0),
        floatsAfter), "k");
    assertArrayEquals(fresh(floatsAfter).toByteArray(), r.filter().toByteArray(), r.summary());
  }

  @Test
  void aChangeLargerThanTheFilterRebuildsIt() throws Exception {
    List<long[]> small = new ArrayList<>();
    for (long k = 0; k < 100; k++) {
      small.add(new long[] {k, k});
    }
    CuckooFilter f = CuckooFilter.fromByteArray((byte[]) rows(small).selectExpr("cuckoo_filter(k, 120, 0.001)").first()
        .get(0));
    List<long[]> big = new ArrayList<>(small);
    for (long k = 100; k < 10_100; k++) {
      big.add(new long[] {k, k});
    }
    UpdateResult r = FilterUpdater.update(f, ChangeSet.between(rows(small), rows(big)), "k");
    assertTrue(r.rebuilt(), r.summary());
    assertTrue(r.rebuildReason().contains("sized for"), r.rebuildReason());
    for (long k = 0; k < 10_100; k++) {
      assertTrue(r.filter().mightContain(k));
    }
    assertTrue(r.filter().parameters().expectedItems() >= 15_000, "room to grow: " + r.filter());
    assertEquals(0.001, r.filter().parameters().targetFpp(), 1e-12);
  }

  /**
   * A filter filled in plain Java up to its first failed insert may not take its own entries in canonical order
   * (whether a nearly full table takes them depends on the order): the update rebuilds it instead of failing.
   */
  @Test
  void aFilterTooFullForTheCanonicalLayoutIsRebuilt() throws Exception {
    CuckooFilter f = CuckooFilter.builder().bucketSize(4).fingerprintBits(12).bucketCount(256).seed(0).build();
    List<long[]> data = new ArrayList<>();
    for (long k = 0; f.add(k * 7919); k++) {
      data.add(new long[] {k * 7919, k});
    }
    assertThrows(FilterFullException.class, () -> CanonicalBuilder.canonical(f), "the premise: " + f);
    UpdateResult r = FilterUpdater.update(f, ChangeSet.of(rows(List.of()), rows(List.of()), rows(data)), "k");
    assertTrue(r.rebuilt(), r.summary());
    assertTrue(r.rebuildReason().contains("too full"), r.rebuildReason());
    for (long[] row : data) {
      assertTrue(r.filter().mightContain(row[0]), "key " + row[0]);
    }
  }

  /** A filter of the rows' keys sized for {@code expectedItems} at {@code fpp}, its parameters recording no target rate. */
  static CuckooFilter withoutTargetFpp(long expectedItems, double fpp, List<long[]> rows) {
    FilterParameters p = CuckooFilter.builder().expectedItems(expectedItems).fpp(fpp).parameters();
    CanonicalBuilder b = new CanonicalBuilder(new FilterParameters(p.semiSorted(), p.bucketSize(), p.fingerprintBits(),
        p.bucketCount(), p.hashAlgorithm(), p.seed(), p.maxKicks(), p.stashCapacity(), p.expectedItems(), 0), true);
    for (long[] row : rows) {
      b.addHash(CuckooHash.hashLong(row[0], p.seed()));
    }
    CuckooFilter f = b.build();
    assertEquals(0, f.parameters().targetFpp());
    return f;
  }

  static List<long[]> keysFrom(long from, long to) {
    List<long[]> rows = new ArrayList<>();
    for (long k = from; k < to; k++) {
      rows.add(new long[] {k, k});
    }
    return rows;
  }

  /** A filter that records no target rate is rebuilt at the rate of its table, not at a default 0.01. */
  @Test
  void aRebuildOfAFilterWithoutATargetKeepsTheRateOfItsTable() throws Exception {
    List<long[]> small = keysFrom(0, 100);
    CuckooFilter f = withoutTargetFpp(120, 0.001, small);
    FilterParameters p = f.parameters();
    double tableRate = dev.cuckoofilter.core.sizing.Sizing.designFalsePositiveRate(p.bucketSize(),
        p.fingerprintBits(), p.bucketCount());
    assertTrue(tableRate <= 0.001, "rate of the table " + tableRate);
    UpdateResult r = FilterUpdater.update(f, ChangeSet.between(rows(small), rows(keysFrom(0, 5000))), "k");
    assertTrue(r.rebuilt(), r.summary());
    assertEquals(tableRate, r.filter().parameters().targetFpp(), 1e-15);
    assertTrue(r.filter().expectedFpp() <= tableRate, r.summary());
  }

  /**
   * A filter sized by its table (no expectedItems; its parameters record the rate of the table at its design
   * load) holds keys up to its design load, not up to 90% of its entries: with buckets of 2 (design load 0.84)
   * an update filled such a filter to a load of 0.85 without a rebuild, above the rate it records and is kept at.
   */
  @Test
  void aFilterSizedByItsTableIsRebuiltPastItsDesignLoad() throws Exception {
    FilterParameters p = CuckooFilter.builder().bucketSize(2).fingerprintBits(12).bucketCount(4096).parameters();
    assertEquals(0, p.expectedItems());
    double designLoad = dev.cuckoofilter.core.sizing.Sizing.designLoad(p.bucketSize(), p.fingerprintBits(),
        p.bucketCount());
    long designKeys = (long) (designLoad * p.slots());
    List<long[]> base = keysFrom(0, entriesUpTo(6000, p));
    CanonicalBuilder b = new CanonicalBuilder(p, true);
    for (long[] row : base) {
      b.addHash(CuckooHash.hashLong(row[0], p.seed()));
    }
    CuckooFilter f = b.build();
    assertEquals(6000, f.size());

    // Up to the design load: updated in place, at most the recorded rate.
    List<long[]> fits = keysFrom(0, entriesUpTo(designKeys, p));
    UpdateResult updated = FilterUpdater.update(f, ChangeSet.between(rows(base), rows(fits)), "k");
    assertFalse(updated.rebuilt(), updated.summary());
    assertEquals(designKeys, updated.filter().size(), updated.summary());
    assertTrue(updated.filter().expectedFpp() <= p.targetFpp() * (1 + 1e-9), updated.summary());

    // Past it: rebuilt at the recorded rate, with room to grow.
    List<long[]> past = keysFrom(0, entriesUpTo(designKeys + 50, p));
    UpdateResult r = FilterUpdater.update(f, ChangeSet.between(rows(base), rows(past)), "k");
    assertTrue(r.rebuilt(), "load " + (double) (designKeys + 50) / p.slots() + " past the design load " + designLoad
        + " of the table: " + r.summary());
    assertEquals(p.targetFpp(), r.filter().parameters().targetFpp(), 1e-15);
    assertTrue(r.filter().expectedFpp() <= p.targetFpp(), r.summary());
    for (long[] row : past) {
      assertTrue(r.filter().mightContain(row[0]), "lost " + row[0]);
    }
  }

  /** The end of the key range 0.. whose distinct entries in a filter with parameters {@code p} number {@code n}. */
  static long entriesUpTo(long n, FilterParameters p) {
    Set<Long> entries = new HashSet<>();
    long k = 0;
    while (entries.size() < n) {
      entries.add(entry(k++, p));
    }
    return k;
  }

  /**
   * A stored filter is kept at the false-positive rate its location's metadata records, even when the
   * filter's own parameters record none: an update that overfills it rebuilds it at that rate, and every new
   * version records that rate again, whether published by {@code update} or {@code publish}.
   */
  @Test
  void storedFiltersAreRebuiltAtTheRateTheirMetadataRecords(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    double recorded = 0.0002;
    List<long[]> before = keysFrom(0, 100);
    CuckooFilter f = withoutTargetFpp(120, 0.001, before);
    dev.cuckoofilter.spark.store.FilterStore store = dev.cuckoofilter.spark.store.FilterStore.open(
        dir.resolve("filters").toUri().toString(), spark);
    List<org.apache.spark.sql.types.StructField> keys = List.of(new org.apache.spark.sql.types.StructField("k",
        org.apache.spark.sql.types.DataTypes.LongType, true, org.apache.spark.sql.types.Metadata.empty()));
    store.publish(f, new dev.cuckoofilter.spark.store.FilterMetadata(keys, recorded, f.size(), f.capacity(),
        "sized by hand", java.time.Instant.now(), dev.cuckoofilter.spark.store.FilterMetadata.NO_PARENT,
        dev.cuckoofilter.core.format.FilterFormat.VERSION, Map.of()));

    // An update that fits: the filter is updated, the new version records the location's rate.
    List<long[]> added = keysFrom(100, 110);
    List<long[]> after = keysFrom(0, 110);
    FilterUpdater.Published small = FilterUpdater.update(store, ChangeSet.of(rows(added), rows(List.of()), rows(after)),
        "ten more");
    assertFalse(small.result().rebuilt(), small.result().summary());
    assertEquals(recorded, store.readLatest().metadata().fpp(), 0);

    // An update of a version read, reported on, then published on it (as the update job does): the same rate,
    // not the one metadata of the filter itself would record.
    StoredFilter base = store.readLatest();
    UpdateResult five = FilterUpdater.update(base, ChangeSet.of(rows(keysFrom(110, 115)), rows(List.of()),
        rows(keysFrom(0, 115))));
    assertFalse(five.rebuilt(), five.summary());
    double filtersOwn = dev.cuckoofilter.spark.store.FilterMetadata.of(five.filter(), keys, "", 2).fpp();
    assertTrue(Math.abs(filtersOwn - recorded) > recorded / 10, "the filter's own rate " + filtersOwn);
    assertEquals(3, FilterUpdater.publish(store, base, five, "five more", Map.of("createdBy", "a job")).version());
    assertEquals(recorded, store.readLatest().metadata().fpp(), 0);
    assertEquals(2, store.readLatest().metadata().parentVersion());
    assertEquals(Map.of("createdBy", "a job"), store.readLatest().metadata().properties());
    org.junit.jupiter.api.Assertions.assertThrows(dev.cuckoofilter.spark.store.FilterConflictException.class,
        () -> FilterUpdater.publish(store, base, five, "on a stale base", Map.of()));
    after = keysFrom(0, 115);

    // An update past the capacity: rebuilt at the recorded rate (not the table's, not 0.01).
    List<long[]> many = keysFrom(0, 20_000);
    UpdateResult unpublished = FilterUpdater.update(store.readLatest(), ChangeSet.between(rows(after), rows(many)));
    assertTrue(unpublished.rebuilt(), unpublished.summary());
    assertEquals(recorded, unpublished.filter().parameters().targetFpp(), 0);
    assertEquals(3, store.readLatest().version().version(), "update(StoredFilter, ...) publishes nothing");
    FilterUpdater.Published big = FilterUpdater.update(store, ChangeSet.between(rows(after), rows(many)), "many more");
    assertTrue(big.result().rebuilt(), big.result().summary());
    StoredFilter latest = store.readLatest();
    assertEquals(4, latest.version().version());
    assertEquals(recorded, latest.metadata().fpp(), 0);
    assertEquals(recorded, latest.filter().parameters().targetFpp(), 0);
    assertArrayEquals(unpublished.filter().toByteArray(), latest.filter().toByteArray());
    for (long[] row : many) {
      assertTrue(latest.filter().mightContain(row[0]), "lost " + row[0]);
    }
    int fp = 0;
    int probes = 1_000_000;
    for (long k = 1_000_000; k < 1_000_000 + probes; k++) {
      fp += latest.filter().mightContain(k) ? 1 : 0;
    }
    double expected = latest.filter().expectedFpp();
    assertTrue(expected <= recorded, latest.filter().toString());
    assertTrue(fp <= probes * expected + 5 * Math.sqrt(probes * expected) + 5, fp + " false positives of " + probes
        + ", expected " + expected);
  }

  @Test
  void storedFiltersAreUpdatedAsNewVersions(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    List<long[]> before = new ArrayList<>();
    for (long k = 0; k < 2000; k++) {
      before.add(new long[] {k, k});
    }
    dev.cuckoofilter.spark.store.FilterStore store = dev.cuckoofilter.spark.store.FilterStore.open(
        dir.resolve("filters").toUri().toString(), spark);
    dev.cuckoofilter.spark.SparkCuckooFilter built = dev.cuckoofilter.spark.CuckooFilters.builder(rows(before))
        .keys("k").expectedItems(EXPECTED).fpp(FPP).build();
    assertEquals(1, built.saveTo(store, "initial build").version());
    List<long[]> added = List.of(new long[] {5000, 5000}, new long[] {5001, 5001});
    List<long[]> after = new ArrayList<>(before.subList(100, before.size()));
    after.addAll(added);
    FilterUpdater.Published published = FilterUpdater.update(store,
        ChangeSet.of(rows(added), rows(before.subList(0, 100)), rows(after)), "orders delta 2026-11-21");
    assertEquals(2, published.version().version());
    var latest = store.readLatest();
    assertEquals(1, latest.metadata().parentVersion());
    assertEquals("orders delta 2026-11-21", latest.metadata().source());
    assertArrayEquals(fresh(rows(after)).toByteArray(), latest.filter().toByteArray());
    // The change's key column must have the filter's type.
    Dataset<Row> strings = rows(after).selectExpr("CAST(k AS STRING) AS k", "row");
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.between(strings, strings), "bad"));
    assertTrue(e.getMessage().contains("key column k"), e.getMessage());
    // Every dataset of the change is checked, not only the current one: added keys of another type would
    // be inserted as other entries, and the filter would miss them.
    Dataset<Row> addedStrings = rows(List.of(new long[] {7000, 7000})).selectExpr("CAST(k AS STRING) AS k", "row");
    Dataset<Row> withAdded = rows(after).union(rows(List.of(new long[] {7000, 7000})));
    IllegalArgumentException addedRefused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.of(addedStrings, rows(after).limit(0), withAdded), "bad"));
    assertEquals("key column k is string in the added rows of the change but bigint in the filter at "
        + store.location(), addedRefused.getMessage());
    Dataset<Row> deletedInts = rows(before.subList(100, 110)).selectExpr("CAST(k AS INT) AS k", "row");
    // int hashes like bigint: accepted
    assertEquals(3, FilterUpdater.update(store, ChangeSet.of(rows(after).limit(0), deletedInts,
        rows(after.subList(10, after.size()))), "ints").version().version());
    Dataset<Row> deletedStrings = rows(before.subList(110, 120)).selectExpr("CAST(k AS STRING) AS k", "row");
    IllegalArgumentException deleted = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.of(rows(after).limit(0), deletedStrings,
            rows(after.subList(20, after.size()))), "bad"));
    assertTrue(deleted.getMessage().contains("in the deleted rows of the change"), deleted.getMessage());
    Dataset<Row> noKey = rows(after).selectExpr("row");
    IllegalArgumentException missing = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.between(noKey, rows(after)), "bad"));
    assertTrue(missing.getMessage().startsWith("the snapshot before of the change have no key column k"),
        missing.getMessage());
    assertEquals(3, store.readLatest().version().version(), "nothing else was published");
  }

  /**
   * Spark resolves column names ignoring case (by default), and so do the builder and the jobs: a filter built
   * with keys("K") from a column k is saved with the key column K. Updates looked that name up exactly and
   * failed with "the added rows of the change have no key column K ...; their columns are k, row" (the
   * update-filter job: exit code 1 and a stack trace), so such a location could never be updated.
   */
  @Test
  void storedKeyColumnsNamedInAnotherCaseThanTheColumnsAreUpdated(@TempDir Path dir) throws Exception {
    List<long[]> before = new ArrayList<>();
    for (long k = 0; k < 2000; k++) {
      before.add(new long[] {k, k});
    }
    List<long[]> added = List.of(new long[] {5000, 5000}, new long[] {5001, 5001});
    List<long[]> after = new ArrayList<>(before.subList(100, before.size()));
    after.addAll(added);
    FilterStore store = FilterStore.open(dir.resolve("upper").toUri().toString(), spark);
    CuckooFilters.builder(rows(before)).keys("K").expectedItems(EXPECTED).fpp(FPP).build().saveTo(store, "built");
    assertEquals("K", store.readLatest().metadata().keyColumns().get(0).name());

    FilterUpdater.update(store, ChangeSet.of(rows(added), rows(before.subList(0, 100)), rows(after)), "delta");
    assertArrayEquals(fresh(rows(after)).toByteArray(), store.readLatest().filter().toByteArray());
    FilterUpdater.update(store, ChangeSet.between(rows(after), rows(before)), "back");
    assertArrayEquals(fresh(rows(before)).toByteArray(), store.readLatest().filter().toByteArray());
  }

  /**
   * Stored key columns are column names, not column expressions: a key column named {@code cust.id} (or with
   * a backtick) is that top-level column, also when a struct column {@code cust} with a field {@code id}
   * exists, whose values would otherwise be hashed instead (and the added keys missed: false negatives).
   */
  @Test
  void storedKeyColumnsWithDotsOrBackticksInTheirNamesAreUpdated(@TempDir Path dir) throws Exception {
    String[] columns = {"id AS `cust.id`", "named_struct('id', id + 1000000) AS cust",
        "CAST(id AS STRING) AS `odd``name`"};
    Dataset<Row> before = spark.range(0, 2000).selectExpr(columns);
    Dataset<Row> added = spark.range(2000, 2600).selectExpr(columns);
    Dataset<Row> deleted = spark.range(0, 300).selectExpr(columns);
    Dataset<Row> after = spark.range(300, 2600).selectExpr(columns);
    FilterStore store = FilterStore.open(dir.resolve("dotted").toUri().toString(), spark);
    SparkCuckooFilter built = CuckooFilters.builder(before).keys("`cust.id`", "`odd``name`").expectedItems(EXPECTED)
        .fpp(FPP).build();
    built.saveTo(store, "initial build");
    assertEquals(List.of("cust.id", "odd`name"),
        store.readLatest().metadata().keyColumns().stream().map(f -> f.name()).toList());
    FilterUpdater.Published p = FilterUpdater.update(store, ChangeSet.of(added, deleted, after), "delta");
    assertFalse(p.result().rebuilt(), p.result().summary());
    CuckooFilter expected = CuckooFilters.builder(after).keys("`cust.id`", "`odd``name`").expectedItems(EXPECTED)
        .fpp(FPP).build().filter();
    assertArrayEquals(expected.toByteArray(), store.readLatest().filter().toByteArray(), p.result().summary());
    assertEquals(3, FilterUpdater.update(store, ChangeSet.between(after, before), "back").version().version());
    assertArrayEquals(built.filter().toByteArray(), store.readLatest().filter().toByteArray());
  }

  /**
   * A struct key column is a composite key hashed field by field in the stored order. A change whose struct has the
   * stored fields in another order (a change feed in JSON: Spark's schema inference sorts struct fields by name, so
   * {@code struct<zip, city>} reads back as {@code struct<city, zip>}) passed the type check, whose categories do not
   * name fields, and its keys were hashed as (city, zip): the added addresses were missing from the filter, and
   * pruning the table by it dropped their rows. The fields are taken by name, as Spark reads nested Parquet columns.
   */
  @Test
  void structKeysWhoseFieldsComeInAnotherOrderAreUpdatedByFieldName(@TempDir Path dir) throws Exception {
    String[] columns = {"named_struct('zip', CAST(id AS STRING), 'city', CONCAT('c', CAST(id % 97 AS STRING))) AS addr",
        "id AS row"};
    Dataset<Row> before = spark.range(0, 2000).selectExpr(columns);
    Dataset<Row> after = spark.range(0, 2600).selectExpr(columns);
    FilterStore store = FilterStore.open(dir.resolve("addresses").toUri().toString(), spark);
    SparkCuckooFilter built = CuckooFilters.builder(before).keys("addr").expectedItems(EXPECTED).fpp(FPP).build();
    built.saveTo(store, "initial build");
    String addedJson = dir.resolve("added-json").toUri().toString();
    spark.range(2000, 2600).selectExpr(columns).write().json(addedJson);
    Dataset<Row> added = spark.read().json(addedJson);
    assertEquals(List.of("city", "zip"), List.of(((org.apache.spark.sql.types.StructType) added.schema().apply("addr")
        .dataType()).fieldNames()), "JSON inference sorts the fields");

    FilterUpdater.Published p = FilterUpdater.update(store, ChangeSet.of(added, before.limit(0), after), "json delta");
    assertEquals(2600, store.sparkFilterLatest(spark).prune(after, "addr").count(), p.result().summary());
    CuckooFilter expected = CuckooFilters.builder(after).keys("addr").expectedItems(EXPECTED).fpp(FPP).build().filter();
    assertArrayEquals(expected.toByteArray(), store.readLatest().filter().toByteArray(), p.result().summary());

    // The snapshot form, with the snapshot before in JSON.
    String afterJson = dir.resolve("after-json").toUri().toString();
    after.write().json(afterJson);
    FilterUpdater.update(store, ChangeSet.between(spark.read().json(afterJson), before), "back");
    assertArrayEquals(built.filter().toByteArray(), store.readLatest().filter().toByteArray());
  }

  /**
   * Key columns that are struct fields ({@code s.x}, which the builder takes) update in both forms. The
   * snapshot form diffed the selected keys, columns named {@code x} that {@code s.x} no longer resolves: the
   * update failed with an unresolved column (and two fields of one name were ambiguous).
   */
  @Test
  void snapshotsOfStructFieldKeysUpdateLikeChanges() throws Exception {
    String[] columns = {"named_struct('x', id) AS s", "named_struct('x', id * 7) AS t"};
    Dataset<Row> before = spark.range(0, 2000).selectExpr(columns);
    Dataset<Row> after = spark.range(300, 2600).selectExpr(columns);
    CuckooFilter old = CuckooFilters.builder(before).keys("s.x", "t.x").expectedItems(EXPECTED).fpp(FPP).build()
        .filter();
    CuckooFilter expected = CuckooFilters.builder(after).keys("s.x", "t.x").expectedItems(EXPECTED).fpp(FPP).build()
        .filter();
    UpdateResult viaSnapshots = FilterUpdater.update(old, ChangeSet.between(before, after), "s.x", "t.x");
    assertArrayEquals(expected.toByteArray(), viaSnapshots.filter().toByteArray(), viaSnapshots.summary());
    UpdateResult viaChanges = FilterUpdater.update(old, ChangeSet.of(spark.range(2000, 2600).selectExpr(columns),
        spark.range(0, 300).selectExpr(columns), after), "s.x", "t.x");
    assertArrayEquals(expected.toByteArray(), viaChanges.filter().toByteArray(), viaChanges.summary());
    UpdateResult single = FilterUpdater.update(
        CuckooFilters.builder(before).keys("s.x").expectedItems(EXPECTED).fpp(FPP).build().filter(),
        ChangeSet.between(before, after), "s.x");
    assertArrayEquals(CuckooFilters.builder(after).keys("s.x").expectedItems(EXPECTED).fpp(FPP).build().filter()
        .toByteArray(), single.filter().toByteArray(), single.summary());
  }

  /**
   * A location records key columns by name, and updates read those columns. A filter built from the struct
   * field {@code s.x} was saved with the key column {@code x}: an update then hashed the top-level column
   * {@code x} instead, and the keys it added under {@code s.x} were missing (false negatives). saveTo refuses
   * such a filter, naming the key; built from the field as a column, it is saved and updated without loss.
   */
  @Test
  void filtersOfStructFieldKeysAreNotSavedUnderANameUpdatesReadAnotherColumnFrom(@TempDir Path dir) throws Exception {
    String[] columns = {"named_struct('x', id) AS s", "id + 1000000 AS x"};
    Dataset<Row> before = spark.range(0, 2000).selectExpr(columns);
    FilterStore store = FilterStore.open(dir.resolve("nested").toUri().toString(), spark);
    SparkCuckooFilter nested = CuckooFilters.builder(before).keys("s.x").expectedItems(EXPECTED).fpp(FPP).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> nested.saveTo(store, "nested"));
    assertTrue(e.getMessage().contains("the key s.x is not a column"), e.getMessage());
    assertTrue(store.versionNumbers().isEmpty(), "nothing was published");

    String[] flat = {"s.x AS s_x", "x"};
    CuckooFilters.builder(before.selectExpr(flat)).keys("s_x").expectedItems(EXPECTED).fpp(FPP).build()
        .saveTo(store, "flattened");
    Dataset<Row> after = spark.range(0, 2600).selectExpr(columns).selectExpr(flat);
    FilterUpdater.update(store, ChangeSet.of(spark.range(2000, 2600).selectExpr(columns).selectExpr(flat),
        spark.range(0, 0).selectExpr(columns).selectExpr(flat), after), "delta");
    CuckooFilter updated = store.readLatest().filter();
    for (long k = 0; k < 2600; k++) {
      assertTrue(updated.mightContain(k), "key " + k);
    }
  }

  /**
   * A long random sequence of changes (44 steps, in both forms) against the exact key set: rows deleted at
   * random (keys that keep other rows and keys that lose their last row), whole keys deleted, new keys,
   * duplicates of present keys, keys re-inserted in the step that deleted them and in later steps, and every
   * eleventh step a burst of new keys past the filter's capacity, which rebuilds it. After every step: no
   * false negatives, the bytes of a fresh build with the filter's parameters, a rebuild exactly when the new
   * key set needs more entries than the filter was sized for, and false positives at the filter's expected
   * rate, per step (loosely) and pooled over all steps (within 5 standard deviations, both ways).
   */
  @Test
  void longRandomUpdateSequencesNeverLoseAKeyAndKeepTheExpectedRate() throws Exception {
    final int steps = 44;
    final int probesPerStep = 25_000;
    final double fpp = 0.01;
    SplittableRandom r = new SplittableRandom(2024);
    Map<Long, Long> current = new HashMap<>(); // row id -> key
    long nextRow = 0;
    long nextNewKey = 10_000; // keys below it may have been used; new keys are fresh
    for (int i = 0; i < 3000; i++) {
      current.put(nextRow++, r.nextLong(nextNewKey));
    }
    CuckooFilter filter = fresh(rows(asRows(current)), 3000, fpp);
    List<Long> deletedEarlier = new ArrayList<>();
    long falsePositives = 0;
    long probes = 0;
    double expectedFalsePositives = 0;
    int rebuilds = 0;
    int deletedKeysKept = 0;
    int keysRemoved = 0;
    for (int step = 0; step < steps; step++) {
      boolean burst = step % 11 == 10;
      List<long[]> deleted = new ArrayList<>();
      List<long[]> added = new ArrayList<>();
      // Random rows: their keys may keep other rows.
      List<Long> ids = new ArrayList<>(current.keySet());
      int deletes = r.nextInt(0, 250);
      for (int i = 0; i < deletes && !ids.isEmpty(); i++) {
        int at = r.nextInt(ids.size());
        long id = ids.get(at);
        ids.set(at, ids.get(ids.size() - 1));
        ids.remove(ids.size() - 1);
        deleted.add(new long[] {current.remove(id), id});
      }
      // Whole keys: every row of a few keys.
      Set<Long> goners = new HashSet<>();
      List<Long> present = new ArrayList<>(new HashSet<>(current.values()));
      for (int i = r.nextInt(0, 60); i > 0 && !present.isEmpty(); i--) {
        goners.add(present.get(r.nextInt(present.size())));
      }
      current.entrySet().removeIf(e -> {
        if (goners.contains(e.getValue())) {
          deleted.add(new long[] {e.getValue(), e.getKey()});
          return true;
        }
        return false;
      });
      // New keys, duplicates, re-inserts of keys deleted now or earlier: about as many keys as left.
      int adds = r.nextInt(0, 250);
      List<Long> stillPresent = new ArrayList<>(current.values());
      for (int i = 0; i < adds; i++) {
        int kind = r.nextInt(4);
        long key;
        if (kind == 0 && !deleted.isEmpty()) {
          key = deleted.get(r.nextInt(deleted.size()))[0];
        } else if (kind == 1 && !deletedEarlier.isEmpty()) {
          key = deletedEarlier.get(r.nextInt(deletedEarlier.size()));
        } else if (kind == 2 && !stillPresent.isEmpty()) {
          key = stillPresent.get(r.nextInt(stillPresent.size()));
        } else {
          key = nextNewKey++;
        }
        current.put(nextRow, key);
        added.add(new long[] {key, nextRow++});
      }
      if (burst) {
        // Past the capacity: the filter is sized for expectedItems keys.
        long needed = filter.parameters().expectedItems() - new HashSet<>(current.values()).size() + 200
            + r.nextInt(300);
        for (long i = 0; i < needed; i++) {
          current.put(nextRow, nextNewKey);
          added.add(new long[] {nextNewKey++, nextRow++});
        }
      }
      for (long[] d : deleted) {
        deletedEarlier.add(d[0]);
      }

      Dataset<Row> now = rows(asRows(current));
      FilterParameters before = filter.parameters();
      UpdateResult result = FilterUpdater.update(filter, step % 2 == 0
          ? ChangeSet.of(rows(added), rows(deleted), now)
          : ChangeSet.between(rows(asRows(previous(current, deleted, added))), now), "k");
      filter = result.filter();
      Set<Long> keys = new HashSet<>(current.values());
      String at = "step " + step + " (" + result.summary() + ")";

      // A rebuild exactly when the new key set's entries exceed what the filter was sized for.
      Set<Long> entries = entries(keys, before);
      assertEquals(entries.size() > before.expectedItems(), result.rebuilt(), at);
      if (burst) {
        assertTrue(result.rebuilt(), at);
      }
      if (result.rebuilt()) {
        rebuilds++;
        assertEquals(fpp, filter.parameters().targetFpp(), 1e-15, at);
        assertTrue(filter.parameters().expectedItems() >= keys.size() * 1.4, at + ": room to grow");
      } else {
        deletedKeysKept += result.deletedKeptKeys();
        keysRemoved += result.entriesRemoved();
      }
      // No false negatives.
      for (long k : keys) {
        assertTrue(filter.mightContain(k), at + ": lost key " + k);
      }
      // One entry per distinct entry of the keys: nothing stale left behind, nothing stored twice.
      assertEquals((result.rebuilt() ? entries(keys, filter.parameters()) : entries).size(), filter.size(), at);
      // The bytes of a fresh build of the new dataset with the filter's parameters.
      assertArrayEquals(fresh(now, filter.parameters().expectedItems(), filter.parameters().targetFpp()).toByteArray(),
          filter.toByteArray(), at);
      // False positives on keys that were never in the dataset, fresh ones at every step.
      long fp = 0;
      long from = 1_000_000_000L + step * 1_000_000L;
      for (long k = from; k < from + probesPerStep; k++) {
        fp += filter.mightContain(k) ? 1 : 0;
      }
      double expected = filter.expectedFpp();
      assertTrue(fp <= probesPerStep * expected + 6 * Math.sqrt(probesPerStep * expected) + 5,
          at + ": " + fp + " false positives of " + probesPerStep + ", expected fpp " + expected);
      falsePositives += fp;
      probes += probesPerStep;
      expectedFalsePositives += probesPerStep * expected;
    }
    assertTrue(rebuilds >= steps / 11, rebuilds + " rebuilds");
    assertTrue(keysRemoved > 0 && deletedKeysKept > 0, keysRemoved + " removed, " + deletedKeysKept + " kept");
    double sigma = Math.sqrt(expectedFalsePositives);
    assertTrue(Math.abs(falsePositives - expectedFalsePositives) <= 5 * sigma, falsePositives
        + " false positives of " + probes + " probes, expected " + expectedFalsePositives + " +- " + sigma);
  }

  /** The distinct entries (fingerprint and bucket pair) of long keys in a filter with parameters {@code p}. */
  static Set<Long> entries(Set<Long> keys, FilterParameters p) {
    Set<Long> entries = new HashSet<>();
    for (long k : keys) {
      entries.add(entry(k, p));
    }
    return entries;
  }

  /** The entry of long key {@code k}, as the connector hashes it. */
  static long entry(long k, FilterParameters p) {
    return EntryCodes.ofHash(p, CuckooHash.hashLong(k, p.seed()));
  }

  static CuckooFilter fresh(Dataset<Row> data, long expectedItems, double fpp) throws Exception {
    return CuckooFilter.fromByteArray((byte[]) data.agg(dev.cuckoofilter.spark.CuckooFilters.filterOf(expectedItems,
        fpp, org.apache.spark.sql.functions.col("k"))).first().get(0));
  }

  static List<long[]> asRows(Map<Long, Long> rows) {
    List<long[]> out = new ArrayList<>();
    rows.forEach((id, key) -> out.add(new long[] {key, id}));
    return out;
  }

  /** The rows before a change, rebuilt from the rows after it. */
  static Map<Long, Long> previous(Map<Long, Long> after, List<long[]> deleted, List<long[]> added) {
    Map<Long, Long> before = new HashMap<>(after);
    for (long[] a : added) {
      before.remove(a[1]);
    }
    for (long[] d : deleted) {
      before.put(d[1], d[0]);
    }
    return before;
  }
}
